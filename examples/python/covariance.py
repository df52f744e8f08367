"""Covariance matrix of the M columns (variables) of an N x M data matrix; the upper triangle is
computed row by row and mirrored into the lower one."""
# adjc check: --sizes M=5,data_n0=7,data_n1=5 --init float_n=const(7.0)
import numpy as np


def covariance(M, float_n, data):
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov
