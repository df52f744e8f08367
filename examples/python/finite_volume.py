"""Upwind finite-volume steps on an unstructured mesh given as an edge list: every edge
gathers the values of its two cells (`q[edge_to_cell[e, 0]]`), computes the upwind flux
and scatters it back (`flux[edge_to_cell[e, 0]] -= f`), then every cell takes an explicit
step with a nonlinear sink. The connectivity is an integer input; `adjc check` draws it
over the cells (`randint(0, N)`, with repeats) unless given."""
# adjc check: --sizes N=12,E=30,T=3 --init area=uniform(1,2)
import numpy as np


def finite_volume(T: int, dt: float, q: "float64[N]", u: "float64[E]", area: "float64[N]",
                  edge_to_cell: "int64[E, 2]"):
    E = u.shape[0]
    flux = np.zeros_like(q)
    for t in range(T):
        flux[:] = 0.0
        for e in range(E):
            f = max(u[e], 0.0) * q[edge_to_cell[e, 0]] + min(u[e], 0.0) * q[edge_to_cell[e, 1]]
            flux[edge_to_cell[e, 0]] -= f
            flux[edge_to_cell[e, 1]] += f
        q[:] = q + dt * (flux / area - 0.1 * q * q)
    return np.sum(q * q)
