# expect: 8:23: the slice start may fall outside the axis
import numpy as np


def blur(x: "float64[N]", y: "float64[N]"):
    n = x.shape[0]
    for i in range(n):
        y[i] = np.sum(x[i - 1:i + 2]) / 3.0
