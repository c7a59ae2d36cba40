"""Theorem 1 (Sec. 3, App. C.2): a one-layer transformer of width O(log N) for Index Lookup.

Input: symbols s_1..s_N in Sigma, then the position token p (1-based); output: s_p. Built as the
zoo's :class:`~models.transformer.Transformer` (one head, no LayerNorm, ReLU MLP) with hand-set
weights, residual stream of width d = L + 2k in three blocks [rho | query code | position code]:

    symbol s at position i:  tok[s] + pos[i] = [rho(s), 0, S(i)]       rho(s): the L bits of s
    position token p:        tok[p] + pos[N] = [0, S(p), 0]            S(i) = sqrt(k) T(i)
    W_Q selects the middle block, W_K the last, W_V the first; attn_scale = eta / k, so the logit
    of position i is eta <T(p), T(i)>: eta at i = p, <= eta (1 - gap) elsewhere, 0 at p's token.

With eta = ln(4N) / gap (``concentration_eta``) the N other tokens (N - 1 symbols and the query
token) have softmax mass S <= 1/4 relative to s_p. Floor rounding with step delta = 2^-FRAC
lowers the target's logit by < delta and only lowers the exponentials, so S <= e^delta / 4; the
weight on s_p is >= 1 / (1 + S) - delta >= 0.79 and the others sum to <= S / (1 + S) <= 0.21:
every attended bit z_j is >= 3/4 or <= 1/4. The ReLU MLP replaces z_j by
b_j = ReLU(2z_j - 1/2) - ReLU(2z_j - 3/2), exactly 0 or 1 (the paper's threshold), and the
readout scores symbol s by sum_j (2 rho_j(s) - 1)(2 b_j - 1): L for s = s_p, <= L - 2 for any
other s. The codes are stored as integer signs, so every weight and embedding (integers and
halves) lies on the grid; the 1/k of <T, T> sits in attn_scale. k and eta are the smallest that
this argument certifies (positional.py); the paper's k = 128 ln(2N) is reported as ``paper_k``.

Verification runs the model in finite precision (floor rounding, ``FRAC`` fractional bits,
integer bits to hold eta). The keys and values of a one-layer model at position i depend only
on (s_i, i), so they are tabulated once with the model's own ``embed`` and ``qkv`` for every
(symbol, position) pair, and each input then needs only the last position's attention: the
Theorem 4 decomposition of models/transformer.py, equal to ``forward(tokens)[:, -1]`` bit for bit.
"""

from __future__ import annotations

import math
import time
from typing import Any, NamedTuple

import numpy as np
import torch

from ccomplexity import budget
from ccomplexity.codes import paper_k
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.retrieval import index_lookup
from models.constructions.positional import (
    code_fields,
    concentration_eta,
    distinct_codes,
    grid_for,
)
from models.constructions.scoring import strictly_correct
from models.transformer import Transformer, TransformerConfig

FRAC = 8
"""Fractional bits: grid step 1/256, well inside the rounding margin the eta above leaves."""

LENGTH_LIMIT = 20_000
"""Longest N: the key and value tables hold |Sigma| x N x d numbers each."""

BATCH_NUMBERS = 1 << 23
"""Numbers in one gathered (batch, N + 1, d) key or value tensor of a verification batch."""


def symbol_bits(n_symbols: int) -> int:
    """L = ceil(log2 |Sigma|) bits of the binary encoding rho (at least 1)."""
    return max(1, ceil_log2(n_symbols))


def _check(length: int, n_symbols: int) -> None:
    if not 1 <= length <= LENGTH_LIMIT:
        raise InputError(f"index lookup length must lie in 1..{LENGTH_LIMIT}, got {length}")
    if not 2 <= n_symbols <= 1 << 16:
        raise InputError(f"index lookup needs 2..{1 << 16} symbols, got {n_symbols}")


