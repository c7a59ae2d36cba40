"""RetNet: the parallel (decay-masked) form equals the recurrent form; finite precision; state."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.retnet import RetNet, RetNetConfig

FLOAT_TOL = 1e-4  # max |forward - run_steps| in float32
CONFIGS = [
    {"width": 8, "heads": 1},
    {"width": 16, "layers": 2, "heads": 4, "n_out": 3},
    {"width": 12, "layers": 2, "heads": 3, "mlp_width": 20},
]
FORMATS = [FixedPoint(16, 8), FixedPoint(12, 6, "nearest"), FixedPoint(24, 16)]


def make(seed: int = 0, **kw) -> RetNet:
    torch.manual_seed(seed)
    return RetNet(RetNetConfig(**{"vocab_size": 5, **kw}))


def tokens(batch: int, length: int, seed: int = 1) -> torch.Tensor:
    return torch.randint(0, 5, (batch, length), generator=torch.Generator().manual_seed(seed))


def on_grid(x: torch.Tensor, fmt: FixedPoint) -> bool:
    scaled = x.detach() * 2.0**fmt.frac
    return bool(torch.equal(scaled, scaled.round())) and float(scaled.abs().max()) <= fmt.max_raw


@pytest.mark.parametrize("config", CONFIGS)
def test_parallel_form_equals_steps(config):
    model = make(**config)
    t = tokens(3, 30)
    steps, _ = model.run_steps(t)
    out = model(t)
    assert out.shape == (3, 30, model.config.outputs)
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
    assert on_grid(out, fmt) and all(on_grid(s, fmt) for s in state.values())
    head, mid = model.run_steps(t[:, :7])
    tail, end = model.run_steps(t[:, 7:], mid)
    assert torch.equal(torch.cat([head, tail], dim=1), out)
    assert all(torch.equal(end[k], state[k]) for k in state)
    assert torch.equal(model(t[1:2]), out[1:2])


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


def test_learns_to_copy_the_current_token():
    model = make(width=16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    t = tokens(16, 8)
    losses = []
    for _ in range(15):
        loss = torch.nn.functional.cross_entropy(model(t).flatten(0, 1), t.flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]
