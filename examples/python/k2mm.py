"""Two matrix multiplications (NPBench k2mm): D = alpha * A @ B @ C + beta * D, through BLAS."""
# adjc check: --sizes NI=6,NJ=5,NK=4,NL=7


def k2mm(alpha, beta, A: "float64[NI, NK]", B: "float64[NK, NJ]", C: "float64[NJ, NL]", D: "float64[NI, NL]"):
    D[:] = alpha * A @ B @ C + beta * D
