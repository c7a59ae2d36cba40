"""p-hop induction (looped-reasoning Def. A.1, after Sanford, Hsu & Telgarsky 2024).

For v = (v_1, ..., v_n) over an alphabet Sigma (positions 1-based, as in the paper)::

    find_1(v, i) = max({0} ∪ {j <= i : v_{j-1} = v_i})        (j >= 2, so that v_{j-1} exists)
    find_p(v, i) = find_1(v, find_{p-1}(v, i))                  (find_1(v, 0) = 0)
    hop_p(v)     = v_{find_p(v, n)}  if find_p(v, n) != 0, else ⊥

find_1(v, i) is the position just after the most recent earlier occurrence of v_i. Because
j = i is allowed, v_{i-1} = v_i gives find_1(v, i) = i: the chain then stays at i for good and
the answer is v_i (about a quarter of uniform random chains at |Sigma| = 4, n = 256, p >= 16 hit
such a fixed point). ``strict=True`` is the variant with j < i that the spec discusses; it skips
the occurrence right before i. Symbols are integers 0..|Sigma|-1 and ⊥ is :data:`BOTTOM`.
Every function is vectorised over a leading batch axis.
"""

from __future__ import annotations

import numpy as np

from ccomplexity.errors import InputError, check_int

BOTTOM = -1
"""hop_p's ⊥ (no p-th hop)."""
WORK_LIMIT = 1 << 27
"""Most batch x n x |Sigma| cells :func:`find_1_table` builds at once."""


def as_words(v: np.ndarray) -> np.ndarray:
    w = np.asarray(v)
    if w.ndim == 1:
        w = w[None, :]
    if w.ndim != 2 or w.shape[1] == 0:
        raise InputError(f"p-hop needs a (batch, n) array with n >= 1, got shape {w.shape}")
    if not np.issubdtype(w.dtype, np.integer) or w.min() < 0:
        raise InputError("p-hop symbols must be non-negative integers")
    return w.astype(np.int64)


def find_1_table(v: np.ndarray, strict: bool = False) -> np.ndarray:
    """find_1(v, i) for every i = 0..n: a (batch, n + 1) array whose column 0 is 0.

    last[t, s] (the largest q <= t with v_q = s, 0 if none) is a running maximum over the
    one-hot table of v; find_1(v, i) = last[i - 1, v_i] + 1 (strict: last[i - 2, v_i] + 1)
    when that occurrence exists, else 0.
    """
    w = as_words(v)
    batch, n = w.shape
    sigma = int(w.max()) + 1
    if batch * n * sigma > WORK_LIMIT:
        raise InputError(
            f"p-hop oracle: batch x n x |Sigma| = {batch * n * sigma} exceeds {WORK_LIMIT}; "
            "split the batch"
        )
    pos = np.arange(1, n + 1)
    onehot = np.where(w[:, :, None] == np.arange(sigma), pos[None, :, None], 0)
    last = np.maximum.accumulate(onehot, axis=1)  # last[:, t - 1, s]: latest q <= t with v_q = s
    last = np.concatenate([np.zeros((batch, 1, sigma), dtype=np.int64), last], axis=1)
    lag = 2 if strict else 1
    before = np.clip(pos - lag, 0, None)  # look at positions <= i - lag
    prev = np.take_along_axis(last[:, before, :], w[:, :, None], axis=2)[:, :, 0]
    out = np.zeros((batch, n + 1), dtype=np.int64)
    out[:, 1:] = np.where(prev > 0, prev + 1, 0)
    return out


def find_p(v: np.ndarray, p: int, i: int | None = None, strict: bool = False) -> np.ndarray:
    """find_p(v, i) for each row (default i = n), by p applications of find_1."""
    hops = check_int(p, "hops p", 1)
    table = find_1_table(v, strict)
    n = table.shape[1] - 1
    start = n if i is None else check_int(i, "position i", 0)
    if start > n:
        raise InputError(f"position i must be at most n = {n}, got {start}")
    rows = np.arange(table.shape[0])
    at = np.full(table.shape[0], start, dtype=np.int64)
    for _ in range(hops):
        at = table[rows, at]
    return at


def hop_chain(v: np.ndarray, p: int, strict: bool = False) -> np.ndarray:
    """The chain i_0 = n, i_1 = find_1(i_0), ..., i_p: a (batch, p + 1) array of positions."""
    hops = check_int(p, "hops p", 1)
    table = find_1_table(v, strict)
    rows = np.arange(table.shape[0])
    chain = [np.full(table.shape[0], table.shape[1] - 1, dtype=np.int64)]
    for _ in range(hops):
        chain.append(table[rows, chain[-1]])
    return np.stack(chain, axis=1)


def hop_p(v: np.ndarray, p: int, strict: bool = False) -> np.ndarray:
    """hop_p(v) for each row: the symbol at find_p(v, n), or :data:`BOTTOM` (⊥)."""
    w = as_words(v)
    at = find_p(w, p, strict=strict)
    rows = np.arange(w.shape[0])
    return np.where(at > 0, w[rows, np.maximum(at, 1) - 1], BOTTOM)


def chain_statistics(v: np.ndarray, p: int, strict: bool = False) -> dict[str, float]:
    """Diagnostics of the spec: how often the chain reaches ⊥, how often it stops at a fixed
    point find_1(i) = i before p hops, and the mean span n - find_p(v, n) of the others."""
    chain = hop_chain(v, p, strict)
    bottom = chain[:, -1] == 0
    fixed = ((chain[:, 1:] == chain[:, :-1]) & (chain[:, :-1] > 0)).any(axis=1)
    live = ~bottom
    span = (chain[live, 0] - chain[live, -1]).mean() if live.any() else float("nan")
    return {
        "bottom_rate": float(bottom.mean()),
        "fixed_point_rate": float(fixed.mean()),
        "mean_span": float(span),
    }


__all__ = ["BOTTOM", "as_words", "chain_statistics", "find_1_table", "find_p", "hop_chain", "hop_p"]
