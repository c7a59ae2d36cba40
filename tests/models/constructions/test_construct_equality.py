"""Theorem 6: the hand-wired two-layer transformer decides equality of halves exactly."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages.strings import is_equal_halves
from models.constructions.equality import (
    all_words,
    build_equality,
    equality_accuracy,
    last_logits,
    sampled_words,
    verify_equality,
)


def test_last_position_run_equals_the_forward_pass():
    model, info = build_equality(8, seed=0)
    words = torch.from_numpy(all_words(8))
    assert torch.equal(last_logits(model, words), model(words)[:, -1])
    assert info["width"] == 2 * info["code_width"] + 3 and model.quant is not None


@pytest.mark.parametrize("length", [2, 4, 6, 8, 10])
def test_exhaustive_small_lengths(length):
    result = verify_equality(length, samples=1, seed=0)
    assert result["accuracy"] == 1.0 and result["exhaustive"] is True
    assert result["samples"] == 2**length and result["equal_samples"] == 2 ** (length // 2)


def test_sampled_long_words_include_equal_and_near_pairs():
    words = sampled_words(40, 300, np.random.default_rng(0))
    diff = (words[:, :20] != words[:, 20:]).sum(1)
    assert (diff == 0).sum() >= 100 and (diff == 1).sum() >= 90
    result = verify_equality(64, samples=300, seed=0)
    assert result["accuracy"] == 1.0 and result["exhaustive"] is False
    assert result["equal_samples"] == int(
        is_equal_halves(sampled_words(64, 300, np.random.default_rng(0))).sum()
    )


@torch.no_grad()
def test_a_weak_threshold_misses_one_bit_differences():
    model, _ = build_equality(8, seed=0)
    model.blocks[1].fc.weight[:2] /= 8  # 2N o -> N/4 o: one differing bit no longer reaches 1
    assert equality_accuracy(model, all_words(8)) < 1.0


@torch.no_grad()
def test_a_wrong_address_is_caught():
    model, _ = build_equality(8, seed=0)
    d = model.config.width
    k = (d - 3) // 2
    model.pos.weight[5, 2 + k : 2 + 2 * k] = model.pos.weight[0, 2 : 2 + k]  # 6 compares with 1
    assert equality_accuracy(model, all_words(8)) < 1.0


def test_bad_lengths():
    for bad in (7, 0, 1026):
        with pytest.raises(InputError, match="even length in 2..1024"):
            build_equality(bad)
