"""Pinned values of the shared matrix helpers (ccomplexity.lower_bounds.matrix): input checks at
their boundaries, distinct rows and duplicates against brute force, Dyck and DFA counts against
an enumeration written here, every cell count against the dense matrix."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ccomplexity import problems as P
from ccomplexity.automata import DFA, dyck_dfa
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import matrix as mx
from tests.ccomplexity.formulas import dyck_height_count as height_dp

# ------------------------------------------------------------------------------ helpers


def is_member(word: tuple[int, ...], types: int, depth: int) -> bool:
    """Dyck-(n,k) by a stack: symbol 2t opens type t, 2t + 1 closes it."""
    stack: list[int] = []
    for s in word:
        t, closing = divmod(s, 2)
        if not closing:
            if len(stack) == depth:
                return False
            stack.append(t)
        elif not stack or stack.pop() != t:
            return False
    return not stack


def brute_count(types: int, depth: int, length: int) -> int:
    return sum(
        is_member(w, types, depth) for w in itertools.product(range(2 * types), repeat=length)
    )


def naive_power_row0(matrix: list[list[int]], power: int) -> list[int]:
    size = len(matrix)
    vec = [1] + [0] * (size - 1)
    for _ in range(power):
        vec = [sum(vec[i] * matrix[i][j] for i in range(size)) for j in range(size)]
    return vec


# ------------------------------------------------------------------------------ as_matrix


def test_as_matrix_accepts_integers_and_bools() -> None:
    m = mx.as_matrix(np.array([[True, False], [False, False]]), "w")
    assert m.dtype == np.int8 and m.tolist() == [[1, 0], [0, 0]]
    ints = np.array([[3, -1]], dtype=np.int16)
    assert mx.as_matrix(ints, "w") is not None and mx.as_matrix(ints, "w").dtype == np.int16
    assert mx.as_matrix([[1, 2], [3, 4]], "w").tolist() == [[1, 2], [3, 4]]
    prob = P.equality(1)
    assert mx.as_matrix(prob, "w").tolist() == [[1, 0], [0, 1]]


@pytest.mark.parametrize("shape", [(3,), (0, 2), (2, 0), (1, 1, 1)])
def test_as_matrix_refuses_other_shapes(shape: tuple[int, ...]) -> None:
    with pytest.raises(InputError, match=r"^what needs a non-empty 2-D matrix, got shape \("):
        mx.as_matrix(np.zeros(shape, dtype=int), "what")


def test_as_matrix_refuses_floats() -> None:
    with pytest.raises(InputError, match=r"^what needs an integer matrix, got dtype float64$"):
        mx.as_matrix(np.eye(2), "what")
    assert mx.as_matrix(np.ones((1, 1), dtype=np.int64), "what").shape == (1, 1)  # 1 x 1 is fine


# ------------------------------------------------------------------------------ index_array


def test_index_array_bounds_at_below_above() -> None:
    got = mx.index_array(np.array([0, 4], dtype=np.int32), 5, "rows")
    assert got.dtype == np.int64 and got.tolist() == [0, 4]  # bound - 1 is the last index
    with pytest.raises(InputError, match=r"^rows must lie in 0\.\.4$"):
        mx.index_array(np.array([0, 5]), 5, "rows")
    with pytest.raises(InputError, match=r"^rows must lie in 0\.\.4$"):
        mx.index_array(np.array([-1, 2]), 5, "rows")
    assert mx.index_array(np.array([], dtype=float), 5, "rows").size == 0  # empty: no dtype needed


def test_index_array_refuses_non_indices() -> None:
    with pytest.raises(InputError, match=r"^cols must be a 1-D array of integer indices$"):
        mx.index_array(np.array([[1, 2]]), 5, "cols")
    with pytest.raises(InputError, match=r"^cols must be a 1-D array of integer indices$"):
        mx.index_array(np.array([1.0, 2.0]), 5, "cols")


# ------------------------------------------------------------------------ first_duplicate


def brute_first_duplicate(keys: list) -> tuple[int, int] | None:
    for j in range(len(keys)):
        for i in range(j):
            if keys[i] == keys[j]:
                return i, j
    return None


def test_first_duplicate_against_brute_force() -> None:
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(1, 9))
        keys = rng.integers(0, 5, size=n)
        assert mx.first_duplicate(keys) == brute_first_duplicate(keys.tolist())
        rows = rng.integers(0, 2, size=(n, 3))
        assert mx.first_duplicate(rows) == brute_first_duplicate([tuple(r) for r in rows])
    assert mx.first_duplicate(np.array([7, 3, 9, 3, 7])) == (1, 3)
    assert mx.first_duplicate(np.array([[1, 2], [2, 1], [1, 2]])) == (0, 2)
    assert mx.first_duplicate(np.array([1, 2, 3])) is None


# ----------------------------------------------------------------------------- row_classes


def brute_row_classes(m: np.ndarray) -> tuple[list[int], list[int]]:
    reps: list[int] = []
    labels: list[int] = []
    for i, row in enumerate(m.tolist()):
        for c, r in enumerate(reps):
            if m[r].tolist() == row:
                labels.append(c)
                break
        else:
            labels.append(len(reps))
            reps.append(i)
    return reps, labels


@pytest.mark.parametrize("values", [(0, 1), (0, 2), (-1, 0), (-1, 1), (0, 1, 2)])
def test_row_classes_against_brute_force(values: tuple[int, ...]) -> None:
    rng = np.random.default_rng(sum(values) + 10)
    for _ in range(25):
        n, w = int(rng.integers(1, 10)), int(rng.integers(1, 12))  # widths across a byte
        m = np.array(values)[rng.integers(0, len(values), size=(n, w))]
        reps, labels = mx.row_classes(m)
        want_reps, want_labels = brute_row_classes(m)
        assert reps.tolist() == want_reps and labels.tolist() == want_labels


def test_row_classes_do_not_merge_values_the_bit_packing_would() -> None:
    m = np.array([[0, 2], [0, 1], [0, 2], [-1, 1], [1, 1]])
    reps, labels = mx.row_classes(m)
    assert reps.tolist() == [0, 1, 3, 4] and labels.tolist() == [0, 1, 0, 2, 3]
    wide = np.zeros((3, 9), dtype=np.int8)
    wide[1, 8] = 1  # differs only in the ninth bit (second packed byte)
    assert mx.row_classes(wide)[0].tolist() == [0, 1]


# --------------------------------------------------------------------------- chunked_entries


def test_chunked_entries_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    prob = P.disjointness(3)
    dense = prob.matrix()
    rows = np.repeat(np.arange(8), 8)
    cols = np.tile(np.arange(8), 8)
    monkeypatch.setattr(mx, "CHUNK", 5)  # 64 pairs in 13 chunks, the last one short
    got = mx.chunked_entries(prob, rows, cols)
    assert got.dtype == np.int8 and got.tolist() == dense.ravel().tolist()
    assert mx.chunked_entries(prob, rows[:0], cols[:0]).size == 0


def test_chunked_entries_keep_negative_values() -> None:
    prob = P.p_hop(2, 3, 1, 1)
    rows = np.repeat(np.arange(prob.n_rows), prob.n_cols)
    cols = np.tile(np.arange(prob.n_cols), prob.n_rows)
    got = mx.chunked_entries(prob, rows, cols)
    assert got.tolist() == prob.entries(rows, cols).tolist()


# --------------------------------------------------------------------------- matrix powers


@pytest.mark.parametrize("power", [0, 1, 2, 3, 5, 8, 13])
def test_matrix_power_row_against_repeated_products(power: int) -> None:
    m = [[0, 2, 1], [1, 0, 3], [4, 1, 0]]
    assert mx.matrix_power_row(m, power) == naive_power_row0(m, power)
    assert mx.matrix_power_row(m, power, 7) == [v % 7 for v in naive_power_row0(m, power)]


def test_matrix_power_row_modulus_reduces_every_entry() -> None:
    assert mx.matrix_power_row([[5]], 0, 3) == [1]
    assert mx.matrix_power_row([[5, 1], [0, 2]], 0, 1) == [0, 0]  # the identity row, mod 1
    assert mx.matrix_power_row([[5, 1], [0, 2]], 0) == [1, 0]
    assert mx.matrix_power_row([[5]], 1, 3) == [2]
    assert mx.matrix_power_row([[5]], 3) == [125]
    assert mx.matrix_power_row([[1, 1], [1, 0]], 10) == [89, 55]  # Fibonacci


# ------------------------------------------------------------------------------ dyck_count


@pytest.mark.parametrize(("types", "depth"), [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 2)])
def test_dyck_count_against_enumeration(types: int, depth: int) -> None:
    for length in range(0, 9 if types < 3 else 7):
        assert mx.dyck_count(types, depth, length) == brute_count(types, depth, length)


@pytest.mark.parametrize(
    ("types", "depth", "length"),
    [(1, 1, 19), (1, 1, 20), (1, 1, 21), (2, 1, 100), (3, 2, 64), (2, 2, 99), (1, 4, 200)],
)
def test_dyck_count_both_branches(types: int, depth: int, length: int) -> None:
    """Lengths on both sides of the switch to repeated squaring, (k + 1)^2 lg N < N."""
    assert mx.dyck_count(types, depth, length) == height_dp(types, depth, length)


def test_dyck_count_depth_beyond_half_length_is_catalan() -> None:
    # Depth k > N/2 never binds: C_(N/2) n^(N/2) words.
    assert mx.dyck_count(2, 5, 6) == 5 * 2**3
    assert mx.dyck_count(1, 9, 12) == 132
    assert mx.dyck_count(3, 4, 8) == 14 * 3**4
    assert mx.dyck_count(2, 3, 6) == 5 * 2**3
    assert mx.dyck_count(2, 2, 6) == brute_count(2, 2, 6) == 2**3 * 4  # depth binds: 4 shapes
    assert mx.dyck_count(2, 1, 7) == 0 and mx.dyck_count(2, 0, 4) == 0
    assert mx.dyck_count(2, 0, 0) == 1


# ------------------------------------------------------------------------ DFAs and counts


def test_live_dfa_drops_the_sink() -> None:
    dfa = dyck_dfa(1, 2)  # states: (), (, ((, sink
    table, start, accepting = mx.live_dfa(dfa)
    assert table.tolist() == [[1, -1], [2, 0], [-1, 1]]
    assert start == 0 and accepting.tolist() == [True, False, False]


def test_live_dfa_and_count_with_a_dead_start() -> None:
    # State 1 is the only accepting state and cannot be reached: nothing is live.
    dead = DFA(np.array([[0, 0], [1, 1]]), 0, np.array([False, True]), ("a", "b"))
    table, start, accepting = mx.live_dfa(dead)
    assert start == -1 and table.shape == (0, 2) and accepting.size == 0
    assert mx.dfa_count(dead, 5) == 0 and mx.dfa_count(dead, 5, 7) == 0


def parity_dfa() -> DFA:
    """Words over {a, b, c} with an even number of a's; a dead state 2 entered on c from 1."""
    t = np.array([[1, 0, 0], [0, 1, 2], [2, 2, 2]])
    return DFA(t, 0, np.array([True, False, False]), ("a", "b", "c"))


