"""Triangular matrix multiply B = alpha * A.T @ B with A unit lower triangular."""
# adjc check: --sizes A_n0=6,A_n1=6,B_n1=5
import numpy as np


def trmm(alpha, A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += np.dot(A[i + 1:, i], B[i + 1:, j])
    B *= alpha
