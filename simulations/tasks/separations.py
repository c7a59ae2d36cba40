"""The tasks of the separations paper's experiments (Sec. 6 and App. H; spec section 4).

``train=False`` gives instances of exactly length N (evaluation, App. H). ``train=True`` draws
each example's length from the training distribution of App. H.1 / H.2 up to N. Examples of
different lengths share one tensor: each is LEFT-ALIGNED (it starts at position 0, so learned
absolute positions mean the same thing in every example) and followed by a reserved [pad]
token. Every model in ``models`` is causal, so the padding never influences a counted output,
and the mask excludes the padded positions.

Tasks (``N`` is the task's length parameter):

* ``index-lookup`` (App. H.1): N symbols from |Sigma| = 64, then a position token p in [N];
  the target at the position token is s_p. Training length k is uniform in [10, N].
* ``dyck`` (App. H.1): Dyck-(2,2) recognition; balanced positives (the H.1 stack generator) and
  corrupted negatives, every string of length exactly N (training too); label at the last
  position (1 = member).
* ``eq-random``, ``eq-one`` (App. H.2): w [sep] w' with |w| = |w'| = k/2, label EQ at the last
  position; k even, uniform in {N/10, N/10 + 2, ..., N} (k counts the symbols, not [sep]).
* ``eq-ncp`` (App. H.2 (iii)): w [sep] w; from [sep] on each position must predict the next
  symbol (the only valid continuation), so the task is copying. The first half, where every
  continuation is valid, is not counted.
* ``mqar`` (App. G.1; not trained in the paper, so its length law is our choice): N key-value
  pairs k_1 v_1 ... k_N v_N, then the N keys again in random order; at each query the target is
  its value. Training N' is uniform in [1, N].

Labels are computed in torch from the construction; ``tests/simulations/test_tasks.py`` checks
them against the exact oracles of ``ccomplexity.languages``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from simulations.tasks.base import Batch, Task, at_positions, options, uniform_int

# --- Index Lookup (App. H.1) --------------------------------------------------------------------


@dataclass(frozen=True)
class IndexLookupTask(Task):
    """IdxL (Sec. 3, App. H.1). Symbols are tokens 0..S-1, position p in [N] is token S + p - 1,
    [pad] is the last token. Output classes: the S symbols."""

    symbols: int = 64
    min_length: int = 10

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        s = torch.randint(0, self.symbols, (batch, length), generator=g)
        k = (
            uniform_int(min(self.min_length, length), length, batch, g)
            if train
            else torch.full((batch,), length)
        )
        p = uniform_int(1, k, batch, g)  # 1-based, uniform in [1, k]
        col = torch.arange(length + 1)
        tokens = torch.where(col < k[:, None], torch.nn.functional.pad(s, (0, 1)), self.pad)
        rows = torch.arange(batch)
        tokens[rows, k] = self.symbols + p - 1
        targets, mask = at_positions(batch, length + 1, k, s[rows, p - 1])
        return tokens, targets, mask


# --- Dyck-(2,2) (App. H.1) ----------------------------------------------------------------------


def h1_positives(batch: int, length: int, reading: str, g: torch.Generator) -> Tensor:
    """App. H.1 positive Dyck-(2,2) words (batch, N), with the law of
    :func:`ccomplexity.languages.dyck.positive_h1`.

    The stack process is vectorised through its structure. Depth parity forces the depth to 1
    before every odd position t = 2j + 1 (0-based) up to N - 3, where decision j is taken:
    "close" (probability 1/3 for ``"three-way"``, 1/2 for ``"half"``) emits the closer of the
    bottom bracket b_j, and position t + 1 (at depth 0) opens a fresh uniform type, the new
    bottom; "open" emits an opener of a uniform type c and position t + 1 (at depth 2) closes it.
    Position 0 opens b_0 uniformly and the finishing step of App. H.1 always ends with the
    closer of the current bottom b_M (M = (N - 2) / 2): after a final "close" it appends a
    fresh pair, after a final "open" the two pending closers.
    """
    m = (length - 2) // 2
    p_close = 1 / 3 if reading == "three-way" else 1 / 2
    close = torch.rand(batch, m, generator=g) < p_close
    fresh = torch.randint(0, 2, (batch, m + 1), generator=g)  # b_0, then the reopened types
    opened = torch.randint(0, 2, (batch, m), generator=g)  # the depth-2 bracket types c_j
    changed = torch.cat([torch.ones(batch, 1, dtype=torch.bool), close], dim=1)
    latest = torch.where(changed, torch.arange(m + 1), 0).cummax(dim=1).values
    bottom = fresh.gather(1, latest)  # b_0 .. b_M
    first = torch.where(close, 2 * bottom[:, :m] + 1, 2 * opened)  # positions 2j + 1
    second = torch.where(close, 2 * fresh[:, 1:], 2 * opened + 1)  # positions 2j + 2
    pairs = torch.stack([first, second], dim=2).reshape(batch, 2 * m)
    return torch.cat([2 * bottom[:, :1], pairs, 2 * bottom[:, m:] + 1], dim=1)


def is_dyck22(words: Tensor) -> Tensor:
    """Membership in Dyck-(2,2) of each row (batch, N), without a loop over positions.

    A prefix is fine while the depth stays in [0, 2]; a closer at depth h before it must match
    the type of the latest opener that raised the depth to h (the top of the stack, since a
    popped and re-pushed level always has a later opener). Tested against
    :func:`ccomplexity.languages.dyck.is_dyck`.
    """
    opening = words % 2 == 0
    kind = words // 2
    after = torch.where(opening, 1, -1).cumsum(dim=1)
    before = after - torch.where(opening, 1, -1)
    ok = ((after >= 0) & (after <= 2)).all(dim=1) & (after[:, -1] == 0)
    pos = torch.arange(words.shape[1])
    matched = torch.ones_like(opening)
    for h in (1, 2):
        latest = torch.where(opening & (after == h), pos, -1).cummax(dim=1).values
        top = kind.gather(1, latest.clamp(min=0))
        closes_h = ~opening & (before == h)
        matched &= ~closes_h | ((latest >= 0) & (top == kind))
    return ok & matched.all(dim=1)


def h1_corrupt(positives: Tensor, g: torch.Generator) -> Tensor:
    """App. H.1 negatives from positives, with the law of
    :func:`ccomplexity.languages.dyck.negative_h1`: c uniform in 1..max(1, N // 10) distinct
    positions; at each, swap the type (xor 2) or flip open/close
    (xor 1) with probability 1/2; rows that are still members are corrupted again."""
    out = positives.clone()
    batch, length = positives.shape
    c_max = max(1, length // 10)
    todo = torch.arange(batch)
    while todo.numel():
        c = torch.randint(1, c_max + 1, (todo.numel(), 1), generator=g)
        ranks = torch.rand(todo.numel(), length, generator=g).argsort(1).argsort(1)
        op = torch.where(torch.rand(todo.numel(), length, generator=g) < 0.5, 2, 1)
        out[todo] = positives[todo] ^ torch.where(ranks < c, op, 0)
        todo = todo[is_dyck22(out[todo])]
    return out


@dataclass(frozen=True)
class DyckTask(Task):
    """Dyck-(2,2) recognition (Sec. 4.1, App. H.1). Tokens '(' ')' '[' ']' = 0 1 2 3 (the
    encoding of ``ccomplexity.languages.dyck``); class 1 = member, at the last position.

    Each label is a fair coin; positives follow the H.1 stack generator (:func:`h1_positives`,
    ``reading`` as in :data:`ccomplexity.languages.dyck.H1Reading`) and negatives are corrupted
    positives (:func:`h1_corrupt`), in torch so that generation keeps up with a GPU at N = 400.
    Every string, in training too, has length exactly N (App. H.1), which must be even.
    """

    reading: str = "three-way"

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        if n < 2 or n % 2:
            raise InputError(f"dyck: the App. H.1 generators need an even length >= 2, got {n}")
        return n

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        labels = torch.rand(batch, generator=g) < 0.5
        words = h1_positives(batch, length, self.reading, g)
        negative = torch.nonzero(~labels).flatten()
        words[negative] = h1_corrupt(words[negative], g)
        last = torch.full((batch,), length - 1)
        targets, mask = at_positions(batch, length, last, labels.long())
        return words, targets, mask


# --- Equality (App. H.2) ------------------------------------------------------------------------


@dataclass(frozen=True)
class EqualityTask(Task):
    """Eq-random / Eq-one / Eq-ncp (App. H.2). Symbols are tokens 0..A-1, then [sep] = A and
    [pad] = A + 1. Sequences are w [sep] w' (k + 1 tokens), padded after in training batches.

    * ``eq-random``: A = 2; w' = w with probability 1/2, else a fresh uniform string; the label
      (class 1 = equal) is the actual equality, so a fresh w' equal to w is a positive.
    * ``eq-one``: A = 1024; w' = w with probability 1/2, else w with exactly one position changed
      to a different symbol (uniform among the other A - 1).
    * ``eq-ncp``: A = 1024; w' = w; position t (from [sep] to the one before the last) must
      output token t + 1. Classes are the A symbols.
    """

    alphabet: int = 2

    @property
    def sep(self) -> int:
        return self.alphabet

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        if n < 2 or n % 2:
            raise InputError(
                f"{self.name}: length (symbols, not counting [sep]) must be even, got {n}"
            )
        return n

    def train_lengths(self, length: int) -> tuple[int, int]:
        """The App. H.2 training range: k even, uniform in {lo, lo + 2, ..., N}, lo ~ N/10."""
        lo = max(2, length // 10 + (length // 10) % 2)
        return min(lo, length), length

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        half = length // 2
        if train:
            lo, hi = self.train_lengths(length)
            h = uniform_int(lo // 2, hi // 2, batch, g)  # half-length, so k = 2h is even
        else:
            h = torch.full((batch,), half)
        w = torch.randint(0, self.alphabet, (batch, half), generator=g)
        if self.name == "eq-ncp":
            w2 = w
        else:
            same = torch.rand(batch, generator=g) < 0.5
            if self.name == "eq-random":
                other = torch.randint(0, self.alphabet, (batch, half), generator=g)
            else:  # eq-one: change exactly one position j < h
                j = uniform_int(0, h - 1, batch, g)
                shift = torch.randint(1, self.alphabet, (batch,), generator=g)
                other = w.clone()
                rows = torch.arange(batch)
                other[rows, j] = (w[rows, j] + shift) % self.alphabet
            w2 = torch.where(same[:, None], w, other)
        col = torch.arange(length + 1)[None, :]
        hh = h[:, None]
        first = w.gather(1, col.clamp(max=half - 1).expand(batch, -1))
        second = w2.gather(1, (col - hh - 1).clamp(0, half - 1))
        tokens = torch.where(col < hh, first, torch.where(col == hh, self.sep, second))
        tokens = torch.where(col > 2 * hh, self.pad, tokens)
        if self.name == "eq-ncp":
            mask = (col >= hh) & (col < 2 * hh)
            nxt = torch.nn.functional.pad(tokens[:, 1:], (0, 1))
            targets = torch.where(mask, nxt, 0)
            return tokens, targets, mask
        equal = ((w == w2) | (torch.arange(half)[None, :] >= hh)).all(dim=1)
        targets, mask = at_positions(batch, length + 1, 2 * h, equal.long())
        return tokens, targets, mask


# --- Multi-query associative recall (App. G.1) -------------------------------------------------


@dataclass(frozen=True)
class MQARTask(Task):
    """MQAR (App. G.1): keys are tokens 0..K-1 (distinct within a sequence), values tokens
    K..K+V-1, [pad] = K + V. The sequence k_1 v_1 ... k_n v_n q_1 ... q_n has 3n tokens, the
    queries a uniformly random permutation of the keys; at query j the target is the value of
    that key (classes 0..V-1). ``length`` is the number of pairs n."""

    n_symbols: int = 64
    n_labels: int = 16

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        n = uniform_int(1, length, batch, g) if train else torch.full((batch,), length)
        keys = torch.rand(batch, self.n_symbols, generator=g).argsort(dim=1)[:, :length]
        values = torch.randint(0, self.n_labels, (batch, length), generator=g)
        col = torch.arange(length)[None, :]
        # a permutation of the first n keys: sort scores with the unused slots pushed last
        scores = torch.rand(batch, length, generator=g) + (col >= n[:, None])
        perm = scores.argsort(dim=1)
        queries = keys.gather(1, perm)
        answers = values.gather(1, perm)
        t = torch.arange(3 * length)[None, :]
        nn_ = n[:, None]
        pair = (t // 2).clamp(max=length - 1)
        in_pairs = torch.where(
            t % 2 == 0,
            keys.gather(1, pair.expand(batch, -1)),
            self.n_symbols + values.gather(1, pair.expand(batch, -1)),
        )
        q = (t - 2 * nn_).clamp(0, length - 1)
        is_query = (t >= 2 * nn_) & (t < 3 * nn_)
        tokens = torch.where(
            t < 2 * nn_, in_pairs, torch.where(is_query, queries.gather(1, q), self.pad)
        )
        targets = torch.where(is_query, answers.gather(1, q), 0)
        return tokens, targets, is_query


# --- builders -----------------------------------------------------------------------------------


def _index_lookup(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"symbols": 64, "min_length": 10})
    s = check_int(o["symbols"], "symbols", 1, limits.VOCAB.most, limits.VOCAB.instead)
    check_int(o["min_length"], "min_length", 1, limits.LENGTH.most)
    return IndexLookupTask(name, s + n + 1, s, n, n + 1, s + n, s, o["min_length"])


def _dyck(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"reading": "three-way"})
    if o["reading"] not in ("three-way", "half"):
        raise InputError(f"dyck reading must be 'three-way' or 'half', got {o['reading']!r}")
    return DyckTask(name, 4, 2, n, n, None, o["reading"])


def _mqar(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"n_symbols": max(64, n), "n_labels": 16})
    k = check_int(o["n_symbols"], "n_symbols", 1, limits.VOCAB.most, limits.VOCAB.instead)
    v = check_int(o["n_labels"], "n_labels", 1, limits.VOCAB.most, limits.VOCAB.instead)
    if n > k:
        raise InputError(f"mqar needs distinct keys: max_length {n} exceeds n_symbols {k}")
    return MQARTask(name, k + v + 1, v, n, 3 * n, k + v, k, v)


def _equality(name: str, n: int, given: dict[str, Any]) -> Task:
    default = {} if name == "eq-random" else {"alphabet": 1024}
    o = options(name, given, default)
    a = limits.ALPHABET.check(o.get("alphabet", 2), "alphabet")
    n_out = a if name == "eq-ncp" else 2
    return EqualityTask(name, a + 2, n_out, n, n + 1, a + 1, a)


BUILDERS = {
    "index-lookup": _index_lookup,
    "dyck": _dyck,
    "eq-random": _equality,
    "eq-one": _equality,
    "eq-ncp": _equality,
    "mqar": _mqar,
}
"""Task name -> builder(name, max_length, options); options: index-lookup ``symbols`` (64),
``min_length`` (10); dyck ``reading`` ("three-way" or "half", see
:data:`ccomplexity.languages.dyck.H1Reading`); eq-one and eq-ncp ``alphabet`` (1024); mqar
``n_symbols`` (max(64, max_length)), ``n_labels`` (16)."""
