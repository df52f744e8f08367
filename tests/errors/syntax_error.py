# expect: 5:
import numpy as np

def kernel(A):
    return A * (2.0 +
