"""syr2k: the i, k loops update the lower triangle: C = tril(beta C + alpha (B Aᵀ + A Bᵀ))."""
import jax.numpy as jnp


def kernel(alpha, beta, C, A, B):
    low = jnp.tril(jnp.ones(C.shape, dtype=bool))
    return {"C": jnp.where(low, beta * C + alpha * (B @ A.T) + alpha * (A @ B.T), C)}
