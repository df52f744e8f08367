"""NumPy promotion with float32 data and a float64 buffer: `W @ x` of float32 weights and a
float64 vector is float64; the float32 chain `tanh(W @ (V @ u))` stays float32 (sgemv) and is
cast up when added into the float64 accumulator."""
# adjc check: --sizes N=4,K=3
import numpy as np


def mixed_precision(W: "float32[N, K]", x: "float64[K]", V: "float32[K, N]", u: "float32[N]"):
    acc = np.zeros((W.shape[0],))
    acc += W @ x
    acc += np.tanh(W @ (V @ u))
    return acc
