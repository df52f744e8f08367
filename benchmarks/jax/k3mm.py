def kernel(A, B, C, D):
    return {"ret": A @ B @ C @ D}
