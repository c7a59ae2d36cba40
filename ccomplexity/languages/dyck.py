"""Bounded Dyck languages Dyck-(n,k) (separations paper, Sec. 4.1 and App. E).

Encoding: bracket type ``t`` in ``0..n-1`` opens with symbol ``2t`` and closes with ``2t+1``.
A word is in Dyck-(n,k) iff it is well matched and no prefix has more than ``k`` open brackets.
"""

from __future__ import annotations

import math
import operator
from typing import Literal

import numpy as np

from ccomplexity.errors import InputError

_PAIRS = "()[]{}<>"


def dyck_alphabet(n_types: int) -> tuple[str, ...]:
    """Printable names of the 2n symbols: '(' ')' '[' ']' ..., then 'o4' 'c4' ... past four."""
    names: list[str] = []
    for t in range(n_types):
        if t < 4:
            names += [_PAIRS[2 * t], _PAIRS[2 * t + 1]]
        else:
            names += [f"o{t}", f"c{t}"]
    return tuple(names)


def is_dyck(words: np.ndarray, n_types: int, depth: int) -> np.ndarray:
    """Membership in Dyck-(n,k) of each row of ``words`` (batch, length), by a direct stack.

    Vectorised over the batch; loops over positions only. Independent of the DFA in
    ``ccomplexity.automata`` so that the two can be cross-checked.
    """
    w = np.asarray(words)
    if w.ndim == 1:
        w = w[None, :]
    if w.size and (w.min() < 0 or w.max() >= 2 * n_types):
        raise InputError(f"Dyck-({n_types},{depth}) symbols must lie in 0..{2 * n_types - 1}")
    batch, length = w.shape
    stack = np.zeros((batch, max(min(depth, length), 1)), dtype=np.int64)  # heights <= N
    height = np.zeros(batch, dtype=np.int64)
    ok = np.ones(batch, dtype=bool)
    rows = np.arange(batch)
    for t in range(length):
        sym = w[:, t]
        typ = sym // 2
        opening = sym % 2 == 0
        push = ok & opening
        ok &= ~(push & (height >= depth))
        push &= ok
        stack[rows[push], height[push]] = typ[push]
        height[push] += 1
        pop = ok & ~opening
        top = stack[rows, np.maximum(height - 1, 0)]
        ok &= ~(pop & ((height == 0) | (top != typ)))
        pop &= ok
        height[pop] -= 1
    return ok & (height == 0)


# --- counting, enumeration and sampling (Sec. 4.1 count 2^(N-1); App. H.1 data) -------------

COUNT_CELL_LIMIT = 10**7
"""Most (position, stack height) cells that the counting dynamic programmes fill."""

H1Reading = Literal["three-way", "half"]
"""The two readings of App. H.1's step rule "uniformly between open brackets and the closing
bracket" at depth 1: ``"three-way"`` is uniform over {'(', '[', matching closer};
``"half"`` closes with probability 1/2 and otherwise opens a uniformly chosen type."""


def _nonnegative(value: object, what: str) -> int:
    try:
        out = operator.index(value)  # accepts numpy integers, refuses floats and strings
    except TypeError:
        raise InputError(f"{what} must be an integer, got {value!r}") from None
    if out < 0:
        raise InputError(f"{what} must be >= 0, got {out}")
    return out


