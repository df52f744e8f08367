# expect: 5:5: returns a value early but not at its end
import numpy as np

def kernel(A, N):
    for i in range(N):
        if i > 2:
            return A
        A[i] = A[i] + 1.0
