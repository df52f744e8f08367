"""ResNet basic block (NPBench resnet), NHWC: 1x1 convolution into a zero-padded buffer, then
batch norm + ReLU, 3x3 convolution, batch norm + ReLU, 1x1 convolution, batch norm, and the
residual connection with a final ReLU."""
# adjc check: --sizes N=3,input_n1=4,input_n2=4,input_n3=2,C_out=3,conv2_n0=3,conv2_n3=3
import numpy as np


def relu(x):
    return np.maximum(x, 0)


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


def batchnorm2d(x, eps=1e-5):
    mean = np.mean(x, axis=0, keepdims=True)
    std = np.std(x, axis=0, keepdims=True)
    return (x - mean) / np.sqrt(std + eps)


def resnet_basicblock(input, conv1, conv2, conv3):
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
