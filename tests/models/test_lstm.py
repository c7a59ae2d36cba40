"""LSTM and GRU: forward equals the step composition, finite precision, state sizes, training."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.lstm import GRU, LSTM, RNNConfig

FLOAT_TOL = 1e-4  # max |forward - run_steps| in float32
CONFIGS = [
    {"width": 8, "layers": 1},
    {"width": 16, "layers": 2, "n_out": 3},
    {"width": 12, "layers": 3, "vocab_size": 9},
]
FORMATS = [FixedPoint(16, 8), FixedPoint(12, 6, "nearest"), FixedPoint(24, 16)]


def make(cls: type, seed: int = 0, **kw) -> LSTM | GRU:
    torch.manual_seed(seed)
    return cls(RNNConfig(**{"vocab_size": 5, **kw}))


def tokens(model: LSTM | GRU, batch: int, length: int, seed: int = 1) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, model.config.vocab_size, (batch, length), generator=gen)


def on_grid(x: torch.Tensor, fmt: FixedPoint) -> bool:
    scaled = x.detach() * 2.0**fmt.frac
    return bool(torch.equal(scaled, scaled.round())) and float(scaled.abs().max()) <= fmt.max_raw


@pytest.mark.parametrize("cls", [LSTM, GRU])
@pytest.mark.parametrize("config", CONFIGS)
def test_float_forward_equals_steps(cls, config):
    model = make(cls, **config)
    t = tokens(model, 3, 20)
    steps, _ = model.run_steps(t)
    out = model(t)
    assert out.shape == (3, 20, model.config.outputs)
    assert (out - steps).abs().max() < FLOAT_TOL


@pytest.mark.parametrize("cls", [LSTM, GRU])
@pytest.mark.parametrize(("config", "fmt"), list(zip(CONFIGS, FORMATS, strict=True)), ids=str)
@torch.no_grad()
def test_finite_forward_is_the_step_composition(cls, config, fmt):
    model = make(cls, **config).set_precision(fmt)
    t = tokens(model, 3, 12)
    out = model(t)
    steps, state = model.run_steps(t)
    assert torch.equal(out, steps)
    assert torch.equal(out, model(t))  # bit-identical twice
    assert on_grid(out, fmt) and all(on_grid(s, fmt) for s in state.values())
    # Theorem 2's cut: run a prefix, hand over the state, continue
    head, mid = model.run_steps(t[:, :6])
    tail, end = model.run_steps(t[:, 6:], mid)
    assert torch.equal(torch.cat([head, tail], dim=1), out)
    assert all(torch.equal(end[k], state[k]) for k in state)
    # one sequence alone gives its row of the batch
    assert torch.equal(model(t[1:2]), out[1:2])


@pytest.mark.parametrize(("cls", "per_layer"), [(LSTM, 2), (GRU, 1)])
def test_state_numel(cls, per_layer):
    assert make(cls, width=16).state_numel() == per_layer * 16  # LSTM: h and c; GRU: h
    assert make(cls, width=8, layers=3).state_numel() == per_layer * 8 * 3
    assert make(cls, width=8).state_bits(16) == per_layer * 8 * 16


def test_user_errors():
    with pytest.raises(InputError, match="no field"):
        RNNConfig.from_dict({"width": 8, "hidden": 4})
    with pytest.raises(InputError, match="width must be >= 1"):
        RNNConfig(width=0)
    with pytest.raises(InputError, match="bits <= 23"):
        make(LSTM, width=64).set_precision(FixedPoint(26, 12))  # 130 terms per gate


@pytest.mark.parametrize("cls", [LSTM, GRU])
def test_learns_to_copy_the_current_token(cls):
    model = make(cls, width=16)
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    t = tokens(model, 16, 8)
    losses = []
    for _ in range(15):
        loss = torch.nn.functional.cross_entropy(model(t).flatten(0, 1), t.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]
