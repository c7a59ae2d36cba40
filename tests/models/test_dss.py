"""DSS / S4D: the FFT convolution equals the step recurrence; finite precision; state sizes."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.dss import DSS, DSSConfig

FLOAT_TOL = 1e-4  # max |forward - run_steps| in float32
CONFIGS = [
    {"width": 8, "state_size": 4},
    {"width": 16, "layers": 2, "state_size": 8, "complex_a": False, "n_out": 3},
    {"width": 12, "layers": 2, "state_size": 6, "dt_min": 0.05, "dt_max": 0.5},
]
FORMATS = [FixedPoint(16, 8), FixedPoint(12, 6, "nearest"), FixedPoint(24, 16)]


def make(seed: int = 0, **kw) -> DSS:
    torch.manual_seed(seed)
    return DSS(DSSConfig(**{"vocab_size": 5, **kw}))


def tokens(batch: int, length: int, seed: int = 1) -> torch.Tensor:
    return torch.randint(0, 5, (batch, length), generator=torch.Generator().manual_seed(seed))


def on_grid(x: torch.Tensor, fmt: FixedPoint) -> bool:
    scaled = x.detach() * 2.0**fmt.frac
    return bool(torch.equal(scaled, scaled.round())) and float(scaled.abs().max()) <= fmt.max_raw


@pytest.mark.parametrize("config", CONFIGS)
def test_convolution_equals_steps(config):
    model = make(**config)
    t = tokens(3, 40)
    steps, _ = model.run_steps(t)
    out = model(t)
    assert out.shape == (3, 40, model.config.outputs)
    assert (out - steps).abs().max() < FLOAT_TOL


@pytest.mark.parametrize(("config", "fmt"), list(zip(CONFIGS, FORMATS, strict=True)), ids=str)
@torch.no_grad()
def test_finite_forward_is_the_step_composition(config, fmt):
    model = make(**config).set_precision(fmt)
    t = tokens(3, 12)
    out = model(t)
    steps, state = model.run_steps(t)
    assert torch.equal(out, steps)
    assert torch.equal(out, model(t))
    assert on_grid(out, fmt) and on_grid(state["s"], fmt)
    head, mid = model.run_steps(t[:, :5])
    tail, end = model.run_steps(t[:, 5:], mid)
    assert torch.equal(torch.cat([head, tail], dim=1), out)
    assert torch.equal(end["s"], state["s"])
    assert torch.equal(model(t[1:2]), out[1:2])


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
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    t = tokens(16, 8)
    losses = []
    for _ in range(15):
        loss = torch.nn.functional.cross_entropy(model(t).flatten(0, 1), t.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]
