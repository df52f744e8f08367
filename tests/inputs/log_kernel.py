"""np.log is NaN on the default inputs, uniform(-1, 1): check.rs expects a failure that says
so and points at --init."""
import numpy as np


def log_kernel(x: "float64[N]"):
    return np.log(x) * x
