"""Levinson-Durbin recursion: solves the Yule-Walker system of a Toeplitz matrix given by r."""
# adjc check: --sizes r_n0=6 --init r=uniform(-0.3,0.3)
import numpy as np


def durbin(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y
