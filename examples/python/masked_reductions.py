"""Reductions over boolean-mask selections, as data-fitting codes write them: the misfit
over the cells where an observation is valid, the mean of the warm cells, and a peak over
`np.where` indices. The selections have data-dependent sizes; adjc never builds them: each
reduction runs over every element with the unselected ones replaced by its identity."""
# adjc check: --sizes N=40
import numpy as np


def masked_reductions(u: "float64[N]", obs: "float64[N]", w: float):
    valid = obs > 0.1
    misfit = np.sum((u[valid] - obs[valid]) ** 2)
    warm = u[u > 0.5].mean()
    peak = np.max(np.exp(w * u[np.where(u < 0.9)]))
    return misfit + warm + w * peak
