"""Pinned values of ``ccomplexity.automata`` against brute force.

Pinned here: every check of :class:`DFA` at, below and above its limit (with its message); the
exact canonical table of :func:`minimize` (a minimal DFA numbered in BFS order, computed here
from Myhill-Nerode signatures of words); reachable / co-reachable / live masks; the Dyck-(n,k)
automaton's states and language against ``is_dyck`` on every word up to 2k + 2; the state counts
of EQ, INEQ and finite languages against enumerated Myhill-Nerode classes; residual counts
against the distinct rows of the (prefix, suffix) membership table; every size limit at, below
and above it (limits lowered by monkeypatch so the boundary is cheap to reach); the KG query
DFA's table limit and its word length.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import automata as A
from ccomplexity import budget
from ccomplexity.automata import DFA
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import dyck_alphabet, is_dyck
from ccomplexity.languages.kg import MatchingKG

# ----------------------------------------------------------------------------- brute force


def words_upto(alphabet: int, length: int) -> list[tuple[int, ...]]:
    return [w for n in range(length + 1) for w in itertools.product(range(alphabet), repeat=n)]


def py_run(d: DFA, q: int, word: tuple[int, ...]) -> int:
    for s in word:
        q = int(d.transitions[q, s])
    return q


def canonical(d: DFA, depth: int) -> tuple[list[list[int]], list[bool]]:
    """The minimal complete DFA of L(d), states numbered in BFS order (symbols in order), from
    Myhill-Nerode signatures: a state's acceptance of every word up to ``depth`` symbols."""
    suffixes = words_upto(d.alphabet_size, depth)

    def sig(q: int) -> tuple[bool, ...]:
        return tuple(bool(d.accepting[py_run(d, q, s)]) for s in suffixes)

    order = [sig(d.start)]
    number = {order[0]: 0}
    table: list[list[int]] = []
    queue = [d.start]
    i = 0
    while i < len(queue):
        q = queue[i]
        row = []
        for a in range(d.alphabet_size):
            nq = int(d.transitions[q, a])
            s = sig(nq)
            if s not in number:
                number[s] = len(order)
                order.append(s)
                queue.append(nq)
            row.append(number[s])
        table.append(row)
        i += 1
    return table, [s[0] for s in order]


def nerode_classes(member, alphabet: int, longest: int) -> int:
    """Myhill-Nerode classes of a finite language of words of length <= ``longest``: distinct
    residual sets of all prefixes up to ``longest`` + 1 (the last ones are the dead class)."""
    words = words_upto(alphabet, longest)
    inside = {w for w in words if member(w)}
    residuals = set()
    for u in words_upto(alphabet, longest + 1):
        residuals.add(frozenset(w[len(u) :] for w in inside if w[: len(u)] == u))
    return len(residuals)


def random_dfa(rng: np.random.Generator, n: int, a: int) -> DFA:
    table = rng.integers(0, n, size=(n, a))
    accepting = rng.random(n) < 0.5
    return DFA(table, int(rng.integers(0, n)), accepting, tuple(str(s) for s in range(a)))


def all_words(alphabet: int, length: int) -> np.ndarray:
    rows = list(itertools.product(range(alphabet), repeat=length))
    return np.array(rows, dtype=np.int64).reshape(len(rows), length)


# ----------------------------------------------------------------------------- the DFA class


def test_dfa_accepts_the_extreme_valid_values_and_normalises() -> None:
    d = DFA(np.array([[0, 1], [1, 0]], dtype=np.int32), 1, [True, False], ["a", "b"])
    assert d.transitions.dtype == np.int64 and not d.transitions.flags.writeable
    assert d.accepting.dtype == bool and not d.accepting.flags.writeable
    assert d.alphabet == ("a", "b") and isinstance(d.alphabet, tuple)
    assert (d.n_states, d.alphabet_size, d.start) == (2, 2, 1)
    acc = np.array([True, False])
    e = DFA(np.array([[0, 1], [1, 0]]), 0, acc, ("a", "b"))
    acc[0] = False  # the DFA keeps its own copy
    assert e.accepting.tolist() == [True, False]
    ints = DFA(np.array([[1], [0]]), 0, np.array([1, 0]), ("x",))  # flags given as 0/1
    assert ints.accepting.dtype == bool
    assert A.complement(ints).accepting.tolist() == [False, True]
    one = DFA(np.array([[0]]), 0, [False], ("x",))  # a single state, a single symbol
    assert (one.n_states, one.alphabet_size) == (1, 1)


