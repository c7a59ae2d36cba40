"""More pinned values of the exact two-way complexity (ccomplexity.lower_bounds.exact).

Pinned here: D(M) of three-valued 6 x 5 matrices against the plain recursion over all splits
(a search that claimed a depth below its memoised bound would report one bit too few); the
trivial protocol's choice of who speaks first (its depth counts the distinct values a row or a
column actually holds, and ties go to Alice) read by hand on 4 x 2 and 3 x 3 matrices; the
trivial protocol's value-naming step, which must halve the values (a tree no deeper than D);
and ``nodes``, the submatrices the search examines, against the search as its docstring states
it written out again here with index tuples in place of bitmasks (iterative deepening from the
rank bound, a failed depth d memoised as the bound d + 1, the trivial protocol as the first
upper bound, splits of the rows then the columns, each through the subset holding the lowest
index, counted down).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from ccomplexity.lower_bounds import exact as ex
from tests.ccomplexity.formulas import clog2, gf2_rank, naive_d

# ------------------------------------------------------------------------------ helpers


Key = tuple[tuple[int, ...], tuple[int, ...]]


def search_nodes(matrix: np.ndarray) -> tuple[int, int]:
    """(D, nodes examined) by the search of exact_bits, written with index tuples."""
    # distinct rows, then distinct columns, each kept at its first occurrence; values 0..V-1
    rows_kept = [r for r in range(matrix.shape[0])
                 if all(list(matrix[r]) != list(matrix[s]) for s in range(r))]  # fmt: skip
    cols_kept = [c for c in range(matrix.shape[1])
                 if all(list(matrix[:, c]) != list(matrix[:, s]) for s in range(c))]  # fmt: skip
    sub = matrix[np.ix_(rows_kept, cols_kept)]
    values = sorted(set(sub.flatten().tolist()))
    m = [[values.index(x) for x in row] for row in sub.tolist()]
    lb: dict[Key, int] = {}
    ub: dict[Key, int] = {}
    nodes = 0

    def canonical(rows: tuple[int, ...], cols: tuple[int, ...]) -> Key:
        kr: list[int] = []
        for r in rows:
            if all([m[r][c] for c in cols] != [m[s][c] for c in cols] for s in kr):
                kr.append(r)
        kc: list[int] = []
        for c in cols:
            if all([m[r][c] for r in kr] != [m[r][s] for r in kr] for s in kc):
                kc.append(c)
        return tuple(kr), tuple(kc)

    def lower(key: Key) -> int:
        if key not in lb:
            rows, cols = key
            total = sum(
                gf2_rank([[int(m[r][c] == v) for c in cols] for r in rows])
                for v in range(len(values))
            )
            lb[key] = clog2(total)
        return lb[key]

    def trivial(key: Key) -> int:
        rows, cols = key
        vr = max(len({m[r][c] for c in cols}) for r in rows)
        vc = max(len({m[r][c] for r in rows}) for c in cols)
        return min(clog2(len(rows)) + clog2(vr), clog2(len(cols)) + clog2(vc))

    def splits(side: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Parts holding side[0], by the bitmask of the rest counted down (the whole first)."""
        rest = side[1:]
        subs = [s for k in range(len(rest) + 1) for s in itertools.combinations(rest, k)]
        subs.sort(key=lambda s: sum(1 << x for x in s), reverse=True)
        return [(side[0], *s) for s in subs]

    def feasible(key: Key, d: int) -> bool:
        nonlocal nodes
        rows, cols = key
        if len(rows) == 1 and len(cols) == 1:
            return True
        nodes += 1
        if d < lower(key):
            return False
        ub.setdefault(key, trivial(key))
        if d >= ub[key]:
            return True
        for alice, side in ((True, rows), (False, cols)):
            for part in splits(side):
                if len(part) == len(side):
                    continue
                other = tuple(x for x in side if x not in part)
                kids = [(part, cols), (other, cols)] if alice else [(rows, part), (rows, other)]
                if (
                    lower(kids[0]) < d
                    and lower(kids[1]) < d
                    and feasible(canonical(*kids[0]), d - 1)
                    and feasible(canonical(*kids[1]), d - 1)
                ):
                    ub[key] = d
                    return True
        lb[key] = d + 1
        return False

    root = canonical(tuple(range(len(m))), tuple(range(len(m[0]))))
    d = lower(root)
    while not feasible(root, d):
        d += 1
    return d, nodes


