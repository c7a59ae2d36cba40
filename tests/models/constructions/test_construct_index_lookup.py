"""Theorem 1: the hand-wired one-layer transformer solves Index Lookup in width O(log N)."""

from __future__ import annotations

import math

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages.retrieval import index_lookup
from models.constructions.index_lookup import (
    build_index_lookup,
    lookup_accuracy,
    lookup_logits,
    lookup_tables,
    verify_index_lookup,
)
from models.transformer import Transformer, TransformerConfig


def random_inputs(batch: int, length: int, n_symbols: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    symbols = torch.randint(0, n_symbols, (batch, length), generator=g)
    positions = torch.randint(1, length + 1, (batch,), generator=g)
    return symbols, positions


def test_model_is_the_zoo_transformer_in_finite_precision():
    model, info = build_index_lookup(30, n_symbols=6, seed=1)
    assert isinstance(model, Transformer) and model.quant is not None
    config = model.config
    assert (config.layers, config.heads, config.layer_norm) == (1, 1, False)
    assert config.activation == "relu"
    assert config.width == info["width"] == info["symbol_bits"] + 2 * info["code_width"]
    assert info["precision"] == model.quant.fmt.bits and info["format"]["frac"] == 8


def test_tabulated_run_equals_the_forward_pass_bit_for_bit():
    n_symbols, length = 5, 12
    model, _ = build_index_lookup(length, n_symbols=n_symbols, seed=0)
    symbols, positions = random_inputs(64, length, n_symbols)
    tokens = torch.cat([symbols, (n_symbols + positions - 1)[:, None]], 1)
    fast = lookup_logits(model, lookup_tables(model, n_symbols, length), symbols, positions)
    assert torch.equal(fast, model(tokens)[:, -1])
    target = torch.from_numpy(index_lookup(symbols.numpy(), positions.numpy()))
    assert torch.equal(fast.argmax(1), target)


def test_n_100_is_exact_and_narrower_than_one_hot():
    result = verify_index_lookup(100, samples=2000, seed=0)
    assert result["accuracy"] == 1.0 and result["samples"] == 2000
    assert result["width"] == 6 + 2 * result["code_width"] < result["one_hot_width"] == 206
    assert result["code_width"] < result["paper_k"]
    assert result["eta"] == pytest.approx(math.log(400) / result["gap"])


def test_width_at_n_1000_is_far_below_one_hot():
    _, info = build_index_lookup(1000)
    assert info["width"] <= 6 + 2 * (2 * math.log2(1000) + 8)
    assert 40 * info["width"] < info["one_hot_width"] == 2006


def test_too_small_a_temperature_fails():
    result = verify_index_lookup(100, samples=500, seed=0, eta=2.0)
    assert result["accuracy"] < 0.5


@torch.no_grad()
def test_a_corrupted_value_weight_is_caught():
    model, _ = build_index_lookup(50, n_symbols=8, seed=0)
    d = model.config.width
    model.blocks[0].qkv.weight[2 * d, 0] = 0.0  # W_V forgets bit 0 of rho
    assert lookup_accuracy(model, 8, 50, samples=400, seed=0) < 0.75


@torch.no_grad()
def test_a_corrupted_position_code_is_caught():
    model, _ = build_index_lookup(50, n_symbols=8, seed=0)
    model.pos.weight[7] = model.pos.weight[8]  # positions 8 and 9 share a code
    assert lookup_accuracy(model, 8, 50, samples=2000, seed=0) < 1.0


def test_explicit_k_and_limits():
    _, info = build_index_lookup(20, n_symbols=4, k=30)
    assert info["code_width"] == 30 and info["width"] == 2 + 60
    with pytest.raises(InputError, match="length must lie in 1..20000"):
        build_index_lookup(20_001)
    with pytest.raises(InputError, match="needs 2..65536 symbols"):
        build_index_lookup(10, n_symbols=1)
    with pytest.raises(InputError, match="eta must be a positive finite number"):
        build_index_lookup(10, eta=-1.0)


def test_transformer_activation_option():
    assert TransformerConfig().activation == "gelu"
    with pytest.raises(InputError, match="activation must be 'gelu' or 'relu', got 'tanh'"):
        TransformerConfig(activation="tanh")