@pytest.mark.parametrize(
    ("table", "start", "accepting", "alphabet", "needle"),
    [
        (np.array([0, 1]), 0, [True, False], ("a",), r"non-empty \(states, symbols\) table"),
        (np.zeros((0, 2), dtype=int), 0, [], ("a", "b"), r"table, got \(0, 2\)"),
        (np.zeros((2, 0), dtype=int), 0, [True, False], (), r"table, got \(2, 0\)"),
        (np.zeros((2, 2, 1), dtype=int), 0, [True, False], ("a", "b"), "non-empty"),
        (
            np.array([[0.0, 1.0], [1.0, 0.0]]),
            0,
            [True, False],
            ("a", "b"),
            "^transitions must be integers$",
        ),
        (np.array([[0, 2], [1, 0]]), 0, [True, False], ("a", "b"), r"lie in 0\.\.1$"),
        (np.array([[0, -1], [1, 0]]), 0, [True, False], ("a", "b"), r"lie in 0\.\.1$"),
        (
            np.array([[0, 1], [1, 0]]),
            0,
            [True],
            ("a", "b"),
            r"one flag per state \(2\), got \(1,\)",
        ),
        (np.array([[0, 1], [1, 0]]), 0, [True, False, True], ("a", "b"), r"got \(3,\)"),
        (np.array([[0, 1], [1, 0]]), 2, [True, False], ("a", "b"), r"2 exceeds the limit of 1$"),
        (np.array([[0, 1], [1, 0]]), -1, [True, False], ("a", "b"), r"in 0\.\.1, got -1$"),
        (np.array([[0, 1], [1, 0]]), 0.0, [True, False], ("a", "b"), r"in 0\.\.1, got 0\.0$"),
        (np.array([[0, 1], [1, 0]]), True, [True, False], ("a", "b"), r"in 0\.\.1, got True$"),
        (
            np.array([[0, 1], [1, 0]]),
            0,
            [True, False],
            ("a",),
            "alphabet has 1 names for 2 symbols",
        ),
        (np.array([[0, 1], [1, 0]]), 0, [True, False], ("a", "b", "c"), "has 3 names for 2"),
    ],
)
def test_dfa_refuses_bad_tables(table, start, accepting, alphabet, needle) -> None:
    with pytest.raises(InputError, match=needle):
        DFA(table, start, np.asarray(accepting, dtype=bool), alphabet)


def test_run_and_accepts_check_symbols_at_both_ends() -> None:
    d = DFA(np.array([[1, 0, 0], [0, 1, 1]]), 0, [False, True], ("a", "b", "c"))
    assert d.run(np.array([0, 2])).tolist() == [1]  # a 1-D word is one row
    assert d.run(np.array([[0, 0], [2, 0]])).tolist() == [0, 1]
    assert d.run(np.zeros((3, 0), dtype=np.int64)).tolist() == [0, 0, 0]  # empty words: start
    assert d.run(np.array([[0]]), states=np.array([1])).tolist() == [0]
    assert d.accepts(np.array([[0], [1]])).tolist() == [True, False]
    with pytest.raises(InputError, match=r"symbols must lie in 0\.\.2"):
        d.run(np.array([[3]]))
    with pytest.raises(InputError, match=r"symbols must lie in 0\.\.2"):
        d.run(np.array([[-1, 0]]))
    start = np.array([1, 0])
    d.run(np.array([[0], [0]]), states=start)
    assert start.tolist() == [1, 0]  # the given states are not overwritten


