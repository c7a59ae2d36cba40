"""The mixture-of-experts feed-forward: routing rules, loads, balance loss, parameter counts,
finite precision, and the zoo transformer's block option."""

from __future__ import annotations

import pytest
import torch

import models
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.moe import MixtureOfExperts, top_k_indices


def layer(**kw) -> MixtureOfExperts:
    torch.manual_seed(0)
    return MixtureOfExperts(6, 5, 3, **kw)


def test_top1_argmax_is_thm_a4s_psi():
    moe = layer(experts=4, top_k=1, expert="relu", gate="argmax")
    x = torch.randn(50, 6)
    chosen = (x @ moe.router.T).argmax(-1)
    expected = torch.stack([moe.run_expert(int(j), x[i : i + 1])[0] for i, j in enumerate(chosen)])
    assert torch.allclose(moe(x), expected, atol=1e-6)
    assert moe.last_load.tolist() == torch.bincount(chosen, minlength=4).tolist()


@pytest.mark.parametrize("gate", ["softmax-topk", "softmax"])
def test_top2_weights(gate):
    moe = layer(experts=4, top_k=2, gate=gate)
    x = torch.randn(20, 6)
    logits = x @ moe.router.T
    chosen = top_k_indices(logits, 2)
    probs = torch.softmax(logits, -1).gather(1, chosen)
    if gate == "softmax-topk":
        probs = probs / probs.sum(-1, keepdim=True)  # renormalised over the top 2 (OLMoE, KG)
    outs = torch.stack(
        [
            torch.stack([moe.run_expert(int(j), x[i : i + 1])[0] for j in row])
            for i, row in enumerate(chosen)
        ]
    )
    assert torch.allclose(moe(x), (probs[..., None] * outs).sum(1), atol=1e-6)
    assert moe.last_load.sum() == 40


@pytest.mark.parametrize("expert", ["relu", "gelu", "glu"])
@pytest.mark.parametrize(("gate", "top_k"), [("argmax", 1), ("softmax", 1), ("softmax-topk", 2)])
def test_the_dense_form_equals_the_routed_one_and_runs_under_vmap(expert, gate, top_k):
    """An ensemble's routing form (every expert on every row, zero weights off the chosen ones)
    gives the routed form's outputs and gradients; under torch.vmap over members with their own
    weights it gives each member's own output (the routed form selects rows: no vmap rule)."""
    sparse = layer(experts=4, top_k=top_k, expert=expert, gate=gate)
    dense = layer(experts=4, top_k=top_k, expert=expert, gate=gate)
    dense.dense = True
    x = torch.randn(30, 6)
    out, out_dense = sparse(x), dense(x)
    assert torch.allclose(out_dense, out, atol=1e-6)
    out.square().sum().backward()
    out_dense.square().sum().backward()
    for (name, p), q in zip(sparse.named_parameters(), dense.parameters(), strict=True):
        if p.grad is None:  # the argmax router: no gradient in either form
            assert q.grad is None or not q.grad.any(), name
        else:
            assert torch.allclose(q.grad, p.grad, atol=1e-5), name
    shifted = [layer(experts=4, top_k=top_k, expert=expert, gate=gate) for _ in range(3)]
    for i, m in enumerate(shifted):
        with torch.no_grad():
            for p in m.parameters():
                p.add_(0.1 * i)
    stacked = {
        n: torch.stack([dict(m.named_parameters())[n] for m in shifted]).detach()
        for n, _ in dense.named_parameters()
    }
    batched = torch.vmap(lambda ps, t: torch.func.functional_call(dense, ps, (t,)))(
        stacked, torch.stack([x] * 3)
    )
    for i, m in enumerate(shifted):
        assert torch.allclose(batched[i], m(x), atol=1e-5)


def test_ties_route_to_the_lowest_index():
    assert top_k_indices(torch.tensor([[1.0, 3.0, 3.0, 0.0]]), 2).tolist() == [[1, 2]]


def test_balance_loss_only_when_training_and_asked():
    moe = layer(experts=4, gate="softmax", balance=0.5)
    moe.train()
    moe(torch.randn(30, 6))
    assert moe.last_aux is not None and moe.last_aux.requires_grad and moe.last_aux > 0
    moe.eval()
    moe(torch.randn(30, 6))
    assert moe.last_aux is None


def test_glu_expert_and_parameter_counts():
    moe = layer(experts=3, top_k=2, expert="glu", out_bias=False)
    x = torch.randn(4, 6)
    h = torch.relu(x @ moe.w_in[1] + moe.b_in[1]) * (x @ moe.w_gate[1] + moe.b_gate[1])
    assert torch.allclose(moe.run_expert(1, x), h @ moe.w_out[1], atol=1e-6)
    assert moe.expert_parameters() == 2 * (6 * 5 + 5) + 5 * 3
    assert moe.inactive_parameters() == moe.expert_parameters()


def test_router_of_argmax_gets_no_gradient_and_softmax_does():
    for gate, expected in (("argmax", False), ("softmax", True)):
        moe = layer(experts=4, gate=gate)
        moe(torch.randn(10, 6)).sum().backward()
        assert (moe.router.grad is not None and moe.router.grad.abs().sum() > 0) == expected


@pytest.mark.parametrize(
    "options",
    [dict(experts=4), dict(experts=4, top_k=2, gate="softmax"), dict(expert="glu")],
)
def test_zoo_transformer_with_experts(options):
    torch.manual_seed(1)
    m = models.build("transformer", vocab_size=5, width=8, heads=2, layers=2, **options)
    t = torch.randint(0, 5, (3, 7))
    assert m(t).shape == (3, 7, 5)
    described = m.describe()
    assert described["total_parameters"] == m.param_count()
    unused = sum(b.moe.inactive_parameters() for b in m.blocks)
    assert described["active_parameters"] == m.param_count() - unused
    assert len(m.expert_load()) == 2
    with torch.no_grad():
        m.set_precision(FixedPoint(16, 8))
        out = m(t)
        assert torch.equal(out, torch.cat([m(t[i : i + 1]) for i in range(3)]))
        assert torch.equal(out * 256, (out * 256).round())  # on the grid


def test_dense_transformer_is_unchanged():
    m = models.build("transformer", vocab_size=5, width=8, heads=2)
    assert not any("moe" in k for k in m.state_dict()) and m.active_param_count() == m.param_count()


def test_bad_options():
    with pytest.raises(InputError, match="top_k 3 exceeds"):
        models.build("transformer", experts=2, top_k=3)
    with pytest.raises(InputError, match="gate must be"):
        models.build("transformer", experts=2, gate="hash")
    with pytest.raises(InputError, match="expert must be"):
        models.build("transformer", experts=2, expert="swish")
