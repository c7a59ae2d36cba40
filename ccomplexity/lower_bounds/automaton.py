"""Lower bounds from an automaton at any length: the one-way complexity at every cut (Thm 2,
Fact 3) and the maximum fooling set under ``prefix:K`` (Def. 1, Fact 4) of a language given by a
finite automaton, computed on its states, never on its words.

A :class:`Machine` reads a word of [A]^N from ``start`` through ``table`` and answers
``output[q]`` for the state q it ends in (0/1 for a DFA, a label for a task with labels). Split
after K symbols:

- Alice's row is decided by her state q after K symbols: it is y -> output(delta(q, y)) on the
  words y of length N - K. So the distinct rows are the classes, among the states reachable in
  exactly K steps (R_K), of "same output after every word of length N - K" (P_{N-K}, the
  Myhill-Nerode classes of L ∩ Sigma^N at K), and the one-way complexity is ceil(log2 #classes).
- Bob's column is decided by the states his word sends one representative of each class to
  (the tuples T_{N-K}). The communication matrix is the *reduced* matrix, one row per class and
  one column per distinct output vector of those tuples, with rows and columns repeated; a
  fooling set never holds two equal rows or columns, and an equal row stands in for another, so
  the maximum fooling set of the reduced matrix (exact clique search,
  :mod:`~ccomplexity.lower_bounds.max_fooling`) is the maximum fooling set of the problem.

R_t, P_r and T_r are each a sequence in a finite set with every term determined by the one
before, hence eventually periodic (:class:`Layers`): they are computed until a term repeats, a
few steps for a small automaton, so N = 10^6 costs what N = 100 does. Witness words (Alice's
prefixes, Bob's suffixes) are read back through parent pointers one period at a time, so a word
of length 10^6 costs its length in numpy, not 10^6 Python steps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ccomplexity import budget
from ccomplexity.automata import DFA, minimize
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds.matrix import row_classes
from ccomplexity.lower_bounds.max_fooling import MAX_FOOLING_CELL_LIMIT, max_fooling_set
from ccomplexity.lower_bounds.one_way import separating_columns

TUPLE_CELLS_LIMIT = 1 << 26
"""Most states held in one layer of Bob's tuples (tuples x classes), 512 MiB of int64."""


@dataclass(frozen=True, eq=False)
class Machine:
    """A complete automaton with one output per state: ``table[q, a]`` the state after symbol
    a, ``output[q]`` the value of a word ending in q."""

    table: np.ndarray
    start: int
    output: np.ndarray

    @classmethod
    def from_dfa(cls, dfa: DFA) -> Machine:
        """The minimal DFA of ``dfa``'s language, outputs 1 (accept) and 0 (reject)."""
        m = minimize(dfa)
        return cls(m.transitions, m.start, m.accepting.astype(np.int64))

    @property
    def states(self) -> int:
        return int(self.table.shape[0])

    @property
    def symbols(self) -> int:
        return int(self.table.shape[1])

    def run(self, words: np.ndarray) -> np.ndarray:
        """The output on each row of ``words`` (batch, N)."""
        q = np.full(len(words), self.start, dtype=np.int64)
        for t in range(words.shape[1]):
            q = self.table[q, words[:, t]]
        return self.output[q]


def price(machine: Machine, length: int, what: str) -> None:
    """Refuse (one line, before any work) when the layers up to ``length`` would exceed the
    budget if no term repeated: (N + 1) x states x symbols steps, twice."""
    cells = machine.states * machine.symbols
    budget.check(
        f"{what}: the automaton of {machine.states} states x {machine.symbols} symbols to "
        f"length {length}",
        budget.array_bytes(cells) * 4,
        2 * (length + 1) * (cells * 16 + 64),
        "use a shorter --length",
    )


# ------------------------------------------------------------------------------ layers


