"""Vector multiplication and matrix addition (PolyBench gemver): a rank-2 update of A by two
outer products, then x += beta A^T y + z and w += alpha A x."""
# adjc check: --sizes N=5 --init alpha=const(1.5) --init beta=const(1.2)
import numpy as np


def gemver(
    alpha,
    beta,
    A: "float64[N, N]",
    u1: "float64[N]",
    v1: "float64[N]",
    u2: "float64[N]",
    v2: "float64[N]",
    w: "float64[N]",
    x: "float64[N]",
    y: "float64[N]",
    z: "float64[N]",
):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x
