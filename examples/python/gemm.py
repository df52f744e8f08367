"""General matrix multiply (NPBench gemm): C = alpha * A @ B + beta * C, through BLAS."""
# adjc check: --sizes NI=7,NJ=6,NK=5


def gemm(alpha, beta, C: "float64[NI, NJ]", A: "float64[NI, NK]", B: "float64[NK, NJ]"):
    C[:] = alpha * A @ B + beta * C
