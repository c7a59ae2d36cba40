"""Mamba: the chunked scan equals the step recurrence (values and gradients), finite precision,
state sizes, user errors, training."""

from __future__ import annotations

import math

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.mamba import SCAN_CHUNK, Mamba, MambaConfig, selective_scan
from tests.models.contract import (
    FLOAT_TOL,
    assert_finite_step_composition,
    assert_forward_equals_steps,
    assert_learns_to_copy,
    build,
    tokens,
)

LENGTHS = [1, SCAN_CHUNK - 1, SCAN_CHUNK, SCAN_CHUNK + 1, 2 * SCAN_CHUNK + 3]
CONFIGS = [
    {"width": 16, "layers": 2},
    {"width": 8, "layers": 1, "d_state": 4, "d_conv": 1, "n_out": 3},
    {"width": 12, "layers": 3, "expand": 1, "dt_rank": 2, "d_conv": 2, "vocab_size": 9},
]
FORMATS = [FixedPoint(16, 8), FixedPoint(12, 6, "nearest"), FixedPoint(20, 12)]


def make(seed: int = 0, **kw) -> Mamba:
    return build(Mamba, MambaConfig, seed, **{"vocab_size": 8, **kw})


def tokens_for(model: Mamba, batch: int, length: int) -> torch.Tensor:
    return tokens(batch, length, model.config.vocab_size)


def scan_by_steps(delta, A, Bm, Cm, x):
    """The SSM recurrence written out one time step at a time: (L, B, D) outputs."""
    h = x.new_zeros(x.shape[1], *A.shape)  # (B, N, D)
    ys = []
    for t in range(len(x)):
        h = torch.exp(delta[t, :, None] * A) * h + Bm[t, :, :, None] * (delta[t] * x[t])[:, None]
        ys.append((Cm[t, :, None] @ h).squeeze(1))
    return torch.stack(ys)


def scan_inputs(L: int, B: int = 2, D: int = 3, N: int = 4, seed: int = 0) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    delta = torch.rand(L, B, D, generator=gen, dtype=torch.float64)
    A = -torch.rand(N, D, generator=gen, dtype=torch.float64) * 3
    Bm, Cm = torch.randn(2, L, B, N, generator=gen, dtype=torch.float64)
    x = torch.randn(L, B, D, generator=gen, dtype=torch.float64)
    return [t.requires_grad_() for t in (delta, A, Bm, Cm, x)]


@pytest.mark.parametrize("chunk", [1, 3, 8, 16])
@pytest.mark.parametrize("L", [1, 7, 9])
def test_selective_scan_equals_the_recurrence(chunk, L):
    inputs = scan_inputs(L)
    assert torch.allclose(selective_scan(*inputs, chunk=chunk), scan_by_steps(*inputs), atol=1e-12)


def test_selective_scan_is_stable_under_strong_decay():
    # exp(delta A) underflows to 0 in float32; a scan through exp(-cumsum) would give inf or nan
    delta, A, Bm, Cm, x = (t.detach().float() for t in scan_inputs(40))
    inputs = [(delta * 100).requires_grad_(), A, Bm, Cm, x]
    y = selective_scan(*inputs, chunk=16)
    y.sum().backward()
    assert torch.allclose(y, scan_by_steps(*inputs), atol=1e-5)
    assert torch.isfinite(inputs[0].grad).all()


def test_grouped_scan_equals_one_scan_per_group():
    """A of shape (G, N, D): each group of B / G sequences is scanned with its own A, values and
    gradients exactly as if it were scanned alone (how an ensemble batches its members)."""
    groups, per = 3, 2
    gen = torch.Generator().manual_seed(1)
    delta = torch.rand(11, groups * per, 5, generator=gen, dtype=torch.float64)
    A = -torch.rand(groups, 4, 5, generator=gen, dtype=torch.float64) * 3
    Bm, Cm = torch.randn(2, 11, groups * per, 4, generator=gen, dtype=torch.float64)
    x = torch.randn(11, groups * per, 5, generator=gen, dtype=torch.float64)
    joint = [t.clone().requires_grad_() for t in (delta, A, Bm, Cm, x)]
    y = selective_scan(*joint, chunk=3)
    (y * y).sum().backward()
    for k in range(groups):
        rows = slice(k * per, (k + 1) * per)
        alone = [
            t.clone().requires_grad_()
            for t in (delta[:, rows], A[k], Bm[:, rows], Cm[:, rows], x[:, rows])
        ]
        y_k = selective_scan(*alone, chunk=3)
        (y_k * y_k).sum().backward()
        assert torch.allclose(y_k, y[:, rows].detach(), atol=1e-12)
        grads = [joint[0].grad[:, rows], joint[1].grad[k], *(t.grad[:, rows] for t in joint[2:])]
        for a, g in zip(alone, grads, strict=True):
            assert torch.allclose(a.grad, g, atol=1e-12)


