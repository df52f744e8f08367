# expect: 5:12: shape mismatch
import numpy as np

def kernel(A: "float64[N]", B: "float64[M]"):
    return A + B
