"""Length-2 path and DISJ pinned: the path oracle on graphs where s and d touch (edge s - d,
self-loops), the reductions both ways, the sampler's law, and the Thm 3.2 token layout's ids,
positions and refusals at every boundary."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from ccomplexity.languages.graphs import Layout
from tests.ccomplexity.languages.generators import ConstantUniform


def test_disjointness_on_every_pair() -> None:
    vecs = np.array(list(itertools.product((0, 1), repeat=3)))
    a, b = np.repeat(vecs, 8, axis=0), np.tile(vecs, (8, 1))
    expected = [bool((u & v).any()) for u, v in zip(a, b, strict=True)]
    assert graphs.disjointness(a, b).tolist() == expected
    assert graphs.disjointness(np.array([1, 0]), np.array([1, 0])) == np.True_
    assert graphs.disjointness(np.array([2, 0]), np.array([3, 0])) == np.True_  # nonzero is in
    assert graphs.disjointness(np.array([2, 0]), np.array([1, 0])) == np.True_  # not bitwise
    assert graphs.disjointness(np.array([1, 0]), np.array([2, 0])) == np.True_


def test_length2_path_ignores_s_and_d_themselves() -> None:
    g = nx.Graph([("s", "d")])
    g.add_edge("d", "d")  # s ~ d and d ~ d: d is no middle vertex
    assert not graphs.length2_path(g, "s", "d")
    h = nx.Graph([("s", "d"), ("s", "s")])  # s ~ s and s ~ d: s is no middle vertex either
    assert not graphs.length2_path(h, "s", "d")
    h.add_edges_from([("s", 1), (1, "d")])
    assert graphs.length2_path(h, "s", "d")
    assert not graphs.length2_path(nx.Graph([("s", 1), (1, 2), (2, "d")]), "s", "d")


def test_graph_of_and_sets_of_exactly() -> None:
    g = graphs.graph_of(np.array([1, 0, 1]), np.array([0, 1, 1]), np.array([[1, 2]]))
    assert set(g.nodes) == {"s", "d", 1, 2, 3}
    assert {frozenset(e) for e in g.edges} == {
        frozenset(e) for e in [("s", 1), ("s", 3), ("d", 2), ("d", 3), (1, 2)]
    }
    alone = graphs.graph_of(np.array([0, 0]), np.array([0, 0]))
    assert set(alone.nodes) == {"s", "d", 1, 2} and alone.number_of_edges() == 0
    a, b = graphs.sets_of(g, "s", "d")
    assert a.tolist() == [True, False, True] and b.tolist() == [False, True, True]
    assert a.dtype == bool
    # twelve items: the round trip is the identity (items in numeric order: 2 before 10)
    rng = np.random.default_rng(0)
    for _ in range(50):
        x, y = rng.random(12) < 0.3, rng.random(12) < 0.3
        x2, y2 = graphs.sets_of(graphs.graph_of(x, y), "s", "d")
        assert x2.tolist() == x.tolist() and y2.tolist() == y.tolist()
    only_two = np.zeros(10, dtype=bool)
    only_two[1] = True
    assert graphs.sets_of(graphs.graph_of(only_two, only_two), "s", "d")[0].tolist() == [
        i == 1 for i in range(10)
    ]
    # named vertices other than items come after them, in name order
    h = nx.Graph([("s", 2), ("s", "z"), ("d", "a"), ("d", 10)])
    assert graphs.sets_of(h, "s", "d")[0].tolist() == [True, False, False, True]


def test_variants_on_graphs_with_middle_edges() -> None:
    g = graphs.graph_of(np.array([1, 0, 0]), np.array([0, 0, 1]), np.array([[1, 2], [2, 3]]))
    assert graphs.connectivity(g, "s", "d")
    assert not graphs.shortest_path_is_two(g, "s", "d")  # s-1-2-3-d: 4 edges
    assert graphs.cycle_with_sd(g, "s", "d")
    assert not g.has_edge("s", "d")  # the cycle test works on a copy
    apart = graphs.graph_of(np.array([1, 0]), np.array([0, 1]))
    assert not graphs.connectivity(apart, "s", "d")
    assert not graphs.shortest_path_is_two(apart, "s", "d")
    assert not graphs.cycle_with_sd(apart, "s", "d")
    direct = nx.Graph([("s", "d")])
    assert graphs.connectivity(direct, "s", "d")
    assert not graphs.shortest_path_is_two(direct, "s", "d")


def test_sampler_law_and_refusals() -> None:
    a, b, answer = graphs.sample_disjointness(6, 6000, np.random.default_rng(3))
    assert a.shape == b.shape == (6000, 6) and a.dtype == bool
    assert answer.tolist() == graphs.disjointness(a, b).tolist()
    assert abs(answer.mean() - 0.5) < 0.03
    neg = ~answer
    assert not (a[neg] & b[neg]).any()
    assert abs(a[neg].mean() - 1 / 3) < 0.02 and abs(b[neg].mean() - 1 / 3) < 0.02
    where = np.argmax(a[answer] & b[answer], axis=1)
    assert np.bincount(where, minlength=6).min() > 0.7 * answer.sum() / 6  # item uniform
    one = graphs.sample_disjointness(1, 1, np.random.default_rng(0))
    assert one[0].shape == (1, 1)
    with pytest.raises(InputError, match=r"^r must be an integer >= 1, got 0$"):
        graphs.sample_disjointness(0, 5, np.random.default_rng(0))
    with pytest.raises(InputError, match=r"^count must be an integer >= 1, got 0$"):
        graphs.sample_disjointness(3, 0, np.random.default_rng(0))


def test_layout_sizes_and_positions_exactly() -> None:
    assert graphs.DEFAULT_MIDDLE == 4
    one = Layout(1)
    assert (one.query, one.vocab_size, one.length()) == (4, 5, 3)
    three = Layout(3, 2)
    assert (three.query, three.vocab_size, three.length(), three.length(1)) == (8, 12, 9, 5)
    assert all(type(x) is int for x in (three.query, three.vocab_size, three.length()))
    assert Layout(4).vocab_size == 17 and Layout(7).vocab_size == 38
    assert three.positions() == ((0, 1, 2), (5, 6, 7), (3, 4, 8))
    assert three.positions(2) == ((0, 1), (4, 5), (2, 3, 6))
    Layout(2, 1)
    with pytest.raises(
        InputError, match=r"^middle edges \(u, v\) with u < v need at least 2 vertices$"
    ):
        Layout(1, 1)
    with pytest.raises(InputError, match=r"^vertices \|V\| must be an integer >= 1, got 0$"):
        Layout(0)
    with pytest.raises(InputError, match=r"^middle edges must be an integer >= 0, got -1$"):
        Layout(3, -1)


def test_edge_ids_rank_the_pairs_in_order() -> None:
    layout = Layout(5)
    pairs = [(u, v) for u in range(1, 6) for v in range(u + 1, 6)]
    ids = layout.edge_id(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    assert ids.tolist() == list(range(13, 23))
    assert ids.dtype == np.int64
    wide = Layout(300).edge_id(np.array([200], dtype=np.uint8), np.array([250], dtype=np.uint8))
    assert wide.tolist() == [603 + 199 * 400 // 2 + 49]  # read as int64: no uint8 overflow
    assert layout.edge_id(np.array([1]), np.array([5.0])).dtype == np.int64
    assert int(layout.edge_id(np.array(1), np.array(5))) == 16
    for u, v in [(0, 1), (2, 2), (3, 2), (4, 6)]:
        with pytest.raises(InputError, match=r"^middle edges need 1 <= u < v <= 5$"):
            layout.edge_id(np.array([u]), np.array([v]))


def test_layout_encode_decode_exactly() -> None:
    layout = Layout(3, 1)
    tokens = layout.encode(np.array([1, 0, 1]), np.array([0, 1, 1]), np.array([[2, 3]]))
    # (s,1) (s,0) (s,3) | edge (2,3) | (d,0) (d,2) (d,3) | query
    assert tokens.tolist() == [[1, 0, 3, 11, 4, 6, 7, 8]]
    assert tokens.dtype == np.int64
    a, b = layout.decode(tokens)
    assert a.tolist() == [[True, False, True]] and b.tolist() == [[False, True, True]]
    short = layout.encode(np.array([[0, 1]]), np.array([[1, 0]]), np.array([[1, 2]]))
    assert short.tolist() == [[0, 2, 9, 5, 4, 8]]
    assert layout.decode(short)[0].tolist() == [[False, True]]
    single = layout.encode(np.array([[1]]), np.array([[0]]), np.array([[1, 2]]))
    assert single.tolist() == [[1, 9, 4, 8]]
    assert [x.tolist() for x in layout.decode(single)] == [[[True]], [[False]]]
    with pytest.raises(InputError, match=r"^a and b must both be \(B, r'\) with r' <= 3$"):
        layout.encode(np.ones((1, 4)), np.ones((1, 4)), np.array([[1, 2]]))
    with pytest.raises(InputError, match=r"^a and b must both be \(B, r'\) with r' <= 3$"):
        layout.encode(np.ones((1, 3)), np.ones((1, 2)), np.array([[1, 2]]))


def test_layout_decode_refusals() -> None:
    layout = Layout(3, 1)
    good = layout.encode(np.array([1, 0, 1]), np.array([0, 1, 1]), np.array([[2, 3]]))
    with pytest.raises(InputError, match=r"^rows of length 7 are not in this layout$"):
        layout.decode(good[:, :-1])
    with pytest.raises(InputError, match=r"^rows of length 2 are not in this layout$"):
        layout.decode(np.array([[11, 8]]))  # r = 0
    with pytest.raises(InputError, match=r"^rows of length 10 are not in this layout$"):
        layout.decode(np.zeros((1, 10), dtype=int))  # r = 4 > 3
    holds = r"^a row does not hold \(s, i\)/\(s, 0\), \.\.\., \(d, i\)/\(d, 0\), query$"
    for position, token in [(0, 2), (1, 5), (4, 3), (5, 7), (7, 7), (6, 8)]:
        bad = good.copy()
        bad[0, position] = token
        with pytest.raises(InputError, match=holds):
            layout.decode(bad)
    zero = good.copy()
    zero[0, 0], zero[0, 6] = 0, 4  # (s, 0) and (d, 0) are fine
    a, b = layout.decode(zero)
    assert a.tolist() == [[False, False, True]] and b.tolist() == [[False, True, False]]


def test_sampler_meets_exactly_when_the_coin_is_below_one_half() -> None:
    a, b, answer = graphs.sample_disjointness(5, 40, ConstantUniform(0.5))
    assert not answer.any() and not (a & b).any()  # u = 1/2: disjoint (probability exactly 1/2)
    below = float(np.nextafter(0.5, 0.0))
    a, b, answer = graphs.sample_disjointness(5, 40, ConstantUniform(below))
    assert answer.all() and ((a & b).sum(axis=1) == 1).all()  # one shared item each


def test_sets_of_a_graph_without_items_are_empty_boolean_vectors() -> None:
    a, b = graphs.sets_of(graphs.graph_of(np.zeros(0, bool), np.zeros(0, bool)), "s", "d")
    assert a.shape == b.shape == (0,) and a.dtype == b.dtype == bool


def test_layout_decodes_float_tokens_like_integer_ones() -> None:
    layout = Layout(3, 1)
    good = layout.encode(np.array([1, 0, 1]), np.array([0, 1, 1]), np.array([[2, 3]]))
    a, b = layout.decode(good.astype(np.float64))
    assert a.tolist() == [[True, False, True]] and b.tolist() == [[False, True, True]]
