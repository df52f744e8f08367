"""A 3-point smoothing of x into y (a NumPy kernel of the make example)."""


def smooth(x: "float64[N]", y: "float64[N]"):
    y[1:-1] = 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]
