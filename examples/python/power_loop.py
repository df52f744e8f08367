"""Repeated multiplication: p = x**n computed by overwriting p n times, then a polynomial-like
accumulation of the running powers."""
# adjc check: --sizes N=6,n=4 --init x=uniform(0.5,1.5)
import numpy as np


def power_loop(x: "float64[N]", n: int):
    p = np.ones_like(x)
    acc = np.zeros_like(x)
    for k in range(n):
        p = p * x
        acc += p / (k + 1)
    return p, acc
