# expect: 6:5: cannot check this index of `x` on entry: it is read from `idx`, which the function writes
import numpy as np

def kernel(x: "float64[N]", idx: "int64[K]"):
    idx[0] = 1
    return x[idx]
