"""The GPT-2 style Transformer: shapes, causality, finite precision, and the Theorem 4 split.

The hand recombination of q, k, v uses ``ccomplexity.precision.FixedPoint``'s integer arithmetic,
an implementation independent of the model's torch rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.transformer import Transformer, TransformerConfig
from tests.models.contract import assert_learns_to_copy, assert_row_alone, build, on_grid, tokens

FORMATS = [FixedPoint(16, 8), FixedPoint(16, 8, "nearest"), FixedPoint(20, 12)]


def make(seed: int = 0, **kw) -> Transformer:
    return build(Transformer, TransformerConfig, seed, **{"vocab_size": 5, "max_length": 16, **kw})


def test_shapes_and_causality():
    model = make(layers=2, heads=4, width=16)
    t = tokens(3, 10)
    out = model(t)
    assert out.shape == (3, 10, 5)
    changed = t.clone()
    changed[:, 6] = (changed[:, 6] + 1) % 5
    again = model(changed)
    assert torch.equal(out[:, :6], again[:, :6])
    assert not torch.allclose(out[:, 6:], again[:, 6:])


def test_attention_inputs_shapes_and_layer_zero():
    model = make(layers=2, heads=4, width=16)
    t = tokens(2, 7)
    qkv = model.attention_inputs(t, layer=1)
    assert {k: tuple(v.shape) for k, v in qkv.items()} == {k: (2, 4, 7, 4) for k in "qkv"}
    q, k, v = model.qkv(model.embed(t))
    first = model.attention_inputs(t)
    assert torch.equal(first["q"], q) and torch.equal(first["k"], k) and torch.equal(first["v"], v)


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
@pytest.mark.parametrize("layer_norm", [True, False])
def test_finite_precision_on_grid_and_deterministic(fmt, layer_norm):
    model = make(layers=2, layer_norm=layer_norm).set_precision(fmt)
    t = tokens(4, 12)
    out = model(t)
    assert out.dtype == torch.float64 and on_grid(out, fmt)
    assert all(on_grid(x, fmt) for x in model.attention_inputs(t, layer=1).values())
    assert torch.equal(out, model(t))
    # one sequence alone gives its row of the batch bit for bit: sums are exact
    assert_row_alone(model, t, out, row=2)


def test_float_mode_close_to_finite_mode_at_high_precision():
    model = make()
    t = tokens(2, 9)
    ref = model(t).double()
    fine = model.set_precision(FixedPoint(24, 16))(t)
    assert torch.allclose(fine, ref, atol=1e-2)
    assert model.set_precision(None)(t).dtype == torch.float32


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
@pytest.mark.parametrize("heads", [1, 2, 4])
def test_qkv_recombined_by_hand_reproduce_last_position(fmt, heads):
    """Softmax over all positions in FixedPoint integer arithmetic (App. D), then ``finish``."""
    model = make(heads=heads, width=16, attn_scale=1.0, seed=heads).set_precision(fmt)
    t = tokens(3, 11, seed=heads)
    qkv = model.attention_inputs(t)
    q, k, v = (fmt.quantize(qkv[name].detach().numpy()) for name in "qkv")  # raw (B, H, N, dh)
    logits = fmt.dot(q[:, :, -1:, :], k, axis=-1)  # (B, H, N): Q(<q_N, k_i>)
    shifted = fmt.sub(logits, fmt.max(logits, axis=-1)[..., None])
    e = fmt.exp(shifted)
    z = fmt.sum(e, axis=-1)
    weights = fmt.div(e, z[..., None])
    u = fmt.dot(weights[..., None], v, axis=-2)  # (B, H, dh)
    x_last = model.embed(t)[:, -1]
    by_hand = model.finish(x_last, torch.from_numpy(fmt.to_float(u)))
    assert torch.equal(by_hand, model(t)[:, -1])


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
@pytest.mark.parametrize("seed", range(4))
def test_two_party_split_reproduces_last_position(fmt, seed):
    """Theorem 4's protocol: each party sees only its positions; partial sums are combined."""
    model = make(heads=2, width=16, seed=seed).set_precision(fmt)
    t = tokens(2, 13, seed=seed)
    N = t.shape[1]
    rng = np.random.default_rng(seed)
    mask = rng.random(N) < 0.5
    mask[-1] = True  # Alice holds the last position
    parties = [torch.from_numpy(np.flatnonzero(side)) for side in (mask, ~mask)]
    xs, kvs = [], []
    for positions in parties:
        x = model.embed(t[:, positions], positions)
        _, k, v = model.qkv(x)
        xs.append(x)
        kvs.append((k, v))
    x_last = xs[0][:, -1]
    q_last = model.qkv(x_last[:, None])[0]  # (B, H, 1, dh): Bob gets it from x_N
    logits = [model.attention_logits(q_last, k) for k, _ in kvs]
    max_logit = torch.maximum(*(lg.amax(-1, keepdim=True) for lg in logits))
    e = [model.softmax_numerators(lg, max_logit) for lg in logits]
    z = model.q(sum(part.sum(-1, keepdim=True) for part in e))  # partial softmax sums
    u = sum(model.value_sums(part, z, v) for part, (_, v) in zip(e, kvs, strict=True))
    assert torch.equal(model.finish(x_last, u[:, :, 0]), model(t)[:, -1])


