"""Fooling sets (Def. 1, Fact 4, Lemma 1) pinned exactly: every outcome of ``verify_fooling_set``
and ``verify_fooling_words`` as a whole ``FoolingCheck`` (validity, size, reason, method), each
limit at, below and above it (the pairwise limit, the exhaustive Dyck limits, the symbolic scan's
product cells, the explicit EQ/DISJ sets), the chunking of the pairwise scan and of the word
evaluation, the product-automaton checks on hand-made automata against brute force over all
words, and the symbolic certificate's fields against brute force over all Dyck words. The column
check (errata item 12: distinct rows, a shared column) is pinned on Dyck-(2,2), N = 4, prefix:3.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

import numpy as np
import pytest

from ccomplexity import lower_bounds as lb
from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import fooling
from ccomplexity.lower_bounds.fooling import FoolingCheck

# ------------------------------------------------------------------------------ helpers


def dyck_words(types: int, depth: int, length: int) -> list[tuple[int, ...]]:
    """Every Dyck-(n,k) word of length N by a stack over all (2n)^N words: symbol 2t opens
    bracket type t, 2t + 1 closes it (no DFA, no DP)."""
    out = []
    for word in itertools.product(range(2 * types), repeat=length):
        stack: list[int] = []
        ok = True
        for s in word:
            if s % 2 == 0:
                stack.append(s // 2)
                ok = len(stack) <= depth
            else:
                ok = bool(stack) and stack.pop() == s // 2
            if not ok:
                break
        if ok and not stack:
            out.append(word)
    return out


def determines(words: list[tuple[int, ...]], fixed: list[int]) -> bool:
    """Do two words that agree on the positions ``fixed`` agree everywhere? (brute force)"""
    seen: dict[tuple[int, ...], tuple[int, ...]] = {}
    for w in words:
        key = tuple(w[i] for i in fixed)
        if seen.setdefault(key, w) != w:
            return False
    return True


def accepted(table: np.ndarray, start: int, accepting: np.ndarray, length: int) -> list:
    """Every word of length N a (partial) transition table accepts (-1 = no transition)."""
    out = []
    for word in itertools.product(range(table.shape[1]), repeat=length):
        q = start
        for s in word:
            q = int(table[q, s]) if q >= 0 else -1
        if q >= 0 and accepting[q]:
            out.append(word)
    return out


def eq2() -> P.TwoPartyProblem:
    return P.equality(2)  # 4 x 4 identity, Alice and Bob 2 binary symbols each


# ------------------------------------------------------------------ verify_fooling_set


def test_every_outcome_of_the_index_check_is_pinned_whole() -> None:
    eq = eq2()
    empty = np.array([], dtype=np.int64)
    assert lb.verify_fooling_set(eq, empty, empty, 1) == FoolingCheck(
        False, 0, "the set is empty; Fact 4 needs at least one pair", "none"
    )
    assert lb.verify_fooling_set(eq, np.array([0, 1]), np.array([0, 2]), 1) == FoolingCheck(
        False, 2, "pair 1 (row 1, col 2) has f = 0, not the value 1", "none"
    )
    assert lb.verify_fooling_set(eq, np.array([3, 2, 3]), np.array([3, 2, 3]), 1) == (
        FoolingCheck(False, 3, "pairs 0 and 2 are the same cell (row 3, col 3)", "none")
    )
    m = P.from_matrix([[1, 1], [1, 0]])
    assert lb.verify_fooling_set(m, np.array([0, 0]), np.array([0, 1]), 1) == FoolingCheck(
        False,
        2,
        "pairs 0 and 1 share row 0 (x does not determine the other half), "
        "so f(x_0, y_1) = f(x_1, y_0) = 1",
        "none",
    )
    assert lb.verify_fooling_set(m, np.array([1, 0]), np.array([0, 0]), 1) == FoolingCheck(
        False,
        2,
        "pairs 0 and 1 share col 0 (y does not determine the other half), "
        "so f(x_0, y_1) = f(x_1, y_0) = 1",
        "none",
    )
    assert lb.verify_fooling_set(m, np.array([1]), np.array([0]), 1) == FoolingCheck(
        True, 1, None, "single"
    )
    # Distinct rows and columns, all on value 1, crossing at (0, 1) and (1, 0): only the
    # pairwise argument (a matrix problem has no closed-form count) finds it.
    full = P.from_matrix([[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    assert lb.verify_fooling_set(full, np.array([2, 0, 1]), np.array([2, 0, 1]), 1) == (
        FoolingCheck(
            False,
            3,
            "pairs 1 and 2 (rows 0, 1; cols 0, 1) violate Def. 1: f(x_1, y_2) = f(x_2, y_1) = 1",
            "pairwise",
        )
    )
    assert lb.verify_fooling_set(full, np.array([0, 2]), np.array([0, 2]), 1) == FoolingCheck(
        True, 2, None, "pairwise"
    )


def test_the_column_check_rejects_distinct_rows_sharing_a_column() -> None:
    """Errata item 12: Lemma 1's proof shows x -> y only. Under prefix:3 at N = 4 the 8 members
    of Dyck-(2,2) have 8 distinct rows and 8 one-cells (the count argument alone would accept),
    but "(())" and "()()" share their last symbol: pairs 0 and 1 share column 1."""
    problem = P.dyck(2, 2, 4, "prefix:3")
    found = lb.dyck_fooling_set(problem)
    assert found.check == FoolingCheck(
        False,
        8,
        "pairs 0 and 1 share col 1 (y does not determine the other half), "
        "so f(x_0, y_1) = f(x_1, y_0) = 1",
        "none",
    )
    assert len(set(found.rows.tolist())) == 8 and len(set(found.cols.tolist())) == 2
    m = problem.matrix()
    r, c = found.rows, found.cols
    assert m[r[0], c[1]] == m[r[1], c[0]] == 1  # the crossing, read off the matrix
    assert found.as_dict() == {
        "problem": "dyck",
        "types": 2,
        "depth": 2,
        "length": 4,
        "partition": "prefix:3",
        "size": 8,
        "value": 1,
        "bits": 3,
        "verified": False,
        "reason": found.check.reason,
    }


def test_index_errors_name_the_side() -> None:
    eq = eq2()
    with pytest.raises(InputError, match=r"^rows must lie in 0\.\.3$"):
        lb.verify_fooling_set(eq, np.array([4]), np.array([0]), 1)
    with pytest.raises(InputError, match=r"^cols must lie in 0\.\.3$"):
        lb.verify_fooling_set(eq, np.array([0]), np.array([4]), 1)
    with pytest.raises(InputError, match=r"^cols must be a 1-D array of integer indices$"):
        lb.verify_fooling_set(eq, np.array([0]), np.array([0.5]), 1)
    with pytest.raises(InputError, match=r"^rows and cols must have the same length, got 2 and 1"):
        lb.verify_fooling_set(eq, np.array([0, 1]), np.array([0]), 1)


def test_pairwise_limit_message_counts_pairs_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    eq, diag = P.equality(3), np.arange(8)  # 28 unordered pairs; value_count 9 forces pairwise
    monkeypatch.setattr(fooling, "PAIRWISE_LIMIT", 27)
    with pytest.raises(InputError) as err:
        lb.verify_fooling_set(eq, diag, diag, 1, value_count=9)
    assert str(err.value) == (
        "pairwise fooling-set verification is limited to 27 pairs, got 28 (|S| = 8); "
        "pass value_count or use the symbolic certificate"
    )


def test_verify_agrees_with_brute_force_on_every_subset_of_a_small_matrix() -> None:
    m = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    problem = P.from_matrix(m)
    cells = [(r, c) for r in range(3) for c in range(3)]
    for size in (2, 3):
        for chosen in itertools.combinations(cells, size):
            rows = np.array([r for r, _ in chosen])
            cols = np.array([c for _, c in chosen])
            for value in (0, 1):
                on_value = all(m[r, c] == value for r, c in chosen)
                crossing = any(
                    m[r1, c2] == value and m[r2, c1] == value
                    for (r1, c1), (r2, c2) in itertools.combinations(chosen, 2)
                )
                check = lb.verify_fooling_set(problem, rows, cols, value)
                assert check.valid == (on_value and not crossing)
                assert check.size == size


# ------------------------------------------------------------- the pairwise scan's blocks


def greedy_blocks(s: int, chunk: int) -> list[int]:
    """Rows i (s - 1 - i pairs each) taken greedily into blocks of at most ``chunk`` pairs, at
    least one row a block: the pairs per block."""
    out, i = [], 0
    while i < s - 1:
        total, j = s - 1 - i, i + 1
        while j < s - 1 and total + (s - 1 - j) <= chunk:
            total += s - 1 - j
            j += 1
        out.append(total)
        i = j
    return out


@pytest.mark.parametrize("chunk", [1, 5, 6, 12, 13, 20, 27, 28, 100])
def test_pairwise_blocks_are_greedy_and_cover_every_pair_in_order(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(fooling, "CHUNK", chunk)
    s = 8
    calls: list[tuple[list[int], list[int]]] = []

    def never(rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
        calls.append((rr.tolist(), cc.tolist()))
        return np.zeros(len(rr), dtype=np.int8)

    idx = np.arange(s)
    assert fooling._pairwise_violation(eq2(), idx, idx, 1, never) is None
    assert [len(r) for r, _ in calls] == greedy_blocks(s, chunk)
    pairs = [(i, j) for r, c in calls for i, j in zip(r, c, strict=True)]
    assert pairs == list(itertools.combinations(range(s), 2))


@pytest.mark.parametrize("chunk", [1, 3, 7, 100])
def test_the_first_violation_is_lexicographic_in_any_chunking(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(fooling, "CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for _ in range(20):
        m = (rng.random((7, 7)) < 0.5).astype(np.int8)
        s = 7
        rows, cols = rng.permutation(7)[:s], rng.permutation(7)[:s]
        expected = next(
            (
                (i, j)
                for i, j in itertools.combinations(range(s), 2)
                if m[rows[i], cols[j]] == 1 and m[rows[j], cols[i]] == 1
            ),
            None,
        )
        assert fooling._pairwise_violation(P.from_matrix(m), rows, cols, 1) == expected


# -------------------------------------------------------------------- verify_fooling_words


def test_every_outcome_of_the_word_check_is_pinned_whole() -> None:
    eq = eq2()
    w = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    none = np.zeros((0, 2), dtype=np.int64)
    assert lb.verify_fooling_words(eq, none, none, 1) == FoolingCheck(
        False, 0, "the set is empty or its halves differ in number", "none"
    )
    assert lb.verify_fooling_words(eq, w[:2], w[:1], 1) == FoolingCheck(
        False, 2, "the set is empty or its halves differ in number", "none"
    )
    assert lb.verify_fooling_words(eq, w[:1], w[:1], 1) == FoolingCheck(True, 1, None, "single")
    assert lb.verify_fooling_words(eq, w[[0, 1]], w[[0, 2]], 1) == FoolingCheck(
        False, 2, "pair 1 has f = 0, not the value 1", "none"
    )
    share = "share their {}: f(x_i, y_j) = f(x_j, y_i) = 1"
    assert lb.verify_fooling_words(eq, w[[0, 3, 3]], w[[0, 3, 3]], 1) == FoolingCheck(
        False, 3, "pairs 1 and 2 " + share.format("pair"), "none"
    )
    disj = P.disjointness(2)  # value 1: the two sets intersect
    assert lb.verify_fooling_words(disj, w[[3, 3]], w[[3, 1]], 1) == FoolingCheck(
        False, 2, "pairs 0 and 1 " + share.format("x"), "none"
    )
    assert lb.verify_fooling_words(disj, w[[3, 1]], w[[3, 3]], 1) == FoolingCheck(
        False, 2, "pairs 0 and 1 " + share.format("y"), "none"
    )
    assert lb.verify_fooling_words(disj, w[[2, 3]], w[[3, 2]], 1) == FoolingCheck(
        False, 2, "pairs 0 and 1 violate Def. 1: f(x_0, y_1) = f(x_1, y_0) = 1", "pairwise"
    )
    assert lb.verify_fooling_words(eq, w, w, 1) == FoolingCheck(True, 4, None, "pairwise")


@pytest.mark.parametrize(("most", "ok"), [(29, True), (28, True), (27, False)])
def test_the_word_check_pairwise_limit_at_below_and_above(
    monkeypatch: pytest.MonkeyPatch, most: int, ok: bool
) -> None:
    eq = P.equality(3)
    diag = P.digits(np.arange(8), 2, 3)  # 8 pairs: 28 unordered pairs
    monkeypatch.setattr(fooling, "PAIRWISE_LIMIT", most)
    if ok:
        assert lb.verify_fooling_words(eq, diag, diag, 1) == FoolingCheck(True, 8, None, "pairwise")
    else:
        with pytest.raises(InputError) as err:
            lb.verify_fooling_words(eq, diag, diag, 1)
        assert str(err.value) == (
            "pairwise fooling-set verification is limited to 27 pairs, got 28 (|S| = 8)"
        )


def test_the_word_check_agrees_with_the_index_check_on_dyck_subsets() -> None:
    problem = P.dyck(2, 2, 6, "prefix:3")
    members = lb.dyck_fooling_set(P.dyck(2, 2, 6, "prefix:3"))
    rng = np.random.default_rng(5)
    for _ in range(30):
        pick = rng.permutation(members.size)[: int(rng.integers(2, 9))]
        rows, cols = members.rows[pick], members.cols[pick]
        cols = cols if rng.random() < 0.7 else rng.permutation(cols)
        x, y = problem.alice_inputs(rows), problem.bob_inputs(cols)
        by_words = lb.verify_fooling_words(problem, x, y, 1)
        by_index = lb.verify_fooling_set(problem, rows, cols, 1)
        assert by_words.valid == by_index.valid and by_words.size == by_index.size


@pytest.mark.parametrize(
    ("symbols", "spec", "step"),
    [(8, "prefix:3", 2), (12, "prefix:3", 3), (3, "prefix:3", 1), (8, "prefix:1", 2)],
)
def test_words_are_evaluated_in_chunks_of_the_symbol_budget(
    monkeypatch: pytest.MonkeyPatch, symbols: int, spec: str, step: int
) -> None:
    """Each call sees at most WORD_CHUNK_SYMBOLS // (a + b) pairs (at least one), in order."""
    monkeypatch.setattr(fooling, "WORD_CHUNK_SYMBOLS", symbols)
    base = P.dyck(2, 2, 4, spec)
    calls: list[int] = []

    def spy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        calls.append(len(x))
        return base.evaluate(x, y)

    problem = dataclasses.replace(base, evaluate=spy)
    members = dyck_words(2, 2, 4)[:5]
    x = np.array([w[: base.alice_length] for w in members])
    y = np.array([w[base.alice_length :] for w in members])
    check = lb.verify_fooling_words(problem, x, y, 1)
    assert check.size == 5
    own = [min(step, 5 - i) for i in range(0, 5, step)]
    assert calls[: len(own)] == own
    assert all(1 <= n <= step for n in calls)


