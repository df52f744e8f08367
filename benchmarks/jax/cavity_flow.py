"""cavity_flow: the time loop and the pressure iterations as lax.fori_loops; the helpers return
the arrays NumPy updates in place."""
import jax.numpy as jnp
from jax import lax


def _build_up_b(b, rho, dt, u, v, dx, dy):
    dudx = (u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)
    dvdy = (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)
    dudy = (u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy)
    dvdx = (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx)
    return b.at[1:-1, 1:-1].set(rho * (1 / dt * (dudx + dvdy) - dudx**2 - 2 * dudy * dvdx - dvdy**2))


def _pressure_poisson(nit, p, dx, dy, b):
    def it(q, p):
        pn = p
        p = p.at[1:-1, 1:-1].set(
            ((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy**2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx**2) / (2 * (dx**2 + dy**2))
            - dx**2 * dy**2 / (2 * (dx**2 + dy**2)) * b[1:-1, 1:-1]
        )
        p = p.at[:, -1].set(p[:, -2])
        p = p.at[0, :].set(p[1, :])
        p = p.at[:, 0].set(p[:, 1])
        return p.at[-1, :].set(0.0)

    return lax.fori_loop(0, nit, it, p)


def kernel(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    def step(n, s):
        u, v, p, b = s
        un, vn = u, v
        b = _build_up_b(b, rho, dt, u, v, dx, dy)
        p = _pressure_poisson(nit, p, dx, dy, b)
        u = u.at[1:-1, 1:-1].set(
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
        v = v.at[1:-1, 1:-1].set(
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
        u = u.at[0, :].set(0.0).at[:, 0].set(0.0).at[:, -1].set(0.0).at[-1, :].set(1.0)
        v = v.at[0, :].set(0.0).at[-1, :].set(0.0).at[:, 0].set(0.0).at[:, -1].set(0.0)
        return u, v, p, b

    b = jnp.zeros((ny, nx), dtype=u.dtype)
    u, v, p, _ = lax.fori_loop(0, nt, step, (u, v, p, b))
    return {"u": u, "v": v, "p": p}
