def kernel(A, x):
    return {"ret": (A @ x) @ A}
