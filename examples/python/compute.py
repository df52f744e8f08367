"""Clipped linear combination of two arrays (NPBench compute), float64 variant: the suite uses
int64 arrays, which have no derivative."""
# adjc check: --sizes M=5,N=6 --init array_1=uniform(0,12) --init a=const(4.0) --init b=const(3.0) --init c=const(9.0)
import numpy as np


def compute(array_1: "float64[M, N]", array_2: "float64[M, N]", a, b, c):
    return np.clip(array_1, 2, 10) * a + array_2 * b + c
