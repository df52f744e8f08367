# expect: 5:5: `while`
import numpy as np

def kernel(x, N):
    while N > 0:
        x[0] = x[0] * 2.0
        N = N - 1