def brute_dfa_count(dfa: DFA, length: int) -> int:
    return sum(
        bool(dfa.accepting[dfa.run(np.array([w], dtype=np.int64))[0]])
        for w in itertools.product(range(dfa.transitions.shape[1]), repeat=length)
    )


@pytest.mark.parametrize("length", [0, 1, 2, 3, 4, 6])
def test_dfa_count_against_enumeration(length: int) -> None:
    dfa = parity_dfa()
    want = brute_dfa_count(dfa, length)
    assert mx.dfa_count(dfa, length) == want
    assert mx.dfa_count(dfa, length, 5) == want % 5


def test_dfa_count_by_squaring_against_the_dp() -> None:
    dfa = parity_dfa()
    # The dead state is dropped: 2 live states, by steps up to N = 20, squaring from 21.
    for length in (16, 20, 21, 40, 101):
        want = height_free_count(length)
        assert mx.dfa_count(dfa, length) == want
        assert mx.dfa_count(dfa, length, 1000) == want % 1000


def height_free_count(length: int) -> int:
    """Words of length N over {a, b, c} with evenly many a's and no c after an odd a-prefix:
    count by a two-state DP written here."""
    even, odd = 1, 0
    for _ in range(length):
        even, odd = 2 * even + odd, even + odd  # even: b, c stay, a flips; odd: b stays, a flips
    return even


