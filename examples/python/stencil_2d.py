"""One explicit 5-point diffusion step on the interior of a 2-D grid."""
# adjc check: --sizes N=9,M=8


def stencil_2d(A, B, alpha):
    N, M = A.shape
    B[1:-1, 1:-1] = A[1:-1, 1:-1] + alpha * (
        A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] - 4.0 * A[1:-1, 1:-1]
    )
