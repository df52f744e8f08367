"""`np.einsum` contractions that are matrix products become the same BLAS calls as `@`:
gemm (also on transposed operands and for a transposed result), gemv, dot and an outer
product, and a stack of matrices times a matrix."""
# adjc check: --sizes N=4,K=3,M=5,B=2
import numpy as np


def einsum_products(
    A: "float64[N, K]", C: "float64[K, M]", D: "float64[M, K]", x: "float64[K]", y: "float64[N]", S: "float64[B, N, K]"
):
    P = np.einsum("ij,jk->ik", A, C)
    Q = np.einsum("ij,kj->ki", A, D)
    R = np.einsum("ji,jk->ik", C, A.T)
    v = np.einsum("ij,j->i", A, x)
    w = np.einsum("j,ji->i", y, A)
    s = np.einsum("i,i->", v, y)
    O = np.einsum("i,j->ij", y, x)
    T = np.einsum("bij,jk->bik", S, C)
    return np.sum(P * Q.T) + np.sum(R * R) + s * np.sum(w) + np.sum(np.tanh(O)) + np.sum(T * T)
