"""BiCG sub-kernel of the BiCGStab linear solver (PolyBench bicg): s = r A and q = A p."""
# adjc check: --sizes M=5,N=4
import numpy as np


def bicg(A: "float64[N, M]", p: "float64[M]", r: "float64[N]"):
    return r @ A, A @ p
