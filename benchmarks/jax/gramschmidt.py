"""gramschmidt: the k loop as a lax.fori_loop; the j > k loop as a masked vector-matrix product and
a rank-1 update."""
import jax.numpy as jnp
from jax import lax


def kernel(A):
    n = A.shape[1]
    idx = jnp.arange(n)

    def step(k, s):
        A, Q, R = s
        rkk = jnp.sqrt(A[:, k] @ A[:, k])
        q = A[:, k] / rkk
        Q = Q.at[:, k].set(q)
        r = jnp.where(idx > k, q @ A, 0.0)
        R = R.at[k].set(jnp.where(idx > k, r, R[k])).at[k, k].set(rkk)
        A = A - jnp.outer(q, r)
        return A, Q, R

    A, Q, R = lax.fori_loop(0, n, step, (A, jnp.zeros_like(A), jnp.zeros((n, n), dtype=A.dtype)))
    return {"A": A, "ret0": Q, "ret1": R}