@dataclass(frozen=True, eq=False)
class Layers:
    """L_0, L_1, ... with L_{t+1} a function of L_t, stored until a term repeats: term t is
    ``items[index(t)]``. ``parents[i][j]``, ``symbols[i][j]``: item j of layer i came from item
    ``parents[i][j]`` of the layer before by ``symbols[i][j]`` (None for layer 0, and for
    layers without words). When L_{mu + lam} = L_mu (``period`` = (mu, lam)), layer mu reached
    from layer mu + lam - 1 has the parents ``wrap``."""

    items: list[np.ndarray]
    parents: list[np.ndarray | None]
    symbols: list[np.ndarray | None]
    period: tuple[int, int] | None
    wrap: tuple[np.ndarray, np.ndarray] | None

    def index(self, t: Any) -> Any:
        """The stored layer of term ``t`` (an int, or an array of them): ``t`` itself before
        the period, else its place in the period."""
        if self.period is None:
            return t
        mu, lam = self.period
        if isinstance(t, np.ndarray):
            return np.where(t < mu, t, mu + (t - mu) % lam)
        return t if t < mu else mu + (t - mu) % lam

    def at(self, t: int) -> np.ndarray:
        return self.items[int(self.index(t))]

    def _back(self, level: int, item: int) -> tuple[int, int]:
        """(item of level - 1, symbol) that item ``item`` of level ``level`` came from."""
        i = int(self.index(level))
        if self.period is not None and i == self.period[0] and level > i:
            parents, symbols = self.wrap  # type: ignore[misc]
        else:
            parents, symbols = self.parents[i], self.symbols[i]  # type: ignore[assignment]
        return int(parents[item]), int(symbols[item])

    def walk(self, level: int, item: int) -> np.ndarray:
        """The symbols on the way back from item ``item`` of term ``level`` to term 0, in the
        order walked (the last symbol of a forward word first). A whole period at a time in
        the periodic part: the items met at its start repeat, and so do their blocks."""
        out: list[np.ndarray] = []
        steps: list[int] = []
        if self.period is not None and level >= sum(self.period) + self.period[1]:
            mu, lam = self.period
            while (level - mu) % lam:
                item, sym = self._back(level, item)
                steps.append(sym)
                level -= 1
            out.append(np.array(steps, dtype=np.int64))
            steps = []
            item = self._periods(item, (level - mu) // lam, out)
            level = mu
        while level > 0:
            item, sym = self._back(level, item)
            steps.append(sym)
            level -= 1
        out.append(np.array(steps, dtype=np.int64))
        return np.concatenate(out)

    def _periods(self, item: int, count: int, out: list[np.ndarray]) -> int:
        """Walk ``count`` whole periods back from ``item`` of a term mu + j lam (j >= count),
        appending their symbols to ``out``; return the item reached at term mu."""
        mu, lam = self.period  # type: ignore[misc]
        blocks: dict[int, tuple[int, np.ndarray]] = {}
        seen: dict[int, int] = {}
        order: list[int] = []
        while len(order) < count and item not in seen:
            seen[item] = len(order)
            order.append(item)
            if item not in blocks:
                x, syms = item, []
                for level in range(mu + lam, mu, -1):
                    x, sym = self._back(level, x)
                    syms.append(sym)
                blocks[item] = (x, np.array(syms, dtype=np.int64))
            item = blocks[item][0]
        out.extend(blocks[x][1] for x in order)
        left = count - len(order)
        if left > 0:  # the items cycle from the first one met twice
            cycle = order[seen[item] :]
            times, rest = divmod(left, len(cycle))
            out.append(np.tile(np.concatenate([blocks[x][1] for x in cycle]), times))
            out.extend(blocks[x][1] for x in cycle[:rest])
            item = cycle[rest]
        return item


Step = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray | None, np.ndarray | None]]


def unroll(first: np.ndarray, step: Step, levels: int) -> Layers:
    """Layers from L_0 = ``first`` and ``step`` (L_t -> L_{t+1} and its parents and symbols), up
    to term ``levels`` or until a term repeats. Terms are compared as canonical arrays (the same
    set always comes out of ``step`` in the same order)."""
    items, parents, symbols = [first], [None], [None]
    seen = {_key(first): 0}
    while len(items) <= levels:
        nxt, par, sym = step(items[-1])
        mu = seen.get(_key(nxt))
        if mu is not None:
            wrap = None if par is None else (par, sym)
            return Layers(items, parents, symbols, (mu, len(items) - mu), wrap)
        seen[_key(nxt)] = len(items)
        items.append(nxt)
        parents.append(par)
        symbols.append(sym)
    return Layers(items, parents, symbols, None, None)


def _key(a: np.ndarray) -> tuple[tuple[int, ...], bytes]:
    return a.shape, np.ascontiguousarray(a).tobytes()


