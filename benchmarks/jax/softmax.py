import jax.numpy as jnp


def kernel(x):
    tmp_max = jnp.max(x, axis=-1, keepdims=True)
    tmp_out = jnp.exp(x - tmp_max)
    return {"ret": tmp_out / jnp.sum(tmp_out, axis=-1, keepdims=True)}
