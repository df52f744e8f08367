"""shallow_water: the time loop as a lax.fori_loop over (h, u); the fluxes are recomputed each
step from the state, as in NumPy."""
from jax import lax


def kernel(T, g, dt, dx, h, u):
    def step(t, hu_state):
        h, u = hu_state
        hu = h * u
        fu = 0.5 * u**2 + g * h
        h = h.at[1:-1].add(-dt / (2.0 * dx) * (hu[2:] - hu[:-2]))
        u = u.at[1:-1].add(-dt / (2.0 * dx) * (fu[2:] - fu[:-2]))
        return h, u

    h, u = lax.fori_loop(0, T, step, (h, u))
    return {"h": h, "u": u}
