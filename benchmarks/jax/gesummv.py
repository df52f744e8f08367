"""gesummv: two matrix-vector products."""


def kernel(alpha, beta, A, B, x):
    return {"ret": alpha * A @ x + beta * B @ x}