def test_reachable_coreachable_and_live_masks() -> None:
    # 0 -a-> 1 -a-> 2 (accepting) -> 2; 3 unreachable and accepting; 4 reachable dead sink
    table = np.array([[1, 4], [2, 4], [2, 2], [3, 0], [4, 4]])
    d = DFA(table, 0, [False, False, True, True, False], ("a", "b"))
    assert d.reachable().tolist() == [True, True, True, False, True]
    assert d.coreachable().tolist() == [True, True, True, True, False]
    assert d.live_states().tolist() == [True, True, True, False, False]
    chain = DFA(np.array([[1], [2], [3], [3]]), 0, [False, False, False, True], ("a",))
    assert chain.coreachable().all() and chain.reachable().all()  # needs three rounds
    none = DFA(np.array([[1], [0]]), 0, [False, False], ("a",))
    assert not none.coreachable().any()


# ----------------------------------------------------------------------------- Dyck


@pytest.mark.parametrize(("n", "k"), [(1, 0), (1, 2), (2, 1), (2, 2), (3, 1)])
def test_dyck_dfa_is_dyck_on_every_word(n: int, k: int) -> None:
    d = A.dyck_dfa(n, k)
    live = sum(n**i for i in range(k + 1))
    assert d.n_states == live + 1 and d.alphabet == dyck_alphabet(n) and d.start == 0
    assert d.accepting.tolist() == [True] + [False] * live
    assert (d.transitions[live] == live).all()  # the sink is last and absorbing
    for length in range(2 * k + 3):
        words = all_words(2 * n, length)
        assert d.accepts(words).tolist() == is_dyck(words, n, k).tolist(), length
    assert A.state_counts(d) == {"states": live + 1, "live_states": live}


def test_dyck_dfa_states_are_stacks_in_bfs_order() -> None:
    d = A.dyck_dfa(2, 2)
    # stacks (), (0,), (1,), (0,0), (0,1), (1,0), (1,1); sink 7; symbols ( ) [ ]
    expect = [
        [1, 7, 2, 7],
        [3, 0, 4, 7],
        [5, 7, 6, 0],
        [7, 1, 7, 7],
        [7, 7, 7, 1],
        [7, 2, 7, 7],
        [7, 7, 7, 2],
        [7, 7, 7, 7],
    ]
    assert d.transitions.tolist() == expect


