"""Standardised columns of an N x M matrix, weighted by the rows: every statistic is a
reduction over the rows of each column, so the forward and the adjoint sweep the columns in
tiles along rows (autodiff/src/column_tiles.rs). 70 columns are two full tiles of 32 and a
partial one: with OpenMP at 3 threads a tile boundary or a shared per-tile scalar that
went wrong would change the gradient."""
# adjc check: --sizes N=9,M=70 --init x=uniform(0,4)
import numpy as np


def column_stats(x: "float64[N, M]", w: "float64[N]"):
    mean = np.mean(x, axis=0)
    std = np.std(x, axis=0)
    z = (x - mean) / std
    s = np.sum(w[:, None] * z * z * x, axis=0)
    return s / std + mean
