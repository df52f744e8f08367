"""One sweep of a weighted 3-point stencil over the interior of a 1-D field."""
# adjc check: --sizes u_n0=20


def stencil_1d(u, out):
    out[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
