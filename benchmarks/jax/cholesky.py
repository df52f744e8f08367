"""cholesky: the triangular loops as lax.fori_loops over the full range (reverse mode needs
static bounds), masked; the prefix dots A[i, :j]·A[j, :j] as masked
full-length dots (JAX slices cannot have traced lengths)."""
import jax.numpy as jnp
from jax import lax


def kernel(A):
    n = A.shape[0]
    idx = jnp.arange(n)
    A = A.at[0, 0].set(jnp.sqrt(A[0, 0]))

    def row(i, A):
        def col(j, A):
            m = idx < j
            v = A[i, j] - jnp.dot(jnp.where(m, A[i], 0.0), jnp.where(m, A[j], 0.0))
            return A.at[i, j].set(jnp.where(j < i, v / A[j, j], A[i, j]))

        # Static bounds (reverse mode needs them): columns j >= i are left unchanged.
        A = lax.fori_loop(0, n, col, A)
        ai = jnp.where(idx < i, A[i], 0.0)
        return A.at[i, i].set(jnp.sqrt(A[i, i] - ai @ ai))

    return {"A": lax.fori_loop(1, n, row, A)}
