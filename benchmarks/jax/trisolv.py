"""trisolv: the row loop as a lax.fori_loop with a masked prefix dot."""
import jax.numpy as jnp
from jax import lax


def kernel(L, x, b):
    idx = jnp.arange(x.shape[0])

    def row(i, x):
        return x.at[i].set((b[i] - jnp.where(idx < i, L[i], 0.0) @ x) / L[i, i])

    return {"x": lax.fori_loop(0, x.shape[0], row, x)}
