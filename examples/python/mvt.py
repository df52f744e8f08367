"""Matrix-vector product and transpose (PolyBench mvt): x1 += A y1, x2 += A^T y2."""
# adjc check: --sizes N=5
import numpy as np


def mvt(
    x1: "float64[N]",
    x2: "float64[N]",
    y_1: "float64[N]",
    y_2: "float64[N]",
    A: "float64[N, N]",
):
    x1 += A @ y_1
    x2 += y_2 @ A
