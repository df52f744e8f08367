"""fdtd_2d: the NumPy time loop as a lax.fori_loop over (ex, ey, hz)."""
from jax import lax


def kernel(TMAX, ex, ey, hz, _fict_):
    def step(t, s):
        ex, ey, hz = s
        ey = ey.at[0, :].set(_fict_[t])
        ey = ey.at[1:, :].add(-0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].add(-0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].add(-0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]))
        return ex, ey, hz

    ex, ey, hz = lax.fori_loop(0, TMAX, step, (ex, ey, hz))
    return {"ex": ex, "ey": ey, "hz": hz}
