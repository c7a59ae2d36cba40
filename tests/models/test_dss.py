"""DSS / S4D: state sizes and errors (the shared contract: test_recurrent_contract)."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.dss import DSS, DSSConfig
from tests.models.contract import build


def make(seed: int = 0, **kw) -> DSS:
    return build(DSS, DSSConfig, seed, **{"vocab_size": 5, **kw})


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
