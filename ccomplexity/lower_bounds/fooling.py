"""Fooling sets (Def. 1, Fact 4): verification (of pairs given by index or as words), and the
constructive sets of Lemma 1 (Dyck, exhaustive and symbolic), equality and disjointness. The
exact maximum fooling set of a matrix is in :mod:`ccomplexity.lower_bounds.max_fooling`. One
module (about 540 lines) on purpose: the constructions are verified by the checks beside them,
which share the pairwise scan."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ccomplexity import limits
from ccomplexity.automata import dyck_dfa
from ccomplexity.errors import InputError, shown
from ccomplexity.integers import ceil_log2 as _ceil_log2
from ccomplexity.lower_bounds.matrix import (
    CHUNK,
    chunked_entries,
    dfa_count,
    dyck_count,
    dyck_members,
    first_duplicate,
    index_array,
    live_dfa,
    value_cell_count,
)
from ccomplexity.problems import Partition, TwoPartyProblem, undigits

EXHAUSTIVE_LIMIT = 20
"""Longest Dyck word for the exhaustive fooling set (2^19 members of Dyck-(2,2))."""
EXHAUSTIVE_MEMBER_LIMIT = 1 << 20
"""Most members the exhaustive Dyck fooling set enumerates (other (n, k) grow faster)."""
PAIRWISE_LIMIT = 1 << 26
"""Most unordered pairs the generic pairwise fooling check evaluates through the problem."""
MATERIALISE_LIMIT = 1 << 24
"""Most pairs the equality and disjointness fooling sets list explicitly."""
SYMBOLIC_LIMIT = 1 << 24
"""Most product-automaton cells (live states^2 x 2 x (N + 1)) the position-by-position symbolic
check stores (partitions other than odd-even, and counterexamples)."""
CROSS_CHECK_PRIME = (1 << 61) - 1
"""The DFA's count of Dyck words is compared with the exact count modulo this prime."""


@dataclass(frozen=True)
class FoolingCheck:
    """Outcome of checking Def. 1; ``reason`` names the first violation when ``valid`` is False.

    ``method`` says which exact argument decided it: "count", "pairwise", "single" or "none".
    """

    valid: bool
    size: int
    reason: str | None
    method: str = "pairwise"


