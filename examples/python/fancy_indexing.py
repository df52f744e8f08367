"""NumPy's integer-array (fancy) indexing: gathers `x[idx]`, `A[rows, cols]`, `A[:, idx]`,
a scatter `y[idx] = v` (of repeated indices the last write wins), `y[idx] += v` (adds once
per distinct index, as NumPy does) and `np.add.at` (adds every term)."""
# adjc check: --sizes N=10,K=14,M=6
import numpy as np


def fancy_indexing(x: "float64[N]", w: "float64[K]", A: "float64[M, N]", idx: "int64[K]",
                   rows: "int64[K]", cols: "int64[K]"):
    g = x[idx] * w
    h = np.sin(A[rows, cols]) * g
    y = np.zeros_like(x)
    y[idx] = h * x[idx]
    y[idx] += g * g
    z = np.exp(0.1 * x)
    np.add.at(z, idx, h * w)
    B = A[:, idx]
    return np.sum(y * z) + np.sum(B * B)
