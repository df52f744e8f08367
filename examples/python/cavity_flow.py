"""Lid-driven cavity flow (2-D incompressible Navier-Stokes, finite differences): every time step
builds the pressure source term, relaxes the pressure Poisson equation, then advances u and v.
The helpers update their array arguments in place."""
# adjc check: --sizes nx=6,ny=6,nt=6,nit=2 --init dt=const(0.01) --init dx=const(0.2) --init dy=const(0.2) --init rho=const(1.0) --init nu=const(0.1)
import numpy as np


def build_up_b(b, rho, dt, u, v, dx, dy):
    dudx = (u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)
    dvdy = (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)
    dudy = (u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy)
    dvdx = (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)
    b[1:-1, 1:-1] = rho * (1 / dt * (dudx + dvdy) - dudx**2 - 2 * dudy * dvdx - dvdy**2)


def pressure_poisson(nit, p, dx, dy, b):
    pn = np.empty_like(p)
    pn = p.copy()
    for q in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = ((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) / (
            2 * (dx**2 + dy**2)
        ) - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
        # Neumann walls (dp/dn = 0) and p = 0 on the lid
        p[:, -1] = p[:, -2]
        p[0, :] = p[1, :]
        p[:, 0] = p[:, 1]
        p[-1, :] = 0


def cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    un = np.empty_like(u)
    vn = np.empty_like(v)
    b = np.zeros((ny, nx))

    for n in range(nt):
        un = u.copy()
        vn = v.copy()

        build_up_b(b, rho, dt, u, v, dx, dy)
        pressure_poisson(nit, p, dx, dy, b)

        u[1:-1, 1:-1] = (
            un[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
            - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
            - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
            + nu
            * (
                dt / dx**2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                + dt / dy**2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1] + un[0:-2, 1:-1])
            )
        )
        v[1:-1, 1:-1] = (
            vn[1:-1, 1:-1]
            - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
            - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
            - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
            + nu
            * (
                dt / dx**2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                + dt / dy**2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])
            )
        )

        # no-slip walls; the lid (last row) moves with unit speed
        u[0, :] = 0
        u[:, 0] = 0
        u[:, -1] = 0
        u[-1, :] = 1
        v[0, :] = 0
        v[-1, :] = 0
        v[:, 0] = 0
        v[:, -1] = 0
