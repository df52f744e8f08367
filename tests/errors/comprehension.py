# expect: 5:9: comprehension
import numpy as np

def kernel(A):
    B = [a * 2.0 for a in A]
    return B
