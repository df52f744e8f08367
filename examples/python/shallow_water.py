"""1-D shallow-water equations (conservative height, advective velocity): T explicit steps of
the flux form. The mass flux `hu` and the momentum flux `fu` are cheap maps of the state that
the adjoint recomputes from h and u instead of taping them every step."""
# adjc check: --sizes h_n0=24,T=5 --init g=const(9.81) --init dt=const(0.001) --init dx=const(0.1) --init h=uniform(1,2) --init u=uniform(-0.5,0.5)
import numpy as np


def shallow_water(T, g, dt, dx, h, u):
    for t in range(T):
        hu = h * u
        fu = 0.5 * u**2 + g * h
        h[1:-1] -= dt / (2.0 * dx) * (hu[2:] - hu[:-2])
        u[1:-1] -= dt / (2.0 * dx) * (fu[2:] - fu[:-2])
