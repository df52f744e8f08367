"""Element-wise choices: a conditional expression on a scalar, np.where, np.clip and a boolean
mask assignment, combined in one soft-thresholding step."""
# adjc check: --sizes N=7,M=6 --init lam=const(0.3)
import numpy as np


def select(x: "float64[N, M]", lam: float):
    scale = 2.0 * lam if lam > 0.1 else lam
    shrunk = np.where(np.abs(x) > scale, x - np.sign(x) * scale, 0.0)
    y = np.clip(shrunk + 0.1 * x, -0.4, 0.4)
    y[y < -0.3] = -0.3
    y[x > 0.8] *= 0.5
    return y
