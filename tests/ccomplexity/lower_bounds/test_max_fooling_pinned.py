"""The exact maximum fooling set pinned: whole results on tiny matrices against brute force over
every subset of cells (size, value, cells, bits, exact, upper bound, nodes), the tie between
values (larger warm start, then smaller value), cells mapped back through merged rows and
columns, an absent value, each limit at, below and above it (matrix entries of a problem, cells
of a value), the budget's bookkeeping (allowance, chunk doubling and its cap, node and time
limits), the incumbent's strict improvement, the compatibility graph, the bitsets and the
degeneracy order against a direct reimplementation, and the anytime bounds under node budgets.
"""

from __future__ import annotations

import itertools
import time

import networkx as nx
import numpy as np
import pytest

from ccomplexity import lower_bounds as lb
from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import max_fooling
from ccomplexity.lower_bounds.max_fooling import MaxFoolingSet

# ------------------------------------------------------------------------------ helpers


def crosses(m: np.ndarray, a: tuple[int, int], b: tuple[int, int], value: int) -> bool:
    return bool(m[a[0], b[1]] == value and m[b[0], a[1]] == value)


def is_fooling(m: np.ndarray, cells: list[tuple[int, int]], value: int) -> bool:
    """Def. 1 read off the matrix: distinct cells of ``value``, no two crossing."""
    if len(set(cells)) != len(cells) or any(m[r, c] != value for r, c in cells):
        return False
    return not any(crosses(m, a, b, value) for a, b in itertools.combinations(cells, 2))


def brute_max(m: np.ndarray, value: int) -> int:
    """Largest fooling set of ``value`` over every subset of its cells (tiny m only)."""
    cells = [(int(r), int(c)) for r, c in np.argwhere(m == value)]
    for size in range(min(m.shape), 0, -1):
        if any(is_fooling(m, list(s), value) for s in itertools.combinations(cells, size)):
            return size
    return 0


def clique_max(m: np.ndarray, value: int) -> int:
    """The same maximum as a maximum clique of non-crossing cells (networkx)."""
    cells = [(int(r), int(c)) for r, c in np.argwhere(m == value)]
    graph = nx.Graph()
    graph.add_nodes_from(cells)
    graph.add_edges_from(
        (a, b) for a, b in itertools.combinations(cells, 2) if not crosses(m, a, b, value)
    )
    return nx.max_weight_clique(graph, weight=None)[1] if cells else 0


def ceil_log2(n: int) -> int:
    return (n - 1).bit_length() if n > 1 else 0


# ------------------------------------------------------------------ whole results, tiny


def test_whole_results_on_hand_made_matrices() -> None:
    eye2 = np.eye(2, dtype=int)
    # Both values reach 2 with equal warm starts: the smaller value wins the tie.
    assert lb.max_fooling_set(eye2) == MaxFoolingSet(2, 0, ((0, 1), (1, 0)), 1, True, 2, 0)
    assert lb.max_fooling_set(eye2, value=1) == MaxFoolingSet(2, 1, ((0, 0), (1, 1)), 1, True, 2, 0)
    assert lb.max_fooling_set(np.eye(3, dtype=int), value=1) == MaxFoolingSet(
        3, 1, ((0, 0), (1, 1), (2, 2)), 2, True, 3, 0
    )
    # All ones: every row (column) is the same, merged to one cell.
    assert lb.max_fooling_set(np.ones((3, 4), dtype=int)) == MaxFoolingSet(
        1, 1, ((0, 0),), 0, True, 1, 0
    )
    # A value that never occurs: size 0, that value, exact.
    assert lb.max_fooling_set(np.eye(3, dtype=int), value=5) == MaxFoolingSet(
        0, 5, (), 0, True, 0, 0
    )


def test_a_larger_set_wins_over_a_smaller_value() -> None:
    m = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0]])  # value 0: one cell; value 1: 2 cells
    assert brute_max(m, 1) == 2 and brute_max(m, 0) == 1
    assert lb.max_fooling_set(m) == MaxFoolingSet(2, 1, ((0, 2), (2, 0)), 1, True, 2, 0)


