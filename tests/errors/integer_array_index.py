# expect: 5:12: integer-array indexing
import numpy as np

def kernel(x: "float64[N]", idx: "int64[M]"):
    return x[idx] * 2.0