def _check_dyck(n_types: object, depth: object, length: object) -> tuple[int, int, int, int]:
    """Validated (n, k, N, K) with K = min(k, N // 2), the highest stack a member can reach."""
    n = _nonnegative(n_types, "n_types")
    if n < 1:
        raise InputError(f"Dyck-(n,k) needs n >= 1 bracket types, got n={n}")
    k = _nonnegative(depth, "depth")
    big_n = _nonnegative(length, "length")
    top = min(k, big_n // 2)
    if (big_n + 1) * (top + 1) > COUNT_CELL_LIMIT:
        raise InputError(
            f"Dyck-({n},{k}) at length {big_n} needs {(big_n + 1) * (top + 1)} DP cells; "
            f"the limit is {COUNT_CELL_LIMIT}"
        )
    return n, k, big_n, top


def _completions(n: int, top: int, length: int) -> list[list[int]]:
    """``w[r][h]``: number of ways to finish a member from stack height h with r symbols left.

    Only the height matters (the closers are forced by the stack contents, and each open has n
    type choices), so the table is (N+1) x (K+1) exact Python integers.
    """
    w = [[1] + [0] * top]
    for _ in range(length):
        prev = w[-1]
        w.append(
            [
                (n * prev[h + 1] if h < top else 0) + (prev[h - 1] if h > 0 else 0)
                for h in range(top + 1)
            ]
        )
    return w


def count_dyck(n_types: int, depth: int, length: int) -> int:
    """Exact number of Dyck-(n,k) words of length N (Sec. 4.1: 2^(N-1) for Dyck-(2,2), N >= 2).

    The number of ways to go from stack height 0 back to 0 in N steps: the (0, 0) entry of the
    N-th power of the transfer matrix over heights 0..K, K = min(k, N/2) (h -> h+1 in n ways,
    h -> h-1 in one), raised by squaring with exact Python integers, O((K+1)^3 lg N) products.
    Refused before any work when it exceeds the budget (:func:`ccomplexity.budget.dyck_count`).
    """
    from ccomplexity import budget

    n = _nonnegative(n_types, "n_types")
    if n < 1:
        raise InputError(f"Dyck-(n,k) needs n >= 1 bracket types, got n={n}")
    k = _nonnegative(depth, "depth")
    big_n = _nonnegative(length, "length")
    memory, work = budget.dyck_count(n, k, big_n)
    budget.check(
        f"counting Dyck-({n},{k}) words of length {big_n} ((K+1)^3 products of "
        f"{big_n * n.bit_length()}-bit integers, K = {min(k, big_n // 2)})",
        memory,
        work,
        "use a shorter length, fewer types or a lower depth",
    )
    side = min(k, big_n // 2) + 1
    step = [[0] * side for _ in range(side)]
    for h in range(side):
        if h + 1 < side:
            step[h][h + 1] = n
        if h > 0:
            step[h][h - 1] = 1
    power = [[int(i == j) for j in range(side)] for i in range(side)]
    e = big_n
    while e:
        if e & 1:
            power = _product(power, step)
        e >>= 1
        if e:
            step = _product(step, step)
    return power[0][0]


def _product(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    """Exact product of two square matrices of Python integers, skipping zero entries."""
    side = len(a)
    cols = [[b[k][j] for k in range(side)] for j in range(side)]
    return [
        [sum(x * y for x, y in zip(row, col, strict=True) if x and y) for col in cols] for row in a
    ]


def _sci(value: int) -> str:
    """``5.4e8`` style for any size of integer (float() overflows beyond about 1e308)."""
    if value <= 0:
        return str(value)
    shift = max(0, value.bit_length() - 60)
    log10 = math.log10(value >> shift) + shift * math.log10(2)
    exponent = math.floor(log10)
    mantissa = round(10 ** (log10 - exponent), 1)
    if mantissa >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.1f}e{exponent}"


def _format_limit(limit: int) -> str:
    return f"2**{limit.bit_length() - 1}" if limit > 0 and limit & (limit - 1) == 0 else str(limit)


def enumerate_dyck(n_types: int, depth: int, length: int, limit: int = 1 << 24) -> np.ndarray:
    """All Dyck-(n,k) words of length N as a (count, N) array in lexicographic symbol order.

    Symbol order is the encoding order ('(' = 0 < ')' = 1 < '[' = 2 < ']' = 3 ...). The dtype is
    int8 when 2n <= 128 (memory: up to ``limit`` rows), else int64. Prefixes are grown one level at
    a time with numpy; a prefix is dropped as soon as its stack is higher than the symbols left,
    so every kept prefix completes. Refuses (InputError) when the count exceeds ``limit``.
    """
    n, k, big_n, _ = _check_dyck(n_types, depth, length)
    total = count_dyck(n, k, big_n)
    if total > limit:
        raise InputError(
            f"enumeration of Dyck words of length {big_n} would produce {_sci(total)} words; "
            f"the limit is {_format_limit(limit)}; use count_dyck or sample_dyck"
        )
    dtype = np.int8 if 2 * n <= 128 else np.int64
    if total == 0:
        return np.zeros((0, big_n), dtype=dtype)
    syms = np.arange(2 * n)
    typ = syms // 2
    opening = syms % 2 == 0
    width = max(min(k, big_n // 2), 1)
    stack = np.zeros((1, width), dtype=np.int64)
    height = np.zeros(1, dtype=np.int64)
    parents: list[np.ndarray] = []  # per level: index of the parent prefix, and the new symbol
    symbols: list[np.ndarray] = []
    for t in range(big_n):
        left = big_n - t - 1
        h = height[:, None]
        top = stack[np.arange(height.size), np.maximum(height - 1, 0)][:, None]
        new_h = np.where(opening, h + 1, h - 1)
        ok = np.where(opening, h < k, (h > 0) & (top == typ)) & (new_h <= left)
        pi, si = np.nonzero(ok)  # row-major: parent order, then symbol order = lexicographic
        stack = stack[pi]
        push = opening[si]
        stack[np.flatnonzero(push), height[pi][push]] = typ[si][push]
        height = new_h[pi, si]
        parents.append(pi)
        symbols.append(si)
    out = np.empty((total, big_n), dtype=dtype)
    idx = np.arange(total)
    for t in range(big_n - 1, -1, -1):  # follow parent pointers back: O(count * N) in all
        out[:, t] = symbols[t][idx]
        idx = parents[t][idx]
    return out


def _check_rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def sample_dyck(
    n_types: int, depth: int, length: int, batch: int, rng: np.random.Generator
) -> np.ndarray:
    """``batch`` Dyck-(n,k) words of length N drawn uniformly, as a (batch, N) int64 array.

    Backward DP (``_completions``): from height h with r symbols left, open with probability
    n * w[r-1][h+1] / w[r][h] (type uniform), else close the top. The product of these
    conditionals is 1/count for every member. Ratios are exact big-integer divisions rounded to
    float, and forbidden moves get probability exactly 0, so every sample is a member.
    """
    n, k, big_n, top = _check_dyck(n_types, depth, length)
    size = _nonnegative(batch, "batch")
    _check_rng(rng)
    from ccomplexity import budget

    memory, work = budget.dyck_table(n, k, big_n)
    memory += budget.array_bytes(size, big_n + top + 1) * 3
    what = f"sampling {size} Dyck-({n},{k}) words of length {big_n}"
    instead = "use a shorter length, fewer types or a lower depth"
    budget.check(what, memory, work + size * big_n * 40, instead)
    w = _completions(n, top, big_n)
    if w[big_n][0] == 0:
        raise InputError(f"Dyck-({n},{k}) has no word of length {big_n}; use an even length")
    p_open = np.zeros((big_n + 1, top + 1))
    for r in range(1, big_n + 1):
        for h in range(top):
            if w[r][h]:
                p_open[r, h] = n * w[r - 1][h + 1] / w[r][h]
    out = np.empty((size, big_n), dtype=np.int64)
    stack = np.zeros((size, max(top, 1)), dtype=np.int64)
    height = np.zeros(size, dtype=np.int64)
    rows = np.arange(size)
    for t in range(big_n):
        u = rng.random(size)
        new_type = rng.integers(0, n, size=size)
        opens = u < p_open[big_n - t, height]
        top_type = stack[rows, np.maximum(height - 1, 0)]
        out[:, t] = np.where(opens, 2 * new_type, 2 * top_type + 1)
        stack[rows[opens], height[opens]] = new_type[opens]
        height += np.where(opens, 1, -1)
    return out


def _check_h1(length: object, batch: object, rng: object, reading: object) -> tuple[int, int]:
    big_n = _nonnegative(length, "length")
    if big_n < 2 or big_n % 2:
        raise InputError(f"the App. H.1 generators need an even length >= 2, got {big_n}")
    if reading not in ("three-way", "half"):
        raise InputError(f"reading must be 'three-way' or 'half', got {reading!r}")
    _check_rng(rng)
    return big_n, _nonnegative(batch, "batch")


def positive_h1(
    length: int, batch: int, rng: np.random.Generator, reading: H1Reading = "three-way"
) -> np.ndarray:
    """App. H.1 positive Dyck-(2,2) examples, (batch, N) int64.

    Runs N-2 stack steps: at depth 2 emit the closer of the top; at depth 0 open '(' or '['
    uniformly; at depth 1 the paper says "uniformly between open brackets and the closing
    bracket", which has two readings (both exposed, see :data:`H1Reading`):

    * ``"three-way"``: uniform over {'(', '[', matching closer} (close with probability 1/3);
    * ``"half"``: close with probability 1/2, else open a uniformly chosen type.

    Parity leaves depth 0 or 2 after N-2 steps; finish with "()" or "[]" (uniform) at depth 0,
    or with the two pending closers at depth 2.

    Distribution: ``"three-way"`` is not uniform over Dyck-(2,2) (at N = 6 word probabilities
    range from 1/72 to 1/18), as the spec says. ``"half"`` is EXACTLY uniform, every word having
    probability 2^-(N-1): in Dyck-(2,2) open and close are equally likely at depth 1 under the
    uniform law too (checked exactly for N <= 10 and tested by frequencies).
    """
    big_n, size = _check_h1(length, batch, rng, reading)
    out = np.empty((size, big_n), dtype=np.int64)
    stack = np.zeros((size, 2), dtype=np.int64)
    height = np.zeros(size, dtype=np.int64)
    rows = np.arange(size)
    for t in range(big_n - 2):
        if reading == "three-way":
            choice = rng.integers(0, 3, size=size)  # 0, 1: open that type; 2: close
            middle_close = choice == 2
            new_type = np.where(height == 0, rng.integers(0, 2, size=size), choice % 2)
        else:
            middle_close = rng.random(size) < 0.5
            new_type = rng.integers(0, 2, size=size)
        close = (height == 2) | ((height == 1) & middle_close)
        top_type = stack[rows, np.maximum(height - 1, 0)]
        out[:, t] = np.where(close, 2 * top_type + 1, 2 * new_type)
        opens = ~close
        stack[rows[opens], height[opens]] = new_type[opens]
        height += np.where(close, -1, 1)
    pair = rng.integers(0, 2, size=size)
    empty = height == 0
    out[:, big_n - 2] = np.where(empty, 2 * pair, 2 * stack[:, 1] + 1)
    out[:, big_n - 1] = np.where(empty, 2 * pair + 1, 2 * stack[:, 0] + 1)
    return out


def negative_h1(
    length: int, batch: int, rng: np.random.Generator, reading: H1Reading = "three-way"
) -> np.ndarray:
    """App. H.1 negative Dyck-(2,2) examples, (batch, N) int64: corrupted positives.

    Each row starts from a :func:`positive_h1` word (``reading`` as there). Draw c uniform in
    1..max(1, N//10) (the paper's N/10, floored, and at least one) and c distinct positions
    uniformly; at each, with probability 1/2 swap the bracket type ('(' <-> '[', ')' <-> ']'),
    otherwise flip open <-> close within the type. Rows that are still members are corrupted
    again from the same positive (a single change never yields a member, so this is rare).
    """
    big_n, size = _check_h1(length, batch, rng, reading)
    positive = positive_h1(big_n, size, rng, reading)
    out = positive.copy()
    c_max = max(1, big_n // 10)
    todo = np.ones(size, dtype=bool)
    while todo.any():
        idx = np.flatnonzero(todo)
        c = rng.integers(1, c_max + 1, size=idx.size)
        ranks = rng.random((idx.size, big_n)).argsort(axis=1).argsort(axis=1)
        chosen = ranks < c[:, None]  # c distinct uniform positions per row
        op = np.where(rng.random((idx.size, big_n)) < 0.5, 2, 1)  # xor 2: swap type; 1: flip
        out[idx] = positive[idx] ^ np.where(chosen, op, 0)
        todo[idx] = is_dyck(out[idx], 2, 2)
    return out
