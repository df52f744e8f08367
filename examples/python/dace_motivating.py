"""The motivating example of the DaCe AD paper (Boudaoud et al., "DaCe AD", 2025): three
intermediate arrays feed a `sin`, and the reverse sweep needs all three. Stored, they sit
in memory through the rest of the program, where the peak is; under a limit one array
short of that, the planner frees the cheapest one (`b`, one multiplication per element,
rather than `a` or `c`, two elementary functions each) after its forward use and
recomputes it right before the reverse sweep reads it. Expected plans (N=64, 512 bytes
per array) are in adjc/tests/memory.rs."""
# adjc check: --sizes N=64

import numpy as np


def dace_motivating(x: "float64[N]", y: "float64[N]", out: "float64[N]"):
    a = np.exp(np.sin(x))
    b = x * y
    c = np.exp(np.log(1.5 + y * y))
    s = np.sin(a * b * c)
    u = np.exp(s)
    v = np.cos(s)
    out[:] = u * v + s
