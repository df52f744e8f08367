"""An integer array that indexes nothing: `adjc check` knows no range for it (npz_inputs.rs)."""
import numpy as np

def int_unused(x: "float64[N]", k: "int64[N]"):
    return x * k
