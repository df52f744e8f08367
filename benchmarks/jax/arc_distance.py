"""arc_distance: elementwise, as in NumPy."""
import jax.numpy as jnp


def kernel(theta_1, phi_1, theta_2, phi_2):
    temp = jnp.sin((theta_2 - theta_1) / 2) ** 2 + jnp.cos(theta_1) * jnp.cos(theta_2) * jnp.sin((phi_2 - phi_1) / 2) ** 2
    return {"ret": 2 * jnp.arctan2(jnp.sqrt(temp), jnp.sqrt(1 - temp))}