def reach_layers(machine: Machine, levels: int) -> Layers:
    """R_t: the states reachable in exactly t steps (sorted), each with one parent."""
    a = machine.symbols

    def step(cur: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        reached, first = np.unique(machine.table[cur].reshape(-1), return_index=True)
        return reached, first // a, first % a

    return unroll(np.array([machine.start], dtype=np.int64), step, levels)


def residual_layers(machine: Machine, levels: int) -> Layers:
    """P_r: each state's class of "same output after every word of length r", numbered by first
    occurrence (P_0 = the outputs; P_{r+1}(q) = (P_r(delta(q, a)))_a)."""

    def canonical(rows: np.ndarray) -> np.ndarray:
        return row_classes(rows.reshape(machine.states, -1))[1].astype(np.int64)

    def step(labels: np.ndarray) -> tuple[np.ndarray, None, None]:
        return canonical(labels[machine.table]), None, None

    return unroll(canonical(machine.output), step, levels)


def tuple_layers(machine: Machine, starts: np.ndarray, levels: int) -> Layers:
    """T_r: the tuples delta(starts, y) over the words y of length r (distinct rows, sorted),
    each with one parent tuple and the symbol appended."""
    a, k = machine.symbols, len(starts)

    def step(cur: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if len(cur) * a * k > TUPLE_CELLS_LIMIT:
            raise InputError(
                f"Bob's side of the cut: {len(cur) * a} tuples of {k} states exceed the limit "
                f"of {TUPLE_CELLS_LIMIT} states held at once; use a shorter --length"
            )
        moved = machine.table[cur].transpose(0, 2, 1).reshape(-1, k)  # tuple-major, then symbol
        rows, first = np.unique(moved, axis=0, return_index=True)
        return rows, first // a, first % a

    return unroll(np.asarray(starts, dtype=np.int64)[None, :], step, levels)


# ------------------------------------------------------------------------------ one way


def one_way_runs(machine: Machine, length: int) -> list[tuple[int, int, int]]:
    """Distinct rows at every cut K = 1..N-1, as runs (first K, last K, distinct rows) of equal
    counts: #classes of P_{N-K} among R_K."""
    if length < 2:
        raise InputError(f"a cut needs length >= 2, got {length}")
    reach, residual = reach_layers(machine, length), residual_layers(machine, length)
    cuts = np.arange(1, length, dtype=np.int64)
    r_idx = np.asarray(reach.index(cuts), dtype=np.int64)
    p_idx = np.asarray(residual.index(length - cuts), dtype=np.int64)
    width = len(residual.items)
    keys, inverse = np.unique(r_idx * width + p_idx, return_inverse=True)
    found = [np.unique(residual.items[k % width][reach.items[k // width]]).size for k in keys]
    counts = np.array(found, dtype=np.int64)[inverse.reshape(-1)]
    ends = np.flatnonzero(np.diff(counts)).tolist() + [len(counts) - 1]
    runs, first = [], 0
    for end in ends:
        runs.append((first + 1, end + 1, int(counts[end])))
        first = end + 1
    return runs


@dataclass(frozen=True)
class CutSplit:
    """The cut after K symbols, reduced: ``classes`` representative states of Alice's distinct
    rows (R_K), ``matrix`` the reduced matrix (classes x distinct columns), and the words that
    realise them: ``prefix(i)`` reaches ``classes[i]``, ``suffix(j)`` gives column j."""

    length: int
    cut: int
    classes: np.ndarray
    matrix: np.ndarray
    reach: Layers
    tuples: Layers
    columns: np.ndarray

    def prefix(self, i: int) -> np.ndarray:
        states = self.reach.at(self.cut)
        item = int(np.searchsorted(states, self.classes[i]))
        return self.reach.walk(self.cut, item)[::-1]

    def suffix(self, j: int) -> np.ndarray:
        return self.tuples.walk(self.length - self.cut, int(self.columns[j]))[::-1]


def split_at(machine: Machine, length: int, cut: int) -> CutSplit:
    """The reduced matrix of ``prefix:cut`` at length N (see the module docstring)."""
    if not 1 <= cut < length:
        raise InputError(f"the cut K needs 1 <= K < length ({length}), got {cut}")
    reach = reach_layers(machine, cut)
    residual = residual_layers(machine, length - cut)
    states = reach.at(cut)
    labels = residual.at(length - cut)[states]
    _, first = np.unique(labels, return_index=True)
    classes = states[np.sort(first)]
    tuples = tuple_layers(machine, classes, length - cut)
    vectors = machine.output[tuples.at(length - cut)]  # one row per tuple: a column's values
    columns, _ = row_classes(vectors)
    return CutSplit(length, cut, classes, vectors[columns].T, reach, tuples, columns)


def one_way_witness(split: CutSplit) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Alice's prefixes, one per class, and Bob's suffixes on which their rows are pairwise
    distinct: a witness of ceil(log2 #classes) one-way bits."""
    cols = separating_columns(split.matrix)
    return [split.prefix(i) for i in range(len(split.classes))], [split.suffix(j) for j in cols]


@dataclass(frozen=True)
class AutomatonFooling:
    """The fooling set found on the reduced matrix: pairs of words (``prefixes[i]``,
    ``suffixes[i]``) of value ``value``; ``exact`` when it is the maximum (then ``upper_bound``
    = its size), else the maximum lies in [size, upper_bound]."""

    prefixes: list[np.ndarray]
    suffixes: list[np.ndarray]
    value: int
    exact: bool
    upper_bound: int
    nodes: int


def max_fooling_at(
    split: CutSplit, seconds: float | None = None, nodes: int | None = None
) -> AutomatonFooling:
    """The maximum fooling set of the reduced matrix, value by value (the largest wins); a
    value with more than :data:`MAX_FOOLING_CELL_LIMIT` cells is not searched, and then the
    answer is not exact (its bound: min(#rows, #columns) holding that value)."""
    m = split.matrix
    best, exact, upper, spent = None, True, 0, 0
    for value in np.unique(m).tolist():
        cells = m == value
        side = min(int(cells.any(axis=1).sum()), int(cells.any(axis=0).sum()))
        if int(cells.sum()) > MAX_FOOLING_CELL_LIMIT:
            exact, upper = False, max(upper, side)
            continue
        found = max_fooling_set(m, value, seconds=seconds, nodes=nodes)
        exact = exact and found.exact
        upper, spent = max(upper, found.upper_bound), spent + found.nodes
        if best is None or found.size > best.size:
            best = found
    if best is None:
        raise InputError(
            f"every value of the cut's reduced matrix ({m.shape[0]} x {m.shape[1]}) has more "
            f"than {MAX_FOOLING_CELL_LIMIT} cells: the exact search is refused"
        )
    prefixes = [split.prefix(r) for r, _ in best.cells]
    suffixes = [split.suffix(c) for _, c in best.cells]
    return AutomatonFooling(prefixes, suffixes, best.value, exact, max(upper, best.size), spent)


# ------------------------------------------------------------------------------ from a function


def function_machine(
    evaluate: Callable[[np.ndarray], np.ndarray], alphabet: int, length: int
) -> Machine:
    """The minimal automaton of a function on [A]^N from its values on every word, built from
    the leaves up (Revuz's minimisation of an acyclic automaton): the states of level N are the
    values, and a state of level t < N is the tuple of the states its A children reach, so two
    prefixes of length t share a state iff their rows at the cut after t are equal. Levels are
    numbered from the start; level N moves to a sink (never read: words have length N). The
    words are evaluated once each, in chunks of at most 2^16."""
    a, n = alphabet, length
    values = _all_values(evaluate, a, n)
    low, high = int(values.min()), int(values.max())
    ids, leaves = _level(values[:, None] - low, high - low + 1)
    leaves = leaves[:, 0] + low
    counts, rows = [len(leaves)], []
    for _ in range(n):
        ids, level_rows = _level(ids.reshape(-1, a), counts[0])
        rows.append(level_rows)
        counts.insert(0, len(level_rows))
    offsets = np.cumsum([0, *counts])  # level t's states start at offsets[t]; the sink is last
    sink = int(offsets[-1])
    table = np.full((sink + 1, a), sink, dtype=np.int64)
    for t, level_rows in enumerate(reversed(rows)):  # rows[-1] is level 0's
        table[offsets[t] : offsets[t + 1]] = offsets[t + 1] + level_rows
    output = np.zeros(sink + 1, dtype=np.int64)
    output[offsets[n] : offsets[n + 1]] = leaves
    return Machine(table, 0, output)


def _level(children: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Each node's class among the distinct rows of its children's classes (numbered in the
    rows' lexicographic order), and those rows. While count^A is small the rows are told apart
    by a table of every possible row (linear time); beyond, by sorting."""
    n, a = children.shape
    if count**a <= max(1 << 20, 4 * n):
        key = children[:, 0].copy()
        for s in range(1, a):
            key *= count
            key += children[:, s]
        used = np.zeros(count**a, dtype=bool)
        used[key] = True
        present = np.flatnonzero(used)
        label = np.cumsum(used, dtype=np.int64) - 1
        digits = count ** np.arange(a - 1, -1, -1, dtype=np.int64)
        return label[key], (present[:, None] // digits[None, :]) % count
    key = children[:, 0]
    for s in range(1, a):
        key = np.unique(key * count + children[:, s], return_inverse=True)[1].reshape(-1)
    _, first, ids = np.unique(key, return_index=True, return_inverse=True)
    return ids.reshape(-1).astype(np.int64), children[first]


def _all_values(evaluate: Callable[[np.ndarray], np.ndarray], a: int, n: int) -> np.ndarray:
    """f on every word of [A]^N in lexicographic order (the last symbol fastest)."""
    tail = 0
    while tail < n and a ** (tail + 1) <= 1 << 16:
        tail += 1
    block = a**tail
    ends = np.arange(tail - 1, -1, -1, dtype=np.int64)
    last = (np.arange(block, dtype=np.int64)[:, None] // a ** ends[None, :]) % a
    heads = a ** (n - tail)
    out = np.empty(heads * block, dtype=np.int64)
    words = np.empty((block, n), dtype=np.int64)
    words[:, n - tail :] = last
    for h in range(heads):
        rest, head = h, np.empty(n - tail, dtype=np.int64)
        for i in range(n - tail - 1, -1, -1):
            rest, head[i] = divmod(rest, a)
        words[:, : n - tail] = head
        out[h * block : (h + 1) * block] = evaluate(words)
    return out
