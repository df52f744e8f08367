"""Softmax over the last axis of a 4-D float32 tensor of attention scores."""
# adjc check: --sizes N=2,H=3,SM=8
import numpy as np


def softmax(x: "float32[N, H, SM, SM]"):
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum
