"""LeNet-5 forward pass (NPBench lenet), NHWC: two convolution + ReLU + 2x2 max-pool stages,
then three dense layers. The flattening reshape infers its second extent (`-1`) where the
suite passes it as a parameter `C_before_fc1`: adjc must see that the element counts agree."""
# adjc check: --sizes N=2,H=10,W=10,K=3,C1=2,C2=3,F1=5,F2=4,F3=3
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


def maxpool2d(x):
    output = np.empty(
        [x.shape[0], x.shape[1] // 2, x.shape[2] // 2, x.shape[3]], dtype=x.dtype
    )
    for i in range(x.shape[1] // 2):
        for j in range(x.shape[2] // 2):
            output[:, i, j, :] = np.max(
                x[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2, :], axis=(1, 2)
            )
    return output


def lenet5(
    input: "float64[N, H, W, 1]",
    conv1: "float64[K, K, 1, C1]",
    conv1bias: "float64[C1]",
    conv2: "float64[K, K, C1, C2]",
    conv2bias: "float64[C2]",
    fc1w: "float64[C2 * (((H - K + 1) // 2 - K + 1) // 2) * (((W - K + 1) // 2 - K + 1) // 2), F1]",
    fc1b: "float64[F1]",
    fc2w: "float64[F1, F2]",
    fc2b: "float64[F2]",
    fc3w: "float64[F2, F3]",
    fc3b: "float64[F3]",
    N,
):
    x = relu(conv2d(input, conv1) + conv1bias)
    x = maxpool2d(x)
    x = relu(conv2d(x, conv2) + conv2bias)
    x = maxpool2d(x)
    x = np.reshape(x, (N, -1))
    x = relu(x @ fc1w + fc1b)
    x = relu(x @ fc2w + fc2b)
    return x @ fc3w + fc3b
