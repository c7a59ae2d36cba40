"""The exact maximum fooling set of a matrix (Def. 1), as a maximum clique, answering anytime.

A b-fooling set is a set of b-cells no two of which *cross*: cells (r1, c1) and (r2, c2) cross
when M[r1, c2] = M[r2, c1] = b, which includes sharing a row or a column. So the fooling sets of
value b are exactly the cliques of the *compatibility graph* whose vertices are the b-cells and
whose edges join cells that do not cross, and the maximum fooling set is a maximum clique.

The clique search is a bitset branch and bound in the style of MCQ/BBMC (Tomita; San Segundo):

- vertices are numbered in degeneracy order (the highest core first), so that a greedy
  colouring in that order uses few colours;
- at each node the candidates P are greedily coloured: a colour class is a set of pairwise
  crossing cells (e.g. one row), so a clique takes at most one cell per class and the number of
  classes bounds what P can add. Only cells whose colour could still beat the incumbent are
  branched on, highest colour first, and each is removed from P once branched on; before that,
  such a cell is moved into a lower class when it crosses all of it but one cell that fits in
  another lower class (Re-NUMBER, from MCS), and a node meeting too few rows or columns (each
  also a class) is not branched at all;
- the incumbent is shared across the values b: the value whose greedy set is larger is searched
  first, and the other only has to beat it.

Alternatives measured before choosing this one (random 24 x 24 matrices, one shared 2-core
machine): MaxSAT with one soft clause per cell (RC2, the previous method) did not finish in
120 s, RC2 with one soft clause per row took 26 s + 41 s for the two values, and CaDiCaL with a
totalizer "at least k rows" took 19 s + 181 s, against a few seconds here: proving "no set of
size k + 1" is a counting argument that clause learning handles badly, while colouring bounds
count directly.

Anytime: with a budget (seconds or nodes) the search stops when it runs out and returns the best
set found with ``exact`` False and an ``upper_bound``: for a value whose search was cut short,
every clique through a root cell of higher colour than the one in progress has been examined, so
its maximum is at most max(incumbent, that colour); a value never searched contributes its root
bound min(#rows, #columns, #colours). Identical rows (columns) are merged first: two cells in
identical rows always cross, and any row of a class stands in for another, so the maximum is
unchanged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.lower_bounds.matrix import as_matrix, row_classes
from ccomplexity.problems import TwoPartyProblem

MAX_FOOLING_CELL_LIMIT = 8192
"""Most cells of one value (after merging equal rows/columns) the clique search takes (its
compatibility graph has up to 2^26 pairs)."""
MAX_FOOLING_ENTRY_LIMIT = 1 << 20
"""Most matrix entries the search materialises from a problem (checked before building it)."""


@dataclass(frozen=True)
class MaxFoolingSet:
    """The largest fooling set found: ``cells`` = ((row, col), ...) sorted, value ``value``.

    ``exact`` says whether the search finished (then ``size`` is the maximum and equals
    ``upper_bound``); otherwise the maximum lies in [size, upper_bound]. ``rows``/``cols`` list
    the cells column-wise so that the result can be passed to ``verify_fooling_set``.
    """

    size: int
    value: int
    cells: tuple[tuple[int, int], ...]
    bits: int
    exact: bool = True
    upper_bound: int = 0
    nodes: int = 0

    @property
    def rows(self) -> np.ndarray:
        return np.array([r for r, _ in self.cells], dtype=np.int64)

    @property
    def cols(self) -> np.ndarray:
        return np.array([c for _, c in self.cells], dtype=np.int64)


def check_exact_size(problem: TwoPartyProblem) -> None:
    """Refuse, from the problem's parameters alone, a matrix too large for the exact search."""
    entries = problem.n_rows * problem.n_cols
    if entries > MAX_FOOLING_ENTRY_LIMIT:
        raise InputError(
            f"the exact maximum fooling set materialises the matrix: limited to "
            f"{MAX_FOOLING_ENTRY_LIMIT} entries, got {problem.n_rows} x {problem.n_cols}; "
            "use a constructive fooling set"
        )


class _Budget:
    """Seconds and nodes left to the whole search; ``out`` once either runs out."""

    def __init__(self, seconds: float | None, nodes: int | None) -> None:
        if seconds is not None and not seconds > 0:
            raise InputError(f"the time budget must be positive, got {seconds}")
        if nodes is not None and nodes < 1:
            raise InputError(f"the node budget must be a positive integer, got {nodes}")
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.max_nodes = nodes
        self.nodes = 0
        self.out = False

    def spend(self) -> bool:
        """Count one node; True when the budget has run out."""
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            self.out = True
        elif self.deadline is not None and not self.nodes & 63:
            self.out = time.perf_counter() > self.deadline
        return self.out


