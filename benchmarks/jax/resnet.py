"""resnet (adjc's resnet_basicblock): convolutions with lax.conv_general_dilated (NHWC, HWIO),
batch norm over the batch axis as in the NumPy version (sqrt(std + eps))."""
import jax.numpy as jnp
from jax import lax


def _conv(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def _batchnorm(x, eps=1e-5):
    mean = jnp.mean(x, axis=0, keepdims=True)
    std = jnp.std(x, axis=0, keepdims=True)
    return (x - mean) / jnp.sqrt(std + eps)


def kernel(input, conv1, conv2, conv3):
    n, h, w, _ = input.shape
    padded = jnp.zeros((n, h + 2, w + 2, conv1.shape[3]), dtype=input.dtype)
    padded = padded.at[:, 1:-1, 1:-1, :].set(_conv(input, conv1))
    x = jnp.maximum(_batchnorm(padded), 0)
    x = jnp.maximum(_batchnorm(_conv(x, conv2)), 0)
    x = _batchnorm(_conv(x, conv3))
    return {"ret": jnp.maximum(x + input, 0)}
