"""ResNet basic block (NPBench resnet) with float32 data as in the suite: the convolutions write
float32 buffers, but the zero-padded buffer is float64 (`np.zeros` default), so the first batch
norm runs in float64 on float32 data."""
# adjc check: --sizes N=3,H=4,W=4,C1=2,C2=3
import numpy as np


def relu(x):
    return np.maximum(x, 0)


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


def batchnorm2d(x, eps=1e-5):
    mean = np.mean(x, axis=0, keepdims=True)
    std = np.std(x, axis=0, keepdims=True)
    return (x - mean) / np.sqrt(std + eps)


def resnet_basicblock(
    input: "float32[N, H, W, C1]",
    conv1: "float32[1, 1, C1, C2]",
    conv2: "float32[3, 3, C2, C2]",
    conv3: "float32[1, 1, C2, C1]",
):
    padded = np.zeros((input.shape[0], input.shape[1] + 2, input.shape[2] + 2, conv1.shape[3]))
    padded[:, 1:-1, 1:-1, :] = conv2d(input, conv1)
    x = batchnorm2d(padded)
    x = relu(x)
    x = conv2d(x, conv2)
    x = batchnorm2d(x)
    x = relu(x)
    x = conv2d(x, conv3)
    x = batchnorm2d(x)
    return relu(x + input)
