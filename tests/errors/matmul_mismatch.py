# expect: 6:12: shape mismatch in `A @ x`
import numpy as np


def kernel(A: "float64[N, K]", x: "float64[K + 1]"):
    return A @ x
