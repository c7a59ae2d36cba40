"""RetNet: state sizes, errors and the decay per head (the contract: test_recurrent_contract)."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.retnet import RetNet, RetNetConfig
from tests.models.contract import build


def make(seed: int = 0, **kw) -> RetNet:
    return build(RetNet, RetNetConfig, seed, **{"vocab_size": 5, **kw})


def test_state_numel():
    # S (dh x dh) per head: width * dh per layer
    assert make(width=16, heads=4).state_numel() == 16 * 4
    assert make(width=16, heads=2, layers=3).state_numel() == 3 * 16 * 8


def test_user_errors():
    with pytest.raises(InputError, match="no field"):
        RetNetConfig.from_dict({"max_length": 8})
    with pytest.raises(InputError, match="heads"):
        RetNetConfig(width=10, heads=3)
    with pytest.raises(InputError, match="bits <= 24"):
        make(width=16).set_precision(FixedPoint(32, 16))  # mlp_width 64: 65 terms


def test_decay_per_head():
    model = make(width=16, heads=4)
    assert model.gamma.tolist() == [1 - 2**-5, 1 - 2**-6, 1 - 2**-7, 1 - 2**-8]
    # a lone token's contribution to the state decays by gamma per step
    state = model.initial_state(1)
    state, _ = model.step(state, torch.tensor([1]))
    after, _ = model.step({"S": state["S"].clone()}, torch.tensor([0]))
    with torch.no_grad():
        xn = model.norm(model.blocks[0].ln_ret, model.embedding(torch.tensor([0])))
        _, k, v = model.qkv(xn, 0)
        added = k[..., :, None] * v[..., None, :]
    expected = model.gamma[:, None, None] * state["S"][:, 0] + added
    assert torch.allclose(after["S"][:, 0], expected, atol=1e-6)
