"""Sums into one element over inner loops whose trip count reaches zero (upper-triangular
row sums, odd sizes): the sum is accumulated in a local and written back only when the loop
runs (the last row has none)."""
# adjc check: --sizes N=7,M=5
import numpy as np


def tail_sums(A: "float64[N, M]", x: "float64[M]", w: "float64[N]"):
    y = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for j in range(i + 1, A.shape[0]):
            y[i] += A[j, 1] * x[2] * w[j]
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            y[i] += A[i, k] * x[k]
    return y * w
