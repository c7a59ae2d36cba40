"""Theorem 6 (App. F.2): a two-layer transformer of width 2k + 3 = O(log N) for equality.

EQ(x) = [x_1..x_{N/2} = x_{N/2+1}..x_N] for x in {0,1}^N (the paper's {-1,1}^N: bit b is
embedded as 2b - 1). Built as the zoo's :class:`~models.transformer.Transformer` (one head, no
LayerNorm, ReLU MLP) with hand-set weights; residual stream [x | r | T(i) | T(i') | o], i' = i
for i <= N/2 and i - N/2 beyond (spec erratum 6: the address block holds T(i - N/2)):

    layer 1  q = S(i'), k = S(j), attn_scale = eta / k: position i attends to i' (logit eta,
             competitors <= eta (1 - gap)); v = x_j, written into r: r ~ x_{i'} within 1/2.
             MLP: r <- XOR(x_i, x_{i'}) = clip(|x_i - r| - 1/2, 0, 1), exact 0/1 (0 for i <= N/2).
    layer 2  q = 0: uniform attention over the N positions; v = r, written into o:
             o = m w, with m = #{i : x_i != x_{i'}} and w = the rounded 1/N >= 1/(2N).
             MLP: o <- INEQ = ReLU(2N o) - ReLU(2N o - 1), exactly 0 or 1.
    readout  logits (o, 1 - o): class 1 means equal.

Choice (spec Sec. 3.7 allows either): the Theorem 1 scaling plus threshold FFNs, not the
round-to-nearest hard attention of eta = 2 ln((N-1)(2N^Kc - 1)): eta = ln(4N) / gap
(``concentration_eta``) puts weight >= 4/5 on i' under floor rounding, and the FFN repairs the
rest. The paper's trailing [1 | -1/2] entries of Q and K add the same -1/2 to every logit of a
row, which softmax ignores, so they are dropped; the fifth entry, the constant 1 that bias-free
layers need, becomes the output slot o (the zoo's layers have biases).

Precision: floor rounding with frac = max(8, ceil(log2 N) + 1) fractional bits, so that the
rounded 1/N is >= 1/(2N), and integer bits to hold eta and 2N; exact float64 sums need
bits <= 24, hence N <= ``LENGTH_LIMIT``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages.strings import is_equal_halves
from models.constructions.positional import (
    code_fields,
    concentration_eta,
    distinct_codes,
    grid_for,
)
from models.constructions.scoring import strictly_correct
from models.transformer import Transformer, TransformerConfig

LENGTH_LIMIT = 1024
"""Longest N: frac = ceil(log2 N) + 1 and range 2N must fit the 24 bits exact in float64."""

EXHAUSTIVE_LENGTH = 16
"""Lengths up to this are checked on all 2^N inputs."""

BATCH_NUMBERS = 1 << 22
"""Attention logits (batch x N x N) in one verification batch."""


def build_equality(length: int, seed: int = 0) -> tuple[Transformer, dict[str, Any]]:
    """The Theorem 6 transformer for even N = ``length`` in finite-precision mode, and its sizes."""
    if length % 2 or not 2 <= length <= LENGTH_LIMIT:
        raise InputError(f"equality needs an even length in 2..{LENGTH_LIMIT}, got {length}")
    codes = distinct_codes(length, seed)
    k = codes.k
    eta = concentration_eta(length, codes.gap)  # position i sees <= N keys: i' and N - 1 others
    config = TransformerConfig(
        vocab_size=2,
        n_out=2,
        width=2 * k + 3,
        layers=2,
        heads=1,
        mlp_width=6,
        max_length=length,
        layer_norm=False,
        attn_scale=eta / k,
        activation="relu",
    )
    model = Transformer(config)
    _set_weights(model, codes.signs)
    fmt = grid_for(max(eta, 2 * length), max(8, math.ceil(math.log2(length)) + 1))
    model.set_precision(fmt)
    info = {
        "length": length,
        "width": config.width,
        "code_width": k,
        "layers": 2,
        "heads": 1,
        **code_fields(codes, eta, fmt),
    }
    return model, info


@torch.no_grad()
def _set_weights(model: Transformer, signs: np.ndarray) -> None:
    """Wire the model of the module docstring (weights are (out, in), rows of qkv: q, k, v)."""
    for p in model.parameters():
        p.zero_()
    n, k = signs.shape
    d = model.config.width
    x, r, o = 0, 1, d - 1
    own, address = slice(2, 2 + k), slice(2 + k, 2 + 2 * k)
    codes = torch.tensor(signs, dtype=torch.float32)
    half = torch.arange(n) % (n // 2)  # i' - 1 for i = 1..N
    model.tok.weight[:, x] = torch.tensor([-1.0, 1.0])
    model.pos.weight[:, own] = codes
    model.pos.weight[:, address] = codes[half]
    first, second = model.blocks
    first.qkv.weight[:k, address] = torch.eye(k)  # W_Q
    first.qkv.weight[d : d + k, own] = torch.eye(k)  # W_K
    first.qkv.weight[2 * d, x] = 1.0  # W_V: x_j
    first.out.weight[r, 0] = 1.0  # r = attended x_{i'}
    # units: x - r - 1/2, x - r - 3/2, r - x - 1/2, r - x - 3/2, r, -r
    first.fc.weight[:, x] = torch.tensor([1.0, 1.0, -1.0, -1.0, 0.0, 0.0])
    first.fc.weight[:, r] = torch.tensor([-1.0, -1.0, 1.0, 1.0, 1.0, -1.0])
    first.fc.bias[:] = torch.tensor([-0.5, -1.5, -0.5, -1.5, 0.0, 0.0])
    first.proj.weight[r] = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0, 1.0])  # r <- XOR
    second.qkv.weight[2 * d, r] = 1.0  # W_Q = W_K = 0; W_V: r_j
    second.out.weight[o, 0] = 1.0  # o = mean of r
    second.fc.weight[:3, o] = torch.tensor([2.0 * n, 2.0 * n, 1.0])  # 2N o, 2N o - 1, o
    second.fc.bias[1] = -1.0
    second.proj.weight[o, :3] = torch.tensor([1.0, -1.0, -1.0])  # o <- INEQ
    model.head.weight[:, o] = torch.tensor([1.0, -1.0])
    model.head.bias[1] = 1.0


@torch.no_grad()
def last_logits(model: Transformer, tokens: torch.Tensor) -> torch.Tensor:
    """``model(tokens)[:, -1]`` bit for bit, with the last layer's attention at the last position
    only (models/transformer.py's decomposition): logits (B, n_out)."""
    x = model.embed(tokens)
    last = len(model.blocks) - 1
    for layer in range(last):
        x = model.after_attention(x, model.attend(x, layer), layer)
    q, k, v = model.qkv(x, last)
    logits = model.attention_logits(q[:, :, -1:], k)
    e = model.softmax_numerators(logits, logits.amax(-1, keepdim=True))
    u = model.value_sums(e, model.q(e.sum(-1, keepdim=True)), v)
    return model.finish(x[:, -1], u[:, :, 0])


def all_words(length: int) -> np.ndarray:
    """Every word of {0,1}^N, (2^N, N) int64, row w holding the bits of w (least first)."""
    return (np.arange(1 << length)[:, None] >> np.arange(length)) & 1


def sampled_words(length: int, samples: int, rng: np.random.Generator) -> np.ndarray:
    """Thirds of equal pairs, pairs differing in one random bit, and uniform random words
    (which are almost never equal), shuffled: (samples, N) int64."""
    half = length // 2
    first = rng.integers(0, 2, size=(samples, half))
    second = first.copy()
    kinds = rng.permutation(np.arange(samples) % 3)
    near = np.flatnonzero(kinds == 1)
    second[near, rng.integers(0, half, size=near.size)] ^= 1
    rand = np.flatnonzero(kinds == 2)
    second[rand] = rng.integers(0, 2, size=(rand.size, half))
    return np.concatenate([first, second], 1)


def equality_accuracy(model: Transformer, words: np.ndarray) -> float:
    """Fraction of words (B, N) on which the logit of EQ(word) (``is_equal_halves``) is strictly
    the larger at the last position; batched."""
    batch = max(1, BATCH_NUMBERS // words.shape[1] ** 2)
    correct = 0
    for a in range(0, len(words), batch):
        chunk = words[a : a + batch]
        target = torch.from_numpy(is_equal_halves(chunk).astype(np.int64))
        correct += int(strictly_correct(last_logits(model, torch.from_numpy(chunk)), target).sum())
    return correct / len(words)


def verify_equality(length: int, samples: int, seed: int) -> dict[str, Any]:
    """Build the Theorem 6 model and report its sizes and ``equality_accuracy``: on all 2^N words
    for N <= ``EXHAUSTIVE_LENGTH`` ("exhaustive": true, ``samples`` ignored), else on ``samples``
    words from ``sampled_words``."""
    if not 1 <= samples <= 10**6:
        raise InputError(f"samples must lie in 1..{10**6}, got {samples}")
    start = time.perf_counter()
    model, info = build_equality(length, seed)
    exhaustive = length <= EXHAUSTIVE_LENGTH
    if exhaustive:
        words = all_words(length)
    else:
        words = sampled_words(length, samples, np.random.default_rng(seed))
    return {
        "task": "equality",
        **info,
        "accuracy": equality_accuracy(model, words),
        "exhaustive": exhaustive,
        "samples": len(words),
        "equal_samples": int(is_equal_halves(words).sum()),
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 2),
    }
