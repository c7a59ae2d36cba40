"""Exact lower bounds: known values, brute-force cross-checks, tampered witnesses that must fail."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccomplexity import lower_bounds as lb
from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import is_dyck
from ccomplexity.lower_bounds.matrix import dyck_count
from tests.ccomplexity.formulas import naive_d

# ------------------------------------------------------------------------------ helpers


def anonymous(problem: P.TwoPartyProblem) -> P.TwoPartyProblem:
    """The same function under an unknown name: no closed-form cell count, so the verifier has to
    fall back to the pairwise check (or the dense count) instead of the count argument."""
    return dataclasses.replace(problem, name="anonymous")


def brute_members(types: int, depth: int, length: int) -> np.ndarray:
    """Every word of [2n]^N filtered by the stack oracle (no DFA involved)."""
    words = P.digits(np.arange((2 * types) ** length), 2 * types, length)
    return words[is_dyck(words, types, depth)]


def det_int(m: np.ndarray) -> int:
    """Exact integer determinant by Laplace expansion (tiny matrices)."""
    n = len(m)
    if n == 1:
        return int(m[0, 0])
    return sum(
        (-1) ** j * int(m[0, j]) * det_int(np.delete(m[1:], j, axis=1)) for j in range(n) if m[0, j]
    )


# ------------------------------------------------------------------------ Dyck, exhaustive


@pytest.mark.parametrize("length", range(2, 17, 2))
def test_dyck_2_2_fooling_set_has_2_to_n_minus_1_pairs(length):
    prob = P.dyck(2, 2, length, "odd-even")
    found = lb.dyck_fooling_set(prob)
    assert found.size == 2 ** (length - 1) and found.value == 1
    assert found.bits == length - 1
    assert found.check == lb.FoolingCheck(True, 2 ** (length - 1), None, "count")
    again = lb.verify_fooling_set(prob, found.rows, found.cols, found.value)
    assert again.valid and again.size == found.size


@pytest.mark.parametrize("length", [2, 4, 6, 8, 10])
def test_dyck_count_argument_agrees_with_pairwise_check(length):
    prob = P.dyck(2, 2, length, "odd-even")
    found = lb.dyck_fooling_set(prob)
    check = lb.verify_fooling_set(anonymous(prob), found.rows, found.cols, 1)
    assert check.valid and check.method == "pairwise"


@pytest.mark.parametrize(
    ("types", "depth", "length"), [(2, 2, 8), (2, 3, 8), (1, 3, 10), (3, 2, 6)]
)
def test_enumeration_is_every_member(types, depth, length):
    prob = P.dyck(types, depth, length, "odd-even")
    found = lb.dyck_fooling_set(prob)
    words = brute_members(types, depth, length)
    base = 2 * types
    assert np.array_equal(np.sort(found.rows), np.sort(P.undigits(words[:, 0::2], base)))
    assert len(found.rows) == len(words)
    pairs = set(zip(found.rows.tolist(), found.cols.tolist(), strict=True))
    xs, ys = P.undigits(words[:, 0::2], base), P.undigits(words[:, 1::2], base)
    assert pairs == set(zip(xs.tolist(), ys.tolist(), strict=True))


def test_dyck_exhaustive_limit_names_the_symbolic_certificate():
    with pytest.raises(InputError, match="limited to length 20.*symbolic"):
        lb.dyck_fooling_set(P.dyck(2, 2, 22, "odd-even"))
    with pytest.raises(InputError, match="exhaustive limit"):
        lb.dyck_fooling_set(P.dyck(4, 4, 14, "odd-even"))


def test_dyck_under_prefix_partition_is_not_a_fooling_set():
    prob = P.dyck(2, 2, 8, "prefix:4")
    found = lb.dyck_fooling_set(prob)
    assert not found.check.valid
    assert "share row" in found.check.reason
    assert not lb.dyck_fooling_symbolic(2, 2, 8, "prefix:4")["x_determines_y"]
    # Distinct rows and columns are not enough: "()" + "()" and "[]" + "[]" under prefix:2 cross
    # to "()[]" and "[]()", both members, so the pairwise check must catch it.
    small = P.dyck(2, 2, 4, "prefix:2")
    x = P.undigits(np.array([[0, 1], [2, 3]]), 4)
    check = lb.verify_fooling_set(small, x, x, 1)
    assert not check.valid and check.method == "pairwise"
    assert check.reason.startswith("pairs 0 and 1")


# ------------------------------------------------------------------------- tampered sets


@pytest.fixture(scope="module")
def dyck8():
    prob = P.dyck(2, 2, 8, "odd-even")
    return prob, lb.dyck_fooling_set(prob)


@pytest.mark.parametrize("anon", [False, True])
def test_tampered_pair_is_rejected(dyck8, anon):
    prob, found = dyck8
    prob = anonymous(prob) if anon else prob
    cols = found.cols.copy()
    cols[5] = found.cols[6]  # a member's x with another member's y: not a member
    check = lb.verify_fooling_set(prob, found.rows, cols, 1)
    assert not check.valid and check.reason.startswith("pair 5 ")


def test_duplicated_pair_is_rejected(dyck8):
    prob, found = dyck8
    rows = np.append(found.rows, found.rows[3])
    cols = np.append(found.cols, found.cols[3])
    check = lb.verify_fooling_set(prob, rows, cols, 1)
    assert not check.valid and "same cell" in check.reason and "pairs 3 and 128" in check.reason


def test_wrong_value_is_rejected(dyck8):
    prob, found = dyck8
    check = lb.verify_fooling_set(prob, found.rows, found.cols, 0)
    assert not check.valid and "not the value 0" in check.reason


def test_shared_column_is_rejected(dyck8):
    prob, found = dyck8
    # Keep only members whose y is shared with another member's: Dyck-(2,3) has some.
    prob3 = P.dyck(2, 3, 8, "odd-even")
    full = lb.dyck_fooling_set(prob3)
    check = lb.verify_fooling_set(prob3, full.rows, full.cols, 1)
    assert not check.valid and "share" in check.reason
    i, j = (int(t) for t in check.reason.split()[1:4:2])
    assert full.rows[i] == full.rows[j] or full.cols[i] == full.cols[j]


def test_understated_value_count_is_an_input_error(dyck8):
    prob, found = dyck8
    with pytest.raises(InputError, match="must be exact"):
        lb.verify_fooling_set(prob, found.rows, found.cols, 1, value_count=100)


def test_verify_input_errors():
    prob = P.equality(2)
    with pytest.raises(InputError, match="same length"):
        lb.verify_fooling_set(prob, np.arange(3), np.arange(2), 1)
    with pytest.raises(InputError, match=r"0\.\.3"):
        lb.verify_fooling_set(prob, np.array([4]), np.array([0]), 1)
    empty = lb.verify_fooling_set(prob, np.array([], dtype=int), np.array([], dtype=int), 1)
    assert not empty.valid


def test_sets_given_as_words_are_checked_as_words(dyck8):
    """verify_fooling_words agrees with the index check on Lemma 1's set, and finds each kind of
    violation: a wrong value, a shared half, two crossing pairs."""
    prob, found = dyck8
    x, y = prob.alice_inputs(found.rows), prob.bob_inputs(found.cols)
    check = lb.verify_fooling_words(prob, x, y, 1)
    assert check.valid and check.size == 128 and check.method == "pairwise"
    assert "not the value 0" in lb.verify_fooling_words(prob, x, y, 0).reason
    shared = lb.verify_fooling_words(
        prob, np.concatenate([x, x[:1]]), np.concatenate([y, y[1:2]]), 1
    )
    assert not shared.valid
    eq = P.equality(2)  # (x, x) and (x', x'): the diagonal; add a 0-cell pair to cross nothing
    diag = np.array([[0, 0], [0, 1], [1, 1]])
    assert lb.verify_fooling_words(eq, diag, diag, 1).valid
    neq = P.disjointness(2)  # value 1 (intersecting): (11, 11) and (11, 10) share x
    crossing = lb.verify_fooling_words(
        neq, np.array([[1, 1], [0, 1]]), np.array([[1, 1], [1, 1]]), 1
    )
    assert not crossing.valid and "share their y" in crossing.reason
    cells = lb.verify_fooling_words(neq, np.array([[1, 0], [1, 1]]), np.array([[1, 1], [1, 0]]), 1)
    assert not cells.valid and cells.reason.startswith("pairs 0 and 1 violate")


# ---------------------------------------------------------------------- Dyck, symbolic


def test_symbolic_1000_is_2_to_999():
    out = lb.dyck_fooling_symbolic(2, 2, 1000)
    assert out["count"] == 2**999 and out["size"] == 2**999
    assert out["x_determines_y"] and out["y_determines_x"] and out["verified"]
    assert out["bits"] == 999 and out["value"] == 1


@pytest.mark.parametrize(
    ("types", "depth"), [(2, 2), (1, 1), (1, 2), (1, 3), (2, 1), (2, 3), (3, 2)]
)
def test_symbolic_agrees_with_exhaustive(types, depth):
    for length in range(2, 15, 2):
        if dyck_count(types, depth, length) > 1 << 14:
            break
        prob = P.dyck(types, depth, length, "odd-even")
        found = lb.dyck_fooling_set(prob)
        sym = lb.dyck_fooling_symbolic(types, depth, length)
        assert sym["count"] == found.size
        assert sym["x_determines_y"] == (len(np.unique(found.rows)) == found.size)
        assert sym["y_determines_x"] == (len(np.unique(found.cols)) == found.size)
        assert sym["verified"] == found.check.valid


@pytest.mark.parametrize(("types", "depth"), [(2, 3), (1, 3)])
def test_uniqueness_fails_beyond_depth_2(types, depth):
    """At depth 3 an odd position can see depth 2 (open or close both possible): Lemma 1's
    reconstruction breaks, and brute force over all words confirms it."""
    length = 8
    sym = lb.dyck_fooling_symbolic(types, depth, length)
    assert not sym["x_determines_y"] and not sym["y_determines_x"] and not sym["verified"]
    words = brute_members(types, depth, length)
    for key, alice in (("x_counterexample", True), ("y_counterexample", False)):
        w1, w2 = (np.array(w) for w in sym[key])
        assert is_dyck(np.stack([w1, w2]), types, depth).all() and not np.array_equal(w1, w2)
        same = slice(0, None, 2) if alice else slice(1, None, 2)
        assert np.array_equal(w1[same], w2[same])
        halves = words[:, same]
        assert len(np.unique(halves, axis=0)) < len(words)  # brute force: not unique either
    assert not lb.dyck_fooling_set(P.dyck(types, depth, length, "odd-even")).check.valid


@pytest.mark.parametrize(("types", "depth"), [(1, 1), (1, 3), (2, 2), (2, 3), (3, 2), (1, 5)])
def test_odd_even_matrix_powers_agree_with_the_position_scan(types, depth):
    from ccomplexity.automata import dyck_dfa
    from ccomplexity.lower_bounds.fooling import (
        _half_determines_other,
        _halves_determined_periodic,
    )
    from ccomplexity.lower_bounds.matrix import live_dfa

    table, start, accepting = live_dfa(dyck_dfa(types, depth))
    for length in (2, 4, 6, 8, 10, 16, 30):
        alice = np.zeros(length, dtype=bool)
        alice[0::2] = True
        for alice_fixed in (True, False):
            scan = _half_determines_other(table, start, accepting, alice if alice_fixed else ~alice)
            power = _halves_determined_periodic(table, start, accepting, length, alice_fixed)
            assert power == scan[0], (length, alice_fixed)


def test_counts_by_matrix_powers_match_the_step_by_step_dp():
    from ccomplexity.automata import dyck_dfa
    from ccomplexity.languages.dyck import count_dyck
    from ccomplexity.lower_bounds.matrix import dfa_count

    prime = (1 << 61) - 1
    for types, depth in [(1, 1), (2, 2), (3, 4), (2, 0)]:
        dfa = dyck_dfa(types, depth)
        for length in (0, 1, 2, 7, 50, 400, 2000):  # the short ones by steps, the long by powers
            exact = count_dyck(types, depth, length)
            assert dyck_count(types, depth, length) == exact == dfa_count(dfa, length)
            assert dfa_count(dfa, length, prime) == exact % prime


def test_a_failing_half_beyond_the_scan_has_no_counterexample():
    out = lb.dyck_fooling_symbolic(2, 3, 200_000)  # 2 x 15^2 x (N + 1) cells: beyond the scan
    assert not out["x_determines_y"] and not out["y_determines_x"] and not out["verified"]
    assert out["x_counterexample"] is None and out["y_counterexample"] is None


def test_symbolic_input_errors():
    with pytest.raises(InputError, match="even"):
        lb.dyck_fooling_symbolic(2, 2, 11)
    with pytest.raises(InputError, match="limit of 1048576"):
        lb.dyck_fooling_symbolic(2, 2, 10**7)
    with pytest.raises(InputError, match="steps; the limit"):
        lb.dyck_fooling_symbolic(1, 40, 10**6)
    with pytest.raises(InputError, match="product cells"):  # the scan of other partitions
        lb.dyck_fooling_symbolic(2, 2, 400_000, "prefix:2")
    with pytest.raises(InputError, match="types"):
        lb.dyck_fooling_symbolic(0, 2, 10)


def test_symbolic_depth_zero_has_no_members():
    out = lb.dyck_fooling_symbolic(2, 0, 4)
    assert out["count"] == 0 and not out["verified"]


# ------------------------------------------------------------------------- EQ and DISJ


@pytest.mark.parametrize(("half", "alphabet"), [(1, 2), (3, 2), (6, 2), (3, 3), (2, 5)])
def test_equality_diagonal_is_a_fooling_set(half, alphabet):
    prob = P.equality(half, alphabet)
    found = lb.equality_fooling_set(prob)
    assert found.size == alphabet**half and found.value == 1
    assert found.bits == math.ceil(half * math.log2(alphabet) - 1e-9)
    assert lb.verify_fooling_set(prob, found.rows, found.cols, 1).valid
    assert lb.verify_fooling_set(anonymous(prob), found.rows, found.cols, 1).valid


def test_equality_under_odd_even_is_still_the_diagonal():
    prob = P.equality(3, 2, "odd-even")
    found = lb.equality_fooling_set(prob)
    assert lb.verify_fooling_set(anonymous(prob), found.rows, found.cols, 1).valid


@pytest.mark.parametrize("half", [1, 2, 5, 8])
def test_disjointness_complements_are_a_fooling_set(half):
    prob = P.disjointness(half)
    found = lb.disjointness_fooling_set(prob)
    assert found.size == 2**half and found.value == 0 and found.bits == half
    check = lb.verify_fooling_set(prob, found.rows, found.cols, 0)
    assert check.valid and check.method == "pairwise"
    if half >= 2:
        # Drop x = 3 (binary ..011) and give x = 0 its column, not 3: every value stays 0 and
        # rows and columns stay distinct, but x = 1 is disjoint from not 3 as well.
        rows, cols = np.delete(found.rows, 3), np.delete(found.cols, 3)
        cols[0] = found.cols[3]
        bad = lb.verify_fooling_set(prob, rows, cols, 0)
        assert not bad.valid and bad.method == "pairwise"
        assert bad.reason.startswith("pairs 0 and 1 ")


def test_constructors_reject_other_problems():
    with pytest.raises(InputError, match="equality"):
        lb.equality_fooling_set(P.disjointness(2))
    with pytest.raises(InputError, match="disjointness"):
        lb.disjointness_fooling_set(P.equality(2))
    with pytest.raises(InputError, match="dyck"):
        lb.dyck_fooling_set(P.equality(2))


# ---------------------------------------------------------------------------------- rank


def test_rank_eq3_is_8_with_a_nonsingular_witness():
    res = lb.rank_mod_p(P.equality(3).matrix())
    assert (res.rank, res.prime, res.bits) == (8, 2_147_483_647, 3)
    assert res.rows == tuple(range(8)) and res.cols == tuple(range(8))


def test_rank_matches_float_rank_and_witness_is_nonsingular():
    rng = np.random.default_rng(7)
    for _ in range(80):
        m = (rng.random(tuple(rng.integers(1, 8, size=2))) < rng.random()).astype(np.int64)
        res = lb.rank_mod_p(m)
        assert res.rank == np.linalg.matrix_rank(m.astype(float))
        if res.rank:
            assert det_int(m[np.ix_(res.rows, res.cols)]) % res.prime != 0


def test_rank_of_hand_made_matrices():
    singular = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert lb.rank_mod_p(singular).rank == 2
    cycle = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]])  # det 2: singular mod 2 only
    assert lb.rank_mod_p(cycle).rank == 3 and lb.rank_mod_p(cycle, 2).rank == 2
    assert lb.rank_mod_p(np.array([[-1, 1], [1, -1]])).rank == 1
    assert lb.rank_mod_p(np.zeros((3, 4), dtype=int)).rank == 0
    assert lb.rank_mod_p(np.array([[5, 0], [0, 7]]), 5).rank == 1


def test_rank_input_errors():
    with pytest.raises(InputError, match="prime"):
        lb.rank_mod_p(np.eye(2, dtype=int), 4)
    with pytest.raises(InputError, match="prime"):
        lb.rank_mod_p(np.eye(2, dtype=int), 2_147_483_659)
    with pytest.raises(InputError, match="integer"):
        lb.rank_mod_p(np.eye(2))


# ------------------------------------------------------------------------------- one-way


def test_one_way_index10_is_10_bits():
    prob = P.index(10)
    res = lb.one_way_bits(prob)
    assert (res.distinct_rows, res.bits, res.method) == (1024, 10, "dense")
    assert len(res.rows) == 1024 and len(res.cols) == 10
    assert lb.check_one_way_witness(prob, res.rows, res.cols)
    assert not lb.check_one_way_witness(prob, res.rows, res.cols[:-1])


def test_one_way_witness_of_one_column_per_row():
    """A permutation matrix: each column tells exactly one row apart, so the witness needs
    k - 1 of them (the kg split's answer columns at R = 1 are such a matrix)."""
    k = 512
    m = np.eye(k, dtype=np.int64)[np.random.default_rng(0).permutation(k)]
    res = lb.one_way_bits(m)
    assert (res.distinct_rows, res.bits) == (k, 9)
    assert len(res.cols) == k - 1
    assert lb.check_one_way_witness(m, res.rows, res.cols)


@given(
    st.integers(1, 12).flatmap(
        lambda rows: st.lists(
            st.lists(st.integers(0, 2), min_size=5, max_size=5), min_size=rows, max_size=rows
        )
    )
)
@settings(max_examples=60, deadline=None)
def test_one_way_witness_splits_every_class_in_at_most_k_minus_1_columns(rows):
    m = np.array(rows, dtype=np.int64)
    res = lb.one_way_bits(m)
    assert res.distinct_rows == len({tuple(r) for r in rows})
    assert lb.check_one_way_witness(m, res.rows, res.cols)
    assert 1 <= len(res.cols) <= max(1, res.distinct_rows - 1)


def test_one_way_on_a_matrix():
    m = np.array([[0, 1, 2], [0, 1, 2], [1, 1, 0], [0, 0, 2]])
    res = lb.one_way_bits(m)
    assert (res.distinct_rows, res.bits, res.rows) == (3, 2, (0, 2, 3))
    assert lb.check_one_way_witness(m, res.rows, res.cols)


@pytest.mark.parametrize(("types", "depth"), [(2, 2), (1, 2), (2, 3)])
def test_one_way_dyck_symbolic_matches_dense(types, depth):
    for length in (4, 7, 8):
        for cut in range(1, length):
            prob = P.dyck(types, depth, length, f"prefix:{cut}")
            dense = lb.one_way_bits(prob)
            sym = lb.one_way_bits_dyck(types, depth, length, cut)
            assert sym.distinct_rows == dense.distinct_rows and sym.bits == dense.bits
            assert sym.method == "symbolic"
            assert lb.check_one_way_witness(prob, sym.rows, sym.cols)


def test_one_way_dyck_cut_in_the_middle():
    res = lb.one_way_bits_dyck(2, 2, 12, 6)
    assert (res.distinct_rows, res.bits) == (6, 3)
    big = lb.one_way_bits_dyck(2, 2, 1000, 500)
    assert (big.distinct_rows, big.bits, big.rows) == (6, 3, None)
    with pytest.raises(InputError, match="cut"):
        lb.one_way_bits_dyck(2, 2, 12, 12)


# ------------------------------------------------------------------------ exact two-way


@pytest.mark.parametrize("n", [1, 2, 3])
def test_exact_bits_of_equality_is_n_plus_1(n):
    m = P.equality(n).matrix()
    res = lb.exact_bits(m)
    assert res.bits == n + 1
    assert lb.check_protocol_tree(m, res.tree) == lb.ProtocolCheck(True, n + 1, None)


def test_exact_bits_matches_naive_search():
    rng = np.random.default_rng(11)
    searched = 0
    for trial in range(150):
        shape = (3, 3) if trial % 2 else (4, 4)
        m = rng.integers(0, 3 if trial % 5 == 0 else 2, size=shape)
        res = lb.exact_bits(m)
        assert res.bits == naive_d(m), m
        assert lb.check_protocol_tree(m, res.tree) == lb.ProtocolCheck(True, res.bits, None)
        searched += res.bits > res.lower_bound
    assert searched > 0  # some cases needed more than the rank bound


def test_exact_bits_merges_duplicates_and_handles_constants():
    m = np.kron(P.equality(2).matrix(), np.ones((3, 2), dtype=np.int8))  # 12 x 8, 4 x 4 distinct
    res = lb.exact_bits(m)
    assert (res.bits, res.distinct_rows, res.distinct_cols) == (3, 4, 4)
    assert lb.check_protocol_tree(m, res.tree).valid
    const = lb.exact_bits(np.full((5, 3), 7))
    assert const.bits == 0 and const.tree["output"] == 7


def test_tampered_protocol_tree_is_rejected():
    m = P.equality(2).matrix()
    tree = lb.exact_bits(m).tree
    leaf = tree
    while "children" in leaf:
        leaf = leaf["children"][0]
    leaf["output"] = 1 - leaf["output"]
    check = lb.check_protocol_tree(m, tree)
    assert not check.valid and "monochromatic" in check.reason


def test_exact_bits_limits():
    with pytest.raises(InputError, match="limited to 16 distinct rows"):
        lb.exact_bits(P.equality(5).matrix())
    # Binary, where the rank bound (3) is not tight (D = 4), so the search has to split.
    hard = np.array(
        [[0, 1, 1, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 1], [0, 0, 1, 1, 0], [0, 1, 1, 1, 1]]
    )
    res = lb.exact_bits(hard)
    assert (res.bits, res.lower_bound) == (4, 3) and naive_d(hard) == 4
    with pytest.raises(InputError, match="budget of 1 splits"):
        lb.exact_bits(hard, budget=1)
