"""softplus(x) = log(1 + exp(x)), scaled by a (a NumPy kernel of the make example)."""
import numpy as np


def softplus(a: float, x: "float64[N]", y: "float64[N]"):
    y[:] = a * np.log(1.0 + np.exp(x))
