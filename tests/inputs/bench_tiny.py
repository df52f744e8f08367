"""A tiny kernel for the `adjc bench` test: a local work array and a nonlinear overwrite."""
import numpy as np


def bench_tiny(TSTEPS, x: "float64[N]", y: "float64[N]"):
    s = np.sin(x)
    for t in range(TSTEPS):
        y[:] = s * y * y
