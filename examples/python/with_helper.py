"""Explicit diffusion time steps written with helpers: one returns a value, one mutates its argument."""
# adjc check: --sizes u_n0=8,u_n1=9,nt=3
import numpy as np

NU = 0.1


def laplacian(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]


def apply_boundary(u):
    u[0, :] = 0.0
    u[-1, :] = 0.0
    u[:, 0] = 0.0
    u[:, -1] = 0.0


def with_helper(nt, u, dt):
    for n in range(nt):
        un = u.copy()
        u[1:-1, 1:-1] = un[1:-1, 1:-1] + NU * dt * laplacian(un)
        apply_boundary(u)
