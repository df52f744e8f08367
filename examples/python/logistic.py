"""Logistic regression with a few smooth features: adjoints that read the forward's values.
The sigmoid's derivative is p * (1 - p) read from p, exp's and sqrt's come from their stored
results; s is scaled in place after tanh wrote it, so tanh's derivative is recomputed."""
# adjc check: --sizes N=7,D=3
import numpy as np


def logistic(X: "float64[N, D]", w: "float64[D]", y: "float64[N]"):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    r = np.sqrt(z * z + 1.0)
    s = np.tanh(z)
    s *= 2.0
    e = np.exp(0.5 * z)
    loss = np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    return loss + np.sum(r * s * e)
