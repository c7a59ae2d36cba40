"""Every recurrent model of the zoo keeps the same contract: its parallel forward pass equals
the composition of its steps, in float and in finite precision (Thm 2's cut: run a prefix, hand
over the state, continue), and it learns to copy the current token. Each model's own file tests
what is its alone (state sizes, its errors, its mechanism)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from models.dss import DSS, DSSConfig
from models.linear_transformer import LinearTransformer, LinearTransformerConfig
from models.lstm import GRU, LSTM, RNNConfig
from models.retnet import RetNet, RetNetConfig
from tests.models.contract import (
    FORMATS,
    assert_finite_step_composition,
    assert_forward_equals_steps,
    assert_learns_to_copy,
    build,
    tokens,
)


@dataclass(frozen=True)
class Family:
    cls: type
    config_cls: type
    configs: list[dict[str, Any]]
    forward_length: int = 30  # the length the parallel form is compared at
    split: int | None = None  # the cut of the finite composition (None: the contract's)
    copy_lr: float = 1e-2
    copy_config: dict[str, Any] = field(default_factory=lambda: {"width": 16})


RNN_CONFIGS = [
    {"width": 8, "layers": 1},
    {"width": 16, "layers": 2, "n_out": 3},
    {"width": 12, "layers": 3, "vocab_size": 9},
]
HEADED_CONFIGS = [
    {"width": 8, "heads": 1},
    {"width": 16, "layers": 2, "heads": 4, "n_out": 3},
    {"width": 12, "layers": 2, "heads": 3, "mlp_width": 20},
]
FAMILIES = {
    "lstm": Family(LSTM, RNNConfig, RNN_CONFIGS, 20, 6, 2e-2),
    "gru": Family(GRU, RNNConfig, RNN_CONFIGS, 20, 6, 2e-2),
    "dss": Family(
        DSS,
        DSSConfig,
        [
            {"width": 8, "state_size": 4},
            {"width": 16, "layers": 2, "state_size": 8, "complex_a": False, "n_out": 3},
            {"width": 12, "layers": 2, "state_size": 6, "dt_min": 0.05, "dt_max": 0.5},
        ],
        40,
        5,
        2e-2,
        {"width": 16, "state_size": 4},
    ),
    "linear-transformer": Family(LinearTransformer, LinearTransformerConfig, HEADED_CONFIGS),
    "retnet": Family(RetNet, RetNetConfig, HEADED_CONFIGS),
}


def make(family: Family, seed: int = 0, **kw: Any) -> Any:
    return build(family.cls, family.config_cls, seed, **{"vocab_size": 5, **kw})


def cases() -> list[tuple[str, int]]:
    return [(name, i) for name, f in FAMILIES.items() for i in range(len(f.configs))]


@pytest.mark.parametrize(("name", "index"), cases())
def test_parallel_form_equals_steps(name: str, index: int) -> None:
    family = FAMILIES[name]
    model = make(family, **family.configs[index])
    assert_forward_equals_steps(model, tokens(3, family.forward_length, model.config.vocab_size))


@pytest.mark.parametrize(("name", "index"), cases())
def test_finite_forward_is_the_step_composition(name: str, index: int) -> None:
    family, fmt = FAMILIES[name], FORMATS[index]
    model = make(family, **family.configs[index]).set_precision(fmt)
    inputs = tokens(3, 12, model.config.vocab_size)
    if family.split is None:
        assert_finite_step_composition(model, inputs, fmt)
    else:
        assert_finite_step_composition(model, inputs, fmt, split=family.split)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_learns_to_copy_the_current_token(name: str) -> None:
    family = FAMILIES[name]
    model = make(family, **family.copy_config)
    assert_learns_to_copy(model, tokens(16, 8, model.config.vocab_size), lr=family.copy_lr)
