# expect: 7:13: `continue`
import numpy as np

def kernel(A, N):
    for i in range(N):
        if i == 2:
            continue
        A[i] = A[i] * 2.0
