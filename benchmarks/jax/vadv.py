"""vadv: the Thomas algorithm along k; the interior forward sweep and the backward substitution
as lax.fori_loops carrying (ccol, dcol) and (utens_stage, data_col)."""
import jax.numpy as jnp
from jax import lax

BET_M = 0.5
BET_P = 0.5


def kernel(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    I, J, K = utens_stage.shape
    ccol = jnp.zeros((I, J, K), dtype=utens_stage.dtype)
    dcol = jnp.zeros((I, J, K), dtype=utens_stage.dtype)
    # top level
    k = 0
    gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
    cs = gcv * BET_M
    c0 = gcv * BET_P
    bcol = dtr_stage - c0
    correction_term = -cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
    d0 = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term
    divided = 1.0 / bcol
    ccol = ccol.at[:, :, k].set(c0 * divided)
    dcol = dcol.at[:, :, k].set(d0 * divided)

    def interior(k, cd):
        ccol, dcol = cd
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ck = gcv * BET_P
        bcol = dtr_stage - acol - ck
        correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dk = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol = ccol.at[:, :, k].set(ck * divided)
        dcol = dcol.at[:, :, k].set((dk - dcol[:, :, k - 1] * acol) * divided)
        return ccol, dcol

    ccol, dcol = lax.fori_loop(1, K - 1, interior, (ccol, dcol))
    # bottom level
    k = K - 1
    gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
    as_ = gav * BET_M
    acol = gav * BET_P
    bcol = dtr_stage - acol
    correction_term = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k])
    dk = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction_term
    divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
    dcol = dcol.at[:, :, k].set((dk - dcol[:, :, k - 1] * acol) * divided)
    # backward substitution
    data_col = dcol[:, :, K - 1]
    utens_stage = utens_stage.at[:, :, K - 1].set(dtr_stage * (data_col - u_pos[:, :, K - 1]))

    def back(s, st):
        utens_stage, data_col = st
        k = K - 2 - s
        data_col = dcol[:, :, k] - ccol[:, :, k] * data_col
        return utens_stage.at[:, :, k].set(dtr_stage * (data_col - u_pos[:, :, k])), data_col

    utens_stage, _ = lax.fori_loop(0, K - 1, back, (utens_stage, data_col))
    return {"utens_stage": utens_stage}
