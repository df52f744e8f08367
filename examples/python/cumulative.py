"""A cumulative-sum integrator: positions from velocities by the trapezoidal rule
(`np.cumsum` of the increments), the running growth of compounded rates (`np.cumprod`
along an axis, with some rates exactly zero), and per-row running totals."""
# adjc check: --sizes N=17,M=5,K=6
import numpy as np


def cumulative(v: "float64[N]", rates: "float64[M, K]", dt: "float64"):
    increments = 0.5 * dt * (v[1:] + v[:-1])
    x = np.cumsum(increments)
    # A factor of exactly zero at every third step: the running product's adjoint must not
    # divide by it (the gradient at the zeros is the product of the other factors).
    factors = 1.0 + 0.1 * v
    factors[2::3] = 0.0
    survival = np.cumprod(factors)
    growth = np.cumprod(1.0 + 0.05 * rates, axis=0)
    totals = rates.cumsum(axis=-1)
    energy = np.sum(x * x) * dt
    return x, survival, growth, totals * totals, energy