class _Incumbent:
    """The best fooling set found so far over all values: its cells in the merged matrix."""

    def __init__(self) -> None:
        self.size = 0
        self.value: int | None = None
        self.cells: list[tuple[int, int]] = []

    def offer(self, value: int, cells: list[tuple[int, int]]) -> None:
        if len(cells) > self.size:
            self.size, self.value, self.cells = len(cells), value, cells


class _CliqueSearch:
    """The b-cells of a merged matrix as a compatibility graph of Python-int bitsets."""

    def __init__(self, sub: np.ndarray, value: int) -> None:
        self.value = value
        cells = np.argwhere(sub == value)
        k = len(cells)
        if k > MAX_FOOLING_CELL_LIMIT:
            raise InputError(
                f"the exact maximum fooling set is limited to {MAX_FOOLING_CELL_LIMIT} cells of "
                f"value {value} (after merging equal rows/columns), got {k}; "
                "use a constructive set"
            )
        hit = sub[np.ix_(cells[:, 0], cells[:, 1])] == value  # hit[i, j]: f(x_i, y_j) = b
        compatible = ~(hit & hit.T)  # the diagonal is False: a cell crosses itself
        order = _degeneracy_order(compatible)
        self.cells = cells[order]
        a = compatible[np.ix_(order, order)]
        # Bit j of adj[i] says cells i and j do not cross (bit 0 = lowest index).
        packed = np.packbits(a[:, ::-1], axis=1)
        shift = (-k) % 8
        self.adj = [int.from_bytes(row.tobytes(), "big") >> shift for row in packed]
        self.k = k
        # The cells of each row and of each column (pairwise crossing: colour classes).
        self.rows, self.cols = (
            [sum(1 << int(i) for i in np.flatnonzero(self.cells[:, axis] == x))
             for x in np.unique(self.cells[:, axis])]
            for axis in (0, 1)
        )  # fmt: skip
        used_rows = len(np.unique(cells[:, 0]))
        used_cols = len(np.unique(cells[:, 1]))
        full = (1 << k) - 1
        self.side_bound = min(used_rows, used_cols)  # one cell per row and per column
        self.root_bound = min(self.side_bound, self._colours(full))
        self.upper = self.root_bound

    def greedy(self) -> list[int]:
        """Cells taken in order whenever they do not cross those already taken."""
        chosen: list[int] = []
        cand = (1 << self.k) - 1
        while cand:
            v = (cand & -cand).bit_length() - 1
            chosen.append(v)
            cand &= self.adj[v]
        return chosen

    def _colours(self, p: int) -> int:
        count = 0
        while p:
            q = p
            while q:
                low = q & -q
                q &= ~low & ~self.adj[low.bit_length() - 1]
                p &= ~low
            count += 1
        return count

    def _colour(self, p: int, kmin: int) -> tuple[list[int], list[int]]:
        """Greedy colouring of ``p``; the vertices of colour > ``kmin`` with their colours,
        colours non-decreasing (the others can never beat the incumbent at this node).

        Rows and columns are colour classes too: when ``p`` meets at most ``kmin`` rows or
        columns, nothing is left to branch on. (Used as the colouring itself, rows leave far
        more cells above ``kmin`` than the greedy colouring's small last classes: measured.)
        """
        adj = self.adj
        verts: list[int] = []
        colours: list[int] = []
        if min(self._count(p, self.rows), self._count(p, self.cols)) <= kmin:
            return verts, colours
        classes: list[int] = []
        while p:
            q = p
            members = 0
            while q:
                low = q & -q
                q &= ~low & ~adj[low.bit_length() - 1]
                members |= low
            p &= ~members
            if len(classes) < kmin:
                classes.append(members)
                continue
            # Re-NUMBER: a cell v above kmin crossing exactly one cell w of a class i <= kmin
            # takes w's place when w fits in another class j <= kmin.
            q = members
            while q:
                low = q & -q
                q ^= low
                v = low.bit_length() - 1
                for i in range(kmin):
                    hit = adj[v] & classes[i]
                    if not hit:  # a move before made room for v in class i
                        classes[i] |= low
                        members ^= low
                        break
                    if hit & (hit - 1):
                        continue
                    w = hit.bit_length() - 1
                    j = next((j for j in range(kmin) if j != i and not adj[w] & classes[j]), None)
                    if j is not None:
                        classes[i] ^= hit | low
                        classes[j] |= hit
                        members ^= low
                        break
            if members:
                classes.append(members)
        for colour, members in enumerate(classes[kmin:], kmin + 1):
            q = members
            while q:
                low = q & -q
                q ^= low
                verts.append(low.bit_length() - 1)
                colours.append(colour)
        return verts, colours

    @staticmethod
    def _count(p: int, lines: list[int]) -> int:
        """How many of ``lines`` meet ``p``."""
        return sum(1 for line in lines if p & line)

    def search(self, best: _Incumbent, budget: _Budget) -> bool:
        """Branch and bound from the root; True when it finished (nothing better is left)."""
        adj = self.adj
        root = (1 << self.k) - 1
        verts, colours = self._colour(root, best.size)
        stack = [[root, verts, colours, len(verts) - 1]]
        chosen: list[int] = []
        while stack:
            frame = stack[-1]
            i = frame[3]
            depth = len(chosen)
            if i < 0 or frame[2][i] + depth <= best.size:
                stack.pop()
                if chosen:
                    chosen.pop()
                continue
            if depth == 0:  # every clique through a root cell of higher colour is done
                self.upper = max(best.size, min(self.side_bound, frame[2][i]))
            v = frame[1][i]
            frame[3] = i - 1
            p = frame[0]
            frame[0] = p & ~(1 << v)
            child = p & adj[v]
            if not child:
                if depth + 1 > best.size:
                    best.offer(self.value, self._cells([*chosen, v]))
                continue
            if budget.spend():
                return False
            chosen.append(v)
            cv, cc = self._colour(child, best.size - depth - 1)
            stack.append([child, cv, cc, len(cv) - 1])
        self.upper = best.size
        return True

    def _cells(self, vertices: list[int]) -> list[tuple[int, int]]:
        return [(int(self.cells[v, 0]), int(self.cells[v, 1])) for v in vertices]


