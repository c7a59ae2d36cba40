"""LSTM and GRU: state sizes and errors (the shared contract: test_recurrent_contract)."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.lstm import GRU, LSTM, RNNConfig
from tests.models.contract import build


def make(cls: type, seed: int = 0, **kw) -> LSTM | GRU:
    return build(cls, RNNConfig, seed, **{"vocab_size": 5, **kw})


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
