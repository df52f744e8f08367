"""Softmax and log-sum-exp of the same rows. The row sum and the row maximum are used twice,
so the softmax adjoint rule does not apply: the statement-wise adjoint (with the arg-max and
the sum's broadcast) is the correct one here."""
# adjc check: --sizes N=3,M=5
import numpy as np


def softmax_lse(x: "float64[N, M]"):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    s = np.sum(e, axis=-1, keepdims=True)
    return e / s, np.log(s) + m
