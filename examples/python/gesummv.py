"""Scalar, vector and matrix multiplication (PolyBench gesummv): y = alpha A x + beta B x."""
# adjc check: --sizes N=5 --init alpha=const(1.5) --init beta=const(1.2)
import numpy as np


def gesummv(alpha, beta, A: "float64[N, N]", B: "float64[N, N]", x: "float64[N]"):
    return alpha * A @ x + beta * B @ x
