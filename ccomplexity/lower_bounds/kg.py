"""The path-query split (layer-looping paper's task, toolkit extension; spec looping-kg-moe E):
Alice holds the start entity and the first K relations, Bob the other relations and a candidate
answer (:func:`ccomplexity.problems.kg_query`).

Alice's row depends only on the entity u her half reaches (Bob accepts iff pi_{w_B}(u) = a), so
there are at most E distinct rows; and the E inputs (e, r_0^K) reach E distinct entities, whose
rows differ on Bob's inputs (r_0^(q-K), a): the E x E submatrix there is a permutation matrix.
Hence exactly E rows, D^{A->B} = ceil(log2 E) for every matching graph, every q and every cut,
without the E^2 R^q matrix. The same E pairs (x_e, y_e) with y_e's candidate the answer of x_e
form a fooling set of value 1 (pi is one-to-one, so f(x_e, y_e') = 0 for e != e'): even two-way
protocols need ceil(log2 E) bits. A model that reads the query left to right must carry the
current entity across the cut.
"""

from __future__ import annotations

import numpy as np

from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.kg import MatchingKG
from ccomplexity.lower_bounds.fooling import FoolingSet
from ccomplexity.lower_bounds.one_way import OneWayResult
from ccomplexity.problems import TwoPartyProblem


def _graph(problem: TwoPartyProblem) -> tuple[MatchingKG, int, int]:
    if problem.name != "kg":
        raise InputError(f"this witness is for the kg problem, not {problem.name}")
    p = problem.params
    graph = MatchingKG.generate(int(p["entities"]), int(p["relations"]), int(p["seed"]))
    return graph, int(p["hops"]), int(p["cut"])


def kg_fooling_set(problem: TwoPartyProblem) -> FoolingSet:
    """E pairs ((e, r_0^K), (r_0^(q-K), answer)), value 1; rows e R^K, columns the answers."""
    graph, q, k = _graph(problem)
    starts = np.arange(graph.entities)
    answers = graph.answer(starts, np.zeros((graph.entities, q), dtype=np.int64))
    return FoolingSet(problem, starts * graph.relations**k, answers, 1)


def one_way_bits_kg(problem: TwoPartyProblem) -> OneWayResult:
    """Exactly E distinct rows (module docstring); the witness: Alice's inputs (e, r_0^K) and
    Bob's (r_0^(q-K), a) for every entity a."""
    graph, _, k = _graph(problem)
    e = graph.entities
    rows = tuple(int(x) for x in np.arange(e) * graph.relations**k)
    return OneWayResult(e, ceil_log2(e), rows, tuple(range(e)), "symbolic")
