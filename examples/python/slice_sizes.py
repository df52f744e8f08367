"""Back substitution's row products with the vector taken from separate arrays: the lengths
of `A[i, i + 1:]` (N - i - 1) and `x[i:]` (M - i) agree for every i exactly when N == M + 1,
and `c[1:n - i]` (of K elements) reaches position n - i - 1 for every i exactly when N <= K. Only the
call can tell: both generated functions check this on entry and return ADJC_ERR_SHAPE
otherwise, where NumPy would raise or clip."""
# adjc check: --sizes N=5,M=4,K=6
import numpy as np


def slice_sizes(A: "float64[N, N]", x: "float64[M]", c: "float64[K]", y: "float64[N]"):
    n = A.shape[0]
    for i in range(n):
        y[i] = np.tanh(A[i, i + 1:] @ x[i:] + np.sum(x[i:] * c[1:n - i]))
