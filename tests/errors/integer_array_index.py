# expect: 5:14: integer array `idx` is not supported
import numpy as np

def kernel(x: "float64[N]", idx: "int64[M]"):
    return x[idx] * 2.0
