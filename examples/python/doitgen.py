"""Multi-resolution analysis kernel (MADNESS): every length-NP fibre A[r, q, :] is multiplied by
the matrix C4, written as one batched matrix product over reshaped views."""
# adjc check: --sizes NR=3,NQ=4,NP=5
import numpy as np


def doitgen(NR, NQ, NP, A, C4):
    A[:] = np.reshape(np.reshape(A, (NR, NQ, 1, NP)) @ C4, (NR, NQ, NP))
