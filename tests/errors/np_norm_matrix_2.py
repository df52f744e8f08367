# expect: 6:30: `ord=2` is not supported in `np.linalg.norm` of 2 axes
import numpy as np


def kernel(A: "float64[N, N]"):
    return np.linalg.norm(A, 2)