@pytest.mark.parametrize(
    ("n", "k", "needle"),
    [
        (0, 2, r"needs n >= 1 types and depth k >= 0, got n=0, k=2"),
        (2, -1, r"got n=2, k=-1"),
        (
            2,
            20,
            r"^Dyck-\(2,20\) has more than 1000000 live states, the limit; use fewer types or a "
            "smaller depth$",
        ),
        (1000, 2, r"more than 1000000 live states"),
    ],
)
def test_dyck_dfa_refuses(n: int, k: int, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        A.dyck_dfa(n, k)


def test_dyck_dfa_state_limit_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(A, "STATE_LIMIT", 7)  # Dyck-(2,2): exactly 7 live states
    assert A.dyck_dfa(2, 2).n_states == 8
    monkeypatch.setattr(A, "STATE_LIMIT", 6)
    with pytest.raises(InputError, match="more than 6 live states"):
        A.dyck_dfa(2, 2)


def test_dyck_dfa_budget_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    memory, work = budget.dyck_automaton(2, 2, 7)
    monkeypatch.setenv("CCX_WORK_BUDGET", str(work))
    monkeypatch.setenv("CCX_MEMORY_BUDGET", str(memory))
    assert A.dyck_dfa(2, 2).n_states == 8  # exactly at both budgets
    monkeypatch.setenv("CCX_WORK_BUDGET", str(work - 1))
    with pytest.raises(
        InputError,
        match=r"^the Dyck-\(2,2\) automaton \(7 stacks of up to 2 brackets\) takes .*: use fewer "
        "types or a smaller depth$",
    ):
        A.dyck_dfa(2, 2)
    monkeypatch.setenv("CCX_WORK_BUDGET", str(work))
    monkeypatch.setenv("CCX_MEMORY_BUDGET", str(memory - 1))
    with pytest.raises(InputError, match=r"automaton \(7 stacks of up to 2 brackets\) needs"):
        A.dyck_dfa(2, 2)


# ----------------------------------------------------------------------------- minimisation


def test_minimize_is_the_canonical_bfs_numbered_minimal_dfa() -> None:
    rng = np.random.default_rng(11)
    merged = 0
    for _ in range(30):
        n, a = int(rng.integers(1, 7)), int(rng.integers(1, 4))
        d = random_dfa(rng, n, a)
        table, accepting = canonical(d, n)
        m = A.minimize(d)
        assert m.transitions.tolist() == table
        assert m.accepting.tolist() == accepting and m.start == 0
        assert m.alphabet == d.alphabet
        merged += m.n_states < d.n_states
    assert merged >= 5


def test_minimize_needs_several_refinement_rounds() -> None:
    # a chain of 6 states, accepting at the end only: each round separates one more state
    table = np.array([[1], [2], [3], [4], [5], [5]])
    d = DFA(table, 0, [False] * 5 + [True], ("a",))
    m = A.minimize(d)
    assert m.n_states == 6 and m.transitions.ravel().tolist() == [1, 2, 3, 4, 5, 5]
    # two symbols, successors told apart only by the second symbol
    t2 = np.array([[1, 2], [3, 3], [3, 4], [3, 3], [4, 4]])
    d2 = DFA(t2, 0, [False, False, False, False, True], ("a", "b"))
    assert A.minimize(d2).transitions.tolist() == canonical(d2, 5)[0]
    assert A.minimize(d2).n_states == 4  # states 1 and 3 merge


def test_state_counts_dead_state() -> None:
    # L = a*: complete minimal DFA without a sink; then with one
    all_a = DFA(np.array([[0, 1], [1, 1]]), 0, [True, False], ("a", "b"))
    assert A.state_counts(all_a) == {"states": 2, "live_states": 1}
    universal = DFA(np.array([[0, 0]]), 0, [True], ("a", "b"))
    assert A.state_counts(universal) == {"states": 1, "live_states": 1}


# ----------------------------------------------------------------------------- EQ, INEQ, finite


@pytest.mark.parametrize(("h", "a"), [(0, 1), (0, 3), (1, 1), (1, 3), (2, 2), (3, 2)])
def test_equality_dfa_against_nerode_classes(h: int, a: int) -> None:
    d = A.equality_dfa(h, a)

    def member(w: tuple[int, ...]) -> bool:
        return len(w) == 2 * h and w[:h] == w[h:]

    for length in range(2 * h + 2):
        words = all_words(a, length)
        assert d.accepts(words).tolist() == [member(tuple(w)) for w in words.tolist()]
    assert d.n_states == nerode_classes(member, a, 2 * h)
    assert d.n_states == sum(a**t for t in range(h)) + sum(a**r for r in range(h + 1)) + 1
    assert d.alphabet == tuple(str(s) for s in range(a))


def test_equality_dfa_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match="^half must be an integer >= 0, got -1$"):
        A.equality_dfa(-1, 2)
    with pytest.raises(InputError, match="^alphabet must be an integer >= 1, got 0$"):
        A.equality_dfa(1, 0)
    with pytest.raises(
        InputError,
        match=r"equality_dfa\(half=20, alphabet=2\) needs more than 1000000 states, the limit; "
        "use a smaller half or alphabet$",
    ):
        A.equality_dfa(20, 2)
    with pytest.raises(InputError, match=r"half=1000001, alphabet=1\) needs more than"):
        A.equality_dfa(1_000_001, 1)
    # H = 2, A = 2: 3 + 7 + 1 = 11 states; A^H = 4
    monkeypatch.setattr(A, "STATE_LIMIT", 11)
    assert A.equality_dfa(2, 2).n_states == 11
    monkeypatch.setattr(A, "STATE_LIMIT", 10)
    with pytest.raises(
        InputError, match=r"equality_dfa\(half=2, alphabet=2\) needs 11 states; the limit is 10"
    ):
        A.equality_dfa(2, 2)
    monkeypatch.setattr(A, "STATE_LIMIT", 4)  # A^H = 4 is at the limit: the total decides
    with pytest.raises(InputError, match="needs 11 states"):
        A.equality_dfa(2, 2)
    monkeypatch.setattr(A, "STATE_LIMIT", 3)  # A^H = 4 is past it
    with pytest.raises(InputError, match="needs more than 3 states, the limit"):
        A.equality_dfa(2, 2)
    monkeypatch.setattr(A, "STATE_LIMIT", 3)  # H = 3 > limit with A = 1 (1^H = 1 fits)
    with pytest.raises(InputError, match=r"half=4, alphabet=1\) needs more than 3"):
        A.equality_dfa(4, 1)
    monkeypatch.setattr(A, "STATE_LIMIT", 3)  # H = 3 at the limit, A = 1: total 3 + 4 + 1
    with pytest.raises(InputError, match=r"needs 8 states; the limit is 3"):
        A.equality_dfa(3, 1)


