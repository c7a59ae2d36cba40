"""Each check of ``verify_fooling_set`` with a set that only it rejects, and the whole check
against brute force (Def. 1 read off the materialised matrix, pair by pair) on small matrices."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import lower_bounds as lb
from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import fooling


def first_violation(m: np.ndarray, rows, cols, value: int) -> tuple[int, int] | None:
    """Def. 1 by hand: the first i < j with f(x_i, y_j) = f(x_j, y_i) = value."""
    for i, j in itertools.combinations(range(len(rows)), 2):
        if m[rows[i], cols[j]] == value and m[rows[j], cols[i]] == value:
            return i, j
    return None


def brute_force(m: np.ndarray, rows, cols, value: int) -> bool:
    cells = set(zip(rows, cols, strict=True))
    on_value = all(m[r, c] == value for r, c in cells)
    distinct = len(cells) == len(rows) >= 1
    return on_value and distinct and first_violation(m, rows, cols, value) is None


def test_distinct_rows_with_a_shared_column_are_rejected_by_the_column_check():
    # Dyck-(2,2) at N = 4 under prefix:3: every member has a different 3-symbol prefix (rows),
    # but "(())" and "[()]" end alike: pairs 0 and 1 share column 1, so f(x_0, y_1) =
    # f(x_1, y_0) = 1. The count argument alone (8 distinct rows, 8 one-cells) would pass it.
    problem = P.dyck(2, 2, 4, "prefix:3")
    found = lb.dyck_fooling_set(problem)
    assert not found.check.valid and found.check.method == "none"
    assert found.check.reason.startswith("pairs 0 and 1 share col 1")
    assert len(set(found.rows.tolist())) == found.size == 8
    m = problem.matrix()
    assert not brute_force(m, found.rows.tolist(), found.cols.tolist(), 1)


def test_a_shared_row_is_rejected_by_the_row_check():
    m = P.from_matrix([[1, 1], [0, 0]])
    check = lb.verify_fooling_set(m, np.array([0, 0]), np.array([0, 1]), 1)
    assert not check.valid and check.reason.startswith("pairs 0 and 1 share row 0")
    check = lb.verify_fooling_set(
        P.from_matrix([[1, 0], [1, 0]]), np.array([0, 1]), np.array([0, 0]), 1
    )
    assert not check.valid and check.reason.startswith("pairs 0 and 1 share col 0")


def test_the_same_cell_twice_and_a_wrong_value_are_named():
    m = P.from_matrix([[1, 0], [0, 1]])
    check = lb.verify_fooling_set(m, np.array([0, 1, 1]), np.array([0, 1, 1]), 1)
    assert not check.valid and check.reason == "pairs 1 and 2 are the same cell (row 1, col 1)"
    check = lb.verify_fooling_set(m, np.array([0, 1]), np.array([0, 0]), 1)
    assert not check.valid and check.reason == "pair 1 (row 1, col 0) has f = 0, not the value 1"
    assert check.size == 2 and check.method == "none"


def test_one_pair_and_the_count_argument():
    m = P.from_matrix([[1, 0], [0, 1]])
    one = lb.verify_fooling_set(m, np.array([1]), np.array([1]), 1)
    assert one == fooling.FoolingCheck(True, 1, None, "single")
    eq = P.equality(1)  # the 2 x 2 identity, with its counts of 1- and 0-cells known exactly
    both = lb.verify_fooling_set(eq, np.array([0, 1]), np.array([0, 1]), 1)
    assert both == fooling.FoolingCheck(True, 2, None, "count")
    zeros = lb.verify_fooling_set(eq, np.array([0, 1]), np.array([1, 0]), 0)
    assert zeros == fooling.FoolingCheck(True, 2, None, "count")
    # A matrix problem has no closed-form count: the same set is proved pair by pair.
    pairwise = lb.verify_fooling_set(m, np.array([0, 1]), np.array([0, 1]), 1)
    assert pairwise == fooling.FoolingCheck(True, 2, None, "pairwise")


def test_a_given_value_count_is_trusted_and_checked():
    eq = P.equality(3)  # 8 one-cells; the diagonal has all of them
    diag = np.arange(8)
    assert lb.verify_fooling_set(eq, diag, diag, 1, value_count=8).method == "count"
    # A larger count forces the pairwise argument, which still proves it.
    assert lb.verify_fooling_set(eq, diag, diag, 1, value_count=9).method == "pairwise"
    with pytest.raises(InputError, match="given as 7, below the 8 distinct 1-cells"):
        lb.verify_fooling_set(eq, diag, diag, 1, value_count=7)


def test_pairwise_violations_name_the_first_pair():
    # Distinct rows and columns, every pair on value 1, fewer pairs than one-cells: pairwise.
    m = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    problem = P.from_matrix(m)
    rows, cols = np.array([2, 0, 1]), np.array([2, 0, 1])
    check = lb.verify_fooling_set(problem, rows, cols, 1)
    assert not check.valid and check.method == "pairwise"
    assert check.reason.startswith("pairs 1 and 2 (rows 0, 1; cols 0, 1) violate Def. 1")
    assert first_violation(m, rows, cols, 1) == (1, 2)


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 20])
def test_the_pairwise_check_agrees_with_brute_force_in_any_chunking(monkeypatch, chunk):
    monkeypatch.setattr(fooling, "CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for _ in range(40):
        shape = tuple(rng.integers(3, 7, size=2))
        m = (rng.random(shape) < 0.6).astype(np.int8)
        problem = P.from_matrix(m)
        s = int(rng.integers(1, min(shape) + 1))
        rows = rng.permutation(shape[0])[:s]
        cols = rng.permutation(shape[1])[:s]
        value = int(m[rows[0], cols[0]])
        check = lb.verify_fooling_set(problem, rows, cols, value)
        assert check.valid == brute_force(m, rows.tolist(), cols.tolist(), value)
        hit = first_violation(m, rows, cols, value)
        if not check.valid and check.method == "pairwise":
            assert check.reason.startswith(f"pairs {hit[0]} and {hit[1]} ")


def test_the_pairwise_limit_at_below_and_above(monkeypatch):
    # The 8-pair diagonal of EQ on 3 + 3 bits, with a count that forces the pairwise check:
    # 28 unordered pairs.
    eq = P.equality(3)
    diag = np.arange(8)
    for most, ok in ((29, True), (28, True), (27, False)):
        monkeypatch.setattr(fooling, "PAIRWISE_LIMIT", most)
        if ok:
            assert lb.verify_fooling_set(eq, diag, diag, 1, value_count=9).valid
        else:
            with pytest.raises(InputError, match="limited to 27 pairs, got 28"):
                lb.verify_fooling_set(eq, diag, diag, 1, value_count=9)
