# expect: 7:13: `break`
import numpy as np

def kernel(A, N):
    for i in range(N):
        if i > 3:
            break
        A[i] = A[i] * 2.0