# ------------------------------------------------------------------------ Dyck, exhaustive


def test_the_exhaustive_length_limit_at_and_above(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fooling, "EXHAUSTIVE_LIMIT", 6)
    assert lb.dyck_fooling_set(P.dyck(2, 2, 6, "odd-even")).size == 32
    with pytest.raises(InputError) as err:
        lb.dyck_fooling_set(P.dyck(2, 2, 8, "odd-even"))
    assert str(err.value) == (
        "exhaustive Dyck fooling sets are limited to length 6 (got 8); use the symbolic "
        "certificate (dyck_fooling_symbolic)"
    )


def test_the_exhaustive_member_limit_at_and_above(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fooling, "EXHAUSTIVE_MEMBER_LIMIT", 32)
    assert lb.dyck_fooling_set(P.dyck(2, 2, 6, "odd-even")).size == 32
    monkeypatch.setattr(fooling, "EXHAUSTIVE_MEMBER_LIMIT", 31)
    with pytest.raises(InputError) as err:
        lb.dyck_fooling_set(P.dyck(2, 2, 6, "odd-even"))
    assert str(err.value) == (
        "Dyck-(2,2) has 32 words of length 6; the exhaustive limit is 31 members; use the "
        "symbolic certificate"
    )


def test_the_exhaustive_set_is_every_member_read_only_and_tied_to_its_problem() -> None:
    problem = P.dyck(2, 2, 6, "odd-even")
    found = lb.dyck_fooling_set(problem)
    assert found.problem is problem and found.value == 1
    assert found.check == FoolingCheck(True, 32, None, "count")
    assert not found.rows.flags.writeable and not found.cols.flags.writeable
    words = sorted(
        tuple(int(s) for pair in zip(a, b, strict=True) for s in pair)
        for a, b in zip(
            problem.alice_inputs(found.rows), problem.bob_inputs(found.cols), strict=True
        )
    )
    assert words == dyck_words(2, 2, 6)
    assert found.as_dict() == {
        "problem": "dyck",
        "types": 2,
        "depth": 2,
        "length": 6,
        "partition": "odd-even",
        "size": 32,
        "value": 1,
        "bits": 5,
        "verified": True,
        "reason": None,
    }
    assert (found.size, found.bits, found.log2_size) == (32, 5, 5.0)


