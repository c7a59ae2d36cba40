"""Language oracles, Dyck counting/enumeration/sampling and the App. H.1 generators."""

from __future__ import annotations

import time

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import (
    count_dyck,
    enumerate_dyck,
    is_dyck,
    negative_h1,
    positive_h1,
    sample_dyck,
)
from ccomplexity.languages.retrieval import (
    check_margin,
    hypercube_codes,
    index_lookup,
    index_value,
    margin,
    nearest_neighbour_labels,
    nearest_neighbour_sequence,
    sample_mqar,
    sample_nearest_neighbour,
)
from ccomplexity.languages.strings import intersects, is_equal_halves, is_unequal_halves


def all_words(alphabet: int, length: int) -> np.ndarray:
    """Every word of [alphabet]^length, in lexicographic order."""
    powers = alphabet ** np.arange(length - 1, -1, -1, dtype=np.int64)
    return (np.arange(alphabet**length, dtype=np.int64)[:, None] // powers) % alphabet


def brute_members(n: int, k: int, length: int) -> np.ndarray:
    words = all_words(2 * n, length)
    return words[is_dyck(words, n, k)]


# --- Dyck counting and enumeration ------------------------------------------------------------


@pytest.mark.parametrize("length", range(0, 11))
def test_dyck22_count_brute_force(length):
    members = brute_members(2, 2, length)
    expected = 1 if length == 0 else (0 if length % 2 else 2 ** (length - 1))
    assert len(members) == expected == count_dyck(2, 2, length)
    assert np.array_equal(enumerate_dyck(2, 2, length), members)  # same lexicographic order


@pytest.mark.parametrize("length", [12, 14])
def test_dyck22_count_and_enumeration_longer(length):
    assert count_dyck(2, 2, length) == 2 ** (length - 1)
    words = enumerate_dyck(2, 2, length).astype(np.int64)
    assert words.shape == (2 ** (length - 1), length)
    assert is_dyck(words, 2, 2).all()
    keys = words @ (4 ** np.arange(length - 1, -1, -1))
    assert (np.diff(keys) > 0).all()  # strictly increasing: lexicographic and distinct


def test_count_dyck_long_is_fast_and_exact():
    start = time.perf_counter()
    assert count_dyck(2, 2, 1000) == 2**999
    assert count_dyck(2, 2, 999) == 0
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(
    ("n", "k", "max_len"),
    [(1, 1, 12), (1, 3, 12), (3, 1, 6), (3, 2, 6), (2, 3, 8), (2, 0, 4), (4, 2, 4), (2, 9, 6)],
)
def test_general_counts_match_brute_force(n, k, max_len):
    for length in range(max_len + 1):
        members = brute_members(n, k, length)
        assert count_dyck(n, k, length) == len(members), (n, k, length)
        assert np.array_equal(enumerate_dyck(n, k, length), members), (n, k, length)


def test_enumeration_refuses_beyond_limit():
    with pytest.raises(InputError, match=r"5\.4e8 words; the limit is 2\*\*24"):
        enumerate_dyck(2, 2, 30)
    with pytest.raises(InputError, match="limit is 100"):
        enumerate_dyck(2, 2, 10, limit=100)
    assert enumerate_dyck(2, 2, 8, limit=128).shape == (128, 8)


def test_bad_dyck_parameters():
    for args in [(0, 2, 4), (2, -1, 4), (2, 2, -2), (2.0, 2, 4)]:
        with pytest.raises(InputError):
            count_dyck(*args)


# --- uniform sampling -----------------------------------------------------------------------


@pytest.mark.parametrize(("n", "k", "length"), [(2, 2, 200), (3, 4, 30), (1, 5, 40), (2, 50, 20)])
def test_samples_are_members(n, k, length):
    words = sample_dyck(n, k, length, 500, np.random.default_rng(1))
    assert words.shape == (500, length)
    assert is_dyck(words, n, k).all()


def test_sampling_is_uniform_on_small_case():
    words = sample_dyck(2, 2, 6, 20000, np.random.default_rng(7))
    members = enumerate_dyck(2, 2, 6).astype(np.int64)
    found, counts = np.unique(words, axis=0, return_counts=True)
    assert np.array_equal(found, members)  # all 32 words appear, and only members
    # expected 625 each (sd about 24.6); the bounds are about 5 sd
    assert counts.min() > 500 and counts.max() < 750


@pytest.mark.parametrize(("n", "k", "length", "members"), [(1, 3, 8, 13), (2, 3, 6, 40)])
def test_sampling_is_uniform_where_open_is_not_one_half(n, k, length, members):
    # unlike Dyck-(2,2), these cases need open probabilities other than 1/2 to be uniform
    draws = 500 * members
    words = sample_dyck(n, k, length, draws, np.random.default_rng(8))
    found, counts = np.unique(words, axis=0, return_counts=True)
    assert np.array_equal(found, enumerate_dyck(n, k, length).astype(np.int64))
    assert counts.min() > 400 and counts.max() < 600  # expected 500, sd about 22


def test_sampling_edge_cases():
    rng = np.random.default_rng(0)
    assert sample_dyck(2, 2, 0, 3, rng).shape == (3, 0)
    with pytest.raises(InputError, match="no word of length 7"):
        sample_dyck(2, 2, 7, 3, rng)
    with pytest.raises(InputError, match="numpy.random.Generator"):
        sample_dyck(2, 2, 4, 3, 42)


# --- App. H.1 generators ----------------------------------------------------------------------


@pytest.mark.parametrize("reading", ["three-way", "half"])
@pytest.mark.parametrize("length", [2, 4, 6, 20, 100])
def test_h1_positives_members_negatives_not(reading, length):
    rng = np.random.default_rng(length)
    pos = positive_h1(length, 2000, rng, reading)
    neg = negative_h1(length, 2000, rng, reading)
    for words in (pos, neg):
        assert words.shape == (2000, length)
        assert words.min() >= 0 and words.max() <= 3
    assert is_dyck(pos, 2, 2).all()
    assert not is_dyck(neg, 2, 2).any()


def test_h1_readings_differ_at_depth_one():
    # N = 4: first symbol opens; at depth 1 the second closes with prob 1/3 (three-way) or 1/2
    for reading, expected in [("three-way", 1 / 3), ("half", 1 / 2)]:
        words = positive_h1(4, 20000, np.random.default_rng(3), reading)
        assert set(np.unique(words[:, 0])) == {0, 2}
        closed = (words[:, 1] % 2 == 1).mean()
        assert abs(closed - expected) < 0.02, (reading, closed)


def test_h1_half_reading_is_uniform_three_way_is_not():
    # exact: under "half" every Dyck-(2,2) word of length N has probability 2^-(N-1); under
    # "three-way" the probabilities at N = 6 range from 1/72 to 1/18
    members = enumerate_dyck(2, 2, 6).astype(np.int64)
    for reading in ("half", "three-way"):
        words = positive_h1(6, 20000, np.random.default_rng(4), reading)
        found, counts = np.unique(words, axis=0, return_counts=True)
        assert np.array_equal(found, members)
        uniform = counts.min() > 500 and counts.max() < 750
        assert uniform == (reading == "half"), (reading, counts.min(), counts.max())


def test_h1_short_negatives_are_one_corruption_from_a_member():
    # N < 20 means c = 1: each negative differs from some member in exactly one position
    members = enumerate_dyck(2, 2, 6).astype(np.int64)
    neg = negative_h1(6, 500, np.random.default_rng(5))
    distance = (neg[:, None, :] != members[None, :, :]).sum(axis=2).min(axis=1)
    assert (distance == 1).all()


def test_h1_bad_inputs():
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match="even length"):
        positive_h1(7, 3, rng)
    with pytest.raises(InputError, match="reading"):
        negative_h1(8, 3, rng, reading="uniform")