def test_dfa_count_modulo_sums_residues_of_several_accepting_states() -> None:
    """Accept states 0 and 1 of the parity automaton (every word that never dies): the total
    over both accepting states is reduced once more, by steps (N <= 20) and by squaring."""
    t = np.array([[1, 0, 0], [0, 1, 2], [2, 2, 2]])
    dfa = DFA(t, 0, np.array([True, True, False]), ("a", "b", "c"))
    for length in (3, 4, 21, 30):
        even, odd = 1, 0
        for _ in range(length):
            even, odd = 2 * even + odd, even + odd
        assert mx.dfa_count(dfa, length) == even + odd
        for modulus in (2, 5, 7):
            assert mx.dfa_count(dfa, length, modulus) == (even + odd) % modulus


def test_dfa_count_with_start_not_state_zero() -> None:
    # Start in state 2 of a 3-cycle on a, b loops; accept state 0: #a = 1 mod 3. Three live
    # states: by steps up to N = 54 (9 lg N >= N), by squaring from N = 55.
    t = np.array([[1, 0], [2, 1], [0, 2]])
    dfa = DFA(t, 2, np.array([True, False, False]), ("a", "b"))
    for length in (0, 1, 2, 5, 54, 55, 64):
        want = sum(math.comb(length, j) for j in range(1, length + 1, 3))
        assert mx.dfa_count(dfa, length) == want
        assert mx.dfa_count(dfa, length, 11) == want % 11


