"""DFA minimisation, state counts, equality/finite-language DFAs and residual counts."""

from __future__ import annotations

import numpy as np
import pytest
from automata.fa.dfa import DFA as LibDFA

from ccomplexity.automata import (
    DFA,
    complement,
    dyck_dfa,
    equality_dfa,
    exact_length,
    finite_language_dfa,
    inequality_dfa,
    kg_query_dfa,
    minimize,
    residual_counts,
    state_counts,
)
from ccomplexity.errors import InputError
from ccomplexity.languages.kg import MatchingKG
from ccomplexity.languages.strings import is_equal_halves, is_unequal_halves


def all_words(alphabet: int, length: int) -> np.ndarray:
    powers = alphabet ** np.arange(length - 1, -1, -1, dtype=np.int64)
    return (np.arange(alphabet**length, dtype=np.int64)[:, None] // powers) % alphabet


def to_lib(d: DFA) -> LibDFA:
    syms = [str(a) for a in range(d.alphabet_size)]
    return LibDFA(
        states=set(range(d.n_states)),
        input_symbols=set(syms),
        transitions={
            q: {syms[a]: int(d.transitions[q, a]) for a in range(d.alphabet_size)}
            for q in range(d.n_states)
        },
        initial_state=d.start,
        final_states={int(q) for q in np.flatnonzero(d.accepting)},
    )


def random_dfa(rng: np.random.Generator) -> DFA:
    n = int(rng.integers(1, 25))
    a = int(rng.integers(1, 4))
    table = rng.integers(0, n, size=(n, a))
    accepting = rng.random(n) < rng.random()
    return DFA(table, int(rng.integers(0, n)), accepting, tuple(str(s) for s in range(a)))


def blow_up(d: DFA) -> DFA:
    """The same language with every state doubled by a useless parity bit."""
    q = np.repeat(np.arange(d.n_states), 2)
    bit = np.tile([0, 1], d.n_states)
    table = 2 * d.transitions[q] + (1 - bit)[:, None]
    return DFA(table, 2 * d.start, d.accepting[q], d.alphabet)


def check_against_lib(d: DFA) -> DFA:
    m = minimize(d)
    lib = to_lib(d)
    assert m.n_states == len(lib.minify().states)
    assert to_lib(m) == lib  # language equivalence (Hopcroft-Karp in automata-lib)
    return m


def test_dyck22_state_counts():
    assert state_counts(dyck_dfa(2, 2)) == {"states": 8, "live_states": 7}
    assert state_counts(blow_up(dyck_dfa(2, 2))) == {"states": 8, "live_states": 7}


@pytest.mark.parametrize(("n", "k"), [(1, 1), (1, 4), (2, 1), (2, 3), (3, 2), (4, 1)])
def test_dyck_live_states_are_sum_of_powers(n, k):
    live = sum(n**i for i in range(k + 1))
    big = blow_up(dyck_dfa(n, k))
    assert big.n_states == 2 * (live + 1)
    assert state_counts(big) == {"states": live + 1, "live_states": live}
    check_against_lib(big)


def test_minimize_matches_automata_lib_on_random_dfas():
    rng = np.random.default_rng(2024)
    shrunk = 0
    for _ in range(60):
        d = random_dfa(rng)
        m = check_against_lib(d)
        shrunk += m.n_states < d.n_states
        words = rng.integers(0, d.alphabet_size, size=(200, 7))
        assert np.array_equal(m.accepts(words), d.accepts(words))
    assert shrunk > 10  # the random cases do exercise merging


def test_minimize_is_canonical():
    rng = np.random.default_rng(5)
    for _ in range(20):
        d = random_dfa(rng)
        m = minimize(d)
        perm = rng.permutation(d.n_states)  # relabel states: q -> perm[q]
        table = np.empty_like(d.transitions)
        table[perm] = perm[d.transitions]
        acc = np.empty_like(d.accepting)
        acc[perm] = d.accepting
        p = minimize(DFA(table, int(perm[d.start]), acc, d.alphabet))
        assert np.array_equal(p.transitions, m.transitions)
        assert np.array_equal(p.accepting, m.accepting) and p.start == m.start == 0
        again = minimize(m)
        assert np.array_equal(again.transitions, m.transitions)


def test_minimize_empty_and_universal_languages():
    table = np.array([[1, 2], [0, 2], [2, 1]])
    none = DFA(table, 0, np.zeros(3, dtype=bool), ("a", "b"))
    assert state_counts(none) == {"states": 1, "live_states": 0}
    assert state_counts(complement(none)) == {"states": 1, "live_states": 1}


@pytest.mark.parametrize(("half", "alphabet"), [(0, 2), (1, 1), (1, 2), (2, 2), (3, 2), (2, 3)])
def test_equality_dfa_accepts_exactly_ww(half, alphabet):
    d = equality_dfa(half, alphabet)
    for length in range(2 * half + 2):
        words = all_words(alphabet, length)
        expect = is_equal_halves(words) if length == 2 * half else np.zeros(len(words), bool)
        assert np.array_equal(d.accepts(words), expect), length
    expected_states = sum(alphabet**t for t in range(half)) + sum(
        alphabet**r for r in range(half + 1)
    )
    assert d.n_states == expected_states + 1
    check_against_lib(d)


def test_equality_dfa_3_2_size_and_limit():
    assert state_counts(equality_dfa(3, 2)) == {"states": 23, "live_states": 22}
    with pytest.raises(InputError, match="more than 1000000 states, the limit"):
        equality_dfa(20, 2)


def test_finite_language_dfa():
    rng = np.random.default_rng(9)
    for _ in range(15):
        a = int(rng.integers(1, 4))
        words = {
            tuple(int(s) for s in rng.integers(0, a, size=int(rng.integers(0, 5))))
            for _ in range(int(rng.integers(0, 12)))
        }
        d = finite_language_dfa(words, a)
        for length in range(6):
            cand = all_words(a, length)
            expect = [tuple(w) in words for w in cand.tolist()]
            assert np.array_equal(d.accepts(cand), expect)
        check_against_lib(d)
    # the same language as equality_dfa gives the same canonical table
    ww = [tuple(w) + tuple(w) for w in all_words(3, 2).tolist()]
    f, e = finite_language_dfa(ww, 3), equality_dfa(2, 3)
    assert np.array_equal(f.transitions, e.transitions)
    assert np.array_equal(f.accepting, e.accepting)
    with pytest.raises(InputError, match="0..1"):
        finite_language_dfa([(0, 2)], 2)


def test_inequality_dfa_is_ineq_on_exact_length():
    d = inequality_dfa(3, 2)
    for length in range(9):
        words = all_words(2, length)
        expect = is_unequal_halves(words) if length == 6 else np.zeros(len(words), bool)
        assert np.array_equal(d.accepts(words), expect)


def test_residual_counts_known_ineq_values():
    assert residual_counts(inequality_dfa(4, 2), 8) == [1, 2, 4, 8, 16, 9, 5, 3, 2]
    assert residual_counts(inequality_dfa(6, 2), 12) == [1, 2, 4, 8, 16, 32, 64, 33, 17, 9, 5, 3, 2]
    # the un-restricted complement of EQ gives the same exact-length residuals
    assert residual_counts(complement(equality_dfa(4, 2)), 8) == [1, 2, 4, 8, 16, 9, 5, 3, 2]


def brute_residuals(member: np.ndarray, alphabet: int, length: int) -> list[int]:
    """Distinct rows of the (prefix, suffix) membership table, for each split point t."""
    return [
        len(np.unique(member.reshape(alphabet**t, alphabet ** (length - t)), axis=0))
        for t in range(length + 1)
    ]


def test_residual_counts_vs_brute_force():
    rng = np.random.default_rng(31)
    for _ in range(25):
        d = random_dfa(rng)
        length = int(rng.integers(0, 7))
        member = d.accepts(all_words(d.alphabet_size, length))
        assert residual_counts(d, length) == brute_residuals(member, d.alphabet_size, length)
    member = is_unequal_halves(all_words(3, 6))
    assert residual_counts(inequality_dfa(3, 3), 6) == brute_residuals(member, 3, 6)
    dyck = dyck_dfa(2, 2)
    member = dyck.accepts(all_words(4, 8))
    assert residual_counts(dyck, 8) == brute_residuals(member, 4, 8)


def test_exact_length_and_limits():
    d = exact_length(dyck_dfa(2, 2), 4)
    words = all_words(4, 4)
    assert d.accepts(words).sum() == 8
    assert not d.accepts(all_words(4, 2)).any()
    with pytest.raises(InputError, match="limit"):
        exact_length(dyck_dfa(2, 2), 200_000)
    with pytest.raises(InputError, match="limit"):
        residual_counts(dyck_dfa(2, 2), 10**8)


def kg_member(kg: MatchingKG, word: np.ndarray) -> bool:
    """e r_1 .. r_q a with a the answer, from the definition (symbols: entities, then relations)."""
    e = kg.entities
    if len(word) < 2 or word[0] >= e or word[-1] >= e or (word[1:-1] < e).any():
        return False
    return kg.answer(word[:1], (word[None, 1:-1] - e))[0] == word[-1]


@pytest.mark.parametrize("hops", [None, 2])
def test_kg_query_dfa_is_the_query_language_and_minimal(hops):
    kg = MatchingKG.generate(4, 2, seed=5)
    dfa = kg_query_dfa(kg, hops)
    for length in range(6):
        words = all_words(6, length)
        member = [kg_member(kg, w) and (hops is None or length == hops + 2) for w in words]
        assert dfa.accepts(words).tolist() == member
    check_against_lib(dfa)  # automata-lib minimises to the same count
    expected = 4 + 3 if hops is None else (hops + 1) * 4 + 3
    assert state_counts(dfa) == {"states": expected, "live_states": expected - 1}


def test_kg_query_dfa_counts_do_not_depend_on_the_graph():
    cycle = np.roll(np.arange(6), 1)  # one orbit
    split = np.array([1, 0, 3, 2, 5, 4])  # three orbits of size 2
    for perms in (np.stack([cycle]), np.stack([split, split])):
        assert state_counts(kg_query_dfa(MatchingKG(perms)))["states"] == 6 + 3
    with pytest.raises(InputError, match="the limit is 4194304 entries"):
        kg_query_dfa(MatchingKG.generate(4096, 2))
