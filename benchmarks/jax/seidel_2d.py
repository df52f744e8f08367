"""seidel_2d: t, i and j loops as lax.fori_loops; the row update of i reads rows i-1 (already
updated) and i+1, then the recurrence along j."""
from jax import lax


def kernel(TSTEPS, N, A):
    def row(i, A):
        v = (
            A[i, 1:-1] + A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2]
            + A[i + 1, 1:-1] + A[i + 1, 2:]
        )
        r = A[i].at[1:-1].set(v)
        r = lax.fori_loop(1, N - 1, lambda j, r: r.at[j].set((r[j] + r[j - 1]) / 9.0), r)
        return A.at[i].set(r)

    A = lax.fori_loop(0, TSTEPS - 1, lambda t, A: lax.fori_loop(1, N - 1, row, A), A)
    return {"A": A}
