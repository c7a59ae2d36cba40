"""Exact lower bounds on two-party communication: fooling sets, ranks, one-way and tree search.

Everything here is exact: integer arithmetic, exhaustive or symbolic (automaton) reasoning, and
SAT for the maximum fooling set. The bounds and where they come from (separations paper):

- Fooling sets (Def. 1, App. B.1): pairs S with f = b on S and, for distinct pairs,
  f(x1, y2) != b or f(x2, y1) != b. Fact 4: D(f) >= log2 |S|; since a protocol exchanges a whole
  number of bits, D(f) >= ceil(log2 |S|), which is what ``bits`` reports everywhere.
- Lemma 1 (App. E): all Dyck-(2,2) words of length N, split odd/even, form a fooling set of size
  2^(N-1). Errata item 12: the proof shows x -> y only; y -> x is needed too and is checked here.
- Log-rank: D(f) >= log2 rank(M_f) over any field, in particular GF(p).
- One-way (Thm 2, Fact 3): D^{A->B}(f) = ceil(log2 #distinct rows of M_f), exactly.
- Exact two-way D(M) by search over protocol trees, for tiny matrices only.

User errors raise :class:`ccomplexity.errors.InputError` with one line naming the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ccomplexity.automata import DFA, dyck_dfa
from ccomplexity.errors import InputError
from ccomplexity.problems import DENSE_LIMIT, Partition, TwoPartyProblem, undigits

EXHAUSTIVE_LIMIT = 20
"""Longest Dyck word for the exhaustive fooling set (2^19 members of Dyck-(2,2))."""
EXHAUSTIVE_MEMBER_LIMIT = 1 << 20
"""Most members the exhaustive Dyck fooling set enumerates (other (n, k) grow faster)."""
PAIRWISE_LIMIT = 1 << 26
"""Most unordered pairs the generic pairwise fooling check evaluates through the problem."""
PAIRWISE_DENSE_LIMIT = 1 << 30
"""Most unordered pairs the pairwise check looks up in a materialised matrix."""
DENSE_VERIFY_LIMIT = 1 << 24
"""Most matrix entries the fooling check materialises to count value-cells or look pairs up."""
MATERIALISE_LIMIT = 1 << 24
"""Most pairs the equality and disjointness fooling sets list explicitly."""
MAX_FOOLING_CELL_LIMIT = 4096
"""Most cells of the chosen value (after merging equal rows/columns) for the SAT search."""
SYMBOLIC_LIMIT = 1 << 24
"""Most product-automaton cells (live states^2 x 2 x (N + 1)) the symbolic check stores."""
EXACT_BUDGET = 5_000_000
"""Default number of splits :func:`exact_bits` may examine (roughly 10-30 s) before giving up."""
DEFAULT_PRIME = 2_147_483_647
"""2^31 - 1, prime; also the largest modulus accepted, so products of residues stay < 2^62."""

_CHUNK = 1 << 20  # pairs evaluated per vectorised call: bounded memory, low overhead


def _ceil_log2(n: int) -> int:
    """ceil(log2 n) for n >= 1 exactly (0 for n <= 1): the integral form of Fact 4."""
    return (int(n) - 1).bit_length() if n > 1 else 0


# ------------------------------------------------------------------------------------ results


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


@dataclass(frozen=True)
class MaxFoolingSet:
    """A maximum fooling set of a matrix: ``cells`` = ((row, col), ...) sorted, value ``value``.

    ``rows``/``cols`` list the same cells column-wise so that the result can be passed to
    :func:`verify_fooling_set` like a :class:`FoolingSet`.
    """

    size: int
    value: int
    cells: tuple[tuple[int, int], ...]
    bits: int

    @property
    def rows(self) -> np.ndarray:
        return np.array([r for r, _ in self.cells], dtype=np.int64)

    @property
    def cols(self) -> np.ndarray:
        return np.array([c for _, c in self.cells], dtype=np.int64)


@dataclass(frozen=True)
class RankResult:
    """Rank over GF(prime) with a witness: M[rows][:, cols] is r x r and nonsingular mod prime."""

    rank: int
    prime: int
    rows: tuple[int, ...]
    cols: tuple[int, ...]

    @property
    def bits(self) -> int:
        """Log-rank bound ceil(log2 rank); valid since rank_GF(p) <= rank over the reals."""
        return _ceil_log2(self.rank)


@dataclass(frozen=True)
class OneWayResult:
    """Exact one-way complexity Alice -> Bob: ``bits`` = ceil(log2 ``distinct_rows``).

    Witness: Alice inputs ``rows`` (one per distinct row) are pairwise distinct on Bob inputs
    ``cols``; :func:`check_one_way_witness` recomputes that submatrix. ``rows``/``cols`` are None
    when the indices do not fit in 64 bits (symbolic path at large N).
    """

    distinct_rows: int
    bits: int
    rows: tuple[int, ...] | None
    cols: tuple[int, ...] | None
    method: str


@dataclass(frozen=True)
class ExactResult:
    """Exact deterministic complexity D(M) and an optimal protocol tree (nested JSON dicts).

    Internal nodes: {"speaker": "alice"|"bob", "rows", "cols", "children": [t0, t1]}; the
    speaker's bit selects the child. Leaves: {"output", "rows", "cols"}, a monochromatic
    rectangle. Indices are those of the input matrix.
    """

    bits: int
    tree: dict[str, Any] = field(repr=False)
    distinct_rows: int
    distinct_cols: int
    lower_bound: int
    nodes: int


@dataclass(frozen=True)
class ProtocolCheck:
    """Outcome of :func:`check_protocol_tree`: the tree's depth when valid, else the reason."""

    valid: bool
    depth: int
    reason: str | None


# ------------------------------------------------------------------------------ helpers