def build_index_lookup(
    length: int,
    n_symbols: int = 64,
    seed: int = 0,
    k: int | None = None,
    eta: float | None = None,
) -> tuple[Transformer, dict[str, Any]]:
    """The Theorem 1 transformer for N = ``length``, in finite-precision mode, and its sizes.

    ``k`` None takes the narrowest distinct code family (``distinct_codes``); ``eta`` None takes
    ``concentration_eta(N, gap)``. Vocabulary: symbols 0..|Sigma|-1, then position tokens
    |Sigma| + p - 1 for p = 1..N; outputs: one logit per symbol.
    """
    _check(length, n_symbols)
    codes = distinct_codes(length, seed, k)
    width_k, bits = codes.k, symbol_bits(n_symbols)
    if eta is None:
        eta = concentration_eta(length, codes.gap)  # N - 1 other symbols + the query token
    if not (math.isfinite(eta) and eta > 0):
        raise InputError(f"eta must be a positive finite number, got {eta}")
    d = bits + 2 * width_k
    config = TransformerConfig(
        vocab_size=n_symbols + length,
        n_out=n_symbols,
        width=d,
        layers=1,
        heads=1,
        mlp_width=3 * bits,
        max_length=length + 1,
        layer_norm=False,
        attn_scale=eta / width_k,
        activation="relu",
    )
    model = Transformer(config)
    _set_weights(model, codes.signs, n_symbols, bits)
    fmt = grid_for(max(eta, 2 * bits), FRAC)
    model.set_precision(fmt)
    info = {
        "length": length,
        "n_symbols": n_symbols,
        "width": d,
        "code_width": width_k,
        "symbol_bits": bits,
        "one_hot_width": bits + 2 * length,  # the same layout with one-hot query and position
        "paper_k": paper_k(length, 0.25),  # Cor 8.1's k = ceil(128 ln(2N))
        **code_fields(codes, eta, fmt),
    }
    return model, info


@torch.no_grad()
def _set_weights(model: Transformer, signs: np.ndarray, n_symbols: int, bits: int) -> None:
    """Wire the model of the module docstring (weights are (out, in), rows of qkv: q, k, v)."""
    for p in model.parameters():
        p.zero_()
    n, k = signs.shape
    rho, query, position = slice(0, bits), slice(bits, bits + k), slice(bits + k, bits + 2 * k)
    codes = torch.tensor(signs, dtype=torch.float32)
    symbols = torch.arange(n_symbols)
    rho_bits = ((symbols[:, None] >> torch.arange(bits)) & 1).float()  # (|Sigma|, L)
    model.tok.weight[:n_symbols, rho] = rho_bits
    model.tok.weight[n_symbols:, query] = codes  # position token p carries S(p)
    model.pos.weight[:n, position] = codes  # position N (the query's) stays 0
    block = model.blocks[0]
    d = model.config.width
    w_qkv = block.qkv.weight
    w_qkv[:k, query] = torch.eye(k)  # W_Q: query code
    w_qkv[d : d + k, position] = torch.eye(k)  # W_K: position code
    w_qkv[2 * d : 2 * d + bits, rho] = torch.eye(bits)  # W_V: rho
    block.out.weight[rho, :bits] = torch.eye(bits)  # attended bits z into the (empty) rho block
    for j in range(bits):  # units 3j, 3j+1, 3j+2: 2z - 1/2, 2z - 3/2, z
        block.fc.weight[3 * j : 3 * j + 3, j] = torch.tensor([2.0, 2.0, 1.0])
        block.fc.bias[3 * j : 3 * j + 2] = torch.tensor([-0.5, -1.5])
        block.proj.weight[j, 3 * j : 3 * j + 3] = torch.tensor([1.0, -1.0, -1.0])  # z -> b
    signed = 2 * rho_bits - 1
    model.head.weight[:, rho] = 2 * signed
    model.head.bias[:] = -signed.sum(1)


class LookupTables(NamedTuple):
    """The model's own layer-one quantities for every token an input can hold where it can be.

    Rows of keys (R, H, dk) and values (R, H, dv): row i |Sigma| + s is symbol s at position i
    (0-based), row N |Sigma| + p - 1 is position token p at position N. query_x (N, d) and
    query_q (N, H, dk) belong to position token p at position N. Only the coordinates
    ``key_dims`` and ``value_dims`` are kept: the others have a zero row of W_Q (resp. W_V) and a
    zero bias in every head, so they are exactly 0 for every token and add exact zeros to every
    dot product and value sum; dropping them changes no bit of the result.
    """

    keys: torch.Tensor
    values: torch.Tensor
    query_x: torch.Tensor
    query_q: torch.Tensor
    key_dims: torch.Tensor
    value_dims: torch.Tensor


def _live_dims(model: Transformer, part: int) -> torch.Tensor:
    """Head coordinates of q (part 0) or v (part 2) whose weight row or bias is non-zero."""
    d, heads = model.config.width, model.heads
    qkv = model.blocks[0].qkv
    rows = slice(part * d, (part + 1) * d)
    weight = model.q(qkv.weight[rows]).reshape(heads, model.head_dim, d)
    bias = model.q(qkv.bias[rows]).reshape(heads, model.head_dim)
    return torch.flatten((weight.ne(0).any(-1) | bias.ne(0)).any(0).nonzero())