def depth_of(m: np.ndarray, res: ex.ExactResult) -> int:
    check = ex.check_protocol_tree(m, res.tree)
    assert check.valid, check.reason
    return check.depth


# ------------------------------------------------------------------------------ values

THREE_VALUED_6X5 = [
    # a depth that fails is memoised as the bound d + 1: here a submatrix reached again
    # at a depth below that bound must be refused, else D comes out 4
    [[1, 2, 2, 0, 2], [1, 0, 1, 1, 0], [1, 0, 2, 2, 1], [2, 1, 1, 0, 1], [2, 2, 2, 2, 2],
     [0, 1, 0, 2, 2]],
    # a split that succeeded is met again (its upper bound is the depth that worked)
    [[1, 2, 1, 2, 0], [2, 0, 0, 0, 1], [1, 2, 1, 1, 2], [0, 1, 0, 0, 2], [1, 1, 1, 0, 1],
     [1, 2, 2, 0, 2]],
]  # fmt: skip


@pytest.mark.parametrize("cells", THREE_VALUED_6X5)
def test_three_valued_6x5_against_the_recursion(cells: list[list[int]]) -> None:
    m = np.array(cells)
    res = ex.exact_bits(m)
    assert res.bits == naive_d(m)
    assert depth_of(m, res) == res.bits
    assert (res.bits, res.nodes) == search_nodes(m)


def test_first_matrix_values() -> None:
    m = np.array(THREE_VALUED_6X5[0])
    res = ex.exact_bits(m)
    assert (res.bits, res.lower_bound, res.nodes) == (5, 4, 31)
    m2 = np.array(THREE_VALUED_6X5[1])
    res2 = ex.exact_bits(m2)
    assert (res2.bits, res2.lower_bound, res2.nodes) == (4, 4, 18)


# ------------------------------------------------------------------- the trivial protocol


def test_trivial_counts_the_values_a_row_holds_and_ties_go_to_alice() -> None:
    """4 distinct rows each holding 2 of the 3 values: Alice first costs 2 + 1; the columns
    hold all 3 values: Bob first costs 1 + 2. A tie: Alice names her row, then Bob the value.
    The rank bound is 3 ([M = v] has rank 2 for each v), so that protocol is optimal."""
    m = np.array([[0, 1], [1, 2], [2, 0], [0, 2]])
    res = ex.exact_bits(m)
    assert (res.bits, res.lower_bound, res.nodes) == (3, 3, 1)
    assert res.tree["speaker"] == "alice"
    assert [k["rows"] for k in res.tree["children"]] == [[0, 1], [2, 3]]
    grand = [g for k in res.tree["children"] for g in k["children"]]
    assert [g["speaker"] for g in grand] == ["bob"] * 4
    assert [g["rows"] for g in grand] == [[0], [1], [2], [3]]
    assert depth_of(m, res) == 3


def test_trivial_alice_first_on_a_sparse_identity() -> None:
    """Rows 0 0 0 / 0 1 0 / 0 0 2: each row holds at most 2 values (Alice: 2 + 1 = 3), each
    column too (Bob: 2 + 1 = 3): Alice first; on {0, 1} she speaks again, row 0 is a leaf."""
    m = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 2]])
    res = ex.exact_bits(m)
    assert (res.bits, res.nodes) == (3, 1)
    tree = res.tree
    assert tree["speaker"] == "alice"
    assert [k["rows"] for k in tree["children"]] == [[0, 1], [2]]
    assert tree["children"][0]["children"][0] == {"output": 0, "rows": [0], "cols": [0, 1, 2]}
    assert tree["children"][1]["speaker"] == "bob"