# --- string oracles -------------------------------------------------------------------------


def test_equal_halves_vs_loop():
    rng = np.random.default_rng(11)
    words = rng.integers(0, 3, size=(400, 8))
    words[::3, 4:] = words[::3, :4]  # plenty of equal rows
    expect = np.array([list(w[:4]) == list(w[4:]) for w in words])
    assert expect.any() and not expect.all()
    assert np.array_equal(is_equal_halves(words), expect)
    assert np.array_equal(is_unequal_halves(words), ~expect)
    with pytest.raises(InputError, match="even length"):
        is_equal_halves(words[:, :7])


def test_intersects_vs_loop():
    rng = np.random.default_rng(12)
    x = (rng.random((500, 6)) < 0.2).astype(int)
    y = (rng.random((500, 6)) < 0.2).astype(int)
    expect = np.array(
        [
            any(a == 1 and b == 1 for a, b in zip(r, s, strict=True))
            for r, s in zip(x, y, strict=True)
        ]
    )
    assert expect.any() and not expect.all()
    assert np.array_equal(intersects(x, y), expect)
    with pytest.raises(InputError, match="0/1"):
        intersects(x + 1, y)


def test_index_and_index_lookup_vs_loop():
    rng = np.random.default_rng(13)
    a = rng.integers(0, 2, size=(300, 9))
    b = rng.integers(0, 9, size=300)
    assert np.array_equal(index_value(a, b), [row[i] for row, i in zip(a, b, strict=True)])
    sym = rng.integers(0, 64, size=(300, 9))
    p = rng.integers(1, 10, size=300)  # 1-based
    assert np.array_equal(index_lookup(sym, p), [row[i - 1] for row, i in zip(sym, p, strict=True)])
    with pytest.raises(InputError, match="1-based"):
        index_lookup(sym, np.zeros(300, dtype=int))
    with pytest.raises(InputError, match="0-based"):
        index_value(a, np.full(300, 9))


# --- nearest neighbour and associative recall -------------------------------------------------


def unit(rng, shape):
    g = rng.standard_normal(shape)
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def test_nearest_neighbour_labels_and_margin_vs_loop():
    rng = np.random.default_rng(14)
    keys, queries = unit(rng, (20, 7, 5)), unit(rng, (20, 4, 5))
    labels = rng.integers(0, 2, size=(20, 7))
    got = nearest_neighbour_labels(keys, labels, queries)
    gaps = margin(keys[:, None], queries)
    for b in range(20):
        for q in range(4):
            scores = [float(np.dot(queries[b, q], keys[b, i])) for i in range(7)]
            best = max(range(7), key=scores.__getitem__)
            assert got[b, q] == labels[b, best]
            top = sorted(scores)
            assert gaps[b, q] == pytest.approx(top[-1] - top[-2])


def test_margin_assumption_rejected():
    keys = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    query = np.array([[[np.sqrt(0.5), np.sqrt(0.5)]]])  # equidistant: gap 0
    with pytest.raises(InputError, match="margin assumption fails"):
        check_margin(keys, query, 0.1)
    with pytest.raises(InputError, match="margin assumption fails"):
        nearest_neighbour_labels(keys, np.array([[0, 1]]), query, gamma=0.1)
    check_margin(keys, np.array([[[1.0, 0.0]]]), 1.0)  # gap exactly 1 passes
    with pytest.raises(InputError, match="unit vectors"):
        margin(2 * keys, query[0])


def test_sampler_meets_margin_and_labels_follow_rule():
    gamma = 0.05
    xs, ys = sample_nearest_neighbour(12, 4, gamma, 50, np.random.default_rng(15))
    assert xs.shape == (50, 12, 4) and ys.shape == (50, 12)
    assert np.allclose(np.linalg.norm(xs, axis=-1), 1)
    for b in range(50):
        for k in range(6, 12):
            scores = sorted(float(np.dot(xs[b, k], xs[b, i])) for i in range(k))
            assert scores[-1] - scores[-2] >= gamma
            j = int(np.argmax(xs[b, :k] @ xs[b, k]))
            assert ys[b, k] == ys[b, j]
    assert np.array_equal(nearest_neighbour_sequence(xs, ys[:, :6], gamma=gamma), ys)
    with pytest.raises(InputError, match="rejection rounds"):
        sample_nearest_neighbour(20, 2, 1.9, 5, np.random.default_rng(0), max_rounds=20)


def test_hypercube_codes():
    for n, d in [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (64, 6), (65, 7)]:
        codes = hypercube_codes(n)
        assert codes.shape == (n, d)
        assert np.allclose(np.abs(codes), 1 / np.sqrt(d))
        gram = codes @ codes.T
        assert np.allclose(np.diag(gram), 1)
        if n > 1:
            off = gram[~np.eye(n, dtype=bool)]
            assert off.max() == pytest.approx(1 - 2 / d)


def test_mqar_is_nearest_neighbour_with_hypercube_margin():
    batch = sample_mqar(10, 40, 30, np.random.default_rng(16))
    assert batch.codes.shape == (40, 6) and batch.gamma == pytest.approx(1 / 3)
    for row in range(30):
        keys, queries = batch.key_symbols[row], batch.query_symbols[row]
        assert len(set(keys.tolist())) == 10
        assert sorted(keys.tolist()) == sorted(queries.tolist())
        lookup = dict(zip(keys.tolist(), batch.labels[row].tolist(), strict=True))
        assert batch.targets[row].tolist() == [lookup[q] for q in queries.tolist()]
    got = nearest_neighbour_labels(
        batch.codes[batch.key_symbols],
        batch.labels,
        batch.codes[batch.query_symbols],
        gamma=batch.gamma,
    )
    assert np.array_equal(got, batch.targets)
    xs, ys = batch.sequence()
    assert np.array_equal(nearest_neighbour_sequence(xs, batch.labels, gamma=batch.gamma), ys)
    with pytest.raises(ValueError):
        batch.labels[0, 0] = 1  # read-only
    with pytest.raises(InputError, match="distinct keys"):
        sample_mqar(41, 40, 1, np.random.default_rng(0))
