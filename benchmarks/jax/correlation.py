"""correlation: the loop over column pairs is the product dataᵀ·data off the diagonal, 1 on it."""
import jax.numpy as jnp


def kernel(M, float_n, data):
    mean = jnp.mean(data, axis=0)
    stddev = jnp.std(data, axis=0)
    stddev = jnp.where(stddev <= 0.1, 1.0, stddev)
    data = (data - mean) / (jnp.sqrt(float_n) * stddev)
    corr = jnp.where(jnp.eye(M, dtype=bool), 1.0, data.T @ data)
    return {"ret": corr, "data": data}
