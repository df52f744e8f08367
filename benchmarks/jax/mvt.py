def kernel(x1, x2, y_1, y_2, A):
    return {"x1": x1 + A @ y_1, "x2": x2 + y_2 @ A}
