# expect: 5:12: `.flags` is not supported
import numpy as np

def kernel(A: "float64[N]"):
    return A.flags * 2.0
