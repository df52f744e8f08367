"""lu: the row loop as a lax.fori_loop; the lower part column by column (each A[i, j] needs the
row's earlier columns), the upper part (independent columns) as one masked vector-matrix product."""
import jax.numpy as jnp
from jax import lax


def lu_inplace(A):
    n = A.shape[0]
    idx = jnp.arange(n)

    def row(i, A):
        def lower(j, A):
            m = idx < j
            v = A[i, j] - jnp.dot(jnp.where(m, A[i], 0.0), jnp.where(m, A[:, j], 0.0))
            return A.at[i, j].set(jnp.where(j < i, v / A[j, j], A[i, j]))

        # Static bounds (reverse mode needs them): columns j >= i are left unchanged.
        A = lax.fori_loop(0, n, lower, A)
        m = idx < i
        upd = jnp.where(m, A[i], 0.0) @ jnp.where(m[:, None], A, 0.0)
        return A.at[i].set(jnp.where(idx >= i, A[i] - upd, A[i]))

    return lax.fori_loop(0, n, row, A)


def kernel(A):
    return {"A": lu_inplace(A)}
