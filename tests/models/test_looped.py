"""The looped transformer: it is the zoo block looped, with the iso-param and iso-FLOP identities
and the block-cosine regulariser."""

from __future__ import annotations

import pytest
import torch

import models
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.looped import (
    LoopedConfig,
    LoopedTransformer,
    block_cosine,
    block_cosine_penalty,
    cost,
    forward_flops,
    layer_similarity,
)
from models.transformer import Transformer
from tests.models.contract import assert_learns_to_copy, tokens


def looped(k: int, loops: int, **extra) -> LoopedTransformer:
    torch.manual_seed(0)
    return models.build("looped", vocab_size=5, width=16, heads=2, layers=k, loops=loops, **extra)


def unrolled(model: LoopedTransformer) -> Transformer:
    """The (kL ⊗ 1) transformer whose layers are copies of the block, layer by layer."""
    k, loops = len(model.blocks), model.config.loops
    fields = {f: getattr(model.config, f) for f in ("vocab_size", "width", "heads", "max_length")}
    deep = models.build("transformer", layers=k * loops, **fields)
    state = {n: v for n, v in model.state_dict().items() if not n.startswith("blocks.")}
    for t in range(loops):
        for i in range(k):
            for name, value in model.blocks[i].state_dict().items():
                state[f"blocks.{t * k + i}.{name}"] = value
    deep.load_state_dict(state)
    return deep


@pytest.mark.parametrize(("k", "loops"), [(1, 1), (1, 4), (2, 3)])
def test_looped_equals_the_unrolled_transformer(k, loops):
    model = looped(k, loops)
    t = tokens(3, 12)
    assert torch.allclose(model(t), unrolled(model)(t), atol=1e-5)
    with torch.no_grad():
        model.set_precision(FixedPoint(16, 8))
        deep = unrolled(model).set_precision(FixedPoint(16, 8))
        assert torch.equal(model(t), deep(t))  # the same computation, bit for bit


def test_loops_change_at_evaluation_time():
    model = looped(1, 3)
    t = tokens(2, 10)
    assert torch.equal(model(t), model(t, loops=3))
    assert not torch.allclose(model(t, loops=1), model(t))
    assert torch.equal(model(t, loops=1), looped(1, 1)(t))  # the same weights, one loop
    stream = model.stream(t, loops=5)
    assert len(stream) == 6 and torch.equal(model.readout(stream[-1]), model(t, loops=5))


def test_reinjection_is_off_by_default_and_changes_loops_after_the_first():
    plain, again = looped(1, 3), looped(1, 3, reinject=True)
    t = tokens(2, 10)
    assert not plain.config.reinject
    assert torch.equal(plain(t, loops=1), again(t, loops=1))
    assert not torch.allclose(plain(t), again(t))


def test_iso_param_and_iso_flop():
    model, base = looped(2, 3), looped(2, 1)
    deep = unrolled(model)
    assert model.param_count() == base.param_count() < deep.param_count()
    flops = {loops: forward_flops(looped(2, loops), 12) for loops in (0, 1, 2, 3)}
    block = flops[1] - flops[0]  # one loop of the block; the readout is counted once
    assert flops[3] == flops[0] + 3 * block == forward_flops(deep, 12) == forward_flops(model, 12)
    assert cost(model, 12) == {
        "parameters": base.param_count(),
        "flops_per_query": flops[3],
        "effective_layers": 6,
    }


def test_block_options_pass_through_the_config():
    model = looped(1, 2, activation="relu", layer_norm=False, mlp_width=7)
    assert isinstance(model.config, LoopedConfig) and model.blocks[0].fc.out_features == 7
    with pytest.raises(InputError, match="no field"):
        models.build("looped", blocks=2)


def test_block_cosine_regulariser():
    deep = unrolled(looped(2, 3))  # blocks of 2 layers, identical: R_G(2) = 1 for every group
    cosines = block_cosine(deep, 2)
    assert set(cosines) == {"attn_q", "attn_k", "attn_v", "attn_o", "ff_w1", "ff_w2"}
    assert all(v.item() == pytest.approx(1.0) for v in cosines.values())
    assert block_cosine_penalty(deep, 2).item() == pytest.approx(0.0, abs=1e-6)
    torch.manual_seed(1)
    fresh = models.build("transformer", vocab_size=5, width=16, heads=2, layers=4)
    penalty = block_cosine_penalty(fresh, 2)
    assert 0.8 < penalty.item() < 1.2  # random layers are nearly orthogonal
    penalty.backward()  # differentiable: training pulls the blocks together
    assert fresh.blocks[0].fc.weight.grad is not None
    with pytest.raises(InputError, match="into >= 2 blocks"):
        block_cosine(fresh, 3)


def test_layer_similarity_diagnostic():
    sims = layer_similarity(unrolled(looped(1, 3)))
    assert all(
        len(m) == 3 and all(v == pytest.approx(1.0) for r in m for v in r) for m in sims.values()
    )


def test_looped_model_learns():
    model = looped(1, 2)
    assert_learns_to_copy(model, tokens(8, 10), lr=3e-2, steps=40, lag=1)