def test_float_split_matches_forward():
    model = make(heads=4, width=16)
    t = tokens(2, 8)
    x = model.embed(t)
    q, k, v = model.qkv(x)
    logits = model.attention_logits(q[:, :, -1:], k)
    e = model.softmax_numerators(logits, logits.amax(-1, keepdim=True))
    u = model.value_sums(e, e.sum(-1, keepdim=True), v)
    assert torch.allclose(model.finish(x[:, -1], u[:, :, 0]), model(t)[:, -1], atol=1e-5)


def test_user_errors():
    with pytest.raises(InputError, match="heads"):
        TransformerConfig(width=10, heads=4)
    with pytest.raises(InputError, match="no field"):
        TransformerConfig.from_dict({"width": 8, "dropout": 0.1})
    with pytest.raises(InputError, match="max_length 16"):
        make()(tokens(1, 17))
    with pytest.raises(InputError, match="bits <= 24"):
        make(width=16).set_precision(FixedPoint(32, 16))  # mlp_width 64: 65 terms


def test_learns_to_copy_the_current_token():
    model = make(width=16)
    assert_learns_to_copy(model, tokens(16, 8), lr=1e-2)


@pytest.mark.filterwarnings("error:There is a performance drop")  # vmap's per-member fallback
def test_fused_attention_equals_the_explicit_softmax(monkeypatch):
    """The fused kernel a GPU runs in float mode (forced here on the CPU) against the explicit
    App. D softmax: same logits and gradients up to float rounding, alone and under torch.vmap
    over different members (the ensembles' batched form, the members folded into the kernel's
    batch: torch's per-member fallback would warn); finite-precision mode never takes it."""
    import models.transformer as transformer

    model = make(layers=2, heads=4, width=16)
    t = tokens(3, 12)
    monkeypatch.setattr(transformer, "FUSED_ATTENTION", set())
    explicit = model(t)
    explicit.square().sum().backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    monkeypatch.setattr(transformer, "FUSED_ATTENTION", {"cpu"})
    fused = model(t)
    fused.square().sum().backward()
    assert torch.allclose(fused, explicit, atol=1e-5)
    assert all(torch.allclose(p.grad, grads[n], atol=1e-4) for n, p in model.named_parameters())

    def stacked_run(members: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        params = {n: p.detach() for n, p in model.named_parameters()}
        shift = torch.arange(members).reshape(-1, 1, 1) * 0.05  # each member its own weights
        stacked = {
            n: (torch.stack([p] * members) + shift.reshape(-1, *[1] * p.dim())).requires_grad_()
            for n, p in params.items()
        }
        out = torch.vmap(lambda ps, x: torch.func.functional_call(model, ps, (x,)))(
            stacked, torch.stack([t] * members)
        )
        out.square().sum().backward()
        return out, {n: s.grad for n, s in stacked.items()}

    batched, batched_grads = stacked_run(3)
    monkeypatch.setattr(transformer, "FUSED_ATTENTION", set())
    reference, reference_grads = stacked_run(3)
    assert not torch.allclose(batched[0], batched[2], atol=1e-3)  # the members differ
    assert torch.allclose(batched, reference, atol=1e-5)
    assert all(torch.allclose(g, reference_grads[n], atol=1e-4) for n, g in batched_grads.items())
    monkeypatch.setattr(transformer, "FUSED_ATTENTION", {"cpu"})
    model.set_precision(FORMATS[0])
    with monkeypatch.context() as m:
        m.setattr(transformer.F, "scaled_dot_product_attention", None)  # would raise if called
        model(t)


def test_fused_attention_keeps_a_subclass_own_softmax(monkeypatch):
    import models.transformer as transformer

    class Sharper(Transformer):
        def attention_logits(self, q, k):
            return 3 * super().attention_logits(q, k)

    model = build(Sharper, TransformerConfig, 0, vocab_size=5, max_length=16, heads=2, width=8)
    t = tokens(2, 9)
    explicit = model(t)
    monkeypatch.setattr(transformer, "FUSED_ATTENTION", {"cpu"})
    assert torch.equal(model(t), explicit)
