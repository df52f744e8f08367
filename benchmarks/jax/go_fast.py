"""go_fast: the diagonal loop is a sum of tanh over the diagonal."""
import jax.numpy as jnp


def kernel(a):
    return {"ret": a + jnp.sum(jnp.tanh(jnp.diagonal(a)))}
