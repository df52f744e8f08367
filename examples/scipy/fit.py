"""Fit the exponential decay model of decay.py to noisy observations with
scipy.optimize.minimize(method="BFGS", jac=True), the gradient coming from adjc's adjoint
(`adjc build decay.py --wrt p --python -o DIR` writes DIR/decay_adjc.py and its library),
next to the same fit with scipy's finite-difference gradient.

    python examples/scipy/fit.py DIR      # prints both fits: iterations, evaluations, time
"""

import importlib
import sys
import time

import numpy as np
from scipy.optimize import minimize

TRUE = np.array([2.0, 0.7, 0.3])
START = np.array([1.0, 0.2, 0.0])


def observations(m=400, seed=0):
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 8.0, m)
    obs = TRUE[0] * np.exp(-TRUE[1] * t) + TRUE[2] + 0.01 * rng.standard_normal(m)
    return t, obs


def fit_with_adjc(decay_adjc, t, obs):
    """BFGS with f and its gradient from one call of the adjoint."""

    def f_and_grad(p):
        value, grads = decay_adjc.value_and_grad(np.ascontiguousarray(p), t, obs)
        return value, grads["p"]

    return minimize(f_and_grad, START, jac=True, method="BFGS", options={"gtol": 1e-10})


def fit_with_finite_differences(decay_adjc, t, obs):
    """The same fit, the gradient by scipy's forward differences of the C forward function."""

    def f(p):
        return decay_adjc.decay_misfit(np.ascontiguousarray(p), t, obs)["ret"]

    return minimize(f, START, method="BFGS", options={"gtol": 1e-10})


def main(build_dir):
    sys.path.insert(0, build_dir)
    decay_adjc = importlib.import_module("decay_adjc")
    t, obs = observations()
    for name, fit in [("adjc gradient", fit_with_adjc), ("finite differences", fit_with_finite_differences)]:
        start = time.perf_counter()
        result = fit(decay_adjc, t, obs)
        seconds = time.perf_counter() - start
        print(
            "%-18s p = %s  misfit %.6e  iterations %3d  function evaluations %4d  %.1f ms"
            % (name, np.array2string(result.x, precision=6), result.fun, result.nit, result.nfev, 1e3 * seconds)
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
