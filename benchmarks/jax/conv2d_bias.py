"""conv2d_bias: the loops over output pixels of the NumPy version are a 'valid' NHWC convolution
(weights HWIO), written with lax.conv_general_dilated as a JAX user would."""
from jax import lax


def kernel(input, weights, bias):
    out = lax.conv_general_dilated(input, weights, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return {"ret": out + bias}
