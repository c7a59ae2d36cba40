"""The mixture-of-parrots one-layer class: shapes, pieces, exact finite precision, counts."""

from __future__ import annotations

import pytest
import torch

import models
from ccomplexity.bounds.parrots import one_layer_parameters
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint


def build(**kw):
    torch.manual_seed(0)
    config = {"vocab_size": 9, "n_out": 2, "width": 6, **kw}
    return models.build("concat-transformer", **config)


@pytest.mark.parametrize("kw", [{}, {"experts": 4}, {"experts": 3, "heads": 2, "mlp_width": 5}])
def test_parameters_match_the_bound_modules_count(kw):
    m = build(**kw)
    counts = one_layer_parameters(
        6, kw.get("heads", 1), kw.get("mlp_width"), kw.get("experts", 1), vocab=9
    )
    assert m.param_count() == counts["total"] and m.active_param_count() == counts["active"]


def test_float_forward_is_causal_concatenated_softmax_attention():
    m = build(heads=2)
    t = torch.randint(0, 9, (2, 7))
    x = m.tok.weight[t]
    w = m.qkv.weight
    ys = []
    for h in range(2):
        q, k, v = (x @ w[(i * 2 + h) * 6 : (i * 2 + h + 1) * 6].T for i in range(3))
        a = torch.softmax(q[:, -1:] @ k.transpose(1, 2) / 6**0.5, -1)
        ys.append((a @ v)[:, 0])
    f = m.psi(torch.cat(ys, -1))
    assert torch.allclose(m(t)[:, -1, 1], f[:, 0], atol=1e-5)
    assert torch.allclose(m(t[:, :4])[:, -1], m(t)[:, 3], atol=1e-6)  # position 4 sees 1..4


@pytest.mark.parametrize("kw", [{}, {"experts": 4, "gate": "softmax"}, {"heads": 2}])
def test_finite_precision_split_sums_are_exact(kw):
    m = build(**kw)
    m.set_precision(FixedPoint(16, 8))
    t = torch.randint(0, 9, (5, 11))
    with torch.no_grad():
        out = m(t)
        x = m.embed(t)
        q = m.queries(x[:, -1:])
        parts = [m.partial_sums(q, x[:, s]) for s in (slice(0, 3), slice(3, 8), slice(8, 11))]
        z = sum(p[0] for p in parts)
        l = sum(p[1] for p in parts)  # noqa: E741
        assert torch.equal(m.readout(m.combine(z, l)), out[:, -1])  # any split, bit for bit
        assert torch.equal(out, torch.cat([m(t[i : i + 1]) for i in range(5)]))
        assert torch.equal(out * 256, (out * 256).round())


def test_offset_underflow_and_saturation():
    m = build(softmax_offset=100.0)  # every e_t = Q(exp(a - 100)) = 0: heads output 0
    m.set_precision(FixedPoint(16, 8))
    with torch.no_grad():
        x = m.embed(torch.randint(0, 9, (2, 5)))
        z, sums = m.partial_sums(m.queries(x[:, -1:]), x)
        assert (z == 0).all() and (m.combine(z, sums) == 0).all()


def test_vector_inputs_and_bad_configs():
    m = build(input_dim=6)
    assert m(torch.randn(3, 4, 6)).shape == (3, 4, 2) and m.tok is None
    with pytest.raises(InputError, match="input_dim 5 must equal"):
        build(input_dim=5)
    with pytest.raises(InputError, match="one layer"):
        build(layers=2)
    with pytest.raises(InputError, match="token ids"):
        build()(torch.randn(2, 3, 6))
