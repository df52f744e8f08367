"""Symmetric rank-k update of the lower triangle: C = alpha * A @ A.T + beta * C."""
# adjc check: --sizes C_n0=6,C_n1=6,A_n0=6,A_n1=5


def syrk(alpha, beta, C, A):
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
