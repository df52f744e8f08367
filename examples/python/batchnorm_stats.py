"""Batch normalisation that also returns the batch variance (running statistics are built
from it). The variance is read outside the normalisation, so the closed-form batch-norm
adjoint does not apply: the statement-wise adjoint is the correct one here."""
# adjc check: --sizes N=5,C=3
import numpy as np


def batchnorm_stats(x: "float64[N, C]"):
    mean = np.mean(x, axis=0, keepdims=True)
    var = np.var(x, axis=0, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5), var
