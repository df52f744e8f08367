"""symm: the i loop as a lax.fori_loop; the j loop (independent columns) vectorised with masks:
C[:i, :] += alpha A[i, :i]ᵀ B[i, :], temp2 = A[i, :i] B[:i, :]."""
import jax.numpy as jnp
from jax import lax


def kernel(alpha, beta, C, A, B):
    idx = jnp.arange(C.shape[0])
    C = C * beta

    def row(i, C):
        ai = jnp.where(idx < i, A[i], 0.0)[: C.shape[0]]
        C = C + alpha * jnp.outer(ai, B[i])
        temp2 = ai @ B
        return C.at[i].add(alpha * B[i] * A[i, i] + alpha * temp2)

    return {"C": lax.fori_loop(0, C.shape[0], row, C)}