# ------------------------------------------------------------ product automata, hand-made


def random_table(rng: np.random.Generator, n: int, syms: int) -> np.ndarray:
    table = rng.integers(0, n, size=(n, syms))
    table[rng.random((n, syms)) < 0.25] = -1
    return table


def test_half_determines_other_against_brute_force_on_random_automata() -> None:
    rng = np.random.default_rng(17)
    seen_fail = seen_ok = 0
    for trial in range(60):
        n, syms, length = 4, 2 + trial % 2, 3 + trial % 3
        table = random_table(rng, n, syms)
        start = int(rng.integers(0, n))
        accepting = rng.random(n) < 0.5
        words = accepted(table, start, accepting, length)
        equal = rng.random(length) < 0.5
        ok, pair = fooling._half_determines_other(table, start, accepting, equal)
        assert ok == determines(words, [i for i in range(length) if equal[i]])
        if ok:
            seen_ok += 1
            assert pair is None
        else:
            seen_fail += 1
            w1, w2 = (tuple(w) for w in pair)
            assert w1 in words and w2 in words and w1 != w2
            assert all(w1[i] == w2[i] for i in range(length) if equal[i])
    assert seen_ok >= 5 and seen_fail >= 5


def test_the_counterexample_is_read_back_from_two_different_accepting_states() -> None:
    # One free symbol from state 0 to accepting state 1 or 2: the words "0" and "1" end in
    # different states, and both must be read back from their own state.
    table = np.array([[1, 2], [-1, -1], [-1, -1]])
    accepting = np.array([False, True, True])
    ok, pair = fooling._half_determines_other(table, 0, accepting, np.array([False]))
    assert not ok and sorted(pair) == [[0], [1]]


