# expect: 6:40: `np.concatenate` with `axis=None` (flattening the parts) is not supported
import numpy as np


def kernel(A: "float64[N, N]", B: "float64[N, N]"):
    return np.concatenate((A, B), axis=None)