def test_complement_and_exact_length() -> None:
    d = A.dyck_dfa(1, 1)
    c = A.complement(d)
    assert c.transitions.tolist() == d.transitions.tolist()
    assert c.accepting.tolist() == (~d.accepting).tolist() and c.start == d.start
    e = A.exact_length(d, 2)  # {"()"}
    for length in range(5):
        words = all_words(2, length)
        assert e.accepts(words).tolist() == [w == [0, 1] for w in words.tolist()]
    assert e.n_states == 4  # start, after "(", accept, dead
    zero = A.exact_length(A.complement(d), 0)  # the empty word only is in it? no: it is Dyck
    assert not zero.accepts(np.zeros((1, 0), dtype=np.int64))[0]
    assert zero.n_states == 1
    one = A.exact_length(A.complement(d), 1)
    assert one.accepts(np.array([[0], [1]])).tolist() == [True, True]
    assert not one.accepts(np.array([[0, 0]]))[0] and not one.accepts(np.zeros((1, 0), int))[0]
    with pytest.raises(InputError, match="^length must be an integer >= 0, got -1$"):
        A.exact_length(d, -1)


def test_exact_length_limit_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    d = A.dyck_dfa(1, 1)  # 3 states; N = 2 gives width 4, 12 states
    monkeypatch.setattr(A, "STATE_LIMIT", 12)
    assert A.exact_length(d, 2).n_states == 4
    monkeypatch.setattr(A, "STATE_LIMIT", 11)
    with pytest.raises(
        InputError, match=r"exact_length: 3 states x 4 lengths = 12 states; the limit is 11"
    ):
        A.exact_length(d, 2)


@pytest.mark.parametrize(("h", "a"), [(0, 2), (1, 2), (2, 2), (1, 3)])
def test_inequality_dfa_against_nerode_classes(h: int, a: int) -> None:
    d = A.inequality_dfa(h, a)

    def member(w: tuple[int, ...]) -> bool:
        return len(w) == 2 * h and w[:h] != w[h:]

    for length in range(2 * h + 2):
        words = all_words(a, length)
        assert d.accepts(words).tolist() == [member(tuple(w)) for w in words.tolist()]
    assert d.n_states == nerode_classes(member, a, 2 * h)


def test_finite_language_dfa_against_nerode_classes() -> None:
    rng = np.random.default_rng(3)
    for _ in range(12):
        a = int(rng.integers(1, 4))
        lang = {
            tuple(int(s) for s in rng.integers(0, a, size=int(rng.integers(0, 4))))
            for _ in range(int(rng.integers(0, 6)))
        }
        d = A.finite_language_dfa(sorted(lang), a)
        longest = max((len(w) for w in lang), default=0)
        assert d.n_states == nerode_classes(lambda w, lang=lang: w in lang, a, longest)
        for length in range(longest + 2):
            words = all_words(a, length)
            assert d.accepts(words).tolist() == [tuple(w) in lang for w in words.tolist()]
    empty = A.finite_language_dfa([], 2)
    assert empty.n_states == 1 and not empty.accepting.any()
    eps = A.finite_language_dfa([()], 2)
    assert eps.n_states == 2 and eps.accepting.tolist() == [True, False]


