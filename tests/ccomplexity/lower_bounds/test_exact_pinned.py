"""Pinned values of the exact two-way complexity (ccomplexity.lower_bounds.exact): D(M) of every
0/1 matrix of 2 x 4 and 3 x 3 cells against the recursion over all splits written here, the
rank bound against a GF(2) elimination written here, hand-read protocol trees, every refusal
of the protocol-tree checker, and the limits (entries, distinct rows and columns, budget) at,
below and above."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import exact as ex
from tests.ccomplexity.formulas import gf2_rank, naive_d

# ------------------------------------------------------------------------------ helpers


def rank_bound(m: np.ndarray) -> int:
    total = sum(gf2_rank((m == v).astype(int).tolist()) for v in np.unique(m))
    return (total - 1).bit_length() if total > 1 else 0


def assert_optimal(m: np.ndarray, res: ex.ExactResult) -> None:
    assert res.bits == naive_d(m), m
    assert ex.check_protocol_tree(m, res.tree) == ex.ProtocolCheck(True, res.bits, None)
    assert res.lower_bound == rank_bound(m) <= res.bits
    assert res.distinct_rows == len({tuple(r) for r in m.tolist()})
    assert res.distinct_cols == len({tuple(c) for c in m.T.tolist()})


# ------------------------------------------------------------------------------ values


@pytest.mark.parametrize("shape", [(2, 4), (3, 3), (4, 2)])
def test_every_binary_matrix_against_the_recursion(shape: tuple[int, int]) -> None:
    for bits in itertools.product((0, 1), repeat=shape[0] * shape[1]):
        m = np.array(bits, dtype=np.int64).reshape(shape)
        assert_optimal(m, ex.exact_bits(m))


def test_random_three_valued_and_larger_matrices_against_the_recursion() -> None:
    rng = np.random.default_rng(21)
    for trial in range(40):
        shape = ((3, 4), (4, 3), (4, 4), (5, 3))[trial % 4]
        m = rng.integers(0, 3 if trial % 2 else 2, size=shape) * 7 - 3  # values -3, 4, 11
        assert_optimal(m, ex.exact_bits(m))


def test_matrices_where_the_rank_bound_is_not_tight() -> None:
    hard = np.array(
        [[0, 1, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 1], [0, 0, 1, 1, 0], [0, 1, 1, 1, 1]]
    )
    res = ex.exact_bits(hard)
    assert (res.bits, res.lower_bound, res.distinct_rows, res.distinct_cols) == (4, 3, 5, 5)
    assert_optimal(hard, res)
    # Duplicated rows and columns: the same D, the tree over the original indices.
    big = hard[[0, 1, 1, 2, 3, 4, 0]][:, [4, 0, 1, 2, 3, 3]]
    res2 = ex.exact_bits(big)
    assert (res2.bits, res2.distinct_rows, res2.distinct_cols) == (4, 5, 5)
    assert ex.check_protocol_tree(big, res2.tree) == ex.ProtocolCheck(True, 4, None)


def test_problem_input_and_equality() -> None:
    res = ex.exact_bits(P.equality(2))
    assert (res.bits, res.lower_bound, res.distinct_rows) == (3, 3, 4)
    assert ex.exact_bits(np.eye(16, dtype=np.int64)).bits == 5  # 16 distinct rows: allowed


def test_constant_and_single_cell() -> None:
    for m in (np.full((3, 2), -4), np.array([[9]])):
        res = ex.exact_bits(m)
        assert (res.bits, res.lower_bound, res.nodes) == (0, 0, 0)
        assert res.tree == {
            "output": int(m.flat[0]),
            "rows": list(range(m.shape[0])),
            "cols": list(range(m.shape[1])),
        }


# ------------------------------------------------------------------------- trees by hand


def test_trivial_tree_alice_first_keeps_the_original_values() -> None:
    """Alice names her row (1 bit); on row 0 Bob names the value (1 bit), row 1 is all 9."""
    res = ex.exact_bits(np.array([[5, 9], [9, 9]]))
    assert (res.bits, res.lower_bound, res.nodes) == (2, 2, 1)
    assert res.tree == {
        "speaker": "alice",
        "rows": [0, 1],
        "cols": [0, 1],
        "children": [
            {
                "speaker": "bob",
                "rows": [0],
                "cols": [0, 1],
                "children": [
                    {"output": 5, "rows": [0], "cols": [0]},
                    {"output": 9, "rows": [0], "cols": [1]},
                ],
            },
            {"output": 9, "rows": [1], "cols": [0, 1]},
        ],
    }


def test_trivial_tree_bob_first_when_he_is_cheaper() -> None:
    """Four distinct rows over two columns: Alice first costs 2 + 1, Bob first 1 + 1."""
    res = ex.exact_bits(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]))
    assert res.bits == 2
    assert res.tree == {
        "speaker": "bob",
        "rows": [0, 1, 2, 3],
        "cols": [0, 1],
        "children": [
            {
                "speaker": "alice",
                "rows": [0, 1, 2, 3],
                "cols": [0],
                "children": [
                    {"output": 0, "rows": [0, 1], "cols": [0]},
                    {"output": 1, "rows": [2, 3], "cols": [0]},
                ],
            },
            {
                "speaker": "alice",
                "rows": [0, 1, 2, 3],
                "cols": [1],
                "children": [
                    {"output": 0, "rows": [0, 2], "cols": [1]},
                    {"output": 1, "rows": [1, 3], "cols": [1]},
                ],
            },
        ],
    }


def test_trivial_tree_names_three_values_in_two_bits() -> None:
    """One row, three values: Bob's two bits split the values 2 + 1, then 1 + 1."""
    m = np.array([[0, 1, 2, 0]])
    res = ex.exact_bits(m)
    assert res.bits == 2
    assert ex.check_protocol_tree(m, res.tree) == ex.ProtocolCheck(True, 2, None)
    first = res.tree["children"]
    assert res.tree["speaker"] == "bob"
    assert [k["cols"] for k in first] == [[0, 1, 3], [2]]
    assert first[1] == {"output": 2, "rows": [0], "cols": [2]}
    assert [k["output"] for k in first[0]["children"]] == [0, 1]


