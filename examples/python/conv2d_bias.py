"""NHWC 2-D convolution ("valid" padding, stride 1) plus a per-channel bias (NPBench
conv2d_bias): every output pixel is a 5-D broadcast product of an input window with the
weights, summed over the window and the input channels."""
# adjc check: --sizes N=2,input_n1=6,input_n2=6,input_n3=2,K=3,C_out=3
import numpy as np


def conv2d(input, weights):
    K = weights.shape[0]
    N = input.shape[0]
    H_out = input.shape[1] - K + 1
    W_out = input.shape[2] - K + 1
    C_out = weights.shape[3]
    output = np.empty((N, H_out, W_out, C_out), dtype=input.dtype)
    for i in range(H_out):
        for j in range(W_out):
            output[:, i, j, :] = np.sum(
                input[:, i:i + K, j:j + K, :, np.newaxis] * weights[np.newaxis, :, :, :],
                axis=(1, 2, 3),
            )
    return output


def conv2d_bias(input, weights, bias: "float64[C_out]"):
    return conv2d(input, weights) + bias
