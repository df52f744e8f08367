"""1-D stencils whose adjoint gathers over wide, asymmetric and one-sided offsets: a 5-point
stencil (offsets -2..2) with a weight array, a one-sided stencil with a gap (offsets 0, 1, 3)."""
# adjc check: --sizes a_n0=11,T=2
import numpy as np


def stencil_offsets(T, a, b, w):
    for t in range(T):
        b[2:-2] = 0.1 * a[:-4] + 0.2 * a[1:-3] + 0.4 * a[2:-2] + 0.2 * a[3:-1] + w[2:-2] * a[4:]
        a[:-3] = b[:-3] - 2.0 * b[1:-2] + np.sin(w[3:]) * b[3:]
