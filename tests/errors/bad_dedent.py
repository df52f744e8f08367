# expect: 6:7: unindent does not match any outer indentation level
import numpy as np
def f(x: "float64[N]"):
    for i in range(3):
        x[i] = 2.0 * x[i]
      x[0] = 1.0
