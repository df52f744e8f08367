"""Mean and standard deviation of every column, returned as a tuple."""
# adjc check: --sizes n=7,m=5
import numpy as np


def tuple_return(data):
    n, m = data.shape
    mean = np.sum(data, axis=0) / n
    centered = data - mean
    std = np.sqrt(np.sum(centered * centered, axis=0) / n)
    return mean, std