def test_periodic_powers_against_brute_force_with_any_start_and_accepting_state() -> None:
    rng = np.random.default_rng(3)
    outcomes = set()
    for trial in range(80):
        n, syms, length = 3 + trial % 2, 2, (2, 4, 6)[trial % 3]
        table = random_table(rng, n, syms)
        start = int(rng.integers(1, n))  # never state 0
        accepting = np.zeros(n, dtype=bool)
        accepting[rng.integers(1, n, size=1 + trial % 2)] = True  # never state 0
        words = accepted(table, start, accepting, length)
        for alice_first in (True, False):
            fixed = list(range(0 if alice_first else 1, length, 2))
            expected = determines(words, fixed)
            got = fooling._halves_determined_periodic(table, start, accepting, length, alice_first)
            assert got == expected
            outcomes.add((expected, len(words) > 1))
    assert outcomes >= {(True, True), (False, True)}


def test_a_dead_start_determines_everything() -> None:
    table = np.array([[0, 0]])
    accepting = np.array([True])
    assert fooling._half_determines_other(table, -1, accepting, np.array([True, False])) == (
        True,
        None,
    )
    assert fooling._halves_determined_periodic(table, -1, accepting, 2, True) is True
    # With a live start the same automaton accepts 00, 01, 10, 11: no half determines the other.
    assert fooling._halves_determined_periodic(table, 0, accepting, 2, True) is False


