"""Newton's method per grid point: solve x**3 + (1 + c**2) x = y for x, point by point,
until the step is below a tolerance (a data-dependent `while` loop per point)."""
# adjc check: --sizes N=64 --max-trips L1=60
import numpy as np


def newton(c: "float64[N]", y: "float64[N]"):
    x = np.zeros_like(y)
    for i in range(y.shape[0]):
        a = 1.0 + c[i] * c[i]
        xi = y[i]
        dx = 1.0
        k = 0
        while abs(dx) > 1e-13 and k < 60:
            f = xi * xi * xi + a * xi - y[i]
            dx = f / (3.0 * xi * xi + a)
            xi = xi - dx
            k += 1
        x[i] = xi
    return x
