"""Pinned values of the one-way complexity (ccomplexity.lower_bounds.one_way): ceil(log2 of the
number of distinct rows) counted by hand on tiny matrices, the symbolic Dyck count against the
dense matrix and against hand-read witnesses, and every limit at, below and above (the dense
limit's switch to the automaton, the state-step limit, the 64-bit witness limit, the budget)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import one_way as ow

# ------------------------------------------------------------------------------ dense


def distinct_rows(m: np.ndarray) -> int:
    return len({tuple(r) for r in m.tolist()})


def ceil_log2(n: int) -> int:
    bits = 0
    while 2**bits < n:
        bits += 1
    return bits


@pytest.mark.parametrize(
    ("m", "rows", "bits", "reps"),
    [
        ([[5]], 1, 0, (0,)),
        ([[0, 1], [0, 1]], 1, 0, (0,)),
        ([[0, 1], [1, 0]], 2, 1, (0, 1)),
        ([[1, 0], [1, 0], [0, 1], [1, 1]], 3, 2, (0, 2, 3)),
        ([[0, 0], [0, 1], [1, 0], [1, 1]], 4, 2, (0, 1, 2, 3)),
        ([[2], [0], [2], [1], [3], [4], [0]], 5, 3, (0, 1, 3, 4, 5)),
        ([[i] for i in range(8)] + [[0]], 8, 3, tuple(range(8))),
        ([[i] for i in range(9)], 9, 4, tuple(range(9))),
    ],
)
def test_hand_counted_matrices(m: list[list[int]], rows: int, bits: int, reps: tuple) -> None:
    a = np.array(m, dtype=np.int64)
    res = ow.one_way_bits(a)
    assert (res.distinct_rows, res.bits, res.rows, res.method) == (rows, bits, reps, "dense")
    assert ow.check_one_way_witness(a, res.rows, res.cols)
    assert res.cols == tuple(sorted(res.cols)) and len(res.cols) >= 1


def test_every_binary_3x2_matrix_against_brute_force() -> None:
    for bits in itertools.product((0, 1), repeat=6):
        m = np.array(bits, dtype=np.int64).reshape(3, 2)
        res = ow.one_way_bits(m)
        k = distinct_rows(m)
        assert (res.distinct_rows, res.bits) == (k, ceil_log2(k))
        assert ow.check_one_way_witness(m, res.rows, res.cols)


def test_problems_dense_against_their_matrix() -> None:
    for prob in (P.equality(2, 3), P.disjointness(3), P.index(4), P.dyck(2, 2, 6, "prefix:3")):
        res = ow.one_way_bits(prob)
        k = distinct_rows(prob.matrix())
        assert (res.distinct_rows, res.bits, res.method) == (k, ceil_log2(k), "dense")
        assert ow.check_one_way_witness(prob, res.rows, res.cols)


# ------------------------------------------------------------------- separating columns


def test_separating_columns_picks_the_column_that_splits_most() -> None:
    # Column 2 alone tells all four rows apart; columns 0 and 1 split them in halves.
    m = np.array([[0, 0, 0], [0, 1, 1], [1, 0, 2], [1, 1, 3]])
    assert ow.separating_columns(m) == (2,)
    # The first-found best column on a tie: columns 1 and 3 both split all three rows.
    t = np.array([[0, 0, 1, 0], [0, 1, 1, 1], [1, 2, 1, 2]])
    assert ow.separating_columns(t) == (1,)


def test_separating_columns_of_one_row_names_a_column() -> None:
    assert ow.separating_columns(np.array([[4, 5, 6]])) == (0,)


def test_separating_columns_of_a_permutation_needs_k_minus_1() -> None:
    m = np.eye(5, dtype=np.int64)[[3, 0, 4, 1, 2]]
    cols = ow.separating_columns(m)
    assert len(cols) == 4 and cols == tuple(sorted(cols))
    assert distinct_rows(m[:, list(cols)]) == 5


def test_separating_columns_follow_the_greedy_by_hand() -> None:
    """Rows 0 and 1 differ on column 2 only: it is taken first and leaves {0, 4, 5} together;
    rows 0 and 4 differ on column 0 only, then 4 and 5 on column 1 only: all three columns."""
    m = np.array([[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [1, 0, 0], [1, 1, 0]])
    assert ow.separating_columns(m) == (0, 1, 2)
    assert ow.one_way_bits(m).distinct_rows == 6


def test_separating_columns_tie_goes_to_the_first_column() -> None:
    """Column 0 (tie with 2) parts {1} from {0, 2, 3}; rows 0 and 2 differ on column 1 only;
    then rows 2 and 3 differ on columns 2 and 3, each of which tells all four rows apart (keys
    label * 2 + value: 4, 1, 2, 3 and 4, 0, 2, 3): the first, column 2, is taken."""
    m = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 0], [1, 0, 1, 1]])
    assert ow.separating_columns(m) == (0, 1, 2)


@pytest.mark.parametrize("cells", [1, 4, 7, 16])
def test_separating_columns_do_not_depend_on_the_scoring_block(
    cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scored a few columns at a time (blocks of ``cells`` cells), the greedy still takes the
    first column of the largest split over all candidates, so the witness is the one-block
    answer: a tie across two blocks goes to the earlier block."""
    rng = np.random.default_rng(cells)
    tie = np.array([[0, 0, 0, 0], [1, 1, 1, 1]])  # every column splits the two rows alike
    matrices = [tie, *(rng.integers(0, 3, size=(6, 9)) for _ in range(20))]
    matrices = [m for m in matrices if len(np.unique(m, axis=0)) == len(m)]
    expected = [ow.separating_columns(m) for m in matrices]
    monkeypatch.setattr(ow, "SCORE_BLOCK_CELLS", cells)
    assert [ow.separating_columns(m) for m in matrices] == expected
    assert ow.separating_columns(tie) == (0,)


