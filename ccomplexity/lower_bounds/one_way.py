"""Exact one-way complexity Alice -> Bob (Thm 2, Fact 3): ceil(log2 #distinct rows), dense or
through the Dyck automaton for any length."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ccomplexity import budget
from ccomplexity.automata import DFA, dyck_dfa
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2 as _ceil_log2
from ccomplexity.lower_bounds.fooling import SYMBOLIC_LIMIT
from ccomplexity.lower_bounds.matrix import as_matrix, row_classes
from ccomplexity.problems import DENSE_LIMIT, TwoPartyProblem

# Cells (rows x candidate columns) scored at once by separating_columns: bounded memory.
SCORE_BLOCK_CELLS = 1 << 24


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


def one_way_bits(source: TwoPartyProblem | np.ndarray) -> OneWayResult:
    """Exact deterministic one-way complexity Alice -> Bob: ceil(log2 #distinct rows) (Thm 2).

    Bob's output is a function of (message, y), so inputs with the same message have identical
    rows; a protocol with at most b bits has at most 2^b messages (prefix-free), and sending the
    row class achieves it. Rows are hashed (bit-packed) on the dense matrix. The witness is one
    Alice input per class and columns chosen greedily (:func:`separating_columns`) until those
    inputs are pairwise distinct. INDEX_10: 1024 rows, 10 bits.

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
    m = as_matrix(source, "one_way_bits")
    reps, _ = row_classes(m)
    cols = separating_columns(m[reps])
    k = len(reps)
    return OneWayResult(k, _ceil_log2(k), tuple(int(r) for r in reps), cols, "dense")


def separating_columns(sub: np.ndarray) -> tuple[int, ...]:
    """Columns on which the (pairwise distinct) rows of ``sub`` become distinct; at least one, so
    that a witness of a single row still names a Bob input.

    Greedy: while two rows agree on the columns chosen, take two rows of the largest class of
    agreeing rows, and among the columns where those two differ choose the one that splits the
    classes most. Each step adds at least one class, and only the columns that split the chosen
    pair are scored, so a matrix that needs k - 1 columns (each column telling one row apart,
    as a kg split's answer columns do) costs k steps of O(k log k + n), not k full scans.
    """
    k, n = sub.shape
    _, vals = np.unique(sub, return_inverse=True)
    vals = vals.reshape(sub.shape).astype(np.int64)
    n_vals = int(vals.max()) + 1
    labels = np.zeros(k, dtype=np.int64)
    classes = 1
    chosen: list[int] = []
    step = max(1, SCORE_BLOCK_CELLS // max(k, 1))  # columns scored per block
    while classes < k:
        largest = int(np.argmax(np.bincount(labels)))
        a, b = np.flatnonzero(labels == largest)[:2]
        candidates = np.flatnonzero(vals[a] != vals[b])  # never empty: the rows are distinct
        best, best_col = -1, -1
        for s in range(0, len(candidates), step):
            block = candidates[s : s + step]
            keys = np.sort(labels[:, None] * n_vals + vals[:, block], axis=0)
            split = 1 + (np.diff(keys, axis=0) != 0).sum(axis=0)
            j = int(np.argmax(split))
            if split[j] > best:
                best, best_col = int(split[j]), int(block[j])
        chosen.append(best_col)
        _, labels = np.unique(labels * n_vals + vals[:, best_col], return_inverse=True)
        labels = labels.reshape(-1)
        classes = int(labels.max()) + 1
    return tuple(sorted(chosen)) or (0,)


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


def _reached_with_parents(t: np.ndarray, start: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The states reachable in exactly ``steps`` steps, and one parent (state, symbol) of each
    state at each step, from which a prefix witness is read back."""
    n_states, n_sym = t.shape
    parent = np.full((steps + 1, n_states, 2), -1, dtype=np.int64)
    cur = np.array([start], dtype=np.int64)
    for step in range(1, steps + 1):
        flat = t[cur].ravel()
        reached, first = np.unique(flat, return_index=True)
        parent[step, reached, 0] = cur[first // n_sym]
        parent[step, reached, 1] = first % n_sym
        cur = reached
    return cur, parent


def _residual_classes(t: np.ndarray, accepting: np.ndarray, rest: int) -> list[np.ndarray]:
    """Classes of exact-length residuals, one table per remaining length 0..rest:
    class_0 = acceptance, class_r(q) = (class_{r-1}(delta(q, a)))_a."""
    classes = [accepting.astype(np.int64)]
    for _ in range(rest):
        _, cls = np.unique(classes[-1][t], axis=0, return_inverse=True)
        classes.append(cls.reshape(-1))
    return classes


def _splitting_suffixes(dfa: DFA, classes: list[np.ndarray], reps: np.ndarray) -> list[list[int]]:
    """Suffixes of length ``len(classes) - 1`` that tell the representatives ``reps`` apart:
    groups are split until all are apart, each suffix splitting at least one group (following
    a symbol on which the next classes of two members differ)."""
    t, rest, k = dfa.transitions, len(classes) - 1, len(reps)

    def separate(q1: int, q2: int) -> list[int]:
        word = []
        for r in range(rest, 0, -1):
            a = int(np.flatnonzero(classes[r - 1][t[q1]] != classes[r - 1][t[q2]])[0])
            word.append(a)
            q1, q2 = int(t[q1, a]), int(t[q2, a])
        return word

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
    return suffixes


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
    what = (
        f"the symbolic one-way count of Dyck-({types},{depth}) at length {length} ({n_states} "
        f"states x {n_sym} symbols, refined {length} times)"
    )
    budget.check(what, *budget.refinements(n_states, n_sym, length), "use a shorter length")
    cur, parent = _reached_with_parents(t, dfa.start, cut)
    rest = length - cut
    classes = _residual_classes(t, dfa.accepting, rest)
    _, first = np.unique(classes[rest][cur], return_index=True)
    reps = cur[np.sort(first)]
    k = len(reps)

    def prefix(q: int) -> list[int]:
        word = []
        for step in range(cut, 0, -1):
            q, a = int(parent[step, q, 0]), int(parent[step, q, 1])
            word.append(a)
        return word[::-1]

    suffixes = _splitting_suffixes(dfa, classes, reps)
    fits = n_sym ** max(cut, rest) < 2**63

    def index(word: list[int]) -> int:
        return int(sum(a * n_sym**e for e, a in enumerate(reversed(word))))

    rows = tuple(sorted(index(prefix(int(q))) for q in reps)) if fits else None
    cols = tuple(sorted({index(w) for w in suffixes})) if fits else None
    return OneWayResult(k, _ceil_log2(k), rows, cols, "symbolic")
