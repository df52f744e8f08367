"""The misfit of an exponential decay model to observations: a NumPy kernel whose gradient
(with respect to the three model parameters) scipy.optimize uses to fit them."""

import numpy as np


def decay_misfit(p: "float64[3]", t: "float64[M]", obs: "float64[M]") -> float:
    model = p[0] * np.exp(-p[1] * t) + p[2]
    r = model - obs
    return 0.5 * np.sum(r * r)
