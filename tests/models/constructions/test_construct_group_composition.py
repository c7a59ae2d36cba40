"""Theorem 2.1 as weights: exact on every input for small n, loop by loop equal to Algorithm 2,
and one loop short is not enough."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from ccomplexity.bounds import get
from ccomplexity.errors import InputError
from ccomplexity.groups import get_group
from models import constructions
from models.constructions.group_composition import (
    build_group_composition,
    decode,
    run_group_composition,
)


@pytest.mark.parametrize(("group", "n"), [("Z2", 9), ("S3", 4), ("S3", 5), ("D4", 3), ("A5", 2)])
def test_exhaustive_small_n(group, n):
    result = constructions.run("group-composition", group=group, length=n, samples=1, seed=0)
    assert result["exhaustive"] and result["samples"] == get_group(group).order ** n
    assert result["accuracy"] == 1.0 and result["rounds_match_algorithm2"]
    assert (
        result["loops"]
        == result["loops_needed"]
        == get("looped.thm2_1").value(group=group, length=n)
    )


@pytest.mark.parametrize(("group", "n"), [("A5", 17), ("S4", 33), ("S5", 24)])
def test_random_inputs_and_the_theorems_widths(group, n):
    result = constructions.run("group-composition", group=group, length=n, samples=30, seed=1)
    assert result["accuracy"] == 1.0 and result["rounds_match_algorithm2"]
    sizes = get("looped.thm2_1").outputs(group=group, length=n)
    assert result["mlp_width"] == sizes["mlp_width"]
    assert result["heads"] == 2 and result["block_layers"] == 1
    assert result["model_dim"] - sizes["model_dim_needed"] in (0, 1)  # +1 only to split evenly
    assert result["attention_dims_used"] == sizes["attention_dim_needed"] <= result["head_dim"]
    assert result["key_dims_used"] == sizes["key_dim_needed"]
    assert result["value_dims_used"] == sizes["value_dim_needed"]


def test_s5_at_n8_uses_seven_value_rows_as_the_bound_says():
    g = get_group("S5")
    model, info = build_group_composition(g, 8)
    sizes = get("looped.thm2_1").outputs(group="S5", length=8)
    value_rows = model.blocks[0].qkv.weight[2 * info["model_dim"] :]  # W_V of both heads
    dh = info["head_dim"]
    used = [int(value_rows[h * dh : (h + 1) * dh].abs().sum(1).gt(0).sum()) for h in (0, 1)]
    key_rows = model.blocks[0].qkv.weight[info["model_dim"] : 2 * info["model_dim"]]
    keys = [int(key_rows[h * dh : (h + 1) * dh].abs().sum(1).gt(0).sum()) for h in (0, 1)]
    assert used == [7, 7] and keys == [4, 4]
    assert sizes["attention_dim_needed"] == max(used + keys) == info["attention_dims_used"] == 7
    assert sizes["head_dim"] == 3  # the theorem's d_ATTN = ceil(lg n), short of both


@pytest.mark.parametrize(("group", "n"), [("S3", 5), ("Z2", 12), ("A5", 17)])
def test_one_loop_fewer_fails(group, n):
    short = get("looped.thm2_1").value(group=group, length=n) - 1
    result = constructions.run(
        "group-composition", group=group, length=n, samples=40, seed=2, loops=short
    )
    assert result["accuracy"] < 0.75 and result["rounds_match_algorithm2"]


def test_the_model_is_the_zoo_looped_transformer_and_its_stream_decodes():
    g = get_group("S3")
    model, info = build_group_composition(g, 6)
    assert model.name == "looped" and model.config.loops == info["loops"] == 3
    words = np.array([[1, 2, 3, 4, 5, 0]])
    tokens = torch.from_numpy(np.concatenate([[[g.order]], words], axis=1))
    assert decode(model.stream(tokens)[0], info["group_code_bits"])[0, 1:].tolist() == [
        1,
        2,
        3,
        4,
        5,
        0,
    ]
    assert model(tokens)[0, -1].argmax().item() == g.compose(words)[0]
    assert run_group_composition(model, g, words)["accuracy"] == 1.0


def test_refusals():
    with pytest.raises(InputError, match="at most 720"):
        constructions.run("group-composition", group="S7", length=4)
    with pytest.raises(InputError, match="group name"):
        constructions.run("group-composition", group=5, length=4)
    with pytest.raises(InputError, match="samples"):
        constructions.run("group-composition", group="S3", length=4, samples=0)


@pytest.mark.parametrize(("group", "n"), [("S3", 7), ("A5", 9), ("S5", 20)])
def test_bfloat16_stream_is_the_float32_stream_exactly(group, n):
    """Every value of the forward is exact in bfloat16 (module docstring): the evaluation's
    default dtype gives the very same residual stream as float32, loop by loop."""
    g = get_group(group)
    model, _ = build_group_composition(g, n)
    words = np.random.default_rng(3).integers(0, g.order, (8, n))
    tokens = torch.from_numpy(np.concatenate([np.full((8, 1), g.order), words], axis=1))
    with torch.inference_mode():
        wide = model.stream(tokens)
        narrow = copy.deepcopy(model).to(torch.bfloat16).stream(tokens)
    assert all(torch.equal(a, b.float()) for a, b in zip(wide, narrow, strict=True))
    result = run_group_composition(model, g, words)
    assert result["dtype"] == "bfloat16" and result["accuracy"] == 1.0
    assert run_group_composition(model, g, words, torch.float32)["dtype"] == "float32"


def test_batches_spread_over_threads_count_every_row_once(monkeypatch):
    """One word per batch, over 1 or 3 threads: the same accuracy as one forward of all rows (a
    model one loop short, so that some rows fail, its loops still Algorithm 2's rounds), and
    torch's thread count restored."""
    import models.constructions.group_composition as construction
    from models.constructions.scoring import strictly_correct

    g = get_group("S3")
    model, _ = build_group_composition(g, 9, loops=3)
    words = np.random.default_rng(5).integers(0, g.order, (40, 9))
    tokens = torch.from_numpy(np.concatenate([np.full((40, 1), g.order), words], axis=1))
    with torch.inference_mode():
        right = strictly_correct(model(tokens)[:, -1], torch.from_numpy(g.compose(words)))
    expected = int(right.sum()) / len(words)
    assert 0 < expected < 1
    monkeypatch.setattr(construction, "CELLS_PER_BATCH", 1)
    threads = torch.get_num_threads()
    for workers in (1, 3):
        result = run_group_composition(model, g, words, workers=workers)
        assert result["accuracy"] == expected and result["rounds_match_algorithm2"]
        assert torch.get_num_threads() == threads