@pytest.mark.parametrize(("L", "chunk"), [(1, 4), (7, 3), (8, 4)])
def test_selective_scan_gradients(L, chunk):
    inputs = scan_inputs(L, seed=L)
    assert torch.autograd.gradcheck(lambda *a: selective_scan(*a, chunk=chunk), inputs)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("length", LENGTHS)
def test_float_forward_equals_steps(config, length):
    model = make(**config)
    assert_forward_equals_steps(model, tokens_for(model, 3, length))


def test_gradients_of_the_scan_equal_those_of_the_steps():
    model = make(width=16, layers=2).double()  # float64: compare gradients tightly
    t = tokens_for(model, 2, 2 * SCAN_CHUNK + 5)
    grads = []
    for logits in (lambda: model(t), lambda: model.run_steps(t)[0]):
        model.zero_grad()
        torch.nn.functional.cross_entropy(logits().flatten(0, 1), t.flatten()).backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    for fast, slow in zip(*grads, strict=True):
        assert torch.allclose(fast, slow, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize(("config", "fmt"), list(zip(CONFIGS, FORMATS, strict=True)), ids=str)
def test_finite_forward_is_the_step_composition(config, fmt):
    model = make(**config).set_precision(fmt)
    assert_finite_step_composition(model, tokens_for(model, 3, 10), fmt, split=4)


def test_finite_precision_is_close_to_float_at_high_precision():
    model = make(width=16, layers=2)
    t = tokens_for(model, 2, 12)
    with torch.no_grad():
        exact = model(t).double()
        assert (model.set_precision(FixedPoint(24, 16))(t) - exact).abs().max() < 1e-3
        assert (model.set_precision(None)(t) - exact).abs().max() < FLOAT_TOL  # back to float


def test_state_layout_and_numel():
    model = make(width=16, layers=2)  # d_inner 32, d_state 16, d_conv 4
    state = model.initial_state(5)
    assert state["conv"].shape == (5, 2, 3, 32)
    assert state["ssm"].shape == (5, 2, 16, 32)
    assert model.state_numel() == 2 * 32 * (3 + 16)
    model = make(width=8, layers=3, d_state=4, d_conv=1, expand=3)
    assert model.state_numel() == 3 * 24 * (0 + 4)
    assert model.state_bits(16) == 16 * model.state_numel()


def test_config_defaults():
    c = MambaConfig(width=40)
    assert (c.d_state, c.d_conv, c.expand, c.d_inner) == (16, 4, 2, 80)
    assert c.dt_rank == math.ceil(40 / 16) == 3
    assert MambaConfig.from_dict(c.to_dict()) == c


def test_deterministic():
    a, b = make(seed=3), make(seed=3)
    t = tokens_for(a, 4, 11)
    assert torch.equal(a(t), b(t))
    assert torch.equal(a(t), a(t))


def test_user_errors():
    with pytest.raises(InputError, match="no field"):
        MambaConfig.from_dict({"width": 8, "heads": 2})
    with pytest.raises(InputError, match=r"d_state must be an integer in 1\.\."):
        MambaConfig(d_state=0)
    model = make()
    with pytest.raises(InputError, match="LongTensor"):
        model(torch.zeros(2, 3))
    with pytest.raises(InputError, match="lie in 0..7"):
        model(torch.tensor([[0, 8]]))
    with pytest.raises(InputError, match="non-empty 2-d"):
        model(torch.zeros(2, 0, dtype=torch.long))
    with pytest.raises(InputError, match="1-d LongTensor"):
        model.step(model.initial_state(1), torch.zeros(1, 1, dtype=torch.long))
    with pytest.raises(InputError, match="bits <= 23"):
        make(width=64).set_precision(FixedPoint(26, 12))  # x_proj, out_proj: 129 terms


def test_learns_to_copy_the_previous_token():
    model = make(width=16, layers=1)
    # position i predicts token i - 1
    assert_learns_to_copy(model, tokens_for(model, 16, 12), lr=2e-2, steps=30, lag=1)