def _as_matrix(source: TwoPartyProblem | np.ndarray, what: str) -> np.ndarray:
    if isinstance(source, TwoPartyProblem):
        return source.matrix()
    m = np.asarray(source)
    if m.ndim != 2 or m.shape[0] == 0 or m.shape[1] == 0:
        raise InputError(f"{what} needs a non-empty 2-D matrix, got shape {m.shape}")
    if m.dtype == bool:
        m = m.astype(np.int8)
    if not np.issubdtype(m.dtype, np.integer):
        raise InputError(f"{what} needs an integer matrix, got dtype {m.dtype}")
    return m


def _index_array(values: np.ndarray, bound: int, what: str) -> np.ndarray:
    a = np.asarray(values)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise InputError(f"{what} must be a 1-D array of integer indices")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= bound):
        raise InputError(f"{what} must lie in 0..{bound - 1}")
    return a


def _first_duplicate(keys: np.ndarray) -> tuple[int, int] | None:
    """(i, j), i < j, with keys[i] == keys[j] and j as small as possible; None if all distinct."""
    if keys.ndim == 1:
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    owner = first[inverse.reshape(-1)]
    dup = np.flatnonzero(owner != np.arange(len(owner)))
    if dup.size == 0:
        return None
    j = int(dup[0])
    return int(owner[j]), j


def _row_classes(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Representatives (first index of each distinct row, sorted) and each row's class number."""
    a = np.ascontiguousarray(m)
    if a.size and a.min() >= 0 and a.max() <= 1:
        a = np.ascontiguousarray(np.packbits(a.astype(bool), axis=1))  # 8x fewer bytes to hash
    keys = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)  # number classes by first occurrence, so reps come out sorted
    relabel = np.empty_like(order)
    relabel[order] = np.arange(len(order))
    return first[order], relabel[inverse.reshape(-1)]


