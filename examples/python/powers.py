"""Powers, transcendentals and clips that adjc writes without libm's pow: x**2 as x * x,
x**3 as x * x * x, x**-2 as 1.0 / (x * x), x**0.5 as sqrt(x), in both sweeps; the
derivative signs folded into the sums (`y_b -= ...`)."""
# adjc check: --sizes N=24 --init x=uniform(0.5,2.0) --init y=uniform(-1.5,1.5)
import numpy as np


def powers(x: "float64[N]", y: "float64[N]"):
    square = x**2 + y**3 - x**-2 + x**0.5 - y**-1
    logistic = 1.0 / (1.0 + np.exp(-y))
    squash = np.tanh(square * logistic) + np.exp(-(x**4)) * np.sin(y) ** 2
    return np.clip(squash, -0.5, 2.0) * x**-0.5 + np.cos(y) * np.sin(y)
