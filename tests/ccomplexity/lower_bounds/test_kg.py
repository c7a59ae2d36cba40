"""The path-query split: the kg two-party problem, its exact one-way complexity and fooling set,
checked against the dense matrix, SAT and rank, and certified."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from ccomplexity import certificates, lower_bounds, problems, verifier
from ccomplexity.errors import InputError
from ccomplexity.languages.kg import MatchingKG


def test_problem_matches_the_oracle_on_every_cell():
    e, r, q, k = 5, 3, 3, 1
    problem = problems.kg_query(e, r, q, k, seed=2)
    graph = MatchingKG.generate(e, r, 2)
    m = problem.matrix()
    assert m.shape == (e * r**k, r ** (q - k) * e)
    for row, col in itertools.product(range(m.shape[0]), range(m.shape[1])):
        start, first = divmod(row, r**k)
        rest, candidate = divmod(col, e)
        word = [first, *np.unravel_index(rest, (r,) * (q - k))]
        answer = graph.answer(np.array([start]), np.array([word]))[0]
        assert m[row, col] == (candidate == answer)
    assert (m.sum(axis=1) == r ** (q - k)).all()  # one answer per completed query


@pytest.mark.parametrize(
    ("e", "r", "q", "k"), [(6, 2, 3, 0), (6, 2, 3, 2), (4, 3, 2, 1), (7, 2, 4, 4)]
)
def test_one_way_is_ceil_log2_e_and_the_fooling_set_is_maximum(e, r, q, k):
    problem = problems.kg_query(e, r, q, k, seed=1)
    dense = lower_bounds.one_way_bits(problem)
    symbolic = lower_bounds.one_way_bits_kg(problem)
    assert dense.distinct_rows == symbolic.distinct_rows == e
    assert dense.bits == symbolic.bits == int(np.ceil(np.log2(e)))
    assert lower_bounds.check_one_way_witness(problem, symbolic.rows, symbolic.cols)
    found = lower_bounds.kg_fooling_set(problem)
    check = lower_bounds.verify_fooling_set(problem, found.rows, found.cols, found.value)
    assert check.valid and check.size == e
    if problem.n_rows * problem.n_cols <= 4096:
        assert lower_bounds.max_fooling_set(problem.matrix()).size == e  # nothing larger exists
    assert lower_bounds.rank_mod_p(problem.matrix()).rank == e


def test_fooling_certificate_verifies_and_tampering_fails(tmp_path):
    problem = problems.kg_query(40, 4, 5, 2, seed=0)
    found = lower_bounds.kg_fooling_set(problem)
    cert = certificates.fooling_set_certificate(problem, found.rows, found.cols, found.value)
    path = certificates.write_certificate(cert, tmp_path / "kg.json")
    verdict = verifier.verify_file(path)
    assert verdict.valid and verdict.claimed_bits == 6
    other_graph = copy.deepcopy(cert)
    other_graph["problem"]["graph_sha256"] = "0" * 64
    assert "not the one certified" in verifier.verify(other_graph).reason
    wrong_answer = copy.deepcopy(cert)
    x, y = wrong_answer["witness"]["pairs"][0]
    wrong_answer["witness"]["pairs"][0] = [x, [y[0] ^ 1]]  # another candidate answer
    assert not verifier.verify(wrong_answer).valid
    seeded = copy.deepcopy(cert)
    seeded["problem"]["seed"] = 1  # another graph: its hash differs
    assert not verifier.verify(seeded).valid


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cut": 4}, "--cut K needs 0 <= K <= hops"),
        ({"entities": 1}, "--entities must be an integer >= 2"),
        ({"hops": 40, "relations": 8}, "reach 2\\^62, the limit"),
    ],
)
def test_bad_problem_input(kwargs, message):
    args = {"entities": 8, "relations": 2, "hops": 3, "cut": 1, **kwargs}
    with pytest.raises(InputError, match=message):
        problems.make("kg", **args)
    with pytest.raises(InputError, match="needs --entities"):
        problems.make("kg", relations=2)
