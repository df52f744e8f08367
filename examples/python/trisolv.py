"""Forward substitution: solves L x = b for a lower-triangular L, one row at a time."""
# adjc check: --sizes L_n0=7,L_n1=7,x_n0=7,b_n0=7 --init L=diagdom


def trisolv(L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
