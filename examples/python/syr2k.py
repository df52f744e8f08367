"""Symmetric rank-2k update of the lower triangle: C = alpha * (A @ B.T + B @ A.T) + beta * C."""
# adjc check: --sizes C_n0=6,C_n1=6,A_n0=6,A_n1=5,B_n0=6,B_n1=5


def syr2k(alpha, beta, C, A, B):
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += A[:i + 1, k] * alpha * B[i, k] + B[:i + 1, k] * alpha * A[i, k]