def test_cells_come_back_on_the_first_row_and_column_of_each_merged_class() -> None:
    base = np.array([[1, 0], [0, 1]])
    m = base[[1, 1, 0, 0, 1]][:, [1, 0, 0, 1]]  # rows 0,1,4 and 2,3 equal; cols 0,3 and 1,2
    best = lb.max_fooling_set(m, value=1)
    assert best.cells == ((0, 0), (2, 1))
    assert best.rows.tolist() == [0, 2] and best.cols.tolist() == [0, 1]
    assert best.rows.dtype == np.int64 and best.cols.dtype == np.int64
    assert is_fooling(m, list(best.cells), 1)


def test_matches_brute_force_with_every_field_consistent() -> None:
    rng = np.random.default_rng(99)
    for trial in range(30):
        shape = tuple(int(x) for x in rng.integers(1, 6, size=2))
        m = rng.integers(0, 2 + trial % 2, size=shape)
        expected = {int(v): brute_max(m, int(v)) for v in np.unique(m)}
        best = lb.max_fooling_set(m)
        assert best.size == max(expected.values()) == best.upper_bound == len(best.cells)
        assert best.exact and best.bits == ceil_log2(best.size)
        assert expected[best.value] == best.size
        assert is_fooling(m, list(best.cells), best.value)
        assert list(best.cells) == sorted(best.cells)
        for v, size in expected.items():
            one = lb.max_fooling_set(m, value=v)
            assert (one.size, one.value, one.exact, one.upper_bound) == (size, v, True, size)
            assert is_fooling(m, list(one.cells), v)