@dataclass(frozen=True, eq=False)
class FoolingSet:
    """A candidate fooling set: pairs (rows[i], cols[i]) of ``problem`` with value ``value``.

    ``check`` is the verification done at construction (None when the constructor left it to
    :func:`verify_fooling_set`). ``bits`` = ceil(log2 |S|), the integral form of Fact 4; it is a
    lower bound only when the set verifies.
    """

    problem: TwoPartyProblem
    rows: np.ndarray
    cols: np.ndarray
    value: int
    check: FoolingCheck | None = None

    @property
    def size(self) -> int:
        return int(len(self.rows))

    @property
    def bits(self) -> int:
        return _ceil_log2(self.size)

    @property
    def log2_size(self) -> float:
        return math.log2(self.size) if self.size else float("-inf")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the pairs themselves are left out: there may be 2^19 of them)."""
        out: dict[str, Any] = {**self.problem.describe(), "size": self.size, "value": self.value}
        out["bits"] = self.bits
        if self.check is not None:
            out["verified"] = self.check.valid
            out["reason"] = self.check.reason
        return out


def verify_fooling_set(
    problem: TwoPartyProblem,
    rows: np.ndarray,
    cols: np.ndarray,
    value: int,
    *,
    value_count: int | None = None,
) -> FoolingCheck:
    """Check Def. 1 exactly for the pairs (rows[i], cols[i]) and value b = ``value``.

    Necessary conditions first, each with the first violating pair as the reason:

    1. f(x_i, y_i) = b for every i;
    2. the pairs are distinct;
    3. the rows are distinct: if x_i = x_j then f(x_i, y_j) = f(x_j, y_j) = b and
       f(x_j, y_i) = f(x_i, y_i) = b, a violation; likewise
    4. the columns are distinct.

    Then one of two exact arguments:

    - Count (fast, a proof): let K be the number of cells of M_f with value b. If 1-4 hold and
      |S| = K, then S is every b-cell, so for i != j, f(x_i, y_j) = b would put (x_i, y_j) in S,
      hence y_j = y_i (rows are distinct), contradicting 4. K comes from ``value_count`` (the
      caller vouches that it is exact) or from closed forms / a height DP for the problems of
      :mod:`ccomplexity.problems`.
    - Pairwise: every unordered pair i < j, vectorised in chunks; f(x_j, y_i) is evaluated only
      where f(x_i, y_j) = b. At most ``PAIRWISE_LIMIT`` pairs. (Materialising the matrix never
      costs less: distinct rows and columns make |S| <= min(rows, cols), so the matrix has more
      cells than twice the pairs.)
    """
    r = index_array(rows, problem.n_rows, "rows")
    c = index_array(cols, problem.n_cols, "cols")
    if r.shape != c.shape:
        raise InputError(f"rows and cols must have the same length, got {len(r)} and {len(c)}")
    s = int(r.size)
    failed = _necessary_conditions(problem, r, c, value)
    if failed is not None:
        return failed
    if s == 1:
        return FoolingCheck(True, 1, None, "single")
    count = value_count if value_count is not None else value_cell_count(problem, value)
    if count is not None:
        if s > count:
            raise InputError(
                f"the number of {value}-cells was given as {count}, below the {s} distinct "
                f"{value}-cells in the set; value_count must be exact"
            )
        if s == count:
            return FoolingCheck(True, s, None, "count")
    pairs = s * (s - 1) // 2
    if pairs > PAIRWISE_LIMIT:
        raise InputError(
            f"pairwise fooling-set verification is limited to {PAIRWISE_LIMIT} pairs, got "
            f"{pairs} (|S| = {s}); pass value_count or use the symbolic certificate"
        )
    hit = _pairwise_violation(problem, r, c, value)
    if hit is None:
        return FoolingCheck(True, s, None, "pairwise")
    i, j = hit
    why = (
        f"pairs {i} and {j} (rows {r[i]}, {r[j]}; cols {c[i]}, {c[j]}) violate Def. 1: "
        f"f(x_{i}, y_{j}) = f(x_{j}, y_{i}) = {value}"
    )
    return FoolingCheck(False, s, why, "pairwise")


def _necessary_conditions(
    problem: TwoPartyProblem, r: np.ndarray, c: np.ndarray, value: int
) -> FoolingCheck | None:
    """Conditions 1-4 of :func:`verify_fooling_set`: the first one violated, or None."""
    s = int(r.size)
    if s == 0:
        return FoolingCheck(False, 0, "the set is empty; Fact 4 needs at least one pair", "none")
    vals = chunked_entries(problem, r, c)
    bad = np.flatnonzero(vals != value)
    if bad.size:
        i = int(bad[0])
        why = f"pair {i} (row {r[i]}, col {c[i]}) has f = {vals[i]}, not the value {value}"
        return FoolingCheck(False, s, why, "none")
    dup = first_duplicate(np.stack([r, c], axis=1))
    if dup:
        i, j = dup
        why = f"pairs {i} and {j} are the same cell (row {r[i]}, col {c[i]})"
        return FoolingCheck(False, s, why, "none")
    for keys, side, letter in ((r, "row", "x"), (c, "col", "y")):
        dup = first_duplicate(keys)
        if dup:
            i, j = dup
            why = (
                f"pairs {i} and {j} share {side} {keys[i]} ({letter} does not determine the "
                f"other half), so f(x_{i}, y_{j}) = f(x_{j}, y_{i}) = {value}"
            )
            return FoolingCheck(False, s, why, "none")
    return None


WORD_CHUNK_SYMBOLS = 1 << 22
"""Symbols of the words evaluated per call by :func:`verify_fooling_words` (bounded memory)."""


def verify_fooling_words(
    problem: TwoPartyProblem, x: np.ndarray, y: np.ndarray, value: int
) -> FoolingCheck:
    """Def. 1 for the pairs of words (x_i, y_i), Alice's (S, a) and Bob's (S, b) symbols,
    evaluated as words (no indices, so any length): f = b on every pair, the pairs, rows and
    columns distinct (as in :func:`verify_fooling_set`), then every unordered pair i < j, f(x_j,
    y_i) evaluated only where f(x_i, y_j) = b. At most ``PAIRWISE_LIMIT`` pairs; the caller
    prices the evaluations."""
    s = len(x)
    if s == 0 or len(y) != s:
        return FoolingCheck(False, s, "the set is empty or its halves differ in number", "none")
    width = problem.alice_length + problem.bob_length
    step = max(1, WORD_CHUNK_SYMBOLS // max(1, width))

    def f(rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
        out = np.empty(len(rr), dtype=np.int8)
        for start in range(0, len(rr), step):
            part = slice(start, start + step)
            out[part] = problem.on_words(x[rr[part]], y[cc[part]])
        return out

    own = f(np.arange(s), np.arange(s))
    bad = np.flatnonzero(own != value)
    if bad.size:
        i = int(bad[0])
        return FoolingCheck(False, s, f"pair {i} has f = {own[i]}, not the value {value}", "none")
    for keys, side in ((np.concatenate([x, y], axis=1), "pair"), (x, "x"), (y, "y")):
        dup = first_duplicate(keys)
        if dup:
            why = f"pairs {dup[0]} and {dup[1]} share their {side}: f(x_i, y_j) = f(x_j, y_i)"
            return FoolingCheck(False, s, f"{why} = {value}", "none")
    if s == 1:
        return FoolingCheck(True, 1, None, "single")
    pairs = s * (s - 1) // 2
    if pairs > PAIRWISE_LIMIT:
        raise InputError(
            f"pairwise fooling-set verification is limited to {PAIRWISE_LIMIT} pairs, got "
            f"{pairs} (|S| = {s})"
        )
    hit = _pairwise_violation(problem, np.arange(s), np.arange(s), value, f)
    if hit is None:
        return FoolingCheck(True, s, None, "pairwise")
    i, j = hit
    why = f"pairs {i} and {j} violate Def. 1: f(x_{i}, y_{j}) = f(x_{j}, y_{i}) = {value}"
    return FoolingCheck(False, s, why, "pairwise")


def _pairwise_violation(
    problem: TwoPartyProblem,
    r: np.ndarray,
    c: np.ndarray,
    value: int,
    on: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> tuple[int, int] | None:
    """Lexicographically first (i, j), i < j, with f(x_i, y_j) = f(x_j, y_i) = value; f at
    (row, col) indices from the problem, or ``on`` when given."""

    def f(rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
        return on(rr, cc) if on is not None else chunked_entries(problem, rr, cc)

    s = len(r)
    per_i = np.arange(s - 1, -1, -1, dtype=np.int64)  # pairs (i, j > i) for each i
    ends = np.cumsum(per_i)
    i0 = 0
    while i0 < s - 1:
        # Take rows i0..i1-1 so that the block holds about CHUNK pairs (at least one row).
        base = ends[i0 - 1] if i0 else 0
        i1 = int(np.searchsorted(ends, base + CHUNK, side="right"))
        i1 = min(max(i1, i0 + 1), s - 1)
        counts = per_i[i0:i1]
        ii = np.repeat(np.arange(i0, i1, dtype=np.int64), counts)
        starts = np.cumsum(counts) - counts
        jj = np.arange(len(ii), dtype=np.int64) - np.repeat(starts, counts) + ii + 1
        first = np.flatnonzero(f(r[ii], c[jj]) == value)
        if first.size:
            both = first[f(r[jj[first]], c[ii[first]]) == value]
            if both.size:  # block order is (i, j) lexicographic, so the first hit is the first
                return int(ii[both[0]]), int(jj[both[0]])
        i0 = i1
    return None


def _check_dyck_problem(problem: TwoPartyProblem) -> tuple[int, int, int]:
    if problem.name != "dyck" or problem.partition is None:
        raise InputError(f"dyck_fooling_set needs a dyck problem, got {problem.name}")
    p = problem.params
    return int(p["types"]), int(p["depth"]), int(p["length"])


def dyck_fooling_set(problem: TwoPartyProblem) -> FoolingSet:
    """Lemma 1 (App. E): S = all Dyck-(n,k) words of length N, value 1, verified exhaustively.

    The words are enumerated (vectorised, through the DFA) and split by the problem's partition
    (odd-even in Lemma 1; under other partitions the check simply fails). Verification
    (:func:`verify_fooling_set`) is exactly the argument below, in O(|S| log |S|):

    - membership: f = 1 on every pair, by the stack oracle ``is_dyck`` (not the DFA);
    - x -> y: the rows are pairwise distinct (np.unique), i.e. Alice's half fixes Bob's;
    - y -> x: the columns are pairwise distinct (errata item 12: the paper omits this);
    - completeness: |S| equals the member count from a height DP (not the DFA).

    Then S is the set of all 1-cells, and for i != j, f(x_i, y_j) = 1 would make (x_i, y_j) a
    member, so y_j = y_i by x -> y, contradicting y -> x: S is a fooling set of size 2^(N-1) for
    Dyck-(2,2), and D >= N - 1.

    Limited to length ``EXHAUSTIVE_LIMIT`` (2^19 members) and ``EXHAUSTIVE_MEMBER_LIMIT``
    members; beyond that use :func:`dyck_fooling_symbolic`.
    """
    types, depth, length = _check_dyck_problem(problem)
    if length > EXHAUSTIVE_LIMIT:
        raise InputError(
            f"exhaustive Dyck fooling sets are limited to length {EXHAUSTIVE_LIMIT} "
            f"(got {length}); use the symbolic certificate (dyck_fooling_symbolic)"
        )
    count = dyck_count(types, depth, length)
    if count > EXHAUSTIVE_MEMBER_LIMIT:
        raise InputError(
            f"Dyck-({types},{depth}) has {count} words of length {length}; the exhaustive limit "
            f"is {EXHAUSTIVE_MEMBER_LIMIT} members; use the symbolic certificate"
        )
    words = dyck_members(types, depth, length)
    base = 2 * types
    rows = undigits(words[:, list(problem.partition.alice)], base)
    cols = undigits(words[:, list(problem.partition.bob)], base)
    check = verify_fooling_set(problem, rows, cols, 1, value_count=count)
    rows.setflags(write=False)
    cols.setflags(write=False)
    return FoolingSet(problem, rows, cols, 1, check)


def _half_determines_other(
    table: np.ndarray, start: int, accepting: np.ndarray, equal: np.ndarray
) -> tuple[bool, list[list[int]] | None]:
    """Do accepted words of length N that agree on positions ``equal`` agree everywhere?

    Forward reachability over (q1, q2, differed) in the product of the live DFA with itself:
    at an ``equal`` position both copies read the same symbol, elsewhere any two symbols, and
    the flag records a difference. The answer is no iff some (accepting, accepting, 1) is
    reachable after N steps; then two such words are read back from the stored layers.
    """
    length = len(equal)
    n_live, n_sym = table.shape
    if start < 0:
        return True, None
    sym = np.arange(n_sym)
    a_any, b_any = np.repeat(sym, n_sym), np.tile(sym, n_sym)
    pairs = {True: (sym, sym, np.zeros(n_sym, dtype=bool)), False: (a_any, b_any, a_any != b_any)}
    layers = [np.zeros((n_live, n_live, 2), dtype=bool)]
    layers[0][start, start, 0] = True
    for pos in range(length):
        a, b, d = pairs[bool(equal[pos])]
        i, j, f = np.nonzero(layers[-1])
        ni, nj = table[i][:, a], table[j][:, b]
        nf = f[:, None].astype(bool) | d[None, :]
        ok = (ni >= 0) & (nj >= 0)
        nxt = np.zeros_like(layers[0])
        nxt[ni[ok], nj[ok], nf[ok].astype(np.int64)] = True
        layers.append(nxt)
    hits = np.argwhere(layers[-1][:, :, 1] & accepting[:, None] & accepting[None, :])
    if hits.size == 0:
        return True, None
    ci, cj, cf = int(hits[0][0]), int(hits[0][1]), 1
    w1: list[int] = []
    w2: list[int] = []
    for pos in range(length - 1, -1, -1):  # every reachable state has a reachable predecessor
        a, b, d = pairs[bool(equal[pos])]
        i, j, f = np.nonzero(layers[pos])
        ni, nj = table[i][:, a], table[j][:, b]
        nf = f[:, None].astype(bool) | d[None, :]
        k, p = np.argwhere((ni == ci) & (nj == cj) & (nf == bool(cf)))[0]
        w1.append(int(a[p]))
        w2.append(int(b[p]))
        ci, cj, cf = int(i[k]), int(j[k]), int(f[k])
    return False, [w1[::-1], w2[::-1]]


def _halves_determined_periodic(
    table: np.ndarray, start: int, accepting: np.ndarray, length: int, alice_first: bool
) -> bool:
    """:func:`_half_determines_other` for the odd-even partition in O(lg N) matrix products.

    The positions alternate (equal, free) or (free, equal), so the (q1, q2, differed) states
    reachable after N steps are those of the two-step relation to the power N/2, a Boolean
    matrix power by repeated squaring (0/1 float32 products, exact).
    """
    if start < 0:
        return True
    n_live, n_sym = table.shape
    size = 2 * n_live * n_live
    q1, q2 = np.divmod(np.arange(n_live * n_live), n_live)

    def relation(equal: bool) -> np.ndarray:
        out = np.zeros((size, size), dtype=np.float32)
        for a in range(n_sym):
            for b in [a] if equal else range(n_sym):
                t1, t2 = table[q1, a], table[q2, b]
                ok = (t1 >= 0) & (t2 >= 0)
                frm, to = 2 * (q1[ok] * n_live + q2[ok]), 2 * (t1[ok] * n_live + t2[ok])
                out[frm, to + (a != b)] = 1
                out[frm + 1, to + 1] = 1
        return out

    step = relation(alice_first) @ relation(not alice_first) > 0
    reach = np.zeros(size, dtype=bool)
    reach[2 * (start * n_live + start)] = True
    power = length // 2
    while power:
        if power & 1:
            reach = reach.astype(np.float32) @ step > 0
        power >>= 1
        if power:
            square = step.astype(np.float32)
            step = square @ square > 0
    done = np.flatnonzero(accepting)
    return not reach[2 * (done[:, None] * n_live + done[None, :]) + 1].any()


def dyck_fooling_symbolic(
    types: int, depth: int, length: int, partition: str = "odd-even"
) -> dict[str, Any]:
    """Lemma 1 without enumeration: S = all Dyck-(n,k) words of length N, through the DFA.

    (a) ``count`` = |S| exactly by the DP over stack heights (:func:`dyck_count`), cross-checked
    modulo 2^61 - 1 against an independent count of the DFA's accepted words; (b)
    ``x_determines_y``: no two members agree on Alice's positions and differ elsewhere (product
    automaton over (q1, q2, differed)); (c) ``y_determines_x`` likewise with the roles swapped.
    If all hold and count >= 1, S is a fooling set with value 1 (same argument as
    :func:`dyck_fooling_set`), so D >= ``bits`` = ceil(log2 count) (Fact 4).

    Under odd-even (Lemma 1's case, the one certificates cover) (b) and (c) are Boolean matrix
    powers (:func:`_halves_determined_periodic`) and the sizes are those of
    :func:`ccomplexity.limits.check_dyck_symbolic`, the limit the verifier applies too: N = 10^6
    takes seconds. Other partitions scan position by position (:data:`SYMBOLIC_LIMIT` cells).
    When (b) or (c) fails, ``x_counterexample`` / ``y_counterexample`` give two members sharing
    that half, itself a violation of Def. 1, found by the scan while N is within its limit
    (else None).
    """
    if types is None or types < 1:
        raise InputError(f"--types must be a positive integer, got {types}")
    if depth is None or depth < 0:
        raise InputError(f"--depth must be a non-negative integer, got {depth}")
    if length is None or length < 1:
        raise InputError(f"--length must be a positive integer, got {length}")
    periodic = partition == "odd-even"
    if periodic:
        if length % 2:
            raise InputError(f"partition odd-even needs an even length, got {length}")
        limits.check_dyck_symbolic(types, depth, length)
    k = min(depth, length // 2)  # a member never holds more than N/2 open brackets
    dfa = dyck_dfa(types, k)
    table, start, accepting = live_dfa(dfa)
    cells = table.shape[0] ** 2 * 2 * (length + 1)
    if cells > SYMBOLIC_LIMIT and not periodic:
        raise InputError(
            f"the symbolic Dyck check is limited to {SYMBOLIC_LIMIT} product cells "
            f"(live states^2 x 2 x (N+1) = {cells}); use fewer types, a smaller depth or length"
        )
    alice = np.zeros(length, dtype=bool)
    if periodic:
        alice[0::2] = True
    else:
        alice[list(Partition.parse(partition, length).alice)] = True
    count = dyck_count(types, k, length)
    if count % CROSS_CHECK_PRIME != dfa_count(dfa, length, CROSS_CHECK_PRIME):
        raise RuntimeError(f"Dyck-({types},{depth}) counts disagree at length {length}")
    found: dict[bool, tuple[bool, list[list[int]] | None]] = {}
    for alice_fixed in (True, False):
        equal = alice if alice_fixed else ~alice
        if periodic and _halves_determined_periodic(table, start, accepting, length, alice_fixed):
            found[alice_fixed] = (True, None)
        elif periodic and cells > SYMBOLIC_LIMIT:  # it fails; too long for the scan's pair
            found[alice_fixed] = (False, None)
        else:
            found[alice_fixed] = _half_determines_other(table, start, accepting, equal)
    (x_ok, x_cex), (y_ok, y_cex) = found[True], found[False]
    return {
        "types": types,
        "depth": depth,
        "length": length,
        "partition": partition,
        "value": 1,
        "count": count,
        "x_determines_y": x_ok,
        "y_determines_x": y_ok,
        "size": count,
        "bits": _ceil_log2(count),
        "log2_size": math.log2(count) if count else None,
        "verified": bool(x_ok and y_ok and count >= 1),
        "x_counterexample": x_cex,
        "y_counterexample": y_cex,
    }


def equality_fooling_set(problem: TwoPartyProblem) -> FoolingSet:
    """Fact 2: the diagonal {(x, x)} of EQ on [A]^H, value 1, size A^H (any balanced partition).

    For x1 != x2, f(x1, x2) = 0, so Def. 1 holds; D(EQ) >= ceil(H log2 A). Not verified here:
    :func:`verify_fooling_set` proves it by the count argument (EQ has exactly A^H one-cells).
    """
    if problem.name != "equality":
        raise InputError(f"equality_fooling_set needs the equality problem, got {problem.name}")
    n = problem.n_rows
    if n > MATERIALISE_LIMIT:
        raise InputError(
            f"the explicit equality fooling set is limited to {MATERIALISE_LIMIT} pairs (A^H = "
            f"{shown(n)}); use the closed form D >= H log2 A of Fact 2"
        )
    diag = np.arange(n, dtype=np.int64)
    diag.setflags(write=False)
    return FoolingSet(problem, diag, diag, 1)


def disjointness_fooling_set(problem: TwoPartyProblem) -> FoolingSet:
    """Fact 1: complementary pairs {(x, not x)} of DISJ on {0,1}^H, value 0 (disjoint), size 2^H.

    x and not x are disjoint; for x1 != x2 some i has x1_i = 1, x2_i = 0 (or vice versa), so
    x1 and not x2 intersect: f(x1, not x2) = 1. Hence D(DISJ) >= H. The index of not x is
    2^H - 1 - x (digits are binary, most significant first).
    """
    if problem.name != "disjointness":
        raise InputError(
            f"disjointness_fooling_set needs the disjointness problem, got {problem.name}"
        )
    n = problem.n_rows
    if n > MATERIALISE_LIMIT:
        raise InputError(
            f"the explicit disjointness fooling set is limited to {MATERIALISE_LIMIT} pairs "
            f"(2^H = {shown(n)}); use the closed form D >= H of Fact 1"
        )
    rows = np.arange(n, dtype=np.int64)
    cols = (n - 1) - rows
    rows.setflags(write=False)
    cols.setflags(write=False)
    return FoolingSet(problem, rows, cols, 0)
