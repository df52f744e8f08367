"""Lorenz-96 tendencies and a few explicit Euler steps, with NumPy's periodic indexing:
`X[i - 2]` and `X[i - 1]` at i = 0, 1 read the last elements, `X[(i + 1) % n]` wraps."""
# adjc check: --sizes n=9,steps=3
import numpy as np


def lorenz96(X, F, steps):
    n = X.shape[0]
    d = np.empty_like(X)
    for t in range(steps):
        for i in range(n):
            d[i] = (X[(i + 1) % n] - X[i - 2]) * X[i - 1] - X[i] + F
        X[:] = X + 0.01 * d
    return np.sum(X * X)