def test_more_than_64_and_128_cells_use_more_words() -> None:
    # 12 x 12 and 17 x 17 random matrices: each value has 64 < k cells (two or three words).
    for n, seed in ((12, 1), (17, 2)):
        m = (np.random.default_rng(seed).random((n, n)) < 0.5).astype(np.int8)
        for v in (0, 1):
            k = int((m == v).sum())
            search = max_fooling._CliqueSearch(m, v)
            assert search.k == k and search.n_words == -(-k // 64) >= 2
            found = lb.max_fooling_set(m, value=v)
            assert found.exact and found.size == clique_max(m, v) == found.upper_bound
            assert is_fooling(m, list(found.cells), v)


# ----------------------------------------------------------------------------- limits


def test_the_entry_limit_of_a_problem_at_and_below(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(max_fooling, "MAX_FOOLING_ENTRY_LIMIT", 16)
    assert lb.max_fooling_set(P.equality(2)).size == 4  # 4 x 4 = 16 entries
    monkeypatch.setattr(max_fooling, "MAX_FOOLING_ENTRY_LIMIT", 15)
    with pytest.raises(InputError) as err:
        lb.max_fooling_set(P.equality(2))
    assert str(err.value) == (
        "the exact maximum fooling set materialises the matrix: limited to 15 entries, "
        "got 4 x 4; use a constructive fooling set"
    )
    # A matrix given directly is already materialised: only the cell limit applies.
    assert lb.max_fooling_set(np.eye(4, dtype=int)).size == 4


def test_the_cell_limit_at_and_below(monkeypatch: pytest.MonkeyPatch) -> None:
    m = np.eye(5, dtype=int)  # 5 one-cells, 20 zero-cells
    monkeypatch.setattr(max_fooling, "MAX_FOOLING_CELL_LIMIT", 5)
    assert lb.max_fooling_set(m, value=1).size == 5
    monkeypatch.setattr(max_fooling, "MAX_FOOLING_CELL_LIMIT", 4)
    with pytest.raises(InputError) as err:
        lb.max_fooling_set(m, value=1)
    assert str(err.value) == (
        "the exact maximum fooling set is limited to 4 cells of value 1 (after merging equal "
        "rows/columns), got 5; use a constructive set"
    )
    # Merging counts: 8 equal rows of [1, 0] are 1 one-cell after merging.
    monkeypatch.setattr(max_fooling, "MAX_FOOLING_CELL_LIMIT", 1)
    assert lb.max_fooling_set(np.array([[1, 0]] * 8)).size == 1


# ------------------------------------------------------------------------------ budget


def test_budget_arguments_at_their_limits() -> None:
    with pytest.raises(InputError, match=r"^the time budget must be positive, got 0$"):
        max_fooling._Budget(0, None)
    with pytest.raises(InputError, match=r"^the time budget must be positive, got -1.5$"):
        max_fooling._Budget(-1.5, None)
    with pytest.raises(InputError, match=r"^the node budget must be a positive integer, got 0$"):
        max_fooling._Budget(None, 0)
    assert max_fooling._Budget(None, 1).max_nodes == 1
    assert max_fooling._Budget(0.5, None).max_nodes is None
    assert max_fooling._Budget(1e-9, None).deadline is not None
    found = lb.max_fooling_set(np.eye(3, dtype=int), nodes=1, seconds=0.5)
    assert found.exact and found.size == 3


def test_budget_bookkeeping() -> None:
    before = time.perf_counter()
    timed = max_fooling._Budget(100.0, None)
    assert 99.0 < timed.deadline - before <= 100.0 + (time.perf_counter() - before)
    assert (timed.nodes, timed.out, timed.chunk) == (0, False, 1024)
    assert timed.allowance() == 1024  # a deadline alone: chunks, to read the clock
    assert max_fooling._Budget(None, None).allowance() == 1 << 62  # nothing to stop for
    counted = max_fooling._Budget(None, 5000)
    assert counted.allowance() == 1024
    counted.spend(4500, 1.0)  # a slow chunk: the chunk does not grow
    assert (counted.nodes, counted.chunk, counted.out) == (4500, 1024, False)
    assert counted.allowance() == 500
    counted.spend(499, max_fooling._Budget.CHUNK_SECONDS)  # at the threshold: no growth
    assert (counted.nodes, counted.chunk, counted.out) == (4999, 1024, False)
    counted.spend(1, 0.0)  # exactly at the node budget: out; a fast chunk doubles
    assert (counted.nodes, counted.chunk, counted.out) == (5000, 2048, True)
    fast = max_fooling._Budget(100.0, None)
    fast.chunk = 1 << 29
    fast.spend(3, 0.0)
    assert fast.chunk == 1 << 30 and not fast.out and fast.nodes == 3
    fast.spend(3, 0.0)
    assert fast.chunk == 1 << 30  # capped
    late = max_fooling._Budget(1e-6, None)
    time.sleep(0.002)
    late.spend(0, 1.0)
    assert late.out


def test_the_incumbent_changes_only_on_a_strictly_larger_set() -> None:
    best = max_fooling._Incumbent()
    assert (best.size, best.value, best.cells) == (0, None, [])
    best.offer(1, [])
    assert (best.size, best.value) == (0, None)
    best.offer(1, [(0, 0), (1, 1)])
    best.offer(0, [(0, 1), (1, 0)])
    assert (best.size, best.value, best.cells) == (2, 1, [(0, 0), (1, 1)])
    best.offer(0, [(0, 1), (1, 0), (2, 2)])
    assert (best.size, best.value) == (3, 0)


# ------------------------------------------------------------------ the search's parts


def test_the_compatibility_graph_and_bounds_follow_def_1() -> None:
    m = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]])
    search = max_fooling._CliqueSearch(m, 1)
    cells = [tuple(int(x) for x in c) for c in search.cells]
    assert sorted(cells) == [(int(r), int(c)) for r, c in np.argwhere(m == 1)]
    assert search.k == 8 and search.n_words == 1 and search.value == 1
    assert search.side_bound == search.upper == 3  # 4 rows, 3 columns
    for i, j in itertools.product(range(8), repeat=2):
        assert search.compatible[i, j] == (not crosses(m, cells[i], cells[j], 1))
    assert search.state is None and search.kernel is None