# -------------------------------------------------------------------------- Dyck, symbolic


@pytest.mark.parametrize(
    "spec", ["prefix:1", "prefix:2", "prefix:3", "prefix:5", "alice:2,3", "alice:1,4,6"]
)
def test_symbolic_halves_agree_with_brute_force_under_any_partition(spec: str) -> None:
    length = 6
    words = dyck_words(2, 2, length)
    alice = list(P.Partition.parse(spec, length).alice)
    bob = [i for i in range(length) if i not in alice]
    out = lb.dyck_fooling_symbolic(2, 2, length, spec)
    assert out["count"] == len(words) == 32
    assert out["x_determines_y"] == determines(words, alice)
    assert out["y_determines_x"] == determines(words, bob)
    assert out["verified"] == (determines(words, alice) and determines(words, bob))
    for key, fixed in (("x_counterexample", alice), ("y_counterexample", bob)):
        if out[key] is None:
            continue
        w1, w2 = (tuple(w) for w in out[key])
        assert w1 in words and w2 in words and w1 != w2
        assert all(w1[i] == w2[i] for i in fixed)


def test_symbolic_fields_are_pinned_whole() -> None:
    assert lb.dyck_fooling_symbolic(2, 2, 4, "prefix:3") == {
        "types": 2,
        "depth": 2,
        "length": 4,
        "partition": "prefix:3",
        "value": 1,
        "count": 8,
        "x_determines_y": True,
        "y_determines_x": False,
        "size": 8,
        "bits": 3,
        "log2_size": 3.0,
        "verified": False,
        "x_counterexample": None,
        "y_counterexample": [[0, 1, 0, 1], [2, 3, 0, 1]],
    }
    out = lb.dyck_fooling_symbolic(2, 2, 8)
    assert out["log2_size"] == 7.0 and out["partition"] == "odd-even" and out["verified"]
    assert lb.dyck_fooling_symbolic(2, 0, 4)["log2_size"] is None


