"""Found by tests/gen/run.py (old generator, py seed 109, reduced). `B[i, j - 1]` at j == 0 is
B[i, -1] (the last column) in NumPy; the C reads before the row: ASan global-buffer-overflow.
Show: CFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=all -g -O1' adjc check computed_negative_index_asan.py --sizes N=1,M=1"""
import numpy as np


def kernel(x: "float64[N]", y: "float64[N]", z: "float64[M]", A: "float64[N, M]", B: "float64[N, M]", alpha: float):
    N, M = A.shape
    for i in range(N):
        for j in range(M):
            B[i, j] = B[i, j - 1]