def test_separating_columns_equal_classes_split_in_key_order() -> None:
    """After column 0 the classes {1, 4, 5} (value 0) and {0, 2, 3} (value 1) tie at three rows;
    classes are numbered by their key label * 2 + value, so {1, 4, 5} is split first (rows 1
    and 4: columns 1, 2, 3 tie, 1 is taken), then {4, 5} by column 2 and {0, 2} by column 3."""
    m = np.array(
        [[1, 1, 0, 1], [0, 0, 0, 1], [1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0], [0, 1, 0, 0]]
    )
    assert ow.separating_columns(m) == (0, 1, 2, 3)


def test_one_way_bits_names_itself_on_a_bad_matrix() -> None:
    with pytest.raises(InputError, match=r"^one_way_bits needs a non-empty 2-D matrix, got shape"):
        ow.one_way_bits(np.zeros(3, dtype=np.int64))
    with pytest.raises(InputError, match=r"^one_way_bits needs an integer matrix, got dtype"):
        ow.one_way_bits(np.eye(2))


# ------------------------------------------------------------------------------ witness


def test_check_one_way_witness_accepts_and_refuses() -> None:
    m = np.array([[0, 1, 0], [0, 1, 1], [1, 1, 0]])
    assert ow.check_one_way_witness(m, (0, 1, 2), (0, 2))
    assert not ow.check_one_way_witness(m, (0, 1, 2), (0,))  # rows 0 and 1 agree there
    assert not ow.check_one_way_witness(m, (0, 1, 2), (1,))
    assert ow.check_one_way_witness(m, (2,), (1,))  # a single row is one class
    assert not ow.check_one_way_witness(m, (), (0,))  # no rows: no bound at all
    assert not ow.check_one_way_witness(m, (1, 1), (0, 1, 2))  # a row twice
    prob = P.equality(2)
    assert ow.check_one_way_witness(prob, (0, 3), (0,))
    assert not ow.check_one_way_witness(prob, (1, 3), (0,))
    assert ow.check_one_way_witness(prob, (1, 2, 3), (1, 2))
    assert not ow.check_one_way_witness(prob, (), (1,))


# ------------------------------------------------------------------------------ Dyck


