"""In-place LU factorisation without pivoting (Doolittle): L below the diagonal, U on and above it."""
# adjc check: --sizes A_n0=6,A_n1=6 --init A=diagdom


def lu(A):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]
