"""Linear transformer: state sizes and errors (the shared contract: test_recurrent_contract)."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.linear_transformer import LinearTransformer, LinearTransformerConfig
from tests.models.contract import build


def make(seed: int = 0, **kw) -> LinearTransformer:
    return build(LinearTransformer, LinearTransformerConfig, seed, **{"vocab_size": 5, **kw})


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
