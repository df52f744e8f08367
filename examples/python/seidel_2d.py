"""2-D Gauss-Seidel relaxation: each row uses the updated row above, then a recurrence along the row."""
# adjc check: --sizes N=7,A_n0=7,A_n1=7,TSTEPS=3


def seidel_2d(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (
                A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:]
            )
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
