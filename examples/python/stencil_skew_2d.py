"""A 2-D stencil with asymmetric offsets in both axes and a coefficient array, and a 3-D
stencil shifted on one side only: their adjoints gather with peeled boundaries."""
# adjc check: --sizes A_n0=7,A_n1=8,X_n0=5,X_n1=4,X_n2=6


def stencil_skew_2d(A, B, C, X, Y):
    B[1:-2, 2:] = A[:-3, 2:] + 0.5 * A[2:-1, :-2] - C[1:-2, 2:] * A[3:, 1:-1] + A[1:-2, 2:] * A[1:-2, 2:]
    Y[1:, :-1, 1:-1] = X[:-1, :-1, 1:-1] + X[1:, 1:, 1:-1] + 2.0 * X[1:, :-1, 2:] - X[1:, :-1, :-2]
