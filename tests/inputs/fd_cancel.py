"""A correct kernel on which one central difference at h = 1e-6 is wrong (check.rs): the
outputs are about 1e3 and change by about 1e-9 over the step, so rounding (1e3 * 1e-16)
costs about 1e-4 relative error."""
import numpy as np


def fd_cancel(x: "float64[N]"):
    return 1000.0 + 0.001 * x * x
