"""Dense-layer activations plus a bias broadcast over the rows, followed by ReLU."""
# adjc check: --sizes N=6,M=5
import numpy as np


def bias_add(x, b):
    N, M = x.shape
    return np.maximum(x + b[np.newaxis, :], 0.0)
