"""Found by tests/gen/run.py (py seed 21, reduced by hand from the runner's reduction). A local scalar
assigned from a dot product and never read is not declared in the C: `s1 = cblas_ddot(...)`
with `'s1' undeclared` in both functions, so the generated C does not compile.
Show: adjc check dead_dot_scalar_c_build.py --sizes N=3"""
import numpy as np


def kernel(x: "float64[N]", y: "float64[N]"):
    s1 = np.dot(x, x)
    y[:] += x
