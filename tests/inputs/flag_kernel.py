"""A logical switch chooses the update: `adjc check --sizes N=5,square=1`."""
import numpy as np


def flag_kernel(x: "float64[N]", square: bool):
    if square:
        y = x * x
    else:
        y = np.sin(x)
    return y
