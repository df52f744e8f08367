"""NHWC 2-D convolution plus a per-channel bias (NPBench conv2d_bias), float32 as in the suite:
the output buffer is float32 and every output pixel is a 5-D broadcast product of an input
window with the weights, summed over the window and the input channels."""
# adjc check: --sizes N=2,H=6,W=6,C_in=2,C_out=3,K=3
import numpy as np


def conv2d(input, weights):
    K = weights.shape[0]
    N = input.shape[0]
    H_out = input.shape[1] - K + 1
    W_out = input.shape[2] - K + 1
    C_out = weights.shape[3]
    output = np.empty((N, H_out, W_out, C_out), dtype=np.float32)
    for i in range(H_out):
        for j in range(W_out):
            output[:, i, j, :] = np.sum(
                input[:, i:i + K, j:j + K, :, np.newaxis] * weights[np.newaxis, :, :, :],
                axis=(1, 2, 3),
            )
    return output


def conv2d_bias(
    input: "float32[N, H, W, C_in]",
    weights: "float32[K, K, C_in, C_out]",
    bias: "float32[C_out]",
):
    return conv2d(input, weights) + bias
