"""adi: the time loop and the four sweeps as lax.fori_loops (the backward sweeps count down)."""
import jax.numpy as jnp
from jax import lax


def kernel(TSTEPS, N, u):
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1, B2 = 2.0, 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul2
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    n = u.shape[0]

    def step(t, s):
        u, v, p, q = s
        v = v.at[0, 1:N - 1].set(1.0)
        p = p.at[1:N - 1, 0].set(0.0)
        q = q.at[1:N - 1, 0].set(v[0, 1:N - 1])

        def col_fwd(j, pq):
            p, q = pq
            den = a * p[1:N - 1, j - 1] + b
            p = p.at[1:N - 1, j].set(-c / den)
            q = q.at[1:N - 1, j].set(
                (-d * u[j, 0:N - 2] + (1.0 + 2.0 * d) * u[j, 1:N - 1] - f * u[j, 2:N] - a * q[1:N - 1, j - 1]) / den
            )
            return p, q

        p, q = lax.fori_loop(1, N - 1, col_fwd, (p, q))
        v = v.at[N - 1, 1:N - 1].set(1.0)

        def col_back(k, v):
            j = N - 2 - k
            return v.at[j, 1:N - 1].set(p[1:N - 1, j] * v[j + 1, 1:N - 1] + q[1:N - 1, j])

        v = lax.fori_loop(0, N - 2, col_back, v)
        u = u.at[1:N - 1, 0].set(1.0)
        p = p.at[1:N - 1, 0].set(0.0)
        q = q.at[1:N - 1, 0].set(u[1:N - 1, 0])

        def row_fwd(j, pq):
            p, q = pq
            den = d * p[1:N - 1, j - 1] + e
            p = p.at[1:N - 1, j].set(-f / den)
            q = q.at[1:N - 1, j].set(
                (-a * v[0:N - 2, j] + (1.0 + 2.0 * a) * v[1:N - 1, j] - c * v[2:N, j] - d * q[1:N - 1, j - 1]) / den
            )
            return p, q

        p, q = lax.fori_loop(1, N - 1, row_fwd, (p, q))
        u = u.at[1:N - 1, N - 1].set(1.0)

        def row_back(k, u):
            j = N - 2 - k
            return u.at[1:N - 1, j].set(p[1:N - 1, j] * u[1:N - 1, j + 1] + q[1:N - 1, j])

        u = lax.fori_loop(0, N - 2, row_back, u)
        return u, v, p, q

    z = jnp.zeros((n, n), dtype=u.dtype)
    u, _, _, _ = lax.fori_loop(1, TSTEPS + 1, step, (u, z, z, z))
    return {"u": u}
