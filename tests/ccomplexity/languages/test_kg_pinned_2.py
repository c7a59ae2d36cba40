"""Matching knowledge graphs pinned further: ids are read as int64 whatever array they come in
(floats, small unsigned ints, a column of starts) by ``answer``, ``covered`` and ``query_tokens``
alike; the coverage table is boolean; the graph's SHA-256 is that of the little-endian int64
table; cutting a graph to its own relation count keeps its table; and the product-work refusal
names length 1 first, however many entities."""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.kg import (
    MatchingKG,
    QueryVocabulary,
    check_product_work,
    covered,
    query_tokens,
)

TABLE = [[1, 2, 0], [0, 2, 1]]


def _walk(starts: list[int], rels: list[list[int]]) -> tuple[list[int], set[tuple[int, int]]]:
    """Answers and used (entity, relation) pairs of the queries on TABLE, by a dictionary walk."""
    step = {(e, r): TABLE[r][e] for r in range(2) for e in range(3)}
    answers, used = [], set()
    for e, word in zip(starts, rels, strict=True):
        for r in word:
            used.add((e, r))
            e = step[e, r]
        answers.append(e)
    return answers, used


def test_covered_reads_ids_as_int64_and_returns_booleans() -> None:
    g = MatchingKG(np.array(TABLE))
    starts, rels = [0, 2, 1], [[0, 0], [1, 0], [1, 1]]
    answers, used = _walk(starts, rels)
    expected = np.zeros((3, 2), dtype=bool)
    for e, r in used:
        expected[e, r] = True
    for s, w in [
        (np.array(starts), np.array(rels)),
        (np.array(starts, dtype=float), np.array(rels)),
        (np.array(starts), np.array(rels, dtype=float)),
        (np.array(starts, dtype=float), np.array(rels, dtype=float)),
        (np.array(starts, dtype=np.uint8), np.array(rels, dtype=np.uint8)),
    ]:
        got = covered(g, s, w)
        assert got.dtype == np.bool_ and got.shape == (3, 2)
        assert np.array_equal(got, expected)
        assert g.answer(s, w).tolist() == answers
    assert covered(g, np.zeros(0, dtype=int), np.zeros((0, 1), dtype=int)).dtype == np.bool_


def test_a_column_of_starts_is_a_batch_of_starts() -> None:
    g = MatchingKG(np.array(TABLE))
    starts, rels = [0, 2], [[0, 1], [1, 0]]
    answers, used = _walk(starts, rels)
    column = np.array(starts).reshape(2, 1)
    assert g.answer(column, np.array(rels)).tolist() == answers
    assert {tuple(p) for p in np.argwhere(covered(g, column, np.array(rels))).tolist()} == used
    v = QueryVocabulary(entities=3, relations=2, hops=2)  # and 3, y1 y2 4..5, r0 r1 6..7
    flat = query_tokens(v, np.array(starts), np.array(rels))
    assert flat.tolist() == [[0, 6, 4, 3, 4, 7, 5], [2, 7, 4, 3, 4, 6, 5]]
    assert np.array_equal(query_tokens(v, column, np.array(rels)), flat)
    assert query_tokens(v, 2, np.array([[1, 0]])).tolist() == [[2, 7, 4, 3, 4, 6, 5]]
    assert query_tokens(v, np.int64(2), np.array([[1, 0]])).tolist() == [[2, 7, 4, 3, 4, 6, 5]]


def test_query_tokens_read_ids_as_int64() -> None:
    # relation tokens start at 252: uint8 relation ids must not wrap around at 256
    v = QueryVocabulary(entities=250, relations=20, hops=1)
    assert v.first_relation == 252
    small = np.array([[10]], dtype=np.uint8)
    assert query_tokens(v, np.array([7], dtype=np.uint8), small).tolist() == [[7, 262, 251]]
    assert query_tokens(v, np.array([7.0]), np.array([[10.0]])).tolist() == [[7, 262, 251]]
    # a start is cast to int64 (toward zero) before its range is checked, as answer does: -0.5
    # is entity 0 for the query and for its answer alike
    g = MatchingKG(np.array(TABLE))
    three = QueryVocabulary(entities=3, relations=2, hops=1)  # r0 at 5
    assert query_tokens(three, np.array([-0.5]), np.array([[1]])).tolist() == [[0, 6, 4]]
    assert g.answer(np.array([-0.5]), np.array([[1]])).tolist() == [TABLE[1][0]]
    with pytest.raises(InputError, match=r"^start entities must lie in 0\.\.2$"):
        query_tokens(three, np.array([-1.0]), np.array([[1]]))


def test_sha256_is_of_the_little_endian_int64_table() -> None:
    flat = [x for row in TABLE for x in row]
    expected = hashlib.sha256(struct.pack("<6q", *flat)).hexdigest()
    assert expected == "300b69ee896f3c7bc7bc01a95a4c81f42077a3988e7c731ca98f30a7539e8723"
    assert MatchingKG(np.array(TABLE)).sha256() == expected
    assert MatchingKG(np.array(TABLE, dtype=np.uint8)).sha256() == expected
    one = MatchingKG(np.array([[0]]))
    assert one.sha256() == hashlib.sha256(struct.pack("<q", 0)).hexdigest()


def test_cutting_to_its_own_size_keeps_the_table() -> None:
    table = np.array(TABLE)
    assert not np.array_equal(MatchingKG.generate(3, 2, seed=0).permutations, table)
    g = MatchingKG(table, seed=0)
    assert np.array_equal(g.with_relations(2).permutations, table)
    assert g.with_relations(2).seed == 0
    assert g.with_relations(1).permutations.tolist() == [TABLE[0]]


def test_product_work_refuses_at_length_one_first() -> None:
    check_product_work(1 << 25, 1, 1)  # 1 x 1 x 2^25: at the limit
    check_product_work(1 << 25, 1, 3)  # one relation: one product at every length
    with pytest.raises(
        InputError,
        match=r"^products of length 1 could form 1 x 1 x 33554433 entries; the limit is 33554432",
    ):
        check_product_work((1 << 25) + 1, 1, 2)
    with pytest.raises(InputError, match=r"^products of length 1 could form 1 x 2 x 16777217 "):
        check_product_work((1 << 24) + 1, 2, 1)
