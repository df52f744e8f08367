"""A weighted sum that skips non-positive weights with `continue` and stops early with
`return` once the running total passes a cap (early exits in a loop and in a helper)."""
# adjc check: --sizes N=40
import numpy as np


def clipped(v, cap):
    if v > cap:
        return cap
    return v


def early_exit(x: "float64[N]", w: "float64[N]", cap: float):
    total = 0.0
    for i in range(x.shape[0]):
        if w[i] <= 0.0:
            continue
        total += clipped(w[i] * x[i] * x[i], cap)
        if total > 4.0 * cap:
            return total * 0.5
    return total
