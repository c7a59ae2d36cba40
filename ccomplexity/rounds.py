"""Exact round-counting simulators behind the loop counts of the looped-reasoning paper.

A *round* is what one loop of a one-layer block can do: every position reads what is stored at
one other position that it can name (one attention lookup), then computes locally (the MLP).

* :func:`group_doubling` is Algorithm 2 (App. B.2.2, the proof of Thm 2.1): n elements of a
  group in ceil(log2 n) rounds, with index maps that are the same in every round, so one looped
  layer can run them all.
* :func:`pointer_doubling` computes hop_p (Def. A.1) in floor(log2 p) + 2 rounds (Thm B.6 /
  Cor. 2.3) with O(1) numbers stored per position. Round 1 matches contents: position i finds
  the pointer f(i) = find_1(v, i) (the occurrence is found by its symbol, so the symbol at
  f(i) itself is not known yet). Round r >= 2 reads at X(i) and doubles:
  X_r(i) = f^(2^(r-1))(i) and W_r(i) = v at f^(2^(r-1) - 1)(i); tokens trail pointers by one
  hop. The last position n also keeps a pointer B with exponent e = p + 1 - 2^floor(log2 p)
  (built from the bits of e - 1 while the others double) and finally reads W at B:
  e + 2^floor(log2 p) - 1 = p hops.

  Why no schedule of this kind does better: after r rounds a position knows pointers f^x for
  x <= 2^(r-1) and symbols at f^x for x <= 2^(r-1) - 1 (true after round 1; a round adds what
  is known at one known pointer, so both bounds double). The symbol at f^p needs
  2^(r-1) - 1 >= p, i.e. r >= ceil(log2 (p + 1)) + 1 = floor(log2 p) + 2. This settles the
  spec's question for p that are not powers of two: the straightforward schedule (find_1 with
  its symbol in two rounds, then doubling) needs 2 + ceil(log2 p), one more.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ccomplexity.errors import InputError, check_int
from ccomplexity.groups import FiniteGroup
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.hops import BOTTOM, as_words, find_1_table


@dataclass(frozen=True, eq=False)
class RoundsResult:
    """Answers (one per row), the rounds run and the rounds the schedule needs."""

    answers: np.ndarray
    rounds: int
    rounds_needed: int
    history: tuple[np.ndarray, ...] = ()
    """group_doubling: the elements g^(l)_0..n of every row after each round l = 0..rounds."""


def group_doubling_rounds(length: int) -> int:
    """ceil(log2 n), Algorithm 2's rounds (0 for n = 1)."""
    return ceil_log2(check_int(length, "length n"))


def group_doubling(
    group: FiniteGroup, words: np.ndarray, rounds: int | None = None, history: bool = False
) -> RoundsResult:
    """Algorithm 2 on each row g_1..g_n of ``words``: g_0 = e, g^(0)_i = g_i and, per round,
    g^(l)_i = g^(l-1)_[2i-n-1]+ ∘ g^(l-1)_[2i-n]+ for 0 <= i <= n; the answer is g^(T)_n.

    The product g^(l)_0 ∘ ... ∘ g^(l)_n never changes, and after ceil(log2 n) rounds every
    g^(l)_i with i < n is e. ``rounds`` (default ceil(log2 n)) may be set lower to watch it
    fail; ``history`` keeps every round's elements.
    """
    w = np.atleast_2d(np.asarray(words))
    if w.ndim != 2 or w.shape[1] < 1 or not np.issubdtype(w.dtype, np.integer):
        raise InputError(f"words must be a (batch, n) integer array, got shape {w.shape}")
    if w.min() < 0 or w.max() >= group.order:
        raise InputError(f"{group.name}: elements must lie in 0..{group.order - 1}")
    n = w.shape[1]
    needed = group_doubling_rounds(n)
    t = needed if rounds is None else check_int(rounds, "rounds", 0)
    i = np.arange(n + 1)
    left, right = np.maximum(2 * i - n - 1, 0), np.maximum(2 * i - n, 0)
    g = np.concatenate([np.zeros((w.shape[0], 1), dtype=np.int64), w.astype(np.int64)], axis=1)
    kept = [g]
    for _ in range(t):
        g = group.table[g[:, left], g[:, right]]
        if history:
            kept.append(g)
    return RoundsResult(g[:, n], t, needed, tuple(kept) if history else ())


def pointer_doubling_rounds(p: int) -> int:
    """floor(log2 p) + 2: the rounds :func:`pointer_doubling` needs for p hops."""
    return check_int(p, "hops p").bit_length() + 1


def max_hops(rounds: int) -> int:
    """2^(r-1) - 1: the most hops whose symbol r rounds of the schedule reach (0 for r = 1)."""
    return 2 ** (check_int(rounds, "rounds") - 1) - 1


def pointer_doubling(
    v: np.ndarray, p: int, rounds: int | None = None, strict: bool = False
) -> RoundsResult:
    """hop_p of each row of ``v`` by the schedule of the module docstring.

    With ``rounds`` below floor(log2 p) + 2 the schedule answers for the most hops it can
    reach, 2^(rounds-1) - 1, which is wrong wherever that symbol differs from hop_p's.
    """
    w = as_words(v)
    hops = check_int(p, "hops p")
    needed = pointer_doubling_rounds(hops)
    r = needed if rounds is None else check_int(rounds, "rounds")
    reach = min(hops, max_hops(r))
    f = find_1_table(w, strict)  # round 1: f(i) by content; position 0 is the ⊥ sentinel
    batch, n = w.shape
    rows = np.arange(batch)[:, None]
    x = f
    tokens = np.concatenate([np.full((batch, 1), BOTTOM), w], axis=1)  # W_1: v_i itself
    if reach == 0:
        return RoundsResult(tokens[:, n], r, needed)
    top = reach.bit_length() - 1  # floor(log2 reach)
    e = reach + 1 - 2**top
    b = x[:, n]  # B = f(n): exponent 1
    for k in range(top):  # rounds 2 .. top + 1
        if (e - 1) >> k & 1:
            b = x[rows[:, 0], b]  # read X at B before this round's update
        x, tokens = x[rows, x], tokens[rows, x]  # read at X(i): X and W double
    return RoundsResult(tokens[rows[:, 0], b], r, needed)  # last round: W at B


__all__ = [
    "RoundsResult",
    "group_doubling",
    "group_doubling_rounds",
    "max_hops",
    "pointer_doubling",
    "pointer_doubling_rounds",
]
