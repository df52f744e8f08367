"""Source names that C cannot use as they are: keywords, libm and POSIX functions, macros,
the runtime's reserved prefix and names the check driver itself uses."""
import numpy as np


def forward(I, y1, int, double, j0, exp, data):
    main = np.sin(I) * y1
    free = np.cos(exp) + int
    for adjc_k in range(j0):
        double[:] = double * main + free * data
    return main * free
