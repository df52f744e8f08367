"""Explicit diffusion steps of a 1-D field u, with diffusivity kappa (a NumPy kernel)."""


def diffusion(u: "float64[N]", kappa: float, steps: int):
    for s in range(steps):
        u[1:-1] = u[1:-1] + kappa * (u[:-2] - 2.0 * u[1:-1] + u[2:])
