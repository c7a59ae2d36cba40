"""Linear Transformer: the cumulative-sum form equals the RNN form; finite precision; state."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.linear_transformer import LinearTransformer, LinearTransformerConfig
from tests.models.contract import (
    FORMATS,
    assert_finite_step_composition,
    assert_forward_equals_steps,
    assert_learns_to_copy,
    build,
    tokens,
)

CONFIGS = [
    {"width": 8, "heads": 1},
    {"width": 16, "layers": 2, "heads": 4, "n_out": 3},
    {"width": 12, "layers": 2, "heads": 3, "mlp_width": 20},
]


def make(seed: int = 0, **kw) -> LinearTransformer:
    return build(LinearTransformer, LinearTransformerConfig, seed, **{"vocab_size": 5, **kw})


@pytest.mark.parametrize("config", CONFIGS)
def test_parallel_form_equals_steps(config):
    assert_forward_equals_steps(make(**config), tokens(3, 30))


@pytest.mark.parametrize(("config", "fmt"), list(zip(CONFIGS, FORMATS, strict=True)), ids=str)
def test_finite_forward_is_the_step_composition(config, fmt):
    assert_finite_step_composition(make(**config).set_precision(fmt), tokens(3, 12), fmt)


def test_state_numel():
    # S (dh x dh) and z (dh) per head: width * dh + width per layer
    assert make(width=16, heads=4).state_numel() == 16 * 4 + 16
    assert make(width=16, heads=2, layers=3).state_numel() == 3 * (16 * 8 + 16)


def test_user_errors():
    with pytest.raises(InputError, match="no field"):
        LinearTransformerConfig.from_dict({"max_length": 8})
    with pytest.raises(InputError, match="heads"):
        LinearTransformerConfig(width=10, heads=3)
    with pytest.raises(InputError, match="bits <= 24"):
        make(width=16).set_precision(FixedPoint(32, 16))  # mlp_width 64: 65 terms


def test_learns_to_copy_the_current_token():
    model = make(width=16)
    assert_learns_to_copy(model, tokens(16, 8), lr=1e-2)
