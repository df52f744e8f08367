"""Matrix transpose and vector multiplication (PolyBench atax): y = A^T (A x)."""
# adjc check: --sizes M=5,N=4
import numpy as np


def atax(A: "float64[M, N]", x: "float64[N]"):
    return (A @ x) @ A
