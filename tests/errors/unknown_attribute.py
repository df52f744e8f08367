# expect: 5:12: `A.flags`
import numpy as np

def kernel(A):
    return A.flags * 2.0
