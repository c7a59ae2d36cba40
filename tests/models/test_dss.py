"""DSS / S4D: the FFT convolution equals the step recurrence; finite precision; state sizes."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.dss import DSS, DSSConfig
from tests.models.contract import (
    FORMATS,
    assert_finite_step_composition,
    assert_forward_equals_steps,
    assert_learns_to_copy,
    build,
    tokens,
)

CONFIGS = [
    {"width": 8, "state_size": 4},
    {"width": 16, "layers": 2, "state_size": 8, "complex_a": False, "n_out": 3},
    {"width": 12, "layers": 2, "state_size": 6, "dt_min": 0.05, "dt_max": 0.5},
]


def make(seed: int = 0, **kw) -> DSS:
    return build(DSS, DSSConfig, seed, **{"vocab_size": 5, **kw})


@pytest.mark.parametrize("config", CONFIGS)
def test_convolution_equals_steps(config):
    assert_forward_equals_steps(make(**config), tokens(3, 40))


@pytest.mark.parametrize(("config", "fmt"), list(zip(CONFIGS, FORMATS, strict=True)), ids=str)
def test_finite_forward_is_the_step_composition(config, fmt):
    model = make(**config).set_precision(fmt)
    assert_finite_step_composition(model, tokens(3, 12), fmt, split=5)


def test_state_numel():
    assert make(width=16, state_size=8).state_numel() == 16 * 8 * 2  # complex: 2 numbers each
    assert make(width=16, state_size=8, complex_a=False).state_numel() == 16 * 8
    assert make(width=4, state_size=3, layers=2).state_numel() == 2 * 4 * 3 * 2


def test_user_errors():
    with pytest.raises(InputError, match="no field"):
        DSSConfig.from_dict({"d_state": 8})
    with pytest.raises(InputError, match="dt_min"):
        DSSConfig(dt_min=0.5, dt_max=0.1)
    with pytest.raises(InputError, match="bits <= 24"):
        make(width=16).set_precision(FixedPoint(30, 12))  # Re(C s) + D u: 33 terms


def test_learns_to_copy_the_current_token():
    model = make(width=16, state_size=4)
    assert_learns_to_copy(model, tokens(16, 8), lr=2e-2)
