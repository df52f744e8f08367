def kernel(A, p, r):
    return {"ret0": r @ A, "ret1": A @ p}
