"""Matching knowledge graphs: permutations, growth, answers, coverage, distinct products and the
token format, against brute force (dictionaries of triples, explicit matrix products)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.kg import (
    MatchingKG,
    QueryVocabulary,
    covered,
    distinct_products,
    parse_queries,
    query_length,
    query_tokens,
    token_codes,
)


def test_generated_graph_is_matching_seeded_and_grows_in_place():
    kg = MatchingKG.generate(16, 5, seed=3)
    assert (kg.entities, kg.relations, kg.n_triples) == (16, 5, 80)
    for row in kg.permutations:  # every relation one-to-one: a permutation
        assert sorted(row.tolist()) == list(range(16))
    assert np.array_equal(kg.permutations, MatchingKG.generate(16, 5, seed=3).permutations)
    assert not np.array_equal(kg.permutations, MatchingKG.generate(16, 5, seed=4).permutations)
    grown = kg.with_relations(9)
    assert np.array_equal(grown.permutations[:5], kg.permutations)  # old relations unchanged
    assert np.array_equal(grown.permutations, MatchingKG.generate(16, 9, seed=3).permutations)
    assert np.array_equal(kg.with_relations(2).permutations, kg.permutations[:2])
    given = MatchingKG(kg.permutations, 3)  # given explicitly, with the seed that made it
    assert np.array_equal(given.with_relations(9).permutations, grown.permutations)
    assert kg.sha256() == MatchingKG.generate(16, 5, seed=3).sha256() != grown.sha256()


def test_triples_and_answers_match_a_dictionary_walk():
    kg = MatchingKG.generate(7, 3, seed=1)
    triples = kg.triples()
    assert triples.shape == (21, 3)
    tail = {(int(h), int(r)): int(t) for h, r, t in triples}
    assert len(tail) == 21 and len({(r, t) for (_, r), t in tail.items()}) == 21  # injective
    words = np.array(list(itertools.product(range(3), repeat=3)))
    starts = np.arange(7).repeat(len(words))
    rels = np.tile(words, (7, 1))
    expected = []
    for e, w in zip(starts, rels, strict=True):
        here = int(e)
        for r in w:
            here = tail[here, int(r)]
        expected.append(here)
    assert kg.answer(starts, rels).tolist() == expected
    # the matrix form of App. B.6: e^T P_{r1} P_{r2} P_{r3}
    mats = [np.eye(7, dtype=int)[kg.permutations[r]] for r in range(3)]
    for e, w in [(0, (2, 1, 0)), (5, (1, 1, 2))]:
        onehot = np.eye(7, dtype=int)[e] @ mats[w[0]] @ mats[w[1]] @ mats[w[2]]
        assert int(np.flatnonzero(onehot)[0]) == kg.answer(np.array([e]), np.array([w]))[0]


def test_coverage_of_queries():
    kg = MatchingKG.generate(4, 2, seed=0)
    starts, rels = np.array([0, 1]), np.array([[0, 1], [1, 1]])
    used = covered(kg, starts, rels)
    mid0, mid1 = kg.permutations[0, 0], kg.permutations[1, 1]
    expected = {(0, 0), (int(mid0), 1), (1, 1), (int(mid1), 1)}
    assert {tuple(x) for x in np.argwhere(used).tolist()} == expected


def brute_distinct(kg: MatchingKG, k: int) -> int:
    products = set()
    for word in itertools.product(range(kg.relations), repeat=k):
        perm = np.arange(kg.entities)
        for r in word:
            perm = kg.permutations[r][perm]
        products.add(tuple(perm.tolist()))
    return len(products)


@pytest.mark.parametrize(("entities", "relations", "hops"), [(5, 3, 4), (3, 4, 3), (6, 2, 6)])
def test_distinct_products_against_brute_force(entities, relations, hops):
    kg = MatchingKG.generate(entities, relations, seed=2)
    assert distinct_products(kg, hops) == [brute_distinct(kg, k) for k in range(1, hops + 1)]


def test_distinct_products_see_commuting_and_repeated_relations():
    cycle = np.roll(np.arange(6), 1)  # powers of one 6-cycle commute: P_u depends on counts only
    kg = MatchingKG(np.stack([cycle, cycle[cycle], np.arange(6)]))
    assert distinct_products(kg, 3) == [3, 5, 6]  # exponents 0..2k mod 6
    # the spec's check for the paper's graph size: all R^q products distinct for random graphs
    assert distinct_products(MatchingKG.generate(128, 8, 0), 4) == [8, 64, 512, 4096]


def test_token_format_of_eq_11():
    vocab = QueryVocabulary(entities=5, relations=3, hops=2)
    assert (vocab.size, vocab.code_bits, query_length(2)) == (11, 4, 7)
    names = vocab.names()
    tokens = query_tokens(vocab, np.array([1]), np.array([[2, 0]]))
    assert [names[t] for t in tokens[0]] == ["e1", "r2", "y1", "and", "y1", "r0", "y2"]
    starts, rels = parse_queries(vocab, tokens)
    assert starts.tolist() == [1] and rels.tolist() == [[2, 0]]
    one_hop = query_tokens(vocab, np.array([4]), np.array([[1]]))
    assert [names[t] for t in one_hop[0]] == ["e4", "r1", "y1"]
    bad = tokens.copy()
    bad[0, 4] = vocab.first_variable + 1  # the second pattern must start with y1
    with pytest.raises(InputError, match="row 0 is not a 2-hop path query"):
        parse_queries(vocab, bad)


def test_token_codes_are_distinct_pm1_msb_first():
    codes = token_codes(41)
    assert codes.shape == (41, 6) and set(np.unique(codes)) == {-1, 1}
    assert len({tuple(c) for c in codes.tolist()}) == 41
    assert codes[5].tolist() == [-1, -1, -1, 1, -1, 1]  # 5 = 000101


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: MatchingKG(np.array([[0, 0, 1]])), "relation 0 is not a permutation"),
        (lambda: MatchingKG.generate(0, 2), "entities must be an integer >= 1"),
        (lambda: MatchingKG.generate(1 << 17, 1), "limited to 65536 entities"),
        (lambda: MatchingKG(np.array([[1, 0]])).with_relations(3), "only a generated graph"),
        (
            # a seed that did not generate these relations: growing would change them
            lambda: MatchingKG(MatchingKG.generate(9, 2, seed=1).permutations, 2).with_relations(3),
            "not the ones seed 2 generates",
        ),
        (
            lambda: MatchingKG.generate(3, 2).answer(np.array([3]), np.array([[0]])),
            "start entities must lie in 0..2",
        ),
        (
            lambda: distinct_products(MatchingKG.generate(64, 16), 6),
            "products of length 5 could form",
        ),
    ],
)
def test_bad_input_is_one_line(call, message):
    with pytest.raises(InputError, match=message) as err:
        call()
    assert "\n" not in str(err.value)
