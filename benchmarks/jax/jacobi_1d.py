"""jacobi_1d: the NumPy time loop as a lax.fori_loop over (A, B)."""
from jax import lax


def kernel(TSTEPS, A, B):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1].set(0.33333 * (A[:-2] + A[1:-1] + A[2:]))
        A = A.at[1:-1].set(0.33333 * (B[:-2] + B[1:-1] + B[2:]))
        return A, B

    A, B = lax.fori_loop(1, TSTEPS, step, (A, B))
    return {"A": A, "B": B}
