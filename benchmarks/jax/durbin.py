"""durbin: the k loop as a lax.fori_loop; the flipped prefixes r[:k][::-1], y[:k][::-1] as a roll of
the flipped vector, masked to the first k entries."""
import jax.numpy as jnp
from jax import lax


def kernel(r):
    n = r.shape[0]
    idx = jnp.arange(n)
    rf = jnp.flip(r)

    def step(k, s):
        y, alpha, beta = s
        m = idx < k
        beta = beta * (1.0 - alpha * alpha)
        alpha = -(r[k] + jnp.where(m, jnp.roll(rf, k), 0.0) @ y) / beta
        y = jnp.where(m, y + alpha * jnp.roll(jnp.flip(y), k), y)
        return y.at[k].set(alpha), alpha, beta

    y0 = jnp.zeros_like(r).at[0].set(-r[0])
    y, _, _ = lax.fori_loop(1, n, step, (y0, -r[0], jnp.ones((), dtype=r.dtype)))
    return {"ret": y}