def _entries(problem: TwoPartyProblem, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """problem.entries in chunks of ``_CHUNK`` pairs (bounded memory)."""
    out = np.empty(len(rows), dtype=np.int8)
    for s in range(0, len(rows), _CHUNK):
        out[s : s + _CHUNK] = problem.entries(rows[s : s + _CHUNK], cols[s : s + _CHUNK])
    return out


# ------------------------------------------------------------------------ Dyck arithmetic


def _dyck_count(types: int, depth: int, length: int) -> int:
    """Number of Dyck-(n,k) words of length N by DP over stack heights (App. E), Python ints.

    Independent of the DFA: from height h an opener has n choices (if h < k) and a closer has
    exactly one (it must match the top), so the count depends on heights only.
    """
    c = [1] + [0] * depth
    for _ in range(length):
        new = [0] * (depth + 1)
        for h, v in enumerate(c):
            if v:
                if h < depth:
                    new[h + 1] += types * v
                if h > 0:
                    new[h - 1] += v
        c = new
    return c[0]


def _live_dfa(dfa: DFA) -> tuple[np.ndarray, int, np.ndarray]:
    """Transitions restricted to live states (-1 = dead), the start (-1 if dead), accepting."""
    live = np.flatnonzero(dfa.live_states())
    index = np.full(dfa.n_states + 1, -1, dtype=np.int64)
    index[live] = np.arange(len(live))
    table = index[dfa.transitions[live]]
    return table, int(index[dfa.start]), dfa.accepting[live]


def _dfa_count(dfa: DFA, length: int) -> int:
    """Accepted words of length N by forward DP over live DFA states with Python ints."""
    table, start, accepting = _live_dfa(dfa)
    if start < 0:
        return 0
    succ = [[int(q) for q in row if q >= 0] for row in table]
    vec = [0] * len(succ)
    vec[start] = 1
    for _ in range(length):
        new = [0] * len(succ)
        for q, v in enumerate(vec):
            if v:
                for q2 in succ[q]:
                    new[q2] += v
        vec = new
    return sum(v for v, a in zip(vec, accepting, strict=True) if a)


def _dyck_members(types: int, depth: int, length: int) -> np.ndarray:
    """All Dyck-(n,k) words of length N, lexicographically, as (count, N) int16.

    Layer by layer through the DFA, keeping only prefixes that can still be completed in the
    remaining steps, so no layer holds more prefixes than there are members.
    """
    dfa = dyck_dfa(types, depth)
    t = dfa.transitions
    fin = np.zeros((length + 1, dfa.n_states), dtype=bool)  # fin[r, q]: accept in exactly r
    fin[0] = dfa.accepting
    for r in range(1, length + 1):
        fin[r] = fin[r - 1][t].any(axis=1)
    words = np.zeros((1, 0), dtype=np.int16)
    states = np.array([dfa.start], dtype=np.int64)
    for pos in range(length):
        nxt = t[states]
        ok = fin[length - pos - 1][nxt]
        k, a = np.nonzero(ok)  # row-major order keeps the words sorted
        words = np.concatenate([words[k], a[:, None].astype(np.int16)], axis=1)
        states = nxt[k, a]
    return words


def _value_cell_count(problem: TwoPartyProblem, value: int) -> int | None:
    """Exact number of cells with f = value for the problems of ccomplexity.problems, or None.

    Closed forms and a height DP, independent of ``problem.evaluate``: Dyck members of length N
    (whatever the partition, words and cells correspond one to one); EQ has A^H one-cells;
    DISJ has 3^H disjoint (value 0) cells; INDEX has N 2^(N-1) one-cells.
    """
    p = problem.params
    total = problem.n_rows * problem.n_cols
    ones: int | None = None
    if problem.name == "dyck":
        ones = _dyck_count(int(p["types"]), int(p["depth"]), int(p["length"]))
    elif problem.name == "equality":
        ones = int(p["alphabet"]) ** int(p["half"])
    elif problem.name == "disjointness":
        ones = 4 ** int(p["half"]) - 3 ** int(p["half"])
    elif problem.name == "index":
        ones = int(p["length"]) * 2 ** (int(p["length"]) - 1)
    if ones is None or value not in (0, 1):
        return None
    return ones if value == 1 else total - ones


# ------------------------------------------------------------------------ fooling sets


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
      caller vouches that it is exact), from closed forms / a height DP for the problems of
      :mod:`ccomplexity.problems`, or from the materialised matrix when that is small.
    - Pairwise: every unordered pair i < j, vectorised in chunks; f(x_j, y_i) is evaluated only
      where f(x_i, y_j) = b. At most ``PAIRWISE_LIMIT`` pairs through the problem's function,
      ``PAIRWISE_DENSE_LIMIT`` when looked up in a materialised matrix.
    """
    r = _index_array(rows, problem.n_rows, "rows")
    c = _index_array(cols, problem.n_cols, "cols")
    if r.shape != c.shape:
        raise InputError(f"rows and cols must have the same length, got {len(r)} and {len(c)}")
    s = int(r.size)
    if s == 0:
        return FoolingCheck(False, 0, "the set is empty; Fact 4 needs at least one pair", "none")
    vals = _entries(problem, r, c)
    bad = np.flatnonzero(vals != value)
    if bad.size:
        i = int(bad[0])
        why = f"pair {i} (row {r[i]}, col {c[i]}) has f = {vals[i]}, not the value {value}"
        return FoolingCheck(False, s, why, "none")
    dup = _first_duplicate(np.stack([r, c], axis=1))
    if dup:
        i, j = dup
        why = f"pairs {i} and {j} are the same cell (row {r[i]}, col {c[i]})"
        return FoolingCheck(False, s, why, "none")
    for keys, side, letter in ((r, "row", "x"), (c, "col", "y")):
        dup = _first_duplicate(keys)
        if dup:
            i, j = dup
            why = (
                f"pairs {i} and {j} share {side} {keys[i]} ({letter} does not determine the "
                f"other half), so f(x_{i}, y_{j}) = f(x_{j}, y_{i}) = {value}"
            )
            return FoolingCheck(False, s, why, "none")
    if s == 1:
        return FoolingCheck(True, 1, None, "single")

    cells = problem.n_rows * problem.n_cols
    pairs = s * (s - 1) // 2
    dense = None
    if cells <= DENSE_VERIFY_LIMIT and cells <= 2 * pairs:
        dense = problem.matrix()  # cheaper than the pairs themselves; gives K exactly too
    count = value_count
    if count is None:
        count = int((dense == value).sum()) if dense is not None else None
    if count is None:
        count = _value_cell_count(problem, value)
    if count is not None:
        if s > count:
            raise InputError(
                f"the number of {value}-cells was given as {count}, below the {s} distinct "
                f"{value}-cells in the set; value_count must be exact"
            )
        if s == count:
            return FoolingCheck(True, s, None, "count")

    limit = PAIRWISE_DENSE_LIMIT if dense is not None else PAIRWISE_LIMIT
    if pairs > limit:
        raise InputError(
            f"pairwise fooling-set verification is limited to {limit} pairs, got {pairs} "
            f"(|S| = {s}); pass value_count or use the symbolic certificate"
        )
    hit = _pairwise_violation(problem, dense, r, c, value)
    if hit is None:
        return FoolingCheck(True, s, None, "pairwise")
    i, j = hit
    why = (
        f"pairs {i} and {j} (rows {r[i]}, {r[j]}; cols {c[i]}, {c[j]}) violate Def. 1: "
        f"f(x_{i}, y_{j}) = f(x_{j}, y_{i}) = {value}"
    )
    return FoolingCheck(False, s, why, "pairwise")


def _pairwise_violation(
    problem: TwoPartyProblem, dense: np.ndarray | None, r: np.ndarray, c: np.ndarray, value: int
) -> tuple[int, int] | None:
    """Lexicographically first (i, j), i < j, with f(x_i, y_j) = f(x_j, y_i) = value."""

    def f(rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
        return dense[rr, cc] if dense is not None else _entries(problem, rr, cc)

    s = len(r)
    per_i = np.arange(s - 1, -1, -1, dtype=np.int64)  # pairs (i, j > i) for each i
    ends = np.cumsum(per_i)
    i0 = 0
    while i0 < s - 1:
        # Take rows i0..i1-1 so that the block holds about _CHUNK pairs (at least one row).
        base = ends[i0 - 1] if i0 else 0
        i1 = int(np.searchsorted(ends, base + _CHUNK, side="right"))
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
    count = _dyck_count(types, depth, length)
    if count > EXHAUSTIVE_MEMBER_LIMIT:
        raise InputError(
            f"Dyck-({types},{depth}) has {count} words of length {length}; the exhaustive limit "
            f"is {EXHAUSTIVE_MEMBER_LIMIT} members; use the symbolic certificate"
        )
    words = _dyck_members(types, depth, length)
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


def dyck_fooling_symbolic(
    types: int, depth: int, length: int, partition: str = "odd-even"
) -> dict[str, Any]:
    """Lemma 1 without enumeration: S = all Dyck-(n,k) words of length N, through the DFA.

    (a) ``count`` = |S| by DP over DFA states with Python ints (exact, e.g. 2^999 at N = 1000),
    cross-checked against an independent DP over stack heights; (b) ``x_determines_y``: no two
    members agree on Alice's positions and differ elsewhere (product automaton over
    (q1, q2, differed), see :func:`_half_determines_other`); (c) ``y_determines_x`` likewise with
    the roles swapped. If all hold and count >= 1, S is a fooling set with value 1 (same argument
    as :func:`dyck_fooling_set`), so D >= ``bits`` = ceil(log2 count) (Fact 4). When (b) or (c)
    fails, ``x_counterexample`` / ``y_counterexample`` give two members sharing that half, which
    is itself a violation of Def. 1. Time O(N * states^2 * symbols^2).
    """
    if types is None or types < 1:
        raise InputError(f"--types must be a positive integer, got {types}")
    if depth is None or depth < 0:
        raise InputError(f"--depth must be a non-negative integer, got {depth}")
    if length is None or length < 1:
        raise InputError(f"--length must be a positive integer, got {length}")
    dfa = dyck_dfa(types, depth)
    table, start, accepting = _live_dfa(dfa)
    cells = table.shape[0] ** 2 * 2 * (length + 1)
    if cells > SYMBOLIC_LIMIT:
        raise InputError(
            f"the symbolic Dyck check is limited to {SYMBOLIC_LIMIT} product cells "
            f"(live states^2 x 2 x (N+1) = {cells}); use fewer types, a smaller depth or length"
        )
    alice = np.zeros(length, dtype=bool)
    if partition == "odd-even":  # directly: Lemma 1's case, and linear in N
        if length % 2:
            raise InputError(f"partition odd-even needs an even length, got {length}")
        alice[0::2] = True
    else:
        alice[list(Partition.parse(partition, length).alice)] = True
    count = _dfa_count(dfa, length)
    if count != _dyck_count(types, depth, length):  # two independent derivations must agree
        raise RuntimeError(f"Dyck-({types},{depth}) counts disagree at length {length}")
    x_ok, x_cex = _half_determines_other(table, start, accepting, alice)
    y_ok, y_cex = _half_determines_other(table, start, accepting, ~alice)
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
            f"{n}); use the closed form D >= H log2 A of Fact 2"
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
            f"(2^H = {n}); use the closed form D >= H of Fact 1"
        )
    rows = np.arange(n, dtype=np.int64)
    cols = (n - 1) - rows
    rows.setflags(write=False)
    cols.setflags(write=False)
    return FoolingSet(problem, rows, cols, 0)


def max_fooling_set(
    matrix: TwoPartyProblem | np.ndarray, value: int | None = None
) -> MaxFoolingSet:
    """The exact maximum fooling set of a matrix (Def. 1), by MaxSAT (pysat RC2).

    Identical rows (columns) are merged first: cells in two identical rows always conflict, and
    any row of a class can stand in for another, so the maximum is unchanged. Then, per value b:
    one variable per b-cell; a hard clause (not a or not b) for every conflicting pair of cells
    (M[r1, c2] = M[r2, c1] = b, which includes two cells sharing a row or a column); a soft unit
    clause per cell; RC2's optimum is the maximum. Shortcuts, also exact: a fooling set uses each
    row and column at most once, so its size is at most U = min(#rows, #columns containing b);
    a greedy set of size U needs no SAT, and no SAT is run for a value whose U cannot beat the
    best set found so far (greedy sets of every value are found first).

    With ``value`` None every value present is tried; the largest set wins (on a tie, the
    smaller value among the sets found). Refuses more than ``MAX_FOOLING_CELL_LIMIT`` cells of a
    value it has to solve for (MaxSAT is NP-hard: dense conflicts can still be slow below that).
    """
    m = _as_matrix(matrix, "max_fooling_set")
    rep_r, _ = _row_classes(m)
    rep_c, _ = _row_classes(m.T)
    sub = m[np.ix_(rep_r, rep_c)]
    values = [int(value)] if value is not None else [int(v) for v in np.unique(sub)]
    found = {}
    for v in values:
        upper = int(min((sub == v).any(axis=1).sum(), (sub == v).any(axis=0).sum()))
        found[v] = (_FoolingCells(sub, v), upper)
    for v in values:
        cells, upper = found[v]
        best = max(len(c.chosen) for c, _ in found.values())
        if len(cells.chosen) < upper and upper > best:
            cells.solve()
    v = max(values, key=lambda v: (len(found[v][0].chosen), -v))
    cells = found[v][0]
    out = sorted((int(rep_r[r]), int(rep_c[c])) for r, c in cells.cells[cells.chosen])
    return MaxFoolingSet(len(out), v, tuple(out), _ceil_log2(len(out)))


class _FoolingCells:
    """The b-cells of a (merged) matrix, their conflicts, and the best fooling set found."""

    def __init__(self, sub: np.ndarray, value: int) -> None:
        self.value = value
        self.cells = np.argwhere(sub == value)
        cr, cc = self.cells[:, 0], self.cells[:, 1]
        self.k = len(self.cells)
        if self.k > MAX_FOOLING_CELL_LIMIT:
            raise InputError(
                f"the exact maximum fooling set is limited to {MAX_FOOLING_CELL_LIMIT} cells of "
                f"value {value} (after merging equal rows/columns), got {self.k}; "
                "use a constructive set"
            )
        hit = sub[np.ix_(cr, cc)] == value  # hit[i, j]: f(x_i, y_j) = value
        self.clash = hit & hit.T  # the diagonal is True: a cell "conflicts" with itself
        self.chosen: list[int] = []
        blocked = np.zeros(self.k, dtype=bool)
        while not blocked.all():  # greedy: the first cell compatible with all chosen so far
            i = int(np.argmin(blocked))
            self.chosen.append(i)
            blocked |= self.clash[i]

    def solve(self) -> None:
        from pysat.examples.rc2 import RC2
        from pysat.formula import WCNF

        wcnf = WCNF()
        for i, j in zip(*np.nonzero(np.triu(self.clash, 1)), strict=True):
            wcnf.append([-(int(i) + 1), -(int(j) + 1)])
        for i in range(self.k):
            wcnf.append([i + 1], weight=1)
        with RC2(wcnf, adapt=True) as rc2:  # adapt: rows/columns give at-most-one groups
            model = rc2.compute()
        chosen = sorted(lit - 1 for lit in model if 0 < lit <= self.k)
        if (self.clash[np.ix_(chosen, chosen)] & ~np.eye(len(chosen), dtype=bool)).any():
            raise RuntimeError("MaxSAT returned a set that is not a fooling set")
        self.chosen = chosen


# ------------------------------------------------------------------------------------ rank


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    d = np.arange(3, math.isqrt(n) + 1, 2, dtype=np.int64)
    return not bool((n % d == 0).any())


def rank_mod_p(matrix: TwoPartyProblem | np.ndarray, prime: int = DEFAULT_PRIME) -> RankResult:
    """Exact rank of an integer matrix over GF(prime), with a nonsingular r x r witness.

    Gaussian elimination in int64 (no floats): residues are < 2^31, so products fit. Each pivot
    row is the original row plus multiples of earlier pivot rows, so M[rows][:, cols] is a unit
    lower-triangular transform of a triangular matrix with nonzero diagonal: nonsingular mod p.
    A nonzero minor mod p is a nonzero integer, so rank_GF(p) <= rank over the reals, and the
    log-rank bound D(f) >= log2 rank_GF(p)(M_f) holds (each 1-leaf of a protocol is a rank-one
    term over any field). EQ_3 (the 8 x 8 identity) has rank 8.
    """
    prime = int(prime)
    if not 2 <= prime <= DEFAULT_PRIME or not _is_prime(prime):
        raise InputError(
            f"prime must be a prime in 2..{DEFAULT_PRIME} (products must fit in int64), got {prime}"
        )
    m = _as_matrix(matrix, "rank_mod_p")
    a = np.mod(m.astype(np.int64), prime) if m.dtype != np.uint64 else np.mod(m, prime)
    a = a.astype(np.int64)
    n_rows, n_cols = a.shape
    free = np.ones(n_rows, dtype=bool)  # rows not yet used as pivots
    piv_r: list[int] = []
    piv_c: list[int] = []
    for col in range(n_cols):
        cand = np.flatnonzero(free & (a[:, col] != 0))
        if cand.size == 0:
            continue
        r = int(cand[0])
        a[r] = a[r] * pow(int(a[r, col]), prime - 2, prime) % prime
        rest = cand[1:]
        if rest.size:  # clear this column in the other free rows at once
            a[rest] = (a[rest] - a[rest, col][:, None] * a[r][None, :] % prime) % prime
        free[r] = False
        piv_r.append(r)
        piv_c.append(col)
        if len(piv_r) == min(n_rows, n_cols):
            break
    return RankResult(len(piv_r), prime, tuple(sorted(piv_r)), tuple(sorted(piv_c)))


# --------------------------------------------------------------------------------- one-way


def one_way_bits(source: TwoPartyProblem | np.ndarray) -> OneWayResult:
    """Exact deterministic one-way complexity Alice -> Bob: ceil(log2 #distinct rows) (Thm 2).

    Bob's output is a function of (message, y), so inputs with the same message have identical
    rows; a protocol with at most b bits has at most 2^b messages (prefix-free), and sending the
    row class achieves it. Rows are hashed (bit-packed) on the dense matrix. The witness is one
    Alice input per class and columns chosen greedily (each time the column that splits the
    most classes) until those inputs are pairwise distinct. INDEX_10: 1024 rows, 10 bits.

    A Dyck problem with a ``prefix:K`` partition too large for the dense matrix goes to
    :func:`one_way_bits_dyck`.
    """
    if isinstance(source, TwoPartyProblem):
        p = source.partition
        too_big = source.n_rows * source.n_cols > DENSE_LIMIT
        if too_big and source.name == "dyck" and p is not None and p.spec.startswith("prefix:"):
            par = source.params
            return one_way_bits_dyck(
                int(par["types"]), int(par["depth"]), int(par["length"]), len(p.alice)
            )
    m = _as_matrix(source, "one_way_bits")
    reps, _ = _row_classes(m)
    cols = _separating_columns(m[reps])
    k = len(reps)
    return OneWayResult(k, _ceil_log2(k), tuple(int(r) for r in reps), cols, "dense")


def _separating_columns(sub: np.ndarray) -> tuple[int, ...]:
    """Greedy columns on which the (pairwise distinct) rows of ``sub`` become distinct."""
    k, n = sub.shape
    _, vals = np.unique(sub, return_inverse=True)
    vals = vals.reshape(sub.shape).astype(np.int64)
    n_vals = int(vals.max()) + 1
    labels = np.zeros(k, dtype=np.int64)
    chosen: list[int] = []
    step = max(1, (1 << 24) // max(k, 1))  # columns per block: bounded memory
    while len(np.unique(labels)) < k:
        best, best_col = -1, -1
        for s in range(0, n, step):
            keys = np.sort(labels[:, None] * n_vals + vals[:, s : s + step], axis=0)
            classes = 1 + (np.diff(keys, axis=0) != 0).sum(axis=0)
            j = int(np.argmax(classes))
            if classes[j] > best:
                best, best_col = int(classes[j]), s + j
        chosen.append(best_col)
        _, labels = np.unique(labels * n_vals + vals[:, best_col], return_inverse=True)
        labels = labels.reshape(-1)
    return tuple(sorted(chosen))


def check_one_way_witness(
    source: TwoPartyProblem | np.ndarray, rows: tuple[int, ...], cols: tuple[int, ...]
) -> bool:
    """Recompute M[rows][:, cols]; its rows pairwise distinct => at least len(rows) classes."""
    r = np.asarray(rows, dtype=np.int64)
    c = np.asarray(cols, dtype=np.int64)
    if isinstance(source, TwoPartyProblem):
        sub = source.entries(np.repeat(r, len(c)), np.tile(c, len(r))).reshape(len(r), len(c))
    else:
        sub = np.asarray(source)[np.ix_(r, c)]
    return len(r) >= 1 and len(np.unique(sub, axis=0)) == len(r)


def one_way_bits_dyck(types: int, depth: int, length: int, cut: int) -> OneWayResult:
    """One-way complexity of Dyck-(n,k) at length N under ``prefix:cut``, through the DFA.

    Alice's row is determined by the DFA state q after her K symbols: it is the set of Bob's
    words of length exactly N-K accepted from q. Two states give the same row iff
    L_{N-K}(q) = L_{N-K}(q'), computed by backward refinement: class_0 = acceptance and
    class_r(q) = (class_{r-1}(delta(q, a)))_a, since L_r(q) is the disjoint union of
    a L_{r-1}(delta(q, a)). distinct_rows = number of classes among states reachable in exactly
    K steps. The witness is one prefix per class and suffixes that split them (each separating
    two members of a group, read off the class tables), as indices when they fit in 64 bits.
    """
    if types is None or types < 1:
        raise InputError(f"--types must be a positive integer, got {types}")
    if depth is None or depth < 0:
        raise InputError(f"--depth must be a non-negative integer, got {depth}")
    if length is None or length < 2:
        raise InputError(f"--length must be at least 2, got {length}")
    if cut is None or not 1 <= cut < length:
        raise InputError(f"the cut K needs 1 <= K < length ({length}), got {cut}")
    dfa = dyck_dfa(types, depth)
    t = dfa.transitions
    n_states, n_sym = t.shape
    if n_states * (length + 1) > SYMBOLIC_LIMIT:
        raise InputError(
            f"the symbolic one-way count is limited to {SYMBOLIC_LIMIT} state-steps, got "
            f"{n_states * (length + 1)}; use a smaller length, depth or number of types"
        )
    # Forward: states reachable in exactly K steps, with one parent each for a prefix witness.
    parent = np.full((cut + 1, n_states, 2), -1, dtype=np.int64)
    cur = np.array([dfa.start], dtype=np.int64)
    for step in range(1, cut + 1):
        flat = t[cur].ravel()
        reached, first = np.unique(flat, return_index=True)
        parent[step, reached, 0] = cur[first // n_sym]
        parent[step, reached, 1] = first % n_sym
        cur = reached
    # Backward: classes of exact-length residuals, one table per remaining length.
    rest = length - cut
    classes = [dfa.accepting.astype(np.int64)]
    for _ in range(rest):
        _, cls = np.unique(classes[-1][t], axis=0, return_inverse=True)
        classes.append(cls.reshape(-1))
    final = classes[rest]
    _, first = np.unique(final[cur], return_index=True)
    reps = cur[np.sort(first)]
    k = len(reps)

    def prefix(q: int) -> list[int]:
        word = []
        for step in range(cut, 0, -1):
            q, a = int(parent[step, q, 0]), int(parent[step, q, 1])
            word.append(a)
        return word[::-1]

    def separate(q1: int, q2: int) -> list[int]:
        word = []
        for r in range(rest, 0, -1):  # follow a symbol on which the next classes differ
            a = int(np.flatnonzero(classes[r - 1][t[q1]] != classes[r - 1][t[q2]])[0])
            word.append(a)
            q1, q2 = int(t[q1, a]), int(t[q2, a])
        return word

    # Split groups of representatives until all are apart; each suffix splits >= 1 group.
    groups = [list(range(k))]
    suffixes: list[list[int]] = []
    while any(len(g) > 1 for g in groups):
        g = next(g for g in groups if len(g) > 1)
        word = separate(int(reps[g[0]]), int(reps[g[1]]))
        suffixes.append(word)
        end = dfa.run(np.array([word] * k, dtype=np.int64), states=reps.copy())
        acc = dfa.accepting[end]
        halves = [([i for i in g if acc[i]], [i for i in g if not acc[i]]) for g in groups]
        groups = [h for pair in halves for h in pair if h]

    base = n_sym
    fits = base ** max(cut, rest) < 2**63

    def index(word: list[int]) -> int:
        return int(sum(a * base**e for e, a in enumerate(reversed(word))))

    rows = tuple(sorted(index(prefix(int(q))) for q in reps)) if fits else None
    cols = tuple(sorted({index(w) for w in suffixes})) if fits else None
    return OneWayResult(k, _ceil_log2(k), rows, cols, "symbolic")


# --------------------------------------------------------------------- exact two-way search


class _BudgetExceeded(Exception):
    """The protocol-tree search examined more splits than its budget allows."""


def _gf2_rank(vectors: list[int]) -> int:
    """Rank over GF(2) of bit-vectors (Python ints) by an xor basis keyed on the top bit."""
    basis: dict[int, int] = {}
    for v in vectors:
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = v
                break
            v ^= basis[top]
    return len(basis)


def _bits_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _first_of_each(mask: int, packs: list[int], spread: int) -> int:
    """The members of ``mask`` whose pattern ``packs[i] & spread`` was not seen before them."""
    seen: set[int] = set()
    kept = 0
    rest = mask
    while rest:
        low = rest & -rest
        rest ^= low
        sig = packs[low.bit_length() - 1] & spread
        if sig not in seen:
            seen.add(sig)
            kept |= low
    return kept


class _TreeSearch:
    """D(M) for a matrix with distinct rows and columns, values 0..V-1, by branch and bound.

    Nodes are submatrices (row bitmask, column bitmask) reduced to canonical form (duplicate
    rows/columns within the submatrix dropped, keeping the smallest index): D is unchanged by
    duplicating rows or columns, so the memo is keyed on the canonical form.
    """

    def __init__(self, m: np.ndarray, budget: int) -> None:
        self.m = m
        self.n_rows, self.n_cols = m.shape
        self.n_vals = int(m.max()) + 1
        # rb[v][r]: columns where row r has value v; cb[v][c]: rows where column c has value v.
        self.rb = [[_mask(m[r] == v) for r in range(self.n_rows)] for v in range(self.n_vals)]
        self.cb = [[_mask(m[:, c] == v) for c in range(self.n_cols)] for v in range(self.n_vals)]
        # A row's pattern within a column set is one int: its value-v masks (v >= 1; value 0 is
        # what is left) side by side, ANDed with the column set repeated (see _spread).
        self.rpack = [
            sum(self.rb[v][r] << ((v - 1) * self.n_cols) for v in range(1, self.n_vals))
            for r in range(self.n_rows)
        ]
        self.cpack = [
            sum(self.cb[v][c] << ((v - 1) * self.n_rows) for v in range(1, self.n_vals))
            for c in range(self.n_cols)
        ]
        self.budget = budget
        self.nodes = 0  # submatrices examined
        self.work = 0  # splits examined: what the budget counts
        self.canon: dict[tuple[int, int], tuple[int, int]] = {}
        self.lb: dict[tuple[int, int], int] = {}
        self.ub: dict[tuple[int, int], int] = {}
        self.split: dict[tuple[int, int], tuple[str, int]] = {}

    def _spread(self, mask: int, width: int) -> int:
        return sum(mask << (v * width) for v in range(self.n_vals - 1))

    def row_sig(self, r: int, cmask: int) -> int:
        return self.rpack[r] & self._spread(cmask, self.n_cols)

    def col_sig(self, c: int, rmask: int) -> int:
        return self.cpack[c] & self._spread(rmask, self.n_rows)

    def canonical(self, rmask: int, cmask: int) -> tuple[int, int]:
        key = (rmask, cmask)
        hit = self.canon.get(key)
        if hit is not None:
            return hit
        nr = _first_of_each(rmask, self.rpack, self._spread(cmask, self.n_cols))
        # kept rows only: dropped rows are copies
        nc = _first_of_each(cmask, self.cpack, self._spread(nr, self.n_rows))
        self.canon[key] = (nr, nc)
        return nr, nc

    def lower(self, key: tuple[int, int]) -> int:
        """Valid bound: #leaves >= sum_v rank_GF(2)([M = v]), so D >= ceil(log2 of the sum).

        Rank ignores duplicate rows and columns, so ``key`` need not be canonical.
        """
        got = self.lb.get(key)
        if got is None:
            rmask, cmask = key
            rows = _bits_of(rmask)
            total = sum(
                _gf2_rank([self.rb[v][r] & cmask for r in rows]) for v in range(self.n_vals)
            )
            got = self.lb[key] = _ceil_log2(total)
        return got

    def trivial(self, key: tuple[int, int]) -> tuple[int, str]:
        """Depth of "one side names its input, the other names the value" and who goes first."""
        rmask, cmask = key
        rows, cols = _bits_of(rmask), _bits_of(cmask)
        vr = max(sum(1 for v in range(self.n_vals) if self.rb[v][r] & cmask) for r in rows)
        vc = max(sum(1 for v in range(self.n_vals) if self.cb[v][c] & rmask) for c in cols)
        alice = _ceil_log2(len(rows)) + _ceil_log2(vr)
        bob = _ceil_log2(len(cols)) + _ceil_log2(vc)
        return (alice, "alice") if alice <= bob else (bob, "bob")

    def feasible(self, key: tuple[int, int], d: int) -> bool:
        """Is D(submatrix) <= d? Records the split that achieves it."""
        rmask, cmask = key
        if rmask & (rmask - 1) == 0 and cmask & (cmask - 1) == 0:
            return True  # canonical 1 x 1: monochromatic, a leaf
        self.nodes += 1
        if d < self.lower(key):
            return False
        if key not in self.ub:
            depth, who = self.trivial(key)
            self.ub[key] = depth
            self.split[key] = ("trivial-" + who, 0)
        if d >= self.ub[key]:
            return True
        for speaker, side in (("alice", rmask), ("bob", cmask)):
            low = side & -side
            rest = side ^ low
            sub = rest
            while True:  # subsets containing the lowest element: each split once
                part = low | sub
                self.work += 1
                if self.work > self.budget:
                    raise _BudgetExceeded
                if part != side:
                    if speaker == "alice":
                        r1, r2 = (part, cmask), (rmask ^ part, cmask)
                    else:
                        r1, r2 = (rmask, part), (rmask, cmask ^ part)
                    # Rank bounds on the raw children first: most splits die here, uncanonised.
                    if (
                        self.lower(r1) < d
                        and self.lower(r2) < d
                        and self.feasible(self.canonical(*r1), d - 1)
                        and self.feasible(self.canonical(*r2), d - 1)
                    ):
                        self.ub[key] = d
                        self.split[key] = (speaker, part)
                        return True
                if sub == 0:
                    break
                sub = (sub - 1) & rest
        self.lb[key] = d + 1
        return False

    # Tree reconstruction on actual (non-canonical) row/column sets of the reduced matrix.

    def _partition(self, speaker: str, rmask: int, cmask: int, part: int) -> tuple[int, int]:
        """Split the actual rows (columns) by which canonical representative they copy."""
        key = self.canonical(rmask, cmask)
        if speaker == "alice":
            rep = {self.row_sig(r, cmask): r for r in _bits_of(key[0])}
            side = [(r, rep[self.row_sig(r, cmask)]) for r in _bits_of(rmask)]
        else:
            rep = {self.col_sig(c, rmask): c for c in _bits_of(key[1])}
            side = [(c, rep[self.col_sig(c, rmask)]) for c in _bits_of(cmask)]
        zero = sum(1 << x for x, r in side if part >> r & 1)
        whole = rmask if speaker == "alice" else cmask
        return zero, whole ^ zero

    def build(self, rmask: int, cmask: int, trivial: str | None = None) -> dict[str, Any]:
        key = self.canonical(rmask, cmask)
        if key[0] & (key[0] - 1) == 0 and key[1] & (key[1] - 1) == 0:
            r, c = _bits_of(rmask)[0], _bits_of(cmask)[0]
            return {"output": int(self.m[r, c]), "rows": rmask, "cols": cmask}
        if trivial is None:
            speaker, part = self.split[key]
            if speaker.startswith("trivial-"):
                trivial = speaker[len("trivial-") :]
        if trivial is not None:
            speaker, part = self._trivial_split(key, trivial)
        zero, one = self._partition(speaker, rmask, cmask, part)
        if speaker == "alice":
            kids = [self.build(zero, cmask, trivial), self.build(one, cmask, trivial)]
        else:
            kids = [self.build(rmask, zero, trivial), self.build(rmask, one, trivial)]
        return {"speaker": speaker, "rows": rmask, "cols": cmask, "children": kids}

    def _trivial_split(self, key: tuple[int, int], first: str) -> tuple[str, int]:
        """The next move of the trivial protocol: halve the named side, then halve the values."""
        rmask, cmask = key
        rows, cols = _bits_of(rmask), _bits_of(cmask)
        names = rows if first == "alice" else cols
        if len(names) > 1:
            return first, sum(1 << x for x in names[: (len(names) + 1) // 2])
        # One distinct input left on the first side: the other side names the value.
        other = "bob" if first == "alice" else "alice"
        if first == "alice":
            present = [v for v in range(self.n_vals) if self.rb[v][rows[0]] & cmask]
            keep = present[: (len(present) + 1) // 2]
            return other, sum(self.rb[v][rows[0]] & cmask for v in keep)
        present = [v for v in range(self.n_vals) if self.cb[v][cols[0]] & rmask]
        keep = present[: (len(present) + 1) // 2]
        return other, sum(self.cb[v][cols[0]] & rmask for v in keep)


def _mask(flags: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(flags))


def exact_bits(
    matrix: TwoPartyProblem | np.ndarray, limit: int = 16, budget: int = EXACT_BUDGET
) -> ExactResult:
    """Exact deterministic two-way complexity D(M) by search over protocol trees (App. B.1).

    Identical rows and columns are merged first (D is unchanged). D = 0 iff M is monochromatic;
    otherwise D(M) = 1 + min over nontrivial splits of the rows (Alice speaks) or the columns
    (Bob speaks) of max(D(M1), D(M2)). Iterative deepening on d from a lower bound, memoised on
    canonical (row mask, column mask), pruned with the only bounds used here, both valid:

    - leaves >= sum over values v of rank_GF(2)([M = v]) (each v-leaf is a rank-one term of
      [M = v] over any field), so D >= ceil(log2 of that sum);
    - D <= the trivial protocol: one side names its (distinct) input, the other the value.

    EQ_n (the 2^n identity) gives n + 1. Refuses more than ``limit`` distinct rows or columns
    and gives up (InputError with the bounds reached) after examining ``budget`` splits.
    """
    m = _as_matrix(matrix, "exact_bits")
    rep_r, row_cls = _row_classes(m)
    rep_c, col_cls = _row_classes(m.T)
    if len(rep_r) > limit or len(rep_c) > limit:
        raise InputError(
            f"exact protocol-tree search is limited to {limit} distinct rows and columns, got "
            f"{len(rep_r)} x {len(rep_c)}; use rank_mod_p or a fooling set for a lower bound"
        )
    values, reduced = np.unique(m[np.ix_(rep_r, rep_c)], return_inverse=True)
    reduced = reduced.reshape(len(rep_r), len(rep_c))
    search = _TreeSearch(reduced, budget)
    root = search.canonical((1 << len(rep_r)) - 1, (1 << len(rep_c)) - 1)
    lower = search.lower(root)
    d = lower
    try:
        while not search.feasible(root, d):
            d += 1
    except _BudgetExceeded:
        raise InputError(
            f"exact protocol-tree search hit its budget of {budget} splits with "
            f"{search.lower(root)} <= D <= {search.ub.get(root, '?')}; raise budget or shrink M"
        ) from None
    tree = search.build((1 << len(rep_r)) - 1, (1 << len(rep_c)) - 1)
    rows_of = [np.flatnonzero(row_cls == i).tolist() for i in range(len(rep_r))]
    cols_of = [np.flatnonzero(col_cls == i).tolist() for i in range(len(rep_c))]
    tree = _expand(tree, rows_of, cols_of, values)
    return ExactResult(d, tree, len(rep_r), len(rep_c), lower, search.nodes)


def _expand(
    node: dict[str, Any], rows_of: list[list[int]], cols_of: list[list[int]], values: np.ndarray
) -> dict[str, Any]:
    """Reduced-matrix bitmasks -> sorted original indices; reduced values -> original values."""
    out: dict[str, Any] = {}
    if "output" in node:
        out["output"] = int(values[node["output"]])
    else:
        out["speaker"] = node["speaker"]
    out["rows"] = sorted(i for r in _bits_of(node["rows"]) for i in rows_of[r])
    out["cols"] = sorted(i for c in _bits_of(node["cols"]) for i in cols_of[c])
    if "children" in node:
        out["children"] = [_expand(k, rows_of, cols_of, values) for k in node["children"]]
    return out


def check_protocol_tree(
    matrix: TwoPartyProblem | np.ndarray, tree: dict[str, Any]
) -> ProtocolCheck:
    """Check a protocol tree against M: the root covers M, each internal node splits the
    speaker's side into its two children, each leaf is a rectangle where M = output."""
    m = _as_matrix(matrix, "check_protocol_tree")

    def walk(node: Any, rows: set[int], cols: set[int], depth: int) -> int:
        if not isinstance(node, dict):
            raise ValueError(f"node at depth {depth} is not an object")
        if set(node.get("rows", ())) != rows or set(node.get("cols", ())) != cols:
            raise ValueError(f"node at depth {depth} does not cover the rectangle it should")
        if "output" in node:
            sub = m[np.ix_(sorted(rows), sorted(cols))]
            if not (sub == node["output"]).all():
                raise ValueError(f"leaf at depth {depth} is not monochromatic {node['output']}")
            return depth
        kids = node.get("children")
        speaker = node.get("speaker")
        if speaker not in ("alice", "bob") or not isinstance(kids, list) or len(kids) != 2:
            raise ValueError(f"node at depth {depth} needs a speaker and two children")
        if speaker == "alice":
            parts = [set(k.get("rows", ())) if isinstance(k, dict) else set() for k in kids]
            if parts[0] & parts[1] or parts[0] | parts[1] != rows:
                raise ValueError(f"alice's split at depth {depth} is not a partition")
            return max(walk(k, p, cols, depth + 1) for k, p in zip(kids, parts, strict=True))
        parts = [set(k.get("cols", ())) if isinstance(k, dict) else set() for k in kids]
        if parts[0] & parts[1] or parts[0] | parts[1] != cols:
            raise ValueError(f"bob's split at depth {depth} is not a partition")
        return max(walk(k, rows, p, depth + 1) for k, p in zip(kids, parts, strict=True))

    try:
        depth = walk(tree, set(range(m.shape[0])), set(range(m.shape[1])), 0)
    except ValueError as err:
        return ProtocolCheck(False, 0, str(err))
    return ProtocolCheck(True, depth, None)