def test_equality_tree_halves_alices_rows() -> None:
    res = ex.exact_bits(np.eye(4, dtype=np.int64))
    assert (res.bits, res.lower_bound, res.nodes) == (3, 3, 1)
    tree = res.tree
    assert tree["speaker"] == "alice"
    assert [k["rows"] for k in tree["children"]] == [[0, 1], [2, 3]]
    leaf_cols = [g["cols"] for k in tree["children"] for c in k["children"] for g in c["children"]]
    assert leaf_cols == [[1, 2, 3], [0], [0, 2, 3], [1], [0, 1, 3], [2], [0, 1, 2], [3]]


# ------------------------------------------------------------------------------ limits


def test_entry_limit_for_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        InputError,
        match=r"^exact protocol-tree search materialises the matrix to merge equal rows: limited "
        r"to 1048576 entries, got 131072 x 17; use rank_mod_p or a fooling set for a lower "
        r"bound$",
    ):
        ex.exact_bits(P.index(17))  # 2^17 x 17 entries, refused before the matrix is built
    monkeypatch.setattr(ex, "EXACT_ENTRY_LIMIT", 16)
    assert ex.exact_bits(P.equality(2)).bits == 3  # 4 x 4 = 16 entries: at the limit
    assert ex.exact_bits(P.equality(2).matrix()).bits == 3  # a matrix is not limited
    monkeypatch.setattr(ex, "EXACT_ENTRY_LIMIT", 15)
    with pytest.raises(InputError, match=r"limited to 15 entries, got 4 x 4; use rank_mod_p"):
        ex.exact_bits(P.equality(2))
    assert ex.exact_bits(P.equality(2).matrix()).bits == 3


def test_distinct_row_and_column_limits() -> None:
    with pytest.raises(InputError, match=r"limited to 16 distinct rows and columns, got 17 x 17;"):
        ex.exact_bits(np.eye(17, dtype=np.int64))
    wide = np.array([[0, 1, 2, 3], [0, 0, 0, 0]])
    with pytest.raises(InputError, match=r"limited to 3 distinct rows and columns, got 2 x 4;"):
        ex.exact_bits(wide, limit=3)
    with pytest.raises(InputError, match=r"limited to 3 distinct rows and columns, got 4 x 2;"):
        ex.exact_bits(wide.T, limit=3)
    assert ex.exact_bits(wide, limit=4).bits == naive_d(wide) == 3
    assert ex.exact_bits(wide[:, :3], limit=3).bits == 3
    # Duplicates do not count: 6 rows, 2 distinct.
    assert ex.exact_bits(np.array([[0, 1]] * 3 + [[1, 1]] * 3), limit=2).bits == 2


