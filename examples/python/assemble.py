"""Arrays assembled from others: periodic shifts (`np.roll`), differences (`np.diff`),
joins (`np.concatenate`, `np.stack`, `np.hstack`, `np.vstack`), triangles (`np.triu`,
`np.tril`) and evenly spaced coordinates (`np.linspace`, `np.arange`)."""
# adjc check: --sizes N=9,M=4
import numpy as np


def assemble(u: "float64[N]", A: "float64[N, N]", B: "float64[M, N]"):
    n = len(u)
    # A periodic centred difference and a second difference.
    lap = np.roll(u, 1) - 2.0 * u + np.roll(u, -1)
    du = np.diff(u)
    d2A = np.diff(A, n=2, axis=0)
    # Joins along existing and new axes.
    w = np.concatenate((np.roll(u, 3), du, u[::-1]))
    S = np.stack((u, lap), axis=1)
    H = np.hstack((u, du))
    V = np.vstack((A, B))
    V2 = np.vstack((u, lap))
    # Strict upper triangle, lower triangle with the diagonal and the first superdiagonal.
    U = np.triu(A, k=1) + 2.0 * np.tril(A, 1)
    shifted = np.roll(A, -2, axis=1)
    # Coordinates.
    x = np.linspace(0.0, 1.0, n)
    x_open = np.linspace(-1.0, 2.0, n, endpoint=False)
    k = np.arange(n)
    odd = np.arange(1, n, 2)
    g = u * x + x_open * u * u + k * u
    h = odd * u[1::2]
    return w, S, H, V * V, V2, U, shifted * A, d2A, g, h
