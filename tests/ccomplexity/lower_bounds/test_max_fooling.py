"""The maximum fooling set: brute force on small matrices, known families, budgets, refusals."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from ccomplexity import lower_bounds as lb
from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import clique_kernel, max_fooling


def is_fooling(m: np.ndarray, cells: list[tuple[int, int]], value: int) -> bool:
    """Def. 1 straight from the definition on a dense matrix."""
    if len(set(cells)) != len(cells) or any(m[r, c] != value for r, c in cells):
        return False
    return not any(
        m[r1, c2] == value and m[r2, c1] == value
        for (r1, c1), (r2, c2) in itertools.combinations(cells, 2)
    )


def brute_max_fooling(m: np.ndarray, value: int) -> int:
    """Largest fooling set over every subset of the value's cells (tiny m only), by size."""
    cells = [tuple(int(i) for i in rc) for rc in np.argwhere(m == value)]
    for size in range(min(m.shape), 0, -1):
        if any(is_fooling(m, list(s), value) for s in itertools.combinations(cells, size)):
            return size
    return 0


def check(m: np.ndarray, found: lb.MaxFoolingSet) -> None:
    """The result is a fooling set, by the definition and by verify_fooling_set."""
    assert found.size == len(found.cells)
    assert found.bits == (found.size - 1).bit_length() if found.size > 1 else found.bits == 0
    if found.size:
        assert is_fooling(m, list(found.cells), found.value)
        prob = P._matrix_problem("matrix", {}, m.astype(np.int8).copy())
        assert lb.verify_fooling_set(prob, found.rows, found.cols, found.value).valid


def test_matches_exhaustive_search_over_subsets_up_to_6x6():
    rng = np.random.default_rng(2024)
    for trial in range(40):
        shape = tuple(int(x) for x in rng.integers(1, 7, size=2))
        m = rng.integers(0, 2, size=shape) if trial % 4 else rng.integers(0, 3, size=shape)
        best = lb.max_fooling_set(m)
        assert best.exact and best.upper_bound == best.size
        assert best.size == max(brute_max_fooling(m, int(v)) for v in np.unique(m))
        check(m, best)
        for v in (0, 1):
            one = lb.max_fooling_set(m, value=v)
            assert one.size == brute_max_fooling(m, v) and one.exact
            check(m, one) if one.size else None
            assert one.size or one.cells == ()


def compatibility_graph(m: np.ndarray, value: int) -> nx.Graph:
    """Cells of ``value`` joined when they do not cross, straight from Def. 1."""
    cells = [(int(r), int(c)) for r, c in np.argwhere(m == value)]
    graph = nx.Graph()
    graph.add_nodes_from(cells)
    graph.add_edges_from(
        (a, b)
        for a, b in itertools.combinations(cells, 2)
        if a[0] != b[0] and a[1] != b[1] and not (m[a[0], b[1]] == value == m[b[0], a[1]])
    )
    return graph


def cold_search(m: np.ndarray, value: int) -> int:
    """The branch and bound alone, from an empty incumbent: a warm start that is already
    optimal would hide pruning that cuts too much."""
    search = max_fooling._CliqueSearch(m, value)
    search.warm_start()
    best = max_fooling._Incumbent()
    assert search.search(best, max_fooling._Budget(None, None))
    return best.size


def test_matches_networkx_maximum_clique_up_to_16x16():
    # Larger than brute force reaches: the pruning (colouring, Re-NUMBER, unit propagation)
    # is checked against an independent maximum-clique search, at several densities.
    rng = np.random.default_rng(11)
    for trial in range(30):
        n_rows, n_cols = (int(x) for x in rng.integers(8, 17, size=2))
        m = (rng.random((n_rows, n_cols)) < (0.3, 0.5, 0.7)[trial % 3]).astype(np.int8)
        for v in (0, 1):
            _, expected = nx.max_weight_clique(compatibility_graph(m, v), weight=None)
            found = lb.max_fooling_set(m, value=v)
            assert found.exact and found.size == expected == found.upper_bound
            assert cold_search(m, v) == expected
            check(m, found) if found.size else None


def test_a_search_resumed_chunk_by_chunk_matches_one_run(monkeypatch):
    m = P.random_matrix(24, 24, 0).matrix()
    whole = lb.max_fooling_set(m)
    # Chunks of 1024 nodes that never grow: the kernel stops and resumes many times.
    monkeypatch.setattr(max_fooling._Budget, "CHUNK_SECONDS", 0.0)
    chunked = lb.max_fooling_set(m, seconds=1e6)
    assert whole.nodes > 4 * 1024
    assert (chunked.size, chunked.nodes, chunked.exact) == (whole.size, whole.nodes, True)


