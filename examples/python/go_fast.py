"""Sum of tanh over the diagonal of a matrix, added to every element."""
# adjc check: --sizes a_n0=8,a_n1=8
import numpy as np


def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace
