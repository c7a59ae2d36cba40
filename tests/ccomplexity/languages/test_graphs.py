"""Length-2 path and DISJ: Lemma A.2 both ways, the graph variants, the token layout."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from ccomplexity.lower_bounds import one_way_bits
from ccomplexity.problems import disjointness as disj_problem


def every_instance(r: int):
    for a in itertools.product([False, True], repeat=r):
        for b in itertools.product([False, True], repeat=r):
            yield np.array(a), np.array(b)


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_lemma_a2_both_ways_on_every_instance(r):
    for a, b in every_instance(r):
        g = graphs.graph_of(a, b)
        answer = bool(graphs.disjointness(a, b))
        assert graphs.length2_path(g, graphs.SOURCE, graphs.DEST) == answer  # (=>)
        a2, b2 = graphs.sets_of(g, graphs.SOURCE, graphs.DEST)  # (<=): N(s), N(d)
        assert (a2 == a).all() and (b2 == b).all()
        assert bool(graphs.disjointness(a2, b2)) == answer


@pytest.mark.parametrize("r", [1, 2, 3, 4])
def test_variants_equal_length2_path_without_middle_edges(r):
    for a, b in every_instance(r):
        g = graphs.graph_of(a, b)
        expected = graphs.length2_path(g, graphs.SOURCE, graphs.DEST)
        assert graphs.connectivity(g, graphs.SOURCE, graphs.DEST) == expected
        assert graphs.shortest_path_is_two(g, graphs.SOURCE, graphs.DEST) == expected
        assert graphs.cycle_with_sd(g, graphs.SOURCE, graphs.DEST) == expected


def test_middle_edges_break_connectivity_but_not_length2_path():
    a, b = np.array([True, False]), np.array([False, True])
    g = graphs.graph_of(a, b, np.array([[1, 2]]))  # s - 1 - 2 - d: connected, no common neighbour
    assert graphs.connectivity(g, "s", "d") and not graphs.length2_path(g, "s", "d")
    assert not graphs.shortest_path_is_two(g, "s", "d")


def test_length2_path_against_networkx_common_neighbours():
    rng = np.random.default_rng(0)
    for _ in range(50):
        g = nx.gnp_random_graph(8, 0.3, seed=int(rng.integers(1 << 30)))
        expected = any(True for _ in nx.common_neighbors(g, 0, 1))
        assert graphs.length2_path(g, 0, 1) == expected


@pytest.mark.parametrize("r", [2, 3, 4])
def test_disj_one_way_complexity_is_r_bits(r):
    assert one_way_bits(disj_problem(r)).bits == r


def test_sampler_is_balanced_and_positives_meet_once():
    a, b, answer = graphs.sample_disjointness(12, 4000, np.random.default_rng(1))
    assert (answer == graphs.disjointness(a, b)).all()
    assert 0.45 < answer.mean() < 0.55
    assert ((a & b).sum(1) == answer).all()  # exactly one common item in every positive


def test_layout_round_trip_positions_and_ids():
    layout = graphs.Layout(6, 3)
    assert layout.length() == 16 and layout.vocab_size == 15 + 15
    alice, bob, fixed = layout.positions()
    assert sorted(alice + bob + fixed) == list(range(16)) and fixed[-1] == 15
    pairs = [(u, v) for u in range(1, 7) for v in range(u + 1, 7)]
    ids = layout.edge_id(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    assert sorted(ids) == list(range(15, 30))  # a bijection onto the ids after the query
    a, b, _ = graphs.sample_disjointness(6, 20, np.random.default_rng(2))
    tokens = layout.encode(a, b, np.tile([[1, 2], [3, 6], [2, 5]], (20, 1, 1)))
    assert (tokens[:, alice] <= 6).all() and (tokens[:, -1] == layout.query).all()
    a2, b2 = layout.decode(tokens)
    assert (a2 == a).all() and (b2 == b).all()
    short = layout.encode(a[:, :4], b[:, :4], np.tile([[1, 2], [3, 4], [2, 3]], (20, 1, 1)))
    assert short.shape == (20, 12)
    with pytest.raises(InputError, match="1 <= u < v"):
        layout.edge_id(np.array([3]), np.array([3]))
    with pytest.raises(InputError, match="not in this layout"):
        layout.decode(tokens[:, :-1])
    bad = tokens.copy()
    bad[0, 0] = 5  # item 5 at item 1's position
    with pytest.raises(InputError, match="does not hold"):
        layout.decode(bad)