def test_budget_at_below_and_in_the_message() -> None:
    hard = np.array(
        [[0, 1, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 1], [0, 0, 1, 1, 0], [0, 1, 1, 1, 1]]
    )
    assert ex.exact_bits(hard, budget=32).bits == 4  # 32 splits suffice
    with pytest.raises(
        InputError,
        match=r"^exact protocol-tree search hit its budget of 31 splits with 3 <= D <= 4; raise "
        r"budget or shrink M$",
    ):
        ex.exact_bits(hard, budget=31)
    with pytest.raises(InputError, match=r"budget of 1 splits with 3 <= D <= 4;"):
        ex.exact_bits(hard, budget=1)
    assert ex.EXACT_BUDGET == 5_000_000


# ------------------------------------------------------------------------ the tree check


def eq2() -> tuple[np.ndarray, dict]:
    m = np.eye(2, dtype=np.int64)
    tree = {
        "speaker": "alice",
        "rows": [0, 1],
        "cols": [0, 1],
        "children": [
            {
                "speaker": "bob",
                "rows": [0],
                "cols": [0, 1],
                "children": [
                    {"output": 1, "rows": [0], "cols": [0]},
                    {"output": 0, "rows": [0], "cols": [1]},
                ],
            },
            {
                "speaker": "bob",
                "rows": [1],
                "cols": [0, 1],
                "children": [
                    {"output": 0, "rows": [1], "cols": [0]},
                    {"output": 1, "rows": [1], "cols": [1]},
                ],
            },
        ],
    }
    return m, tree


def test_check_accepts_a_valid_tree_and_reports_its_depth() -> None:
    m, tree = eq2()
    assert ex.check_protocol_tree(m, tree) == ex.ProtocolCheck(True, 2, None)
    # Unbalanced: the left subtree a leaf, the right of depth 2: the depth is the maximum.
    m2 = np.array([[0, 0], [1, 0]])
    lopsided = {
        "speaker": "alice",
        "rows": [0, 1],
        "cols": [0, 1],
        "children": [
            {"output": 0, "rows": [0], "cols": [0, 1]},
            {
                "speaker": "bob",
                "rows": [1],
                "cols": [0, 1],
                "children": [
                    {"output": 1, "rows": [1], "cols": [0]},
                    {"output": 0, "rows": [1], "cols": [1]},
                ],
            },
        ],
    }
    assert ex.check_protocol_tree(m2, lopsided) == ex.ProtocolCheck(True, 2, None)
    flipped = {**lopsided, "children": lopsided["children"][::-1]}
    assert ex.check_protocol_tree(m2, flipped) == ex.ProtocolCheck(True, 2, None)
    assert ex.check_protocol_tree(
        np.zeros((2, 3), dtype=int), {"output": 0, "rows": [0, 1], "cols": [0, 1, 2]}
    ) == ex.ProtocolCheck(True, 0, None)


def bad(m: np.ndarray, tree: object) -> str:
    check = ex.check_protocol_tree(m, tree)  # type: ignore[arg-type]
    assert not check.valid and check.depth == 0
    return check.reason or ""


def test_check_refusals_name_the_fault() -> None:
    m, tree = eq2()
    assert bad(m, [1, 2]) == "node at depth 0 is not an object"
    t = eq2()[1]
    t["children"][1] = "leaf"
    assert bad(m, t) == "alice's split at depth 0 is not a partition"
    t = eq2()[1]
    t["children"][1]["children"][0] = 7
    assert bad(m, t) == "bob's split at depth 1 is not a partition"
    t = eq2()[1]
    t["rows"] = [0]
    assert bad(m, t) == "node at depth 0 does not cover the rectangle it should"
    t = eq2()[1]
    t["children"][0]["children"][1]["cols"] = [1, 0]
    assert bad(m, t) == "bob's split at depth 1 is not a partition"
    t = eq2()[1]
    t["children"][0]["children"][1]["output"] = 1
    assert bad(m, t) == "leaf at depth 2 is not monochromatic 1"
    t = eq2()[1]
    t["children"][1]["speaker"] = "carol"
    assert bad(m, t) == "node at depth 1 needs a speaker and two children"
    t = eq2()[1]
    t["children"][1]["children"] = t["children"][1]["children"][:1]
    assert bad(m, t) == "node at depth 1 needs a speaker and two children"
    t = eq2()[1]
    t["children"][1]["children"] = tuple(t["children"][1]["children"])
    assert bad(m, t) == "node at depth 1 needs a speaker and two children"
    t = eq2()[1]
    del t["speaker"]
    assert bad(m, t) == "node at depth 0 needs a speaker and two children"
    t = eq2()[1]
    t["children"][0]["rows"] = [0, 1]  # overlapping parts
    assert bad(m, t) == "alice's split at depth 0 is not a partition"
    t = eq2()[1]
    t["children"][0]["children"][0]["cols"] = [0, 1]  # overlapping, union right
    assert bad(m, t) == "bob's split at depth 1 is not a partition"
    t = eq2()[1]
    t["children"][0]["children"][1]["cols"] = []  # disjoint, union short
    assert bad(m, t) == "bob's split at depth 1 is not a partition"
    t = eq2()[1]
    t["children"][1]["rows"] = []  # disjoint, union short
    assert bad(m, t) == "alice's split at depth 0 is not a partition"
    t = eq2()[1]
    del t["children"][1]["children"][1]["cols"]
    assert bad(m, t) == "bob's split at depth 1 is not a partition"
    leaf = {"output": 0, "rows": [0, 1], "cols": [0, 1]}
    assert bad(m, leaf) == "leaf at depth 0 is not monochromatic 0"
    assert bad(m, {"output": 0, "cols": [0, 1]}) == (
        "node at depth 0 does not cover the rectangle it should"
    )
    assert bad(m, {"output": 0, "rows": [0, 1]}) == (
        "node at depth 0 does not cover the rectangle it should"
    )


