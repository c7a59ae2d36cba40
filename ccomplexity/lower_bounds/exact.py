"""Exact deterministic two-way complexity D(M) by search over protocol trees (tiny matrices)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ccomplexity.errors import InputError, shown
from ccomplexity.integers import ceil_log2 as _ceil_log2
from ccomplexity.lower_bounds.matrix import as_matrix, row_classes
from ccomplexity.problems import TwoPartyProblem

EXACT_BUDGET = 5_000_000
"""Default number of splits :func:`exact_bits` may examine (roughly 10-30 s) before giving up."""
EXACT_ENTRY_LIMIT = 1 << 20
"""Most matrix entries :func:`exact_bits` materialises from a problem to find its distinct rows."""


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
    and gives up (InputError with the bounds reached) after examining ``budget`` splits. A
    problem with more than ``EXACT_ENTRY_LIMIT`` entries is refused before its matrix is built.
    """
    if isinstance(matrix, TwoPartyProblem) and matrix.n_rows * matrix.n_cols > EXACT_ENTRY_LIMIT:
        raise InputError(
            f"exact protocol-tree search materialises the matrix to merge equal rows: limited to "
            f"{EXACT_ENTRY_LIMIT} entries, got {shown(matrix.n_rows)} x "
            f"{shown(matrix.n_cols)}; use rank_mod_p "
            "or a fooling set for a lower bound"
        )
    m = as_matrix(matrix, "exact_bits")
    rep_r, row_cls = row_classes(m)
    rep_c, col_cls = row_classes(m.T)
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
    m = as_matrix(matrix, "check_protocol_tree")

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
