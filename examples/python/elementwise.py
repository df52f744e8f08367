"""Element-wise activation chain: softplus, a sigmoid gate, then tanh."""
# adjc check: --sizes N=16
import numpy as np


def elementwise(x: "float64[N]"):
    softplus = np.log(1.0 + np.exp(x))
    gate = 1.0 / (1.0 + np.exp(-x))
    return np.tanh(softplus * gate)
