# expect: 6:12: `np.arange(0.0, t, 0.5)` with float bounds known only at run time is not supported
import numpy as np


def kernel(u: "float64[N]", t: float):
    return np.arange(0.0, t, 0.5)