def test_local_search_returns_a_clique_at_least_its_start():
    m = P.random_matrix(24, 24, 1).matrix()
    search = max_fooling._CliqueSearch(m, 1)
    warm = search.warm_start()
    assert all(search.compatible[a, b] for a, b in itertools.combinations(warm, 2))
    start = np.array(warm[:3], dtype=np.int32)
    for steps in (0, 50, 2000):
        found = clique_kernel.local_search(search.adj, start, steps, 7).tolist()
        assert len(found) >= 3 and len(set(found)) == len(found)
        assert all(search.compatible[a, b] for a, b in itertools.combinations(found, 2))
    assert clique_kernel.local_search(search.adj, start, 0, 7).tolist() == start.tolist()


def test_popcount_and_lowest_bit():
    rng = np.random.default_rng(3)
    for x in [1, 2, 3, 1 << 63, (1 << 64) - 1, *rng.integers(1, 1 << 62, 50, dtype=np.int64)]:
        word = np.uint64(x)
        assert clique_kernel.popcount(word) == bin(int(x)).count("1")
        assert clique_kernel.lowest(word) == (int(x) & -int(x)).bit_length() - 1


@pytest.mark.parametrize(("half", "alphabet"), [(2, 2), (3, 2), (2, 3), (5, 2), (3, 3)])
def test_equality_maximum_is_the_diagonal(half, alphabet):
    prob = P.equality(half, alphabet)
    best = lb.max_fooling_set(prob)
    assert best.exact and best.size == alphabet**half and best.value == 1
    assert best.cells == tuple((i, i) for i in range(alphabet**half))
    assert lb.verify_fooling_set(prob, best.rows, best.cols, best.value).valid


def test_identity_and_its_complement_by_brute_force():
    for n in (3, 4, 5):
        eye = np.eye(n, dtype=np.int8)
        assert lb.max_fooling_set(eye).size == n
        assert lb.max_fooling_set(1 - eye, value=1).size == brute_max_fooling(1 - eye, 1)


@pytest.mark.parametrize("half", [1, 2, 3])
def test_disjointness_maximum(half):
    prob = P.disjointness(half)
    m = prob.matrix()
    best = lb.max_fooling_set(prob)
    # Fact 1's complementary pairs have size 2^H; at H <= 2 brute force says that is the maximum.
    assert best.exact and best.size >= 2**half
    if half <= 2:
        assert best.size == max(brute_max_fooling(m, v) for v in (0, 1))
    check(m, best)


def test_merging_equal_rows_keeps_the_maximum():
    rng = np.random.default_rng(7)
    base = rng.integers(0, 2, size=(4, 5))
    m = base[[0, 1, 1, 2, 3, 3, 0]][:, [0, 1, 2, 2, 3, 4]]
    assert lb.max_fooling_set(m).size == max(brute_max_fooling(base, v) for v in (0, 1))
    check(m, lb.max_fooling_set(m))


def test_a_node_budget_returns_the_best_found_with_an_upper_bound():
    m = P.random_matrix(20, 20, 3).matrix()
    full = lb.max_fooling_set(m)
    assert full.exact and full.nodes > 10
    cut = lb.max_fooling_set(m, nodes=5)
    assert not cut.exact and cut.nodes >= 5
    assert 1 <= cut.size <= full.size <= cut.upper_bound <= 20
    check(m, cut)


def test_a_time_budget_stops_the_search():
    m = P.random_matrix(40, 40, 0).matrix()
    cut = lb.max_fooling_set(m, seconds=0.2)
    assert not cut.exact and cut.size < cut.upper_bound
    check(m, cut)


def test_budgets_must_be_positive():
    with pytest.raises(InputError, match="time budget"):
        lb.max_fooling_set(np.eye(3, dtype=int), seconds=0)
    with pytest.raises(InputError, match="node budget"):
        lb.max_fooling_set(np.eye(3, dtype=int), nodes=0)


def test_cell_limit():
    m = np.ones((100, 100), dtype=int) - np.eye(100, dtype=int)
    with pytest.raises(InputError, match=f"limited to {lb.MAX_FOOLING_CELL_LIMIT} cells"):
        lb.max_fooling_set(m, value=1)


def test_a_problem_too_large_is_refused_before_its_matrix_is_built():
    # 2^40 x 2^40 entries could not even be allocated: the refusal must come from the sizes.
    with pytest.raises(InputError, match="limited to 1048576 entries"):
        lb.max_fooling_set(P.equality(40))