def test_finite_language_dfa_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match=r"symbols must lie in 0\.\.1, got 2"):
        A.finite_language_dfa([(1, 2)], 2)
    with pytest.raises(InputError, match="^symbol must be an integer >= 0, got -1$"):
        A.finite_language_dfa([(0, -1)], 2)
    with pytest.raises(InputError, match="^alphabet_size must be an integer >= 1, got 0$"):
        A.finite_language_dfa([()], 0)
    assert A.finite_language_dfa([(1,)], 2).accepts(np.array([[1], [0]])).tolist() == [True, False]
    # the trie of {00, 01} has 4 nodes (root, 0, 00, 01)
    monkeypatch.setattr(A, "STATE_LIMIT", 4)
    assert A.finite_language_dfa([(0, 0), (0, 1)], 2).n_states == 4
    monkeypatch.setattr(A, "STATE_LIMIT", 3)
    with pytest.raises(InputError, match="the trie exceeds 3 nodes, the limit"):
        A.finite_language_dfa([(0, 0), (0, 1)], 2)


# ----------------------------------------------------------------------------- residual counts


def brute_residuals(d: DFA, length: int) -> list[int]:
    a = d.alphabet_size
    member = d.accepts(all_words(a, length))
    return [
        len(np.unique(member.reshape(a**t, a ** (length - t)), axis=0)) for t in range(length + 1)
    ]


def test_residual_counts_against_the_membership_table() -> None:
    rng = np.random.default_rng(17)
    for _ in range(20):
        d = random_dfa(rng, int(rng.integers(1, 8)), int(rng.integers(1, 4)))
        for length in (0, 1, 4):
            assert A.residual_counts(d, length) == brute_residuals(d, length)
    assert A.residual_counts(A.dyck_dfa(2, 2), 4) == brute_residuals(A.dyck_dfa(2, 2), 4)
    assert A.residual_counts(A.dyck_dfa(2, 2), 4) == [1, 3, 6, 3, 2]


def test_residual_counts_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    d = A.dyck_dfa(1, 1)  # 3 states x 2 symbols; N = 3: work 4 * 6 = 24
    with pytest.raises(InputError, match="^length must be an integer >= 0, got -1$"):
        A.residual_counts(d, -1)
    monkeypatch.setattr(A, "RESIDUAL_WORK_LIMIT", 24)
    assert A.residual_counts(d, 3) == brute_residuals(d, 3)
    monkeypatch.setattr(A, "RESIDUAL_WORK_LIMIT", 23)
    with pytest.raises(
        InputError,
        match=r"residual_counts: \(length \+ 1\) x states x symbols = 24; the limit is 23",
    ):
        A.residual_counts(d, 3)


def test_limit_constants() -> None:
    assert A.STATE_LIMIT == 1_000_000
    assert A.RESIDUAL_WORK_LIMIT == 1 << 28
    assert A.TABLE_LIMIT == 1 << 22


# ----------------------------------------------------------------------------- the KG query DFA


def test_check_kg_query_dfa_lengths_and_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    assert A.check_kg_query_dfa(4, 2) is None
    assert A.check_kg_query_dfa(4, 2, 0) == 2
    assert A.check_kg_query_dfa(4, 2, 3) == 5
    with pytest.raises(InputError, match="^hops must be an integer >= 0, got -1$"):
        A.check_kg_query_dfa(4, 2, -1)
    # E = 4, R = 2, q = 1: (4 + 3) * (3 + 2) = 35 states x 6 symbols = 210 entries
    monkeypatch.setattr(A, "TABLE_LIMIT", 210)
    assert A.check_kg_query_dfa(4, 2, 1) == 3
    monkeypatch.setattr(A, "TABLE_LIMIT", 209)
    with pytest.raises(
        InputError,
        match="the query DFA has 35 states x 6 symbols before minimising; the limit is 209 entries",
    ):
        A.check_kg_query_dfa(4, 2, 1)
    monkeypatch.setattr(A, "TABLE_LIMIT", 42)  # any hops: 7 states x 6 symbols
    assert A.check_kg_query_dfa(4, 2) is None
    monkeypatch.setattr(A, "TABLE_LIMIT", 41)
    with pytest.raises(InputError, match="has 7 states x 6 symbols"):
        A.check_kg_query_dfa(4, 2)