def test_bitsets_hold_bit_u_of_word_u_div_64() -> None:
    search = max_fooling._CliqueSearch(np.zeros((10, 13), dtype=int), 0)  # 130 cells
    assert search.k == 130 and search.n_words == 3
    rows = np.zeros((2, 130), dtype=bool)
    rows[0, [0, 63, 64, 129]] = True
    rows[1, 5] = True
    words = search._bits(rows)
    assert words.shape == (2, 3)
    assert [int(w) for w in words[0]] == [1 | 1 << 63, 1, 1 << 1]
    assert [int(w) for w in words[1]] == [1 << 5, 0, 0]


def reference_degeneracy(adjacent: np.ndarray) -> list[int]:
    """Remove a vertex of least remaining degree (the lowest index on a tie), repeatedly; the
    order is the removals reversed."""
    k = len(adjacent)
    left = set(range(k))
    removed = []
    while left:
        v = min(left, key=lambda u: (sum(bool(adjacent[u, w]) for w in left if w != u), u))
        removed.append(v)
        left.remove(v)
    return removed[::-1]


def test_degeneracy_order_matches_a_direct_reimplementation() -> None:
    rng = np.random.default_rng(4)
    for n in (1, 2, 5, 9, 14):
        for density in (0.2, 0.5, 0.8):
            a = rng.random((n, n)) < density
            a = np.triu(a, 1)
            a = a | a.T
            assert max_fooling._degeneracy_order(a).tolist() == reference_degeneracy(a)


def test_a_greedy_start_that_meets_the_side_bound_skips_the_kernel() -> None:
    search = max_fooling._CliqueSearch(np.eye(4, dtype=int), 1)
    assert search.warm_start() == [0, 1, 2, 3]
    assert search.kernel is None  # greedy met min(#rows, #cols): no local search loaded
    crossed = max_fooling._CliqueSearch(np.array([[1, 1], [1, 0]]), 1)
    start = crossed.warm_start()
    assert len(start) == 2 and crossed.kernel is None


# ----------------------------------------------------------------------- anytime bounds


def test_node_budgets_bracket_the_true_maximum() -> None:
    m = P.random_matrix(14, 14, 5).matrix()
    truth = max(clique_max(m, 0), clique_max(m, 1))
    full = lb.max_fooling_set(m)
    assert full.exact and full.size == truth == full.upper_bound and full.nodes > 0
    cut_any = False
    for nodes in (1, 2, 3, 5, 8, 13, 40):
        cut = lb.max_fooling_set(m, nodes=nodes)
        assert cut.size <= truth <= cut.upper_bound <= 14
        assert cut.nodes >= min(nodes, full.nodes)
        assert is_fooling(m, list(cut.cells), cut.value)
        assert cut.exact == (cut.size == cut.upper_bound == truth and cut.nodes <= full.nodes)
        cut_any |= not cut.exact
    assert cut_any
    one = lb.max_fooling_set(m, value=1, nodes=1)
    assert one.size <= clique_max(m, 1) <= one.upper_bound


