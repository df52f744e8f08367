# expect: 6:12: the parts of `np.concatenate((A, B), axis=0)` differ along axis 1
import numpy as np


def kernel(A: "float64[N, 3]", B: "float64[N, 4]"):
    return np.concatenate((A, B), axis=0)
