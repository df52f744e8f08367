"""Bisection search per point: the root of g(x) = x + x**3 / (1 + s**2) - t**2 in [0, 8],
halving the bracket until it is narrow enough (`break`), then one secant step."""
# adjc check: --sizes N=32
import numpy as np


def bisection(s: "float64[N]", t: "float64[N]"):
    out = np.zeros_like(t)
    for i in range(t.shape[0]):
        p = 1.0 + s[i] * s[i]
        q = t[i] * t[i]
        lo = 0.0
        hi = 8.0
        for it in range(100):
            mid = 0.5 * (lo + hi)
            if mid + mid * mid * mid / p - q > 0.0:
                hi = mid
            else:
                lo = mid
            if hi - lo < 1e-9:
                break
        glo = lo + lo * lo * lo / p - q
        ghi = hi + hi * hi * hi / p - q
        out[i] = lo - glo * (hi - lo) / (ghi - glo)
    return out
