# expect: 5:12: shape mismatch
import numpy as np

def kernel(A: "float64[N]", B: "float64[N + 1]"):
    return A + B
