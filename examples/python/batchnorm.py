"""Batch normalisation over the batch axis (axis 0), without scale and shift: every feature
is centred by its batch mean and divided by its batch standard deviation."""
# adjc check: --sizes N=6,C=4
import numpy as np


def batchnorm(x: "float64[N, C]"):
    mean = np.mean(x, axis=0, keepdims=True)
    var = np.var(x, axis=0, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5)
