"""Row and column statistics: sums, means and maxima along an axis, kept for broadcasting."""
# adjc check: --sizes n=6,m=7
import numpy as np


def reductions(X):
    n, m = X.shape
    row_sum = np.sum(X, axis=1)
    col_mean = np.mean(X, axis=0, keepdims=True)
    centered = X - col_mean
    peak = np.max(np.abs(centered), axis=-1, keepdims=True)
    total = np.sum(X)
    return row_sum / total, centered / peak