# ------------------------------------------------------------------------------ members


@pytest.mark.parametrize(("types", "depth", "length"), [(2, 2, 6), (1, 3, 8), (2, 1, 4), (3, 2, 4)])
def test_dyck_members_are_every_member_in_order(types: int, depth: int, length: int) -> None:
    got = mx.dyck_members(types, depth, length)
    want = [
        w for w in itertools.product(range(2 * types), repeat=length) if is_member(w, types, depth)
    ]
    assert got.dtype == np.int16 and got.shape == (len(want), length)
    assert [tuple(r) for r in got.tolist()] == want


def test_dyck_members_of_odd_length_are_none() -> None:
    assert mx.dyck_members(2, 2, 3).shape == (0, 3)


def test_dyck_members_of_length_zero_is_the_empty_word() -> None:
    assert mx.dyck_members(2, 2, 0).shape == (1, 0)
    assert mx.dyck_members(1, 0, 0).shape == (1, 0) and mx.dyck_count(1, 0, 0) == 1


# -------------------------------------------------------------------------- cell counts


@pytest.mark.parametrize(
    "prob",
    [
        P.dyck(2, 2, 6, "odd-even"),
        P.dyck(1, 3, 8, "prefix:3"),
        P.equality(2, 3),
        P.equality(3),
        P.disjointness(3),
        P.index(4),
    ],
    ids=["dyck-oe", "dyck-prefix", "eq3", "eq2", "disj", "index"],
)
def test_value_cell_count_against_the_matrix(prob: P.TwoPartyProblem) -> None:
    m = prob.matrix()
    assert mx.value_cell_count(prob, 1) == int((m == 1).sum())
    assert mx.value_cell_count(prob, 0) == int((m == 0).sum())
    assert mx.value_cell_count(prob, 2) is None
    assert mx.value_cell_count(prob, -1) is None


def test_value_cell_count_unknown_problem_is_none() -> None:
    import dataclasses

    anon = dataclasses.replace(P.equality(2), name="anonymous")
    assert mx.value_cell_count(anon, 1) is None and mx.value_cell_count(anon, 0) is None
