"""lenet (adjc's lenet5): convolutions with lax.conv_general_dilated (NHWC, HWIO), 2x2 max pooling
as a max over a reshaped window axis (odd edges dropped, as the NumPy loops do)."""
import jax.numpy as jnp
from jax import lax


def _conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _maxpool(x):
    n, h, w, c = x.shape
    x = x[:, : 2 * (h // 2), : 2 * (w // 2), :]
    return jnp.max(x.reshape(n, h // 2, 2, w // 2, 2, c), axis=(2, 4))


def kernel(input, conv1, conv1bias, conv2, conv2bias, fc1w, fc1b, fc2w, fc2b, fc3w, fc3b, N):
    x = jnp.maximum(_conv(input, conv1) + conv1bias, 0)
    x = _maxpool(x)
    x = jnp.maximum(_conv(x, conv2) + conv2bias, 0)
    x = _maxpool(x)
    x = jnp.reshape(x, (N, -1))
    x = jnp.maximum(x @ fc1w + fc1b, 0)
    x = jnp.maximum(x @ fc2w + fc2b, 0)
    return {"ret": x @ fc3w + fc3b}
