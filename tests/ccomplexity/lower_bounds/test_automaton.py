"""Bounds from an automaton, checked against brute force over every word: one-way bits at every
cut, the maximum fooling set under prefix:K, the witness words (also at lengths where the walk
goes a period at a time), and the automaton of a function built from its values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import problems
from ccomplexity.automata import DFA
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import automaton as au
from ccomplexity.lower_bounds import max_fooling_set, one_way_bits

# "contains a b a" over {a, b}: states nothing, a, ab, aba (absorbing)
CONTAINS_ABA = DFA(
    np.array([[1, 0], [1, 2], [3, 0], [3, 3]]),
    0,
    np.array([False, False, False, True]),
    ("a", "b"),
)


def random_dfas(count: int, seed: int, most_states: int = 6):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q, a = int(rng.integers(1, most_states + 1)), int(rng.integers(1, 4))
        yield DFA(rng.integers(0, q, (q, a)), 0, rng.random(q) < 0.5, tuple("abc"[:a]))


def problem_of(dfa: DFA, length: int, cut: int) -> problems.TwoPartyProblem:
    part = problems.Partition.parse(f"prefix:{cut}", length)
    return problems.string_problem("x", {}, dfa.accepts, dfa.alphabet_size, length, part)


def expand(runs: list[tuple[int, int, int]]) -> dict[int, int]:
    return {k: c for lo, hi, c in runs for k in range(lo, hi + 1)}


def test_contains_aba_at_every_cut_and_a_million():
    machine = au.Machine.from_dfa(CONTAINS_ABA)
    # after one symbol: a or nothing; after two: nothing, a or ab; then all four states;
    # with one symbol left "nothing" and "a" are alike (no symbol completes a b a)
    assert au.one_way_runs(machine, 10**6) == [
        (1, 1, 2),
        (2, 2, 3),
        (3, 999_998, 4),
        (999_999, 999_999, 3),
    ]
    for n in range(2, 9):
        per = expand(au.one_way_runs(machine, n))
        for k in range(1, n):
            assert per[k] == one_way_bits(problem_of(CONTAINS_ABA, n, k)).distinct_rows


def test_random_automata_agree_with_the_matrix():
    for dfa in random_dfas(15, seed=0):
        machine = au.Machine.from_dfa(dfa)
        for n in range(2, 6):
            per = expand(au.one_way_runs(machine, n))
            assert sorted(per) == list(range(1, n))
            for k in range(1, n):
                prob = problem_of(dfa, n, k)
                assert per[k] == one_way_bits(prob).distinct_rows
                split = au.split_at(machine, n, k)
                found = au.max_fooling_at(split)
                assert found.exact and len(found.prefixes) == max_fooling_set(prob).size
                words = np.concatenate([np.array(found.prefixes), np.array(found.suffixes)], 1)
                assert (dfa.accepts(words) == found.value).all()


def test_the_witness_words_at_lengths_walked_a_period_at_a_time():
    rng = np.random.default_rng(1)
    for dfa in random_dfas(20, seed=2, most_states=8):
        machine = au.Machine.from_dfa(dfa)
        n = int(rng.integers(50, 400))
        k = int(rng.integers(1, n))
        split = au.split_at(machine, n, k)
        for i, state in enumerate(split.classes):
            prefix = split.prefix(i)
            end = np.array([machine.start])
            for s in prefix:
                end = machine.table[end, s]
            assert len(prefix) == k and end[0] == state
        for j in range(split.matrix.shape[1]):
            suffix = split.suffix(j)
            ends = split.classes.copy()
            for s in suffix:
                ends = machine.table[ends, s]
            assert len(suffix) == n - k
            assert (machine.output[ends] == split.matrix[:, j]).all()
        xs, ys = au.one_way_witness(split)
        rows = {tuple(machine.run(np.array([np.concatenate([x, y]) for y in ys]))) for x in xs}
        assert len(rows) == len(xs) == len(split.classes)


def test_a_long_period_is_walked_exactly():
    """A cycle of 7 states: reachable sets repeat with period 7, words of 10^5 symbols."""
    table = np.array([[(q + 1) % 7, q] for q in range(7)])
    dfa = DFA(table, 0, np.arange(7) == 3, ("a", "b"))
    machine = au.Machine.from_dfa(dfa)
    split = au.split_at(machine, 100_003, 50_001)
    found = au.max_fooling_at(split)
    words = np.concatenate([np.array(found.prefixes), np.array(found.suffixes)], axis=1)
    assert words.shape[1] == 100_003 and (dfa.accepts(words) == found.value).all()
    assert len(found.prefixes) == 7  # seven residues mod 7, each completed to 3 in one way


def test_the_automaton_of_a_function_is_its_minimal_one():
    for dfa in random_dfas(10, seed=3):
        for n in (1, 3, 5):
            made = au.function_machine(lambda w, d=dfa: d.accepts(w), dfa.alphabet_size, n)
            words = np.array(list(itertools.product(range(dfa.alphabet_size), repeat=n)))
            assert (made.run(words) == dfa.accepts(words)).all()
            if n >= 2:
                runs = au.one_way_runs(made, n)
                assert runs == au.one_way_runs(au.Machine.from_dfa(dfa), n)


def test_labels_and_many_symbols():
    """Three symbols, four labels (count of the symbol 2, capped at 3)."""

    def count_twos(words):
        return np.minimum((words == 2).sum(axis=1), 3)

    made = au.function_machine(count_twos, 3, 5)
    for k, rows in expand(au.one_way_runs(made, 5)).items():
        part = problems.Partition.parse(f"prefix:{k}", 5)
        prob = problems.string_problem("x", {}, count_twos, 3, 5, part)
        assert rows == one_way_bits(prob).distinct_rows
        found = au.max_fooling_at(au.split_at(made, 5, k))
        assert len(found.prefixes) == max_fooling_set(prob).size


def test_bad_cuts_and_a_refused_price():
    machine = au.Machine.from_dfa(CONTAINS_ABA)
    with pytest.raises(InputError, match="1 <= K < length"):
        au.split_at(machine, 5, 5)
    with pytest.raises(InputError, match="length >= 2"):
        au.one_way_runs(machine, 1)
    big = au.Machine(np.zeros((1 << 16, 4), dtype=np.int64), 0, np.zeros(1 << 16, np.int64))
    with pytest.raises(InputError, match="budget"):
        au.price(big, 1 << 20, "test")
