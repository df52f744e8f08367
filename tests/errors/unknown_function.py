# expect: 5:12: `np.fft.fft`
import numpy as np

def kernel(A):
    return np.fft.fft(A)
