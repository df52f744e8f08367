"""A nonlinear fixed point x = tanh(W x / (2 N) + b) / (1 + d**2), iterated until the update
is below a tolerance. The map is a contraction (|tanh'| <= 1, entries of W in [0, 1)), so
`--fixed-point` applies: the adjoint iterates the adjoint fixed point at the converged x
instead of taping the trips."""
# adjc check: --sizes N=48 --fixed-point 14
import numpy as np


def fixed_point(W: "float64[N, N]", b: "float64[N]", d: "float64[N]"):
    n = b.shape[0]
    x = np.zeros_like(b)
    err = 1.0
    k = 0
    while err > 1e-14 and k < 500:
        xn = np.tanh(0.5 * (W @ x) / n + b) / (1.0 + d * d)
        err = np.max(np.abs(xn - x))
        x[:] = xn
        k += 1
    return x
