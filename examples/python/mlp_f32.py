"""Three-layer perceptron (NPBench mlp), float32 as in the suite: two dense layers with ReLU,
then a dense layer with a softmax over the features."""
# adjc check: --sizes N=3,C_in=4,S0=5,S1=6,S2=4 --seed 2
import numpy as np


def relu(x):
    return np.maximum(x, 0)


def softmax(x):
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum


def mlp(
    input: "float32[N, C_in]",
    w1: "float32[C_in, S0]",
    b1: "float32[S0]",
    w2: "float32[S0, S1]",
    b2: "float32[S1]",
    w3: "float32[S1, S2]",
    b3: "float32[S2]",
):
    x = relu(input @ w1 + b1)
    x = relu(x @ w2 + b2)
    x = softmax(x @ w3 + b3)
    return x