def test_symbolic_argument_errors_name_the_argument() -> None:
    cases = [
        ((0, 2, 4), "--types must be a positive integer, got 0"),
        ((2, -1, 4), "--depth must be a non-negative integer, got -1"),
        ((2, 2, 0), "--length must be a positive integer, got 0"),
        ((2, 2, 1), "partition odd-even needs an even length, got 1"),
    ]
    for args, message in cases:
        with pytest.raises(InputError, match=f"^{re.escape(message)}$"):
            lb.dyck_fooling_symbolic(*args)


def test_the_scan_cell_limit_at_and_below(monkeypatch: pytest.MonkeyPatch) -> None:
    # Dyck-(2,2): 1 + 2 + 4 = 7 stacks, all live; N = 4: 7^2 x 2 x 5 = 490 product cells.
    monkeypatch.setattr(fooling, "SYMBOLIC_LIMIT", 490)
    assert lb.dyck_fooling_symbolic(2, 2, 4, "prefix:3")["count"] == 8
    monkeypatch.setattr(fooling, "SYMBOLIC_LIMIT", 489)
    with pytest.raises(InputError) as err:
        lb.dyck_fooling_symbolic(2, 2, 4, "prefix:3")
    assert str(err.value) == (
        "the symbolic Dyck check is limited to 489 product cells (live states^2 x 2 x (N+1) = "
        "490); use fewer types, a smaller depth or length"
    )


