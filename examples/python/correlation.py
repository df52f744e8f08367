"""Correlation matrix of the M columns (variables) of an N x M data matrix: standardise every
column (guarding near-constant ones), then form the pairwise dot products."""
# adjc check: --sizes M=5,data_n0=8,data_n1=5 --init float_n=const(8.0) --init data=uniform(0,4)
import numpy as np


def correlation(M, float_n, data):
    mean = np.mean(data, axis=0)
    stddev = np.std(data, axis=0)
    stddev[stddev <= 0.1] = 1.0
    data -= mean
    data /= np.sqrt(float_n) * stddev
    corr = np.eye(M, dtype=data.dtype)
    for i in range(M - 1):
        corr[i + 1:M, i] = corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
    return corr
