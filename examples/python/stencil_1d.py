"""One sweep of a weighted 3-point stencil over the interior of a 1-D field."""


def stencil_1d(u, out):
    out[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
