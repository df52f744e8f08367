"""Found by tests/gen/run.py (py seed 6, reduced). `x[i - 1]` at i == 0 is x[-1] in NumPy;
at N=1 the forward differs from NumPy (rel. error 5.7e-1) and d/dalpha is wrong (FD 0, adjoint -0.17).
Show: adjc check computed_negative_index_gradient.py --sizes N=1,M=1,T=2"""
import numpy as np


def kernel(x: "float64[N]", y: "float64[N]", z: "float64[M]", A: "float64[N, M]", B: "float64[N, M]", alpha: float, T: int):
    N, M = A.shape
    for t in range(T):
        for i in range(N):
            x[i] = 0.5 * x[i] + 0.3 * (x[i - 1] * alpha)
    y[::2] = np.abs(np.minimum(x[::-2], y[::2]))
