"""Batched matrix products and norms: one gemm per matrix of a stack (`@` on 3-D
operands), the Frobenius norm of each product, vector 2-norms along an axis, and the
`math` functions and `np.float64` casts of scalar code."""
# adjc check: --sizes B=3,N=5,K=4,M=6
import math
import numpy as np


def batched(X: "float64[B, N, K]", W: "float64[B, K, M]", v: "float64[N]", s: "float64"):
    Y = X @ W
    G = np.matmul(np.transpose(X[0]) @ X[0], W)
    frob = np.linalg.norm(Y)
    rows = np.linalg.norm(Y, axis=2)
    l1 = np.linalg.norm(v, 1)
    lmax = np.linalg.norm(v, ord=np.inf)
    vn = v / np.linalg.norm(v)
    scale = math.exp(-0.5 * s) + math.sqrt(1.0 + s * s) + math.sin(s) * math.cos(s)
    scale = scale + math.tanh(s) + math.log(2.0 + s * s) + math.atan2(s, 2.0) + math.pow(s * s, 1.5)
    t = np.float64(scale) * np.float64(frob)
    return Y, G, rows * t, vn * (l1 + lmax)
