"""heat_3d: the NumPy time loop as a lax.fori_loop over (A, B)."""
from jax import lax


def _update(A):
    return (
        0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
        + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
        + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
        + A[1:-1, 1:-1, 1:-1]
    )


def kernel(TSTEPS, A, B):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1, 1:-1].set(_update(A))
        A = A.at[1:-1, 1:-1, 1:-1].set(_update(B))
        return A, B

    A, B = lax.fori_loop(1, TSTEPS, step, (A, B))
    return {"A": A, "B": B}
