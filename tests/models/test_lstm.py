"""LSTM and GRU: forward equals the step composition, finite precision, state sizes, training."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.lstm import GRU, LSTM, RNNConfig
from tests.models.contract import (
    FORMATS,
    assert_finite_step_composition,
    assert_forward_equals_steps,
    assert_learns_to_copy,
    build,
    tokens,
)

CONFIGS = [
    {"width": 8, "layers": 1},
    {"width": 16, "layers": 2, "n_out": 3},
    {"width": 12, "layers": 3, "vocab_size": 9},
]


def make(cls: type, seed: int = 0, **kw) -> LSTM | GRU:
    return build(cls, RNNConfig, seed, **{"vocab_size": 5, **kw})


def tokens_for(model: LSTM | GRU, batch: int, length: int) -> torch.Tensor:
    return tokens(batch, length, model.config.vocab_size)


@pytest.mark.parametrize("cls", [LSTM, GRU])
@pytest.mark.parametrize("config", CONFIGS)
def test_float_forward_equals_steps(cls, config):
    model = make(cls, **config)
    assert_forward_equals_steps(model, tokens_for(model, 3, 20))


@pytest.mark.parametrize("cls", [LSTM, GRU])
@pytest.mark.parametrize(("config", "fmt"), list(zip(CONFIGS, FORMATS, strict=True)), ids=str)
def test_finite_forward_is_the_step_composition(cls, config, fmt):
    model = make(cls, **config).set_precision(fmt)
    # the cut at 6 is Theorem 2's: run a prefix, hand over the state, continue
    assert_finite_step_composition(model, tokens_for(model, 3, 12), fmt, split=6)


@pytest.mark.parametrize(("cls", "per_layer"), [(LSTM, 2), (GRU, 1)])
def test_state_numel(cls, per_layer):
    assert make(cls, width=16).state_numel() == per_layer * 16  # LSTM: h and c; GRU: h
    assert make(cls, width=8, layers=3).state_numel() == per_layer * 8 * 3
    assert make(cls, width=8).state_bits(16) == per_layer * 8 * 16


def test_user_errors():
    with pytest.raises(InputError, match="no field"):
        RNNConfig.from_dict({"width": 8, "hidden": 4})
    with pytest.raises(InputError, match=r"width must be an integer in 1\.\."):
        RNNConfig(width=0)
    with pytest.raises(InputError, match="bits <= 23"):
        make(LSTM, width=64).set_precision(FixedPoint(26, 12))  # 130 terms per gate


@pytest.mark.parametrize("cls", [LSTM, GRU])
def test_learns_to_copy_the_current_token(cls):
    model = make(cls, width=16)
    assert_learns_to_copy(model, tokens_for(model, 16, 8), lr=2e-2)
