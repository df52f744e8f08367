"""A search with `for ... else` per point: walk a table of breakpoints until the first one
above the value (`break`); when none is (the loop ends without `break`), the `else` block
extrapolates from the last interval. Then a damped fixed-point refinement with
`while ... else`."""
# adjc check: --sizes N=24,K=6 --max-trips 22=3
import numpy as np


def search_else(x: "float64[N]", knots: "float64[K]", slope: "float64[K]"):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        v = 8.0 * x[i]
        y = 0.0
        for k in range(1, knots.shape[0]):
            if v < k:
                y = slope[k - 1] * (v - k + 1) + knots[k - 1]
                break
        else:
            y = slope[knots.shape[0] - 1] * (v - knots.shape[0] + 1) + knots[knots.shape[0] - 1]
        z = y
        n = 0
        while n < 3:
            z = 0.5 * (z + np.sin(z) * y)
            n += 1
            if z > 1.0:
                break
        else:
            z = z + 0.25 * y * y
        out[i] = z
    return out