def test_odd_even_counterexamples_come_from_the_scan_up_to_its_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Dyck-(2,3) at N = 6: 1 + 2 + 4 + 8 = 15 stacks, 15^2 x 2 x 7 = 3150 cells; both halves fail.
    words = dyck_words(2, 3, 6)
    monkeypatch.setattr(fooling, "SYMBOLIC_LIMIT", 3150)
    out = lb.dyck_fooling_symbolic(2, 3, 6)
    assert not out["x_determines_y"] and not out["y_determines_x"]
    for key, fixed in (("x_counterexample", [0, 2, 4]), ("y_counterexample", [1, 3, 5])):
        w1, w2 = (tuple(w) for w in out[key])
        assert w1 in words and w2 in words and w1 != w2
        assert all(w1[i] == w2[i] for i in fixed)
    monkeypatch.setattr(fooling, "SYMBOLIC_LIMIT", 3149)
    out = lb.dyck_fooling_symbolic(2, 3, 6)
    assert not out["x_determines_y"] and not out["y_determines_x"] and not out["verified"]
    assert out["x_counterexample"] is None and out["y_counterexample"] is None


def test_counts_that_disagree_are_a_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fooling, "dyck_count", lambda t, k, n: 15)
    with pytest.raises(RuntimeError, match=r"^Dyck-\(2,2\) counts disagree at length 6$"):
        lb.dyck_fooling_symbolic(2, 2, 6)


# ------------------------------------------------------------------------ EQ and DISJ


def test_equality_set_is_the_diagonal_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    problem = P.equality(2)
    monkeypatch.setattr(fooling, "MATERIALISE_LIMIT", 4)
    found = lb.equality_fooling_set(problem)
    assert found.problem is problem and found.value == 1 and found.check is None
    assert found.rows.tolist() == found.cols.tolist() == [0, 1, 2, 3]
    assert not found.rows.flags.writeable
    assert found.as_dict() == {
        "problem": "equality",
        "half": 2,
        "alphabet": 2,
        "partition": "prefix:2",
        "size": 4,
        "value": 1,
        "bits": 2,
    }
    monkeypatch.setattr(fooling, "MATERIALISE_LIMIT", 3)
    with pytest.raises(InputError) as err:
        lb.equality_fooling_set(problem)
    assert str(err.value) == (
        "the explicit equality fooling set is limited to 3 pairs (A^H = 4); use the closed "
        "form D >= H log2 A of Fact 2"
    )


def test_disjointness_set_is_the_complements_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    problem = P.disjointness(2)
    monkeypatch.setattr(fooling, "MATERIALISE_LIMIT", 4)
    found = lb.disjointness_fooling_set(problem)
    assert found.problem is problem and found.value == 0 and found.check is None
    assert found.rows.tolist() == [0, 1, 2, 3] and found.cols.tolist() == [3, 2, 1, 0]
    assert not found.rows.flags.writeable and not found.cols.flags.writeable
    m = problem.matrix()
    assert all(m[r, c] == 0 for r, c in zip(found.rows, found.cols, strict=True))
    assert lb.verify_fooling_set(problem, found.rows, found.cols, 0).valid
    monkeypatch.setattr(fooling, "MATERIALISE_LIMIT", 3)
    with pytest.raises(InputError) as err:
        lb.disjointness_fooling_set(problem)
    assert str(err.value) == (
        "the explicit disjointness fooling set is limited to 3 pairs (2^H = 4); use the closed "
        "form D >= H of Fact 1"
    )


def test_a_set_without_a_check_reports_no_verdict() -> None:
    found = lb.disjointness_fooling_set(P.disjointness(1))
    assert found.as_dict() == {
        "problem": "disjointness",
        "half": 1,
        "partition": "prefix:1",
        "size": 2,
        "value": 0,
        "bits": 1,
    }
    assert "verified" not in found.as_dict() and "reason" not in found.as_dict()
