"""Matching knowledge graphs pinned: the entity and triple limits at, below and above them,
the permutation table's checks and messages, the seeded relations, answers and coverage against
a dictionary walk, the product-work refusal at its edge, and the token format's vocabulary,
lengths and parser at every boundary."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import kg as kgmod
from ccomplexity.languages.kg import (
    MatchingKG,
    QueryVocabulary,
    check_graph_size,
    check_product_work,
    covered,
    parse_queries,
    query_length,
    query_tokens,
    token_codes,
)

LIMITED = r"^a graph is limited to 65536 entities and 16777216 triples, got "


def test_graph_size_limits_at_and_above() -> None:
    assert (kgmod.TRIPLE_LIMIT, kgmod.PRODUCT_WORK_LIMIT) == (1 << 24, 1 << 25)
    assert check_graph_size(1 << 16, 1) == (65536, 1)
    assert check_graph_size(1 << 12, 1 << 12) == (4096, 4096)  # exactly 2^24 triples
    with pytest.raises(InputError, match=LIMITED + r"E = 65537, T = 65537$"):
        check_graph_size((1 << 16) + 1, 1)
    with pytest.raises(InputError, match=LIMITED + r"E = 4096, T = 16781312$"):
        check_graph_size(1 << 12, (1 << 12) + 1)
    with pytest.raises(InputError, match=r"^entities must be an integer >= 1, got 0$"):
        check_graph_size(0, 1)
    with pytest.raises(InputError, match=r"^relations must be an integer >= 1, got 0$"):
        check_graph_size(1, 0)


def test_permutation_table_checks() -> None:
    assert MatchingKG(np.arange(1 << 16)[None]).entities == 65536
    with pytest.raises(InputError, match=LIMITED + r"E = 65537, T = 65537$"):
        MatchingKG(np.arange((1 << 16) + 1)[None])
    wide = np.broadcast_to(np.arange(256, dtype=np.uint8), ((1 << 16) + 1, 256))
    with pytest.raises(InputError, match=LIMITED + r"E = 256, T = 16777472$"):
        MatchingKG(wide)
    shape = r"^permutations must be a non-empty \(R, E\) table, got "
    with pytest.raises(InputError, match=shape + r"\(0, 3\)$"):
        MatchingKG(np.zeros((0, 3), dtype=int))
    with pytest.raises(InputError, match=shape + r"\(2, 0\)$"):
        MatchingKG(np.zeros((2, 0), dtype=int))
    with pytest.raises(InputError, match=shape + r"\(3,\)$"):
        MatchingKG(np.arange(3))
    with pytest.raises(InputError, match=r"^permutations must hold integer entity ids$"):
        MatchingKG(np.array([[0.0, 1.0]]))
    with pytest.raises(InputError, match=r"^relation 1 is not a permutation of the 3 entities$"):
        MatchingKG(np.array([[2, 0, 1], [0, 1, 3], [1, 1, 0]]))
    at = np.broadcast_to(np.arange(256, dtype=np.uint8), (1 << 16, 256))  # exactly 2^24 triples
    assert MatchingKG(at).n_triples == 1 << 24
    assert MatchingKG(np.array([[0], [0]])).entities == 1  # one entity: the identity
    g = MatchingKG(np.array([[1, 0]], dtype=np.uint8))
    assert g.permutations.dtype == np.int64 and not g.permutations.flags.writeable
    assert g.seed is None and (g.entities, g.relations, g.n_triples) == (2, 1, 2)


def test_generate_is_pinned_to_the_seed_and_grows() -> None:
    g = MatchingKG.generate(6, 3, seed=5)
    for r in range(3):
        expected = np.random.default_rng([5, r]).permutation(6)
        assert g.permutations[r].tolist() == expected.tolist()
    assert g.seed == 5 and MatchingKG.generate(6, 3).seed == 0
    assert np.array_equal(g.with_relations(3).permutations, g.permutations)
    assert g.with_relations(1).seed == 5
    with pytest.raises(InputError, match=r"^relations must be an integer >= 1, got 0$"):
        g.with_relations(0)
    with pytest.raises(InputError, match=r"^only a generated graph \(with a seed\) can grow$"):
        MatchingKG(np.array([[1, 0]])).with_relations(1)
    with pytest.raises(InputError, match=r"^seed must be an integer >= 0, got -1$"):
        MatchingKG.generate(6, 3, seed=-1)


def test_triples_answers_and_coverage_exactly() -> None:
    g = MatchingKG(np.array([[1, 2, 0], [0, 2, 1]]))
    assert g.triples().tolist() == [
        [0, 0, 1],
        [0, 1, 0],
        [1, 0, 2],
        [1, 1, 2],
        [2, 0, 0],
        [2, 1, 1],
    ]
    starts, rels = np.array([0, 2, 1]), np.array([[0, 0], [1, 0], [1, 1]])
    assert g.answer(starts, rels).tolist() == [2, 2, 1]
    assert g.answer(np.array([2]), np.zeros((1, 0), dtype=int)).tolist() == [2]
    assert g.answer(np.zeros(0, dtype=int), np.zeros((0, 2), dtype=int)).shape == (0,)
    none = g.answer(np.array([2], dtype=np.uint8), np.zeros((1, 0), dtype=np.uint8))
    assert none.dtype == np.int64 and none.tolist() == [2]  # ids are read as int64
    assert g.answer(np.array([0.0]), np.array([[1.0, 0.0]])).tolist() == [1]
    assert not covered(g, np.zeros(0, dtype=int), np.zeros((0, 2), dtype=int)).any()
    used = covered(g, starts, rels)
    assert np.argwhere(used).tolist() == [[0, 0], [1, 0], [1, 1], [2, 1]]
    with pytest.raises(InputError, match=r"^relations must be \(3, q\), got shape \(3,\)$"):
        g.answer(starts, np.array([0, 1, 1]))
    with pytest.raises(InputError, match=r"^relations must be \(3, q\), got shape \(2, 1\)$"):
        g.answer(starts, np.array([[0], [1]]))
    with pytest.raises(InputError, match=r"^start entities must lie in 0\.\.2$"):
        g.answer(np.array([-1]), np.array([[0]]))
    with pytest.raises(InputError, match=r"^start entities must lie in 0\.\.2$"):
        covered(g, np.array([3]), np.array([[0]]))
    for bad in (-1, 2):
        with pytest.raises(InputError, match=r"^relations must lie in 0\.\.1$"):
            g.answer(np.array([0]), np.array([[bad]]))
    assert g.sha256() == MatchingKG(np.array([[1, 2, 0], [0, 2, 1]], dtype=np.int8)).sha256()
    assert g.sha256() != MatchingKG(np.array([[1, 2, 0], [0, 1, 2]])).sha256()


def test_product_work_at_and_above_the_limit() -> None:
    check_product_work(2, 1 << 23, 3)  # lengths 2 and 3: 2! x 2^23 x 2 = 2^25 entries, allowed
    with pytest.raises(
        InputError,
        match=r"^products of length 2 could form 2 x 8388609 x 2 entries; the limit is 33554432: "
        r"use fewer hops, relations or entities$",
    ):
        check_product_work(2, (1 << 23) + 1, 2)
    check_product_work(2, (1 << 23) + 1, 1)  # length 1 alone: 1 x R x E is under
    check_product_work(2, 1 << 24, 1)  # length 1: 1 x 2^24 x 2 = 2^25, at the limit
    with pytest.raises(InputError, match=r"^products of length 1 could form 1 x 16777217 x 2 "):
        check_product_work(2, (1 << 24) + 1, 1)
    check_product_work(64, 8, 4)  # 8^3 x 8 x 64 = 2^18
    check_product_work(512, 16, 4)  # 16^3 x 16 x 512 = 2^25 exactly
    with pytest.raises(InputError, match=r"^products of length 4 could form 4096 x 16 x 513 "):
        check_product_work(513, 16, 4)
    check_product_work(4, 1 << 18, 4)  # bounded by 4! = 24 products: 24 x 2^18 x 4 < 2^25
    with pytest.raises(InputError, match=r"could form 24 x 524288 x 4 entries"):
        check_product_work(4, 1 << 19, 4)
    with pytest.raises(InputError, match=r"^hops must be an integer in 1\.\.4096, got 0$"):
        check_product_work(4, 4, 0)
    assert math.factorial(20) > kgmod.PRODUCT_WORK_LIMIT


def test_vocabulary_ids_and_code_bits() -> None:
    v = QueryVocabulary(entities=1, relations=1, hops=1)
    assert (v.and_token, v.first_variable, v.first_relation, v.size, v.code_bits) == (
        1,
        2,
        3,
        4,
        2,
    )
    assert v.names() == ["e0", "and", "y1", "r0"]
    eight = QueryVocabulary(entities=4, relations=2, hops=1)
    assert (eight.size, eight.code_bits) == (8, 3)
    nine = QueryVocabulary(entities=4, relations=3, hops=1)
    assert (nine.size, nine.code_bits) == (9, 4)
    big = QueryVocabulary(entities=3, relations=2, hops=2)
    assert big.names() == ["e0", "e1", "e2", "and", "y1", "y2", "r0", "r1"]
    with pytest.raises(InputError, match=r"^entities must be an integer in 1\.\.65536, got 0$"):
        QueryVocabulary(0, 1, 1)
    with pytest.raises(InputError, match=r"^relations must be an integer in 1\.\.16777216"):
        QueryVocabulary(1, 0, 1)
    with pytest.raises(InputError, match=r"^hops 4097 exceeds the limit of 4096"):
        QueryVocabulary(1, 1, 4097)


def test_query_tokens_and_parser_at_the_boundaries() -> None:
    assert [query_length(q) for q in (1, 2, 5)] == [3, 7, 19]
    with pytest.raises(InputError, match=r"^hops must be an integer in 1\.\.4096, got 0$"):
        query_length(0)
    v = QueryVocabulary(entities=3, relations=2, hops=3)  # e0..e2, and 3, y1..y3 4..6, r 7..8
    three = query_tokens(v, np.array([2]), np.array([[1, 0, 1]]))
    assert three.tolist() == [[2, 8, 4, 3, 4, 7, 5, 3, 5, 8, 6]]
    assert query_tokens(v, np.array([0]), np.array([[0]])).tolist() == [[0, 7, 4]]
    starts, rels = parse_queries(v, three)
    assert starts.tolist() == [2] and rels.tolist() == [[1, 0, 1]]
    starts, rels = parse_queries(v, three.astype(float))
    assert starts.dtype == np.int64 and rels.dtype == np.int64
    zero = query_tokens(v, np.array([0]), np.array([[0, 1]]))
    assert [r.tolist() for r in parse_queries(v, zero)] == [[0], [[0, 1]]]
    four = QueryVocabulary(entities=3, relations=2, hops=4)
    with pytest.raises(InputError, match=r"^queries must be \(B, 4q - 1\) tokens with q <= 4$"):
        parse_queries(four, np.zeros((1, 19), dtype=int))  # q = 5
    fmt = r"^relations must be \(1, q\) with 1 <= q <= 3$"
    for w in (np.zeros((1, 0), dtype=int), np.zeros((1, 4), dtype=int), np.zeros(1, dtype=int)):
        with pytest.raises(InputError, match=fmt):
            query_tokens(v, np.array([0]), w)
    with pytest.raises(InputError, match=r"^start entities must lie in 0\.\.2$"):
        query_tokens(v, np.array([3]), np.array([[0]]))
    with pytest.raises(InputError, match=r"^relations must lie in 0\.\.1$"):
        query_tokens(v, np.array([0]), np.array([[2]]))
    shape = r"^queries must be \(B, 4q - 1\) tokens with q <= 3$"
    for width in (4, 15):
        with pytest.raises(InputError, match=shape):
            parse_queries(v, np.zeros((1, width), dtype=int))
    with pytest.raises(InputError, match=shape):
        parse_queries(v, np.zeros(3, dtype=int))
    for position, token in [(0, 3), (1, 9), (1, 6), (2, 5), (3, 4), (4, 5), (10, 5)]:
        bad = three.copy()
        bad[0, position] = token
        with pytest.raises(InputError, match=r"^row 0 is not a 3-hop path query in the Sec\. 4"):
            parse_queries(v, bad)
    two = np.concatenate([three, three])
    two[1, 0] = -1
    with pytest.raises(InputError, match=r"^row 1 is not a 3-hop path query"):
        parse_queries(v, two)


def test_token_codes_exactly() -> None:
    assert token_codes(1).tolist() == [[-1]]
    assert token_codes(2).tolist() == [[-1], [1]]
    assert token_codes(3).tolist() == [[-1, -1], [-1, 1], [1, -1]]
    assert token_codes(9).shape == (9, 4) and token_codes(8).shape == (8, 3)
    assert token_codes(4).dtype == np.int8
    with pytest.raises(InputError, match=r"^vocabulary size must be an integer >= 1, got 0$"):
        token_codes(0)
