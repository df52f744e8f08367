"""A correct kernel on which one central difference at h = 1e-6 is wrong (check.rs): the
third derivative of sin(1e5 x) is 1e10 times its first, so the truncation error of the
difference, about (1e5 h)^2 / 6 = 2e-3, exceeds the 1e-6 tolerance."""
import numpy as np


def fd_stiff(x: "float64[N]"):
    return np.sin(100000.0 * x)