@pytest.mark.parametrize("hops", [None, 1])
def test_check_kg_query_dfa_budget_boundary(monkeypatch: pytest.MonkeyPatch, hops) -> None:
    total = 7 if hops is None else 7 * 5
    rounds = total if hops is None else 5
    memory, work = budget.automaton(total, 6, rounds)
    graph_memory, graph_work = budget.kg_graph(4, 2)
    memory, work = memory + graph_memory, work + graph_work + 6 * (1 << 18)
    monkeypatch.setenv("CCX_WORK_BUDGET", str(work))
    monkeypatch.setenv("CCX_MEMORY_BUDGET", str(memory))
    A.check_kg_query_dfa(4, 2, hops)
    monkeypatch.setenv("CCX_WORK_BUDGET", str(work - 1))
    with pytest.raises(InputError, match="takes"):
        A.check_kg_query_dfa(4, 2, hops)
    monkeypatch.setenv("CCX_WORK_BUDGET", str(work))
    monkeypatch.setenv("CCX_MEMORY_BUDGET", str(memory - 1))
    with pytest.raises(InputError, match="needs"):
        A.check_kg_query_dfa(4, 2, hops)


def test_check_kg_query_dfa_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CCX_WORK_BUDGET", "1000")
    with pytest.raises(
        InputError,
        match=r"the query DFA of 7 states x 6 symbols \(its graph included\) takes .* "
        "use fewer entities, relations or hops$",
    ):
        A.check_kg_query_dfa(4, 2)


def test_kg_query_dfa_exact_hops_language() -> None:
    kg = MatchingKG.generate(3, 2, seed=1)
    for hops in (0, 1):
        d = A.kg_query_dfa(kg, hops)
        assert d.alphabet == ("e0", "e1", "e2", "r0", "r1")
        for length in range(5):
            words = all_words(5, length)
            expect = []
            for w in words.tolist():
                ok = length == hops + 2 and w[0] < 3 and w[-1] < 3
                ok = ok and all(s >= 3 for s in w[1:-1])
                if ok:
                    e = w[0]
                    for s in w[1:-1]:
                        e = int(kg.permutations[s - 3, e])
                    ok = e == w[-1]
                expect.append(ok)
            assert d.accepts(words).tolist() == expect
        assert A.state_counts(d)["states"] == (hops + 1) * 3 + 3


# ----------------------------------------------------------------------------- second round

TALL = np.array([[0, 1], [1, 1], [2, 0]])  # three states, two symbols: the messages count states


def test_table_refusals_count_states_not_symbols() -> None:
    with pytest.raises(InputError, match=r"^transition targets must lie in 0\.\.2$"):
        DFA(np.array([[0, 3], [1, 1], [2, 0]]), 0, np.zeros(3, bool), ("a", "b"))
    with pytest.raises(
        InputError, match=r"^accepting must have one flag per state \(3\), got \(2,\)$"
    ):
        DFA(TALL, 0, np.zeros(2, bool), ("a", "b"))
    with pytest.raises(InputError, match=r"^start state 3 exceeds the limit of 2$"):
        DFA(TALL, 3, np.zeros(3, bool), ("a", "b"))


def test_size_arguments_are_checked_with_their_names() -> None:
    with pytest.raises(InputError, match="^alphabet must be an integer >= 1, got 0$"):
        A.equality_dfa(1, 0)
    with pytest.raises(InputError, match="^alphabet_size must be an integer >= 1, got 0$"):
        A.finite_language_dfa([[0]], 0)
    with pytest.raises(InputError, match="^half must be an integer >= 0, got -1$"):
        A.inequality_dfa(-1, 2)
