"""In-place Cholesky factorisation A = L L^T of a symmetric positive definite matrix (lower triangle)."""
# adjc check: --sizes A_n0=6,A_n1=6 --init A=spd
import numpy as np


def cholesky(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
