"""Dense linear algebra with LAPACK: a Cholesky factor of a covariance matrix, a linear
solve with one and with several right-hand sides (`np.linalg.solve`, LU with partial
pivoting), and the log-determinant and Mahalanobis distance they give."""
# adjc check: --sizes N=6,K=3
import numpy as np


def linalg(X: "float64[N, N]", b: "float64[N]", B: "float64[N, K]"):
    n = X.shape[0]
    # A well-conditioned system and a symmetric positive definite covariance.
    A = X + n * np.eye(n)
    C = X @ X.T + np.eye(n)
    L = np.linalg.cholesky(C)
    x = np.linalg.solve(A, b)
    Y = np.linalg.solve(A.T, B)
    z = np.linalg.solve(L, b)
    logdet = 0.0
    for i in range(n):
        logdet += 2.0 * np.log(L[i, i])
    maha = np.sum(z * z)
    return L, x, Y, maha + logdet
