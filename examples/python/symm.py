"""Symmetric matrix multiply C = alpha * A @ B + beta * C, with A stored in its lower triangle."""
# adjc check: --sizes C_n0=5,C_n1=6,A_n0=5,A_n1=5,B_n0=5
import numpy as np


def symm(alpha, beta, C, A, B):
    temp2 = np.empty((C.shape[1],), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2
