def kernel(alpha, beta, A, B, C, D):
    return {"D": alpha * A @ B @ C + beta * D}