def test_symbolic_witness_read_by_hand() -> None:
    """Dyck-(1,3), N = 8, K = 3 (0 opens, 1 closes): Alice's 3 symbols end at height 1, height
    3 or dead. Rows: 000 = "(((" (height 3), 010 = "()(" (height 1; first by parents), 011 = dead.
    Columns: 00111 = "(()))" closes height 1 only, 10111 = ")()))" closes height 3 only."""
    res = ow.one_way_bits_dyck(1, 3, 8, 3)
    assert res == ow.OneWayResult(3, 2, (0, 2, 3), (7, 23), "symbolic")
    prob = P.dyck(1, 3, 8, "prefix:3")
    assert ow.check_one_way_witness(prob, res.rows, res.cols)


def test_symbolic_one_class_when_no_word_fits() -> None:
    res = ow.one_way_bits_dyck(2, 3, 7, 2)  # odd length: every row is zero
    assert (res.distinct_rows, res.bits, res.rows, res.cols) == (1, 0, (1,), ())
    assert ow.check_one_way_witness(P.dyck(2, 3, 7, "prefix:2"), res.rows, res.cols)
    none = ow.one_way_bits_dyck(1, 0, 2, 1)  # depth 0: nothing but the empty word
    assert (none.distinct_rows, none.bits) == (1, 0)


@pytest.mark.parametrize(
    ("types", "depth", "length"), [(1, 1, 5), (1, 3, 6), (3, 1, 4), (2, 4, 6), (1, 2, 2)]
)
def test_symbolic_matches_dense_at_every_cut(types: int, depth: int, length: int) -> None:
    for cut in range(1, length):
        prob = P.dyck(types, depth, length, f"prefix:{cut}")
        m = prob.matrix()
        sym = ow.one_way_bits_dyck(types, depth, length, cut)
        k = distinct_rows(m)
        assert (sym.distinct_rows, sym.bits, sym.method) == (k, ceil_log2(k), "symbolic")
        assert len(sym.rows) == k and len(set(sym.rows)) == k
        assert all(0 <= r < prob.n_rows for r in sym.rows)
        assert all(0 <= c < prob.n_cols for c in sym.cols)
        if k > 1:
            assert ow.check_one_way_witness(prob, sym.rows, sym.cols)


def test_dense_limit_switches_dyck_prefix_to_the_automaton(monkeypatch: pytest.MonkeyPatch) -> None:
    prob = P.dyck(1, 3, 6, "prefix:2")  # 4 x 16 = 64 cells
    monkeypatch.setattr(ow, "DENSE_LIMIT", 64)
    at = ow.one_way_bits(prob)
    assert at.method == "dense"
    monkeypatch.setattr(ow, "DENSE_LIMIT", 63)
    over = ow.one_way_bits(prob)
    assert over.method == "symbolic"
    assert over.distinct_rows == at.distinct_rows == distinct_rows(prob.matrix()) == 3
    assert over == ow.one_way_bits_dyck(1, 3, 6, 2)
    other = P.dyck(2, 2, 4, "prefix:3")  # types, depth, length and cut all passed on
    assert ow.one_way_bits(other).distinct_rows == distinct_rows(other.matrix())
    assert ow.one_way_bits(other) == ow.one_way_bits_dyck(2, 2, 4, 3)


def test_too_big_matrices_that_are_not_dyck_prefix_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ow, "DENSE_LIMIT", 10)
    # The problems module keeps its own limit: these matrices still build, so the dense path
    # (not the automaton) answers for anything but a Dyck prefix split.
    assert ow.one_way_bits(P.dyck(1, 2, 4, "odd-even")).method == "dense"
    assert ow.one_way_bits(P.equality(2)).method == "dense"
    assert ow.one_way_bits(P.index(3)).method == "dense"
    assert ow.one_way_bits(P.dyck(1, 2, 4, "prefix:1")).method == "symbolic"
    monkeypatch.undo()
    with pytest.raises(InputError, match="dense limit"):
        ow.one_way_bits(P.dyck(2, 2, 14, "odd-even"))
    big = ow.one_way_bits(P.dyck(2, 2, 14, "prefix:7"))  # 4^14 cells: over the dense limit
    assert (big.distinct_rows, big.method) == (
        ow.one_way_bits_dyck(2, 2, 14, 7).distinct_rows,
        "symbolic",
    )


