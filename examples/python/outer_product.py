"""`np.outer` stored into an array is a zero fill and a `ger` (its adjoint: two `gemv`s); inside
an expression it stays element-wise, fused into the map that uses it."""
# adjc check: --sizes N=4,M=3
import numpy as np


def outer_product(u: "float64[N]", v: "float64[M]", w: "float64[M]", A: "float64[N, M]"):
    G = np.outer(u, v)
    H = A + 0.5 * np.outer(u, w)
    return np.tanh(G @ w) + H @ v