def test_trivial_bob_first_when_strictly_cheaper() -> None:
    """Rows 010 / 000 / 111 (columns 0 and 2 equal): Alice first costs 2 + 1, Bob first
    1 + 1 (each column holds 2 values): Bob names his column, Alice then the value."""
    m = np.array([[0, 1, 0], [0, 0, 0], [1, 1, 1]])
    res = ex.exact_bits(m)
    assert (res.bits, res.lower_bound, res.nodes) == (2, 2, 1)
    assert res.tree["speaker"] == "bob"
    assert [k["cols"] for k in res.tree["children"]] == [[0, 2], [1]]
    assert [k["speaker"] for k in res.tree["children"]] == ["alice", "alice"]
    assert depth_of(m, res) == 2


def test_trivial_bob_counts_the_values_a_column_holds() -> None:
    """Column 0 holds {0, 1}, column 1 {0, 2}: Bob first costs 1 + 1 = 2, Alice first 2 + 1
    (her rows hold 2 values); the rank bound is 2 (ranks 2, 1, 1): Bob's protocol, no search."""
    m = np.array([[0, 0], [0, 2], [1, 0], [1, 2]])
    res = ex.exact_bits(m)
    assert (res.bits, res.lower_bound, res.nodes) == (2, 2, 1)
    assert res.tree["speaker"] == "bob"
    assert [k["cols"] for k in res.tree["children"]] == [[0], [1]]
    assert depth_of(m, res) == 2
    assert search_nodes(m) == (2, 1)


def test_trivial_halves_the_values_of_a_column() -> None:
    """Two columns of four values each, six distinct rows holding 2 values each: Bob first
    costs 1 + 2 = 3, Alice first 3 + 1 = 4. On one column Alice names one of 4 values in two
    bits (halving the values present, 2 + 2), so the tree is as deep as D = 3."""
    m = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]])
    res = ex.exact_bits(m)
    assert (res.bits, res.lower_bound, res.nodes) == (3, 3, 1)
    assert depth_of(m, res) == 3
    assert res.tree["speaker"] == "bob"
    first = res.tree["children"][0]
    assert first["cols"] == [0] and first["speaker"] == "alice"
    assert [k["rows"] for k in first["children"]] == [[0, 1, 4, 5], [2, 3]]
    second = res.tree["children"][1]
    assert [k["rows"] for k in second["children"]] == [[0, 3], [1, 2, 4, 5]]


# ------------------------------------------------------------------------------ nodes

NODE_CASES: list[Any] = [
    # only the memo of failed depths (lb = d + 1) keeps these counts down
    [[0, 1, 2, 0, 0], [0, 0, 3, 3, 2], [0, 3, 2, 2, 0], [1, 2, 0, 2, 2], [0, 0, 3, 0, 0]],
    [[3, 1, 2], [2, 0, 1], [2, 3, 2]],
    [[0, 1, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 1], [0, 0, 1, 1, 0], [0, 1, 1, 1, 1]],
]


@pytest.mark.parametrize("cells", NODE_CASES)
def test_nodes_against_the_search_written_out(cells: list[list[int]]) -> None:
    m = np.array(cells)
    res = ex.exact_bits(m)
    assert (res.bits, res.nodes) == search_nodes(m)
    assert depth_of(m, res) == res.bits


def test_nodes_of_random_matrices_against_the_search_written_out() -> None:
    rng = np.random.default_rng(7)
    for trial in range(24):
        shape = ((4, 4), (4, 5), (5, 4), (5, 5))[trial % 4]
        m = rng.integers(0, 2 + trial % 3, size=shape)
        res = ex.exact_bits(m)
        assert (res.bits, res.nodes) == search_nodes(m), m.tolist()


def test_first_node_case_pinned() -> None:
    m = np.array(NODE_CASES[0])
    res = ex.exact_bits(m)
    assert (res.bits, res.lower_bound, res.nodes) == (4, 4, 16)
