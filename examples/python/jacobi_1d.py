"""1-D Jacobi stencil: TSTEPS sweeps of a 3-point average, ping-ponging between A and B."""
# adjc check: --sizes A_n0=30,TSTEPS=5


def jacobi_1d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
