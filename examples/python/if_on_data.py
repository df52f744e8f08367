"""Data-dependent branches inside loops: a piecewise update chosen per element by its sign,
and a running scalar whose update rule switches when it crosses a threshold."""
# adjc check: --sizes N=8,M=6


def if_on_data(x: "float64[N, M]", y: "float64[N, M]"):
    N, M = x.shape
    total = 0.0
    for i in range(N):
        for j in range(M):
            if x[i, j] > 0.0:
                y[i, j] = y[i, j] * x[i, j] + 1.0
            elif x[i, j] > -0.5:
                y[i, j] = y[i, j] - x[i, j] * x[i, j]
            else:
                y[i, j] = 2.0 * y[i, j]
        if total > 1.0:
            total = 0.5 * total + y[i, 0]
        else:
            total += y[i, 0] * y[i, 0]
    return total