def test_a_search_cut_short_reports_inexact_with_the_nodes_spent() -> None:
    m = P.random_matrix(16, 16, 0).matrix()
    full = lb.max_fooling_set(m)
    assert full.exact and full.nodes > 8
    cut = lb.max_fooling_set(m, nodes=full.nodes // 2)
    assert not cut.exact and full.nodes // 2 <= cut.nodes
    assert cut.size <= full.size <= cut.upper_bound
    again = lb.max_fooling_set(m, nodes=full.nodes + 10_000)
    assert again.exact and (again.size, again.nodes, again.upper_bound) == (
        full.size,
        full.nodes,
        full.size,
    )


# ------------------------------------------------------- order of the values' searches

# With no local search (WARM_START_STEPS = 0) the warm starts are the greedy sets, found by
# brute force to be: M_TIE value 0 greedy 5, value 1 greedy 4, both maxima 6; M_SKIP value 0
# greedy 4 = min(#rows, #cols) of its cells (nothing to search), value 1 greedy 4, maximum 5.
M_TIE = np.array(
    [
        [1, 0, 1, 1, 0, 1, 1],
        [0, 1, 1, 1, 0, 0, 0],
        [1, 1, 0, 1, 1, 0, 0],
        [0, 1, 1, 0, 1, 0, 1],
        [1, 0, 0, 0, 1, 0, 0],
        [0, 1, 1, 0, 1, 0, 1],
        [0, 1, 1, 1, 1, 1, 0],
    ]
)
M_SKIP = np.array(
    [
        [1, 1, 1, 1, 1, 1, 1],
        [0, 0, 1, 0, 0, 1, 1],
        [0, 1, 1, 0, 1, 0, 1],
        [1, 0, 1, 0, 0, 1, 1],
        [1, 1, 0, 0, 1, 0, 1],
    ]
)


def merged(m: np.ndarray) -> np.ndarray:
    """The first of each run of equal rows, then of equal columns (in order of appearance)."""
    rows = [i for i in range(len(m)) if not any((m[i] == m[j]).all() for j in range(i))]
    m = m[rows]
    cols = [i for i in range(m.shape[1]) if not any((m[:, i] == m[:, j]).all() for j in range(i))]
    return m[:, cols]


def greedy(m: np.ndarray, value: int) -> int:
    return len(max_fooling._CliqueSearch(merged(m), value).warm_start())


def test_on_a_tie_the_value_with_the_larger_warm_start_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(max_fooling, "WARM_START_STEPS", 0)
    assert (greedy(M_TIE, 0), greedy(M_TIE, 1)) == (5, 4)
    assert brute_max(M_TIE, 0) == brute_max(M_TIE, 1) == 6
    best = lb.max_fooling_set(M_TIE)
    assert (best.size, best.value, best.exact, best.upper_bound) == (6, 0, True, 6)
    assert best.nodes > 0 and is_fooling(M_TIE, list(best.cells), 0)


def test_a_value_with_nothing_to_search_does_not_stop_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(max_fooling, "WARM_START_STEPS", 0)
    assert (greedy(M_SKIP, 0), greedy(M_SKIP, 1)) == (4, 4)
    assert max_fooling._CliqueSearch(merged(M_SKIP), 0).side_bound == 4
    assert (brute_max(M_SKIP, 0), brute_max(M_SKIP, 1)) == (4, 5)
    best = lb.max_fooling_set(M_SKIP)
    assert (best.size, best.value, best.exact, best.upper_bound) == (5, 1, True, 5)
    assert best.nodes > 0 and is_fooling(M_SKIP, list(best.cells), 1)


def test_an_empty_result_still_has_integer_index_arrays() -> None:
    none = lb.max_fooling_set(np.eye(3, dtype=int), value=7)
    assert none.rows.dtype == np.int64 and none.cols.dtype == np.int64
    assert none.rows.tolist() == [] and none.cols.tolist() == []


def test_bad_matrices_and_budgets_are_refused_by_the_entry_point() -> None:
    with pytest.raises(InputError) as err:
        lb.max_fooling_set(np.zeros((0, 3), dtype=int))
    assert str(err.value) == "max_fooling_set needs a non-empty 2-D matrix, got shape (0, 3)"
    with pytest.raises(InputError, match="^the time budget must be positive, got 0$"):
        lb.max_fooling_set(np.eye(3, dtype=int), seconds=0)
    with pytest.raises(InputError, match="^the node budget must be a positive integer, got 0$"):
        lb.max_fooling_set(np.eye(3, dtype=int), nodes=0)


def test_a_search_loads_the_kernel_when_the_warm_start_did_not() -> None:
    search = max_fooling._CliqueSearch(np.eye(3, dtype=int), 1)
    assert search.warm_start() == [0, 1, 2] and search.kernel is None
    best = max_fooling._Incumbent()
    assert search.search(best, max_fooling._Budget(None, None))
    assert (best.size, best.value, sorted(best.cells)) == (3, 1, [(0, 0), (1, 1), (2, 2)])
    assert search.upper == 3