def _degeneracy_order(adjacent: np.ndarray) -> np.ndarray:
    """Vertices by repeatedly removing one of least remaining degree; the last removed first."""
    k = len(adjacent)
    degree = adjacent.sum(axis=1).astype(np.int64)
    removed = np.zeros(k, dtype=bool)
    out = np.empty(k, dtype=np.int64)
    big = np.iinfo(np.int64).max
    for step in range(k):
        v = int(np.argmin(np.where(removed, big, degree)))
        out[k - 1 - step] = v
        removed[v] = True
        degree -= adjacent[v]
    return out


def max_fooling_set(
    matrix: TwoPartyProblem | np.ndarray,
    value: int | None = None,
    *,
    seconds: float | None = None,
    nodes: int | None = None,
) -> MaxFoolingSet:
    """The maximum fooling set of a matrix (Def. 1) by maximum-clique branch and bound.

    With ``value`` None every value present is tried and the largest set wins (on a tie, the
    value searched first: the larger greedy set, then the smaller value). ``seconds`` and
    ``nodes`` bound the search; when either runs out the best set found comes back with
    ``exact`` False and ``upper_bound`` >= the maximum. A value with no cells gives size 0.
    Refuses more than ``MAX_FOOLING_CELL_LIMIT`` cells of a value (after merging equal
    rows/columns) and, for a problem, more than ``MAX_FOOLING_ENTRY_LIMIT`` matrix entries.
    """
    if isinstance(matrix, TwoPartyProblem):
        check_exact_size(matrix)
    budget = _Budget(seconds, nodes)
    m = as_matrix(matrix, "max_fooling_set")
    rep_r, _ = row_classes(m)
    rep_c, _ = row_classes(m.T)
    sub = m[np.ix_(rep_r, rep_c)]
    values = [int(value)] if value is not None else [int(v) for v in np.unique(sub)]
    searches = [_CliqueSearch(sub, v) for v in values]
    best = _Incumbent()
    greedy = {s.value: s.greedy() for s in searches}
    searches.sort(key=lambda s: (-len(greedy[s.value]), s.value))
    for s in searches:
        best.offer(s.value, s._cells(greedy[s.value]))
    exact = True
    for s in searches:
        if s.root_bound <= best.size:
            s.upper = best.size
            continue
        if budget.out or not s.search(best, budget):
            exact = False
    upper = max([best.size] + [s.upper for s in searches])
    out = sorted((int(rep_r[r]), int(rep_c[c])) for r, c in best.cells)
    chosen_value = best.value if best.value is not None else values[0]
    return MaxFoolingSet(
        len(out), chosen_value, tuple(out), ceil_log2(len(out)), exact, upper, budget.nodes
    )
