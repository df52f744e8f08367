# expect: 5:14: indexing with the float array `y` is not supported
import numpy as np

def kernel(x: "float64[N]", y: "float64[M]"):
    return x[y] * 2.0
