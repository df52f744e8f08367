"""pytest: the Python module `adjc build --python` writes for decay.py (its directory in
$ADJC_BUILD_DIR), used as fit.py uses it. Run by adjc/tests/python_module.rs."""

import importlib
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decay  # noqa: E402  the NumPy original
import fit  # noqa: E402

sys.path.insert(0, os.environ["ADJC_BUILD_DIR"])
decay_adjc = importlib.import_module("decay_adjc")


def test_forward_equals_numpy():
    t, obs = fit.observations()
    p = np.array([1.5, 0.4, 0.1])
    assert decay_adjc.decay_misfit(p, t, obs)["ret"] == pytest.approx(decay.decay_misfit(p, t, obs), rel=1e-13)


def test_gradient_equals_central_differences():
    t, obs = fit.observations()
    p = np.array([1.5, 0.4, 0.1])
    value, grads = decay_adjc.value_and_grad(p, t, obs)
    assert value == pytest.approx(decay.decay_misfit(p, t, obs), rel=1e-13)
    h = 1e-6
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        fd = (decay.decay_misfit(p + e, t, obs) - decay.decay_misfit(p - e, t, obs)) / (2 * h)
        assert grads["p"][k] == pytest.approx(fd, rel=1e-7, abs=1e-9)
    # value_and_grad leaves its arguments alone.
    assert np.array_equal(p, [1.5, 0.4, 0.1])


def test_fit_recovers_the_parameters_in_fewer_evaluations():
    t, obs = fit.observations()
    with_adjc = fit.fit_with_adjc(decay_adjc, t, obs)
    with_fd = fit.fit_with_finite_differences(decay_adjc, t, obs)
    assert np.allclose(with_adjc.x, fit.TRUE, atol=0.02)
    assert np.allclose(with_adjc.x, with_fd.x, atol=1e-5)
    # One adjoint call gives f and the gradient; forward differences need 4 calls for 3
    # parameters.
    assert with_adjc.nfev < with_fd.nfev


def test_arguments_are_checked():
    t, obs = fit.observations()
    with pytest.raises(TypeError, match="dtype int64, expected float64"):
        decay_adjc.decay_misfit(np.array([1, 2, 3]), t, obs)
    with pytest.raises(ValueError, match=r"`obs` has shape \(399,\), expected \(400,\)"):
        decay_adjc.decay_misfit(np.ones(3), t, obs[:-1])
    with pytest.raises(ValueError, match="C-contiguous"):
        decay_adjc.decay_misfit(np.ones(6)[::2], t, obs)
    with pytest.raises(TypeError, match="must be a NumPy array"):
        decay_adjc.decay_misfit([1.0, 2.0, 3.0], t, obs)
