"""A matrix-vector product whose inner extents (K, M) are separate size parameters: the
generated functions check K == M on entry and return ADJC_ERR_SHAPE otherwise."""
# adjc check: --sizes N=4,K=3,M=3
import numpy as np


def matvec_sizes(A: "float64[N, K]", x: "float64[M]", b: "float64[N]"):
    return np.tanh(A @ x + b)
