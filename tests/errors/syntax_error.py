# expect: 5:5: syntax error
import numpy as np

def kernel(A):
    return A * (2.0 +
