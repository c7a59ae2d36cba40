"""The maximum fooling set: brute force on small matrices, known families, budgets, refusals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import lower_bounds as lb
from ccomplexity import problems as P
from ccomplexity.errors import InputError


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
