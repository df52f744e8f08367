# expect: 4:1: `Q`
# flags: --wrt Q
import numpy as np
def kernel(A: "float64[N]"):
    return np.sum(A * A)
