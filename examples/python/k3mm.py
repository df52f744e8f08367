"""Three chained matrix multiplications (PolyBench 3mm): G = (A B)(C D)."""
# adjc check: --sizes NI=4,NJ=5,NK=6,NL=3,NM=5
import numpy as np


def k3mm(A: "float64[NI, NK]", B: "float64[NK, NJ]", C: "float64[NJ, NM]", D: "float64[NM, NL]"):
    return A @ B @ C @ D