def test_check_refuses_a_tree_for_another_matrix() -> None:
    m, tree = eq2()
    assert "monochromatic" in bad(1 - m, tree)
    assert "cover" in bad(np.eye(3, dtype=np.int64), tree)


# --------------------------------------------------------------------------- internals


def test_gf2_rank_against_elimination() -> None:
    rng = np.random.default_rng(4)
    for _ in range(100):
        n, w = int(rng.integers(0, 6)), int(rng.integers(1, 7))
        rows = rng.integers(0, 2, size=(n, w)).tolist()
        vectors = [sum(b << i for i, b in enumerate(r)) for r in rows]
        assert ex._gf2_rank(vectors) == (gf2_rank(rows) if n else 0)
    assert ex._gf2_rank([0b11, 0b01, 0b10]) == 2
    assert ex._gf2_rank([0b100, 0b110, 0b011, 0b001]) == 3
    assert ex._gf2_rank([0, 0]) == 0


def test_bits_of_and_first_of_each() -> None:
    assert ex._bits_of(0) == []
    assert ex._bits_of(0b101101) == [0, 2, 3, 5]
    assert ex._bits_of(1 << 70) == [70]
    packs = [0b01, 0b11, 0b01, 0b10, 0b11]
    assert ex._first_of_each(0b11111, packs, 0b11) == 0b01011  # patterns 1, 3, 2 first at 0, 1, 3
    assert ex._first_of_each(0b11111, packs, 0b01) == 0b01001  # bit 0: row 3 differs
    assert ex._first_of_each(0b11110, packs, 0b01) == 0b01010
    assert ex._first_of_each(0, packs, 0b11) == 0


def test_empty_matrix_messages_name_the_function() -> None:
    empty = np.zeros((0, 3), dtype=int)
    with pytest.raises(InputError, match=r"^exact_bits needs a non-empty 2-D matrix"):
        ex.exact_bits(empty)
    with pytest.raises(InputError, match=r"^check_protocol_tree needs a non-empty 2-D matrix"):
        ex.check_protocol_tree(empty, {"output": 0, "rows": [], "cols": [0, 1, 2]})


def test_an_invalid_tree_is_false_not_none() -> None:
    check = ex.check_protocol_tree(
        np.eye(2, dtype=int), {"output": 1, "rows": [0, 1], "cols": [0, 1]}
    )
    assert check.valid is False and check.depth == 0
    assert check.reason == "leaf at depth 0 is not monochromatic 1"


def test_a_child_without_rows_is_invalid_not_an_error() -> None:
    tree = {"speaker": "alice", "rows": [0, 1], "cols": [0, 1], "children": [{}, {"rows": [0]}]}
    check = ex.check_protocol_tree(np.eye(2, dtype=int), tree)
    assert check.valid is False and check.reason == "alice's split at depth 0 is not a partition"


def test_a_search_past_the_rank_bound_counts_its_nodes() -> None:
    # rank bound 3, D = 4: the search at d = 3 fails and d = 4 holds (examined submatrices: 2)
    m = np.array(
        [[1, 0, 0, 1, 1], [1, 0, 1, 1, 1], [1, 1, 1, 0, 1], [0, 1, 1, 1, 1], [0, 0, 0, 0, 1]]
    )
    got = ex.exact_bits(m)
    assert (got.bits, got.lower_bound, got.nodes) == (4, 3, 2)
    assert ex.check_protocol_tree(m, got.tree) == ex.ProtocolCheck(True, 4, None)
