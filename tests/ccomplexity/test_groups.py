"""Finite groups: group axioms, orders and solvability against sympy, the word problem's DFA and
fooling set."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccomplexity.automata import minimize, state_counts
from ccomplexity.errors import InputError
from ccomplexity.groups import (
    canonical_name,
    get_group,
    group_order,
    word_problem_dfa,
)
from ccomplexity.lower_bounds import one_way_bits, verify_fooling_set, word_problem_fooling_set
from ccomplexity.problems import group_word

NAMES = ["Z1", "Z2", "Z6", "S1", "S3", "S4", "A4", "A5", "S5", "D3", "D4", "D6", "A6"]


@pytest.mark.parametrize("name", NAMES)
def test_group_axioms(name):
    g = get_group(name)
    t, e = g.table, g.identity
    assert g.order == group_order(name) == len({tuple(p) for p in g.perms.tolist()})
    assert (t[e] == np.arange(g.order)).all() and (t[:, e] == np.arange(g.order)).all()
    assert (t[g.inverse, np.arange(g.order)] == e).all()
    assert all(sorted(row) == list(range(g.order)) for row in t.tolist())  # Latin square
    a, b, c = np.random.default_rng(0).integers(0, g.order, (3, 3000))
    assert (t[t[a, b], c] == t[a, t[b, c]]).all()
    perms = g.perms
    assert (perms[t[a, b]] == np.take_along_axis(perms[a], perms[b], axis=1)).all()  # a(b(x))


@pytest.mark.parametrize(
    ("name", "family", "k"),
    [
        ("S3", "SymmetricGroup", 3),
        ("S4", "SymmetricGroup", 4),
        ("S5", "SymmetricGroup", 5),
        ("A4", "AlternatingGroup", 4),
        ("A5", "AlternatingGroup", 5),
        ("D4", "DihedralGroup", 4),
        ("D5", "DihedralGroup", 5),
        ("Z6", "CyclicGroup", 6),
        ("A6", "AlternatingGroup", 6),
    ],
)
def test_orders_and_solvability_agree_with_sympy(name, family, k):
    named_groups = pytest.importorskip("sympy.combinatorics.named_groups")
    reference = getattr(named_groups, family)(k)
    g = get_group(name)
    assert g.order == reference.order()
    assert g.is_solvable() == reference.is_solvable
    assert g.is_abelian() == reference.is_abelian


def test_known_facts():
    assert get_group("S5").derived_series() == [120, 60]  # A5 is perfect
    assert get_group("S4").derived_series() == [24, 12, 4, 1]
    assert group_order("S40") == math.factorial(40)
    assert get_group("S5").element_name(0) == "e" and canonical_name(" A5 ") == "A5"


@pytest.mark.parametrize("bad", ["Q8", "S0", "D2", "S41", "", 5, "s5"])
def test_bad_names_are_refused(bad):
    with pytest.raises(InputError):
        group_order(bad)


def test_tables_have_a_size_limit():
    assert group_order("S7") == 5040
    with pytest.raises(InputError, match="at most 720"):
        get_group("S7")


def test_compose_against_a_python_loop():
    g = get_group("S4")
    words = np.random.default_rng(1).integers(0, g.order, (50, 9))
    for row, got in zip(words, g.compose(words), strict=True):
        perm = list(range(4))
        for x in row:  # (a ∘ b)(i) = a(b(i)), composed left to right
            perm = [perm[int(g.perms[x][i])] for i in range(4)]
        assert list(g.perms[got]) == perm
    assert g.compose(np.zeros((2, 0), dtype=int)).tolist() == [0, 0]


@pytest.mark.parametrize("name", ["Z2", "S3", "D4", "A5", "S5"])
def test_word_problem_dfa_is_minimal_with_order_states(name):
    g = get_group(name)
    dfa = word_problem_dfa(g)
    assert state_counts(minimize(dfa)) == {"states": g.order, "live_states": g.order}
    words = np.random.default_rng(2).integers(0, g.order, (200, 7))
    assert (dfa.accepts(words) == (g.compose(words) == 0)).all()


@pytest.mark.parametrize(("name", "n"), [("Z2", 6), ("S3", 4), ("D4", 3)])
def test_fooling_set_and_one_way_bits_at_every_cut(name, n):
    g = get_group(name)
    for cut in range(1, n):
        problem = group_word(g, n, cut)
        found = word_problem_fooling_set(g, n, cut)
        check = verify_fooling_set(problem, found.rows, found.cols, found.value)
        assert check.valid and check.size == g.order
        assert one_way_bits(problem).distinct_rows == g.order  # Alice's product, nothing less
