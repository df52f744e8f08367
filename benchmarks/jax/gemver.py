import jax.numpy as jnp


def kernel(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A = A + jnp.outer(u1, v1) + jnp.outer(u2, v2)
    x = x + beta * y @ A + z
    w = w + alpha * A @ x
    return {"A": A, "x": x, "w": w}
