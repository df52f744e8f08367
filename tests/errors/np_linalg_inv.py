# expect: 6:12: `np.linalg.inv` is not supported yet
import numpy as np


def kernel(A: "float64[N, N]"):
    return np.linalg.inv(A)
