"""The exact maximum fooling set of a matrix (Def. 1), as a maximum clique, answering anytime.

A b-fooling set is a set of b-cells no two of which *cross*: cells (r1, c1) and (r2, c2) cross
when M[r1, c2] = M[r2, c1] = b, which includes sharing a row or a column. So the fooling sets of
value b are exactly the cliques of the *compatibility graph* whose vertices are the b-cells and
whose edges join cells that do not cross, and the maximum fooling set is a maximum clique. A
set of pairwise crossing cells is exactly a set of b-cells inside an all-b rectangle (a row and
a column are such rectangles), so a colour class below is such a rectangle's cells.

The search (compiled with numba: :mod:`ccomplexity.lower_bounds.clique_kernel`) is a bitset
branch and bound in the style of MCQ/BBMC (Tomita; San Segundo) on uint64 words:

- vertices are numbered in degeneracy order (the highest core first), so that a greedy
  colouring in that order uses few colours (measured against row-major order, degree order and
  the reverse: 3x to 90x fewer nodes on random 26 x 26 matrices);
- at each node the candidates P are greedily coloured: a clique takes at most one cell per
  class, so the number of classes bounds what P can add. Only cells whose colour could still
  beat the incumbent are branched on, highest colour first, and each is removed from P once
  branched on; such a cell is first moved into a lower class when it crosses all of it but one
  cell that fits in another lower class (Re-NUMBER, from MCS), and a node meeting too few rows
  or columns (each also a class) is not branched at all;
- then MaxSAT-style reasoning (MaxCLQ, IncMaxCLQ): a cell v still above the incumbent is not
  branched on when unit propagation from v over the kept classes empties one of them, each
  such refutation using its own classes (followed back through the units that emptied it);
- the incumbent starts from a greedy set improved by local search (``WARM_START_STEPS``
  steps, swaps of one cell with a tabu), and is shared across the values b: the value with the
  larger warm start is searched first, and the other only has to beat it.

Measured alternatives (see ``benchmarks/max_fooling.py`` and its results): the same search in
Python on arbitrary-precision ints spent ~200 us per node (random 32 x 32: 6.96 million nodes,
1472 s; compiled: the same 6.96 million nodes in 16.7 s); unit propagation and the warm
start together bring that to 2.6 million nodes; a failed-literal test on classes left with two
cells cut a further 14% of nodes (random 30 x 30) but cost more time than it saved, so it is
not used. MaxSAT with one soft clause per cell (RC2) did not finish 24 x 24 in 120 s, CaDiCaL
with a totalizer took 200 s, HiGHS with row/column/rectangle clique constraints 18 s (32 x 32
unproved in 600 s) and CP-SAT 45 s: proving "no set of size k + 1" is a counting argument that
clause learning handles badly, while colouring bounds count directly. The search is single
threaded. Its cost still grows about threefold for every two more rows and columns of a random
matrix, so 64 x 64 is far out of reach of a proof (see docs/exact-methods.md).

Anytime: with a budget (seconds or nodes) the search stops when it runs out and returns the best
set found with ``exact`` False and an ``upper_bound``: for a value whose search was cut short,
every clique through a root cell of higher colour than the one in progress has been examined, so
its maximum is at most max(incumbent, that colour); a value never searched contributes
min(#rows, #columns). Identical rows (columns) are merged first: two cells in identical rows
always cross, and any row of a class stands in for another, so the maximum is unchanged.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from ccomplexity.errors import InputError, shown
from ccomplexity.integers import ceil_log2
from ccomplexity.lower_bounds.matrix import as_matrix, row_classes
from ccomplexity.problems import TwoPartyProblem

MAX_FOOLING_CELL_LIMIT = 8192
"""Most cells of one value (after merging equal rows/columns) the clique search takes (its
compatibility graph has up to 2^26 pairs)."""
MAX_FOOLING_ENTRY_LIMIT = 1 << 20
"""Most matrix entries the search materialises from a problem (checked before building it)."""
WARM_START_STEPS = 10_000
"""Local-search steps per value before the exact search (0.2 s at 64 x 64; measured)."""


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
            f"{MAX_FOOLING_ENTRY_LIMIT} entries, got {shown(problem.n_rows)} x "
            f"{shown(problem.n_cols)}; "
            "use a constructive fooling set"
        )


class _Budget:
    """Seconds and nodes left to the whole search; ``out`` once either runs out.

    The compiled search runs in chunks of nodes; the clock is read between chunks, whose size
    doubles while a chunk takes under ``CHUNK_SECONDS`` (so a deadline is overrun by at most
    about that much).
    """

    CHUNK_SECONDS = 0.02

    def __init__(self, seconds: float | None, nodes: int | None) -> None:
        if seconds is not None and not seconds > 0:
            raise InputError(f"the time budget must be positive, got {seconds}")
        if nodes is not None and nodes < 1:
            raise InputError(f"the node budget must be a positive integer, got {nodes}")
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.max_nodes = nodes
        self.nodes = 0
        self.out = False
        self.chunk = 1 << 10

    def allowance(self) -> int:
        """Nodes the next chunk may expand."""
        if self.deadline is None and self.max_nodes is None:
            return 1 << 62
        if self.max_nodes is None:
            return self.chunk
        return min(self.chunk, self.max_nodes - self.nodes)

    def spend(self, nodes: int, seconds: float) -> None:
        """Count a chunk's nodes; ``out`` when the budget has run out."""
        self.nodes += nodes
        if seconds < self.CHUNK_SECONDS:
            self.chunk = min(2 * self.chunk, 1 << 30)
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            self.out = True
        if self.deadline is not None and time.perf_counter() > self.deadline:
            self.out = True


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
    """The b-cells of a merged matrix as a compatibility graph on uint64 bitsets, searched by
    the compiled kernel (:mod:`ccomplexity.lower_bounds.clique_kernel`)."""

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
        self.compatible = compatible[np.ix_(order, order)]
        self.k = k
        self.n_words = max(1, -(-k // 64))
        self.side_bound = min(len(np.unique(cells[:, 0])), len(np.unique(cells[:, 1])))
        self.upper = self.side_bound
        self.state: np.ndarray | None = None
        self.kernel: ModuleType | None = None

    def _bits(self, rows: np.ndarray) -> np.ndarray:
        """Boolean rows over the k vertices as uint64 words (bit u of word u // 64)."""
        padded = np.zeros((len(rows), self.n_words * 64), dtype=bool)
        padded[:, : self.k] = rows
        return np.packbits(padded, axis=1, bitorder="little").view("<u8")

    def warm_start(self) -> list[int]:
        """A large clique to start from: greedy (cells in order, each taken when it crosses
        none taken), then, unless that already meets min(#rows, #columns), ``WARM_START_STEPS``
        steps of local search (loading the compiled kernel only then)."""
        chosen: list[int] = []
        cand = np.ones(self.k, dtype=bool)
        while cand.any():
            v = int(np.argmax(cand))
            chosen.append(v)
            cand &= self.compatible[v]
        if len(chosen) >= self.side_bound:
            return chosen
        self._load()
        start = np.array(chosen, dtype=np.int32)
        return self.kernel.local_search(self.adj, start, WARM_START_STEPS, 1).tolist()

    def _load(self) -> None:
        from ccomplexity.lower_bounds import clique_kernel

        self.kernel = clique_kernel
        self.adj = self._bits(self.compatible)

    def _start(self) -> None:
        if self.kernel is None:
            self._load()
        depth = self.side_bound + 1
        self.adj = self._bits(self.compatible)
        frames_p = np.zeros((depth, self.n_words), dtype=np.uint64)
        frames_p[0] = self._bits(np.ones((1, self.k), dtype=bool))[0]
        self.frames = (
            frames_p,
            np.zeros((depth, self.k), dtype=np.int32),
            np.zeros((depth, self.k), dtype=np.int32),
            np.zeros(depth, dtype=np.int64),
            np.zeros(depth, dtype=np.int32),
        )
        self.best_clique = np.zeros(depth, dtype=np.int32)
        self.classes = np.zeros((depth, self.n_words), dtype=np.uint64)
        self.scratch = np.zeros((3, self.n_words), dtype=np.uint64)
        self.reasoning = (
            np.zeros((depth, self.n_words), dtype=np.uint64),
            np.zeros(depth, dtype=np.int8),
            np.zeros(64, dtype=np.int32),
            np.zeros(64, dtype=np.int32),
            np.zeros(depth, dtype=np.uint64),
            np.zeros(64, dtype=np.uint64),
        )
        self.state = np.zeros(5, dtype=np.int64)
        rows = self.cells[:, 0].astype(np.int32)
        cols = self.cells[:, 1].astype(np.int32)
        self.lines = (
            rows,
            cols,
            np.zeros(int(rows.max()) + 1, dtype=np.int64),
            np.zeros(int(cols.max()) + 1, dtype=np.int64),
            self.state,
        )

    def search(self, best: _Incumbent, budget: _Budget) -> bool:
        """Branch and bound from the root; True when it finished (nothing better is left)."""
        if self.state is None:
            self._start()
        ck, state = self.kernel, self.state
        while True:
            state[ck.BEST] = best.size
            before = int(state[ck.NODES])
            began = time.perf_counter()
            status = ck.search(
                self.adj,
                self.frames,
                self.best_clique,
                self.classes,
                self.scratch,
                self.lines,
                self.reasoning,
                before + budget.allowance(),
            )
            if state[ck.BEST] > best.size:
                size = int(state[ck.BEST])
                best.offer(self.value, self._cells(self.best_clique[:size].tolist()))
            budget.spend(int(state[ck.NODES]) - before, time.perf_counter() - began)
            if status == ck.FINISHED:
                self.upper = best.size
                return True
            if state[ck.DEPTH] > 0:
                root = int(state[ck.ROOT_COLOUR])
                self.upper = max(best.size, min(self.side_bound, root))
            if budget.out:
                return False

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
    warm = {s.value: s.warm_start() for s in searches}
    searches.sort(key=lambda s: (-len(warm[s.value]), s.value))
    for s in searches:
        best.offer(s.value, s._cells(warm[s.value]))
    exact = True
    for s in searches:
        if s.side_bound <= best.size:
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
