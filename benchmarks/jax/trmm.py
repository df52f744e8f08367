"""trmm: row i of B gains A[i+1:, i]·B[i+1:, :] (rows below, not yet updated): a lax.fori_loop over
rows with a masked vector-matrix product for the j loop."""
import jax.numpy as jnp
from jax import lax


def kernel(alpha, A, B):
    idx = jnp.arange(B.shape[0])

    def row(i, B):
        return B.at[i].add(jnp.where(idx > i, A[:, i], 0.0) @ B)

    B = lax.fori_loop(0, B.shape[0], row, B)
    return {"B": alpha * B}
