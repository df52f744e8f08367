"""covariance: the loop over columns (upper triangle mirrored) is the full symmetric product."""
import jax.numpy as jnp


def kernel(M, float_n, data):
    data = data - jnp.mean(data, axis=0)
    cov = data.T @ data / (float_n - 1.0)
    return {"ret": cov, "data": data}
