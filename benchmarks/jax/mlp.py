import jax.numpy as jnp


def _relu(x):
    return jnp.maximum(x, 0)


def _softmax(x):
    tmp_max = jnp.max(x, axis=-1, keepdims=True)
    tmp_out = jnp.exp(x - tmp_max)
    return tmp_out / jnp.sum(tmp_out, axis=-1, keepdims=True)


def kernel(input, w1, b1, w2, b2, w3, b3):
    x = _relu(input @ w1 + b1)
    x = _relu(x @ w2 + b2)
    return {"ret": _softmax(x @ w3 + b3)}