# ------------------------------------------------------------------------ Dyck limits


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 2, 4, 1), r"^--types must be a positive integer, got 0$"),
        ((None, 2, 4, 1), r"^--types must be a positive integer, got None$"),
        ((1, -1, 4, 1), r"^--depth must be a non-negative integer, got -1$"),
        ((1, None, 4, 1), r"^--depth must be a non-negative integer, got None$"),
        ((1, 1, 1, 1), r"^--length must be at least 2, got 1$"),
        ((1, 1, None, 1), r"^--length must be at least 2, got None$"),
        ((1, 1, 4, 0), r"^the cut K needs 1 <= K < length \(4\), got 0$"),
        ((1, 1, 4, 4), r"^the cut K needs 1 <= K < length \(4\), got 4$"),
        ((1, 1, 4, None), r"^the cut K needs 1 <= K < length \(4\), got None$"),
    ],
)
def test_dyck_input_errors(args: tuple, message: str) -> None:
    with pytest.raises(InputError, match=message):
        ow.one_way_bits_dyck(*args)


def test_dyck_inputs_at_their_smallest() -> None:
    assert ow.one_way_bits_dyck(1, 0, 2, 1).distinct_rows == 1  # types 1, depth 0, length 2
    assert ow.one_way_bits_dyck(1, 1, 2, 1).distinct_rows == 2  # "(" vs ")"
    assert ow.one_way_bits_dyck(1, 1, 4, 3).distinct_rows == 2  # cut = length - 1


def test_state_step_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # Dyck-(1,1) has 3 states (empty, "(", sink): length 4 is 3 x 5 = 15 state-steps.
    monkeypatch.setattr(ow, "SYMBOLIC_LIMIT", 15)
    assert ow.one_way_bits_dyck(1, 1, 4, 2).distinct_rows == 2
    monkeypatch.setattr(ow, "SYMBOLIC_LIMIT", 14)
    with pytest.raises(
        InputError,
        match=r"^the symbolic one-way count is limited to 14 state-steps, got 15; use a smaller "
        r"length, depth or number of types$",
    ):
        ow.one_way_bits_dyck(1, 1, 4, 2)
    monkeypatch.undo()
    with pytest.raises(InputError, match=r"limited to 16777216 state-steps, got 16777218;"):
        ow.one_way_bits_dyck(1, 1, 5_592_405, 2)  # 3 x 5,592,406 = 2^24 + 2


def test_work_budget_refuses_long_refinements(monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 refinements of Dyck-(2,2)'s 8 x 4 table: about 6.7M steps, the automaton 4.2M.
    monkeypatch.setenv("CCX_WORK_BUDGET", "5000000")
    with pytest.raises(
        InputError,
        match=r"^the symbolic one-way count of Dyck-\(2,2\) at length 200 \(8 states x 4 "
        r"symbols, refined 200 times\) takes .* steps; the budget is .*: use a shorter length$",
    ):
        ow.one_way_bits_dyck(2, 2, 200, 100)
    assert ow.one_way_bits_dyck(2, 2, 100, 50).distinct_rows == 6  # 3.4M steps: within


def test_witness_indices_up_to_64_bits() -> None:
    """Two symbols: the indices fit while 2^max(K, N - K) < 2^63."""
    fits = ow.one_way_bits_dyck(1, 1, 124, 62)
    assert fits.distinct_rows == 2 and fits.rows is not None and fits.cols is not None
    prob = P.dyck(1, 1, 124, "prefix:62")
    assert ow.check_one_way_witness(prob, fits.rows, fits.cols)
    unbalanced = ow.one_way_bits_dyck(1, 1, 125, 62)  # Bob's 63 symbols do not fit
    assert unbalanced.rows is None and unbalanced.cols is None
    assert ow.one_way_bits_dyck(1, 1, 125, 63).rows is None  # Alice's 63 do not
    at = ow.one_way_bits_dyck(1, 1, 126, 63)
    assert (at.distinct_rows, at.rows, at.cols) == (2, None, None)
