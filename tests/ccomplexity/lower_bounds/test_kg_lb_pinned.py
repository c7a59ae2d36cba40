"""Pinned values of the path-query split's witnesses (ccomplexity.lower_bounds.kg): the E rows
(e, r_0^K) and the answers read off the seeded graph's permutations by hand, the fooling set
checked cell by cell on the dense matrix, ceil(log2 E) at and around powers of two, and the
refusal of other problems."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.languages.kg import MatchingKG
from ccomplexity.lower_bounds import kg


def walk_zero(graph: MatchingKG, start: int, hops: int) -> int:
    """The entity reached from ``start`` by relation 0 ``hops`` times."""
    e = start
    for _ in range(hops):
        e = int(graph.permutations[0, e])
    return e


CASES = [(5, 3, 3, 1, 2), (4, 2, 2, 0, 7), (6, 2, 3, 3, 1), (3, 4, 2, 2, 5), (9, 2, 2, 1, 3)]


@pytest.mark.parametrize(("e", "r", "q", "k", "seed"), CASES)
def test_fooling_set_by_hand(e: int, r: int, q: int, k: int, seed: int) -> None:
    problem = P.kg_query(e, r, q, k, seed=seed)
    graph = MatchingKG.generate(e, r, seed)
    found = kg.kg_fooling_set(problem)
    assert found.problem is problem and found.value == 1 and found.check is None
    assert found.rows.tolist() == [x * r**k for x in range(e)]
    assert found.cols.tolist() == [walk_zero(graph, x, q) for x in range(e)]
    m = problem.matrix()
    for i, (x, y) in enumerate(zip(found.rows, found.cols, strict=True)):
        assert m[x, y] == 1
        for j, (x2, y2) in enumerate(zip(found.rows, found.cols, strict=True)):
            if i != j:
                assert m[x, y2] == 0 or m[x2, y] == 0


@pytest.mark.parametrize(("e", "r", "q", "k", "seed"), CASES)
def test_one_way_witness_by_hand(e: int, r: int, q: int, k: int, seed: int) -> None:
    problem = P.kg_query(e, r, q, k, seed=seed)
    res = kg.one_way_bits_kg(problem)
    m = problem.matrix()
    distinct = len({tuple(row) for row in m.tolist()})
    assert res.distinct_rows == distinct == e
    assert res.rows == tuple(x * r**k for x in range(e))
    assert res.cols == tuple(range(e)) and res.method == "symbolic"
    sub = m[np.ix_(res.rows, res.cols)]
    assert len({tuple(row) for row in sub.tolist()}) == e  # a permutation matrix
    assert (sub.sum(axis=0) == 1).all() and (sub.sum(axis=1) == 1).all()


@pytest.mark.parametrize(("e", "bits"), [(2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4)])
def test_bits_are_ceil_log2_e(e: int, bits: int) -> None:
    problem = P.kg_query(e, 2, 2, 1, seed=0)
    assert kg.one_way_bits_kg(problem).bits == bits
    assert kg.kg_fooling_set(problem).bits == bits


def test_the_seed_is_the_problems() -> None:
    """Seeds 0 and 4 of E = 6, R = 2 give different relation-0 walks: the answers follow it."""
    a, b = P.kg_query(6, 2, 3, 1, seed=0), P.kg_query(6, 2, 3, 1, seed=4)
    ga, gb = MatchingKG.generate(6, 2, 0), MatchingKG.generate(6, 2, 4)
    want_a = [walk_zero(ga, x, 3) for x in range(6)]
    want_b = [walk_zero(gb, x, 3) for x in range(6)]
    assert want_a != want_b
    assert kg.kg_fooling_set(a).cols.tolist() == want_a
    assert kg.kg_fooling_set(b).cols.tolist() == want_b


def test_other_problems_are_refused() -> None:
    for make in (kg.kg_fooling_set, kg.one_way_bits_kg):
        with pytest.raises(InputError, match=r"^this witness is for the kg problem, not equality$"):
            make(P.equality(2))
        with pytest.raises(InputError, match=r"^this witness is for the kg problem, not dyck$"):
            make(P.dyck(1, 1, 2, "prefix:1"))
