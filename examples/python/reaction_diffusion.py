"""1-D reaction-diffusion (Fisher-KPP): TSTEPS explicit steps of diffusion plus the logistic
reaction u (1 - u), squashed by tanh. Nonlinear, so the store-all adjoint tapes every step: the
time loop to checkpoint (README, "Checkpointing time loops")."""
# adjc check: --sizes u_n0=24,TSTEPS=6
import numpy as np


def reaction_diffusion(TSTEPS, u, v):
    for t in range(TSTEPS):
        v[1:-1] = u[1:-1] + 0.2 * (u[:-2] - 2.0 * u[1:-1] + u[2:]) + 0.1 * u[1:-1] * (1.0 - u[1:-1])
        u[1:-1] = np.tanh(v[1:-1])
