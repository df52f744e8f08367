"""A gather: the integer index array `idx` comes from `adjc check --inputs` (npz_inputs.rs, sanitize.rs)."""
import numpy as np

def gather_kernel(x: "float64[M]", idx: "int64[N]"):
    N = idx.shape[0]
    y = np.zeros(N)
    for i in range(N):
        y[i] = x[idx[i]] * x[idx[i]]
    return y
