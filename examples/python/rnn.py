"""A small recurrent network: T steps of h = tanh(W h + U x_t + b), then a linear read-out.
The products are gemv calls inside the time loop in both sweeps; the adjoint needs each
step's pre-activation back, so it is taped per step."""
# adjc check: --sizes T=5,H=4,D=3,O=2
import numpy as np


def rnn(W: "float64[H, H]", U: "float64[H, D]", b: "float64[H]", V: "float64[O, H]", xs: "float64[T, D]", h0: "float64[H]"):
    h = h0.copy()
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return V @ h
