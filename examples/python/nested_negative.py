"""Nested backward loops (negative steps): a suffix recurrence over the rows, then a decaying
sweep from the last column to the first inside a backward row loop."""
# adjc check: --sizes N=6,M=5


def nested_negative(A: "float64[N, M]", B: "float64[N, M]"):
    N, M = A.shape
    for i in range(N - 2, -1, -1):
        for j in range(M - 1, -1, -2):
            A[i, j] = A[i, j] + 0.5 * A[i + 1, j] * B[i, j]
    for i in range(N - 1, 0, -1):
        for j in range(M - 2, -1, -1):
            B[i, j] = 0.25 * B[i, j + 1] + B[i - 1, j] * A[i, j]