@torch.no_grad()
def lookup_tables(model: Transformer, n_symbols: int, length: int) -> LookupTables:
    """Run ``embed`` and ``qkv`` on every (symbol, position) pair and every query token."""
    key_dims, value_dims = _live_dims(model, 0), _live_dims(model, 2)
    keys, values = [], []
    symbols = torch.arange(n_symbols)
    chunk = max(1, BATCH_NUMBERS // (n_symbols * 3 * model.config.width))  # qkv: 3d numbers
    for a in range(0, length, chunk):
        positions = torch.arange(a, min(a + chunk, length))
        x = model.embed(symbols[:, None].expand(-1, positions.numel()), positions)
        _, k, v = model.qkv(x)  # (|Sigma|, H, n, dh) -> rows (n |Sigma|, H, kept dims)
        keys.append(k.permute(2, 0, 1, 3)[..., key_dims].flatten(0, 1))
        values.append(v.permute(2, 0, 1, 3)[..., value_dims].flatten(0, 1))
    query_tokens = n_symbols + torch.arange(length)[:, None]
    x = model.embed(query_tokens, torch.tensor([length]))  # (N, 1, d)
    q, k, v = (t[:, :, 0] for t in model.qkv(x))  # (N, H, dh)
    return LookupTables(
        keys=torch.cat([*keys, k[..., key_dims]]),
        values=torch.cat([*values, v[..., value_dims]]),
        query_x=x[:, 0],
        query_q=q[..., key_dims],
        key_dims=key_dims,
        value_dims=value_dims,
    )


@torch.no_grad()
def lookup_logits(
    model: Transformer, tables: LookupTables, symbols: torch.Tensor, positions: torch.Tensor
) -> torch.Tensor:
    """Logits (B, |Sigma|) at the last position for symbols (B, N) and 1-based positions (B,)."""
    batch, length = symbols.shape
    n_symbols = (tables.keys.shape[0] - length) // length
    query_row = n_symbols * length + positions - 1
    rows = torch.cat([torch.arange(length) * n_symbols + symbols, query_row[:, None]], 1).flatten()
    k = tables.keys.index_select(0, rows).unflatten(0, (batch, length + 1)).transpose(1, 2)
    v = tables.values.index_select(0, rows).unflatten(0, (batch, length + 1)).transpose(1, 2)
    p = positions - 1
    logits = model.attention_logits(tables.query_q[p, :, None], k)  # (B, H, 1, N + 1)
    e = model.softmax_numerators(logits, logits.amax(-1, keepdim=True))
    kept = model.value_sums(e, model.q(e.sum(-1, keepdim=True)), v)  # (B, H, 1, dv)
    u = kept.new_zeros(batch, model.heads, model.head_dim)
    u[..., tables.value_dims] = kept[:, :, 0]
    return model.finish(tables.query_x[p], u)


def lookup_accuracy(
    model: Transformer, n_symbols: int, length: int, samples: int, seed: int
) -> float:
    """Fraction of ``samples`` uniform random inputs (symbols, p) on which the model's logit for
    s_p (``retrieval.index_lookup``) is strictly the largest; batched, independent inputs."""
    tables = lookup_tables(model, n_symbols, length)
    rng = np.random.default_rng(seed)
    batch = max(1, BATCH_NUMBERS // ((length + 1) * model.config.width))
    correct = 0
    for done in range(0, samples, batch):
        b = min(batch, samples - done)
        symbols = rng.integers(0, n_symbols, size=(b, length))
        positions = rng.integers(1, length + 1, size=b)
        target = torch.from_numpy(index_lookup(symbols, positions))
        logits = lookup_logits(
            model, tables, torch.from_numpy(symbols), torch.from_numpy(positions)
        )
        correct += int(strictly_correct(logits, target).sum())
    return correct / samples


def verify_index_lookup(
    length: int,
    samples: int,
    seed: int,
    n_symbols: int = 64,
    k: int | None = None,
    eta: float | None = None,
) -> dict[str, Any]:
    """Build the Theorem 1 model and report its sizes and ``lookup_accuracy``; ``seconds``
    includes building and tabulating."""
    if not 1 <= samples <= 10**7:
        raise InputError(f"samples must lie in 1..{10**7}, got {samples}")
    what = f"checking the Theorem 1 model on {samples} inputs of length {length}"
    budget.check(
        what,
        work=budget.index_lookup(samples, length),
        instead="use fewer --samples or a shorter --length",
    )
    start = time.perf_counter()
    model, info = build_index_lookup(length, n_symbols, seed, k, eta)
    accuracy = lookup_accuracy(model, n_symbols, length, samples, seed)
    return {
        "task": "index-lookup",
        **info,
        "accuracy": accuracy,
        "samples": samples,
        "seed": seed,
        "seconds": round(time.perf_counter() - start, 2),
    }
