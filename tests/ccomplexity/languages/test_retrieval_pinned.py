"""Retrieval oracles pinned: Index and Index Lookup at both ends of their ranges, Nearest
Neighbour against a loop (ties, single candidates, the causal sequence), the unit and margin
tolerances at and beyond their edges, the hypercube codes digit by digit, MQAR's fields, and
the messages of every refusal."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import retrieval
from ccomplexity.languages.retrieval import (
    MQARBatch,
    check_margin,
    hypercube_codes,
    hypercube_dim,
    index_lookup,
    index_value,
    margin,
    nearest_neighbour_labels,
    nearest_neighbour_sequence,
    sample_mqar,
    sample_nearest_neighbour,
)

# --- Index and Index Lookup -------------------------------------------------------------------


def test_index_value_every_position_and_the_ends() -> None:
    a = np.array([[0, 1, 1, 0], [1, 0, 0, 1]])
    for b in range(4):
        assert index_value(a, np.array([b, b])).tolist() == [a[0, b], a[1, b]]
    assert index_value(np.array([0, 1, 1]), 2).tolist() == [1]  # one row, a scalar position
    assert index_value(np.zeros((0, 3), dtype=int), np.zeros(0, dtype=int)).shape == (0,)


def test_index_value_refusals() -> None:
    a = np.array([[0, 1, 1, 0]])
    with pytest.raises(InputError, match=r"^index: b must lie in 0\.\.3 \(0-based\)$"):
        index_value(a, np.array([4]))
    with pytest.raises(InputError, match=r"^index: b must lie in 0\.\.3"):
        index_value(a, np.array([-1]))
    with pytest.raises(InputError, match=r"^index: a must be a 0/1 vector$"):
        index_value(a + 1, np.array([0]))
    with pytest.raises(InputError, match=r"^index: a must be a 0/1 vector$"):
        index_value(a - 1, np.array([0]))
    with pytest.raises(InputError, match=r"^a must be a \(batch, N\) 0/1 array, got shape"):
        index_value(np.zeros((1, 2, 2), dtype=int), np.array([0]))
    with pytest.raises(
        InputError, match=r"^b must be 1 integers \(one per row\), got shape \(2,\)$"
    ):
        index_value(a, np.array([0, 1]))
    with pytest.raises(InputError, match=r"^b must be 1 integers"):
        index_value(a, np.array([1.0]))


def test_index_lookup_is_one_based_at_both_ends() -> None:
    x = np.array([[7, 8, 9], [4, 5, 6]])
    assert index_lookup(x, np.array([1, 3])).tolist() == [7, 6]
    assert index_lookup(x, np.array([3, 1])).tolist() == [9, 4]
    assert index_lookup(np.array([7, 8, 9]), 2).tolist() == [8]
    with pytest.raises(
        InputError, match=r"^index lookup: positions must lie in 1\.\.3 \(1-based\)$"
    ):
        index_lookup(x, np.array([1, 4]))
    with pytest.raises(InputError, match=r"positions must lie in 1\.\.3"):
        index_lookup(x, np.array([0, 1]))
    with pytest.raises(InputError, match=r"^symbols must be a \(batch, N\) array, got shape"):
        index_lookup(np.zeros((1, 2, 2), dtype=int), np.array([1]))
    with pytest.raises(InputError, match=r"^positions must be 2 integers \(one per row\)"):
        index_lookup(x, np.array([1.0, 2.0]))
    assert index_lookup(np.zeros((0, 3), dtype=int), np.zeros(0, dtype=int)).shape == (0,)


# --- unit vectors and the margin --------------------------------------------------------------


def test_unit_tolerance_at_and_beyond() -> None:
    assert retrieval.UNIT_TOLERANCE == 1e-6
    keys = np.array([[1.0, 0.0], [0.0, 1.0]])
    inside = np.array([1 + 0.9e-6, 0.0])
    assert margin(keys, inside) == pytest.approx(1 + 0.9e-6)
    for bad in (np.array([1 + 1.1e-6, 0.0]), np.array([1 - 1.1e-6, 0.0])):
        with pytest.raises(
            InputError,
            match=r"^query must be unit vectors \(App\. G\); the largest \| \|\|x\|\| - 1 \| is "
            r"1\.1e-06, the tolerance is 1e-06$",
        ):
            margin(keys, bad)
    with pytest.raises(InputError, match=r"^keys must have a non-empty last \(dimension\) axis$"):
        margin(np.zeros((2, 0)), inside)
    with pytest.raises(InputError, match=r"^query must have a non-empty last"):
        margin(keys, np.float64(1.0))
    with pytest.raises(InputError, match=r"^keys must be \(\.\.\., K, d\), got shape \(2,\)$"):
        margin(np.array([1.0, 0.0]), np.array([1.0, 0.0]))


def test_margin_values_and_a_single_key() -> None:
    keys = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    q = np.array([0.6, 0.8])
    assert margin(keys, q) == pytest.approx(0.8 - 0.6)
    assert margin(keys[:1], q) == math.inf
    assert margin(keys[[0, 0]], q) == 0.0  # a repeated key: no gap


def test_check_margin_at_and_beyond_gamma() -> None:
    codes = hypercube_codes(8)  # d = 3: every gap is exactly 2/3
    keys = codes[None]
    check_margin(keys, keys, 2 / 3)
    check_margin(keys, keys, 2 / 3 + 0.5e-9)  # within the slack
    with pytest.raises(
        InputError,
        match=r"^margin assumption fails: the smallest gap is 0\.667, below gamma=0\.67$",
    ):
        check_margin(keys, keys, 0.67)
    with pytest.raises(InputError, match="margin assumption fails"):
        check_margin(keys, keys, 2 / 3 + 2e-9)
    check_margin(keys, np.zeros((1, 0, 3)), 1.5)  # no queries: nothing to check
    check_margin(keys[:, :1], keys, 2.0)  # one key: the gap is infinite


# --- nearest neighbour ------------------------------------------------------------------------


def test_nearest_neighbour_labels_ties_go_to_the_lowest_key() -> None:
    keys = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    labels = np.array([[5, 6, 7]])
    queries = np.array([[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.6, 0.8]]])
    assert nearest_neighbour_labels(keys, labels, queries).tolist() == [[5, 6, 6, 6]]
    with pytest.raises(InputError, match="margin assumption fails"):
        nearest_neighbour_labels(keys, labels, queries, gamma=0.0 + 1e-3)
    assert nearest_neighbour_labels(keys, labels, queries, gamma=0.0).tolist() == [[5, 6, 6, 6]]


def test_nearest_neighbour_labels_refusals() -> None:
    keys = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    queries = np.array([[[1.0, 0.0]]])
    labels = np.array([[0, 1]])
    shape = r"^keys \(batch, K, d\) and queries \(batch, Q, d\) disagree: "
    with pytest.raises(InputError, match=shape + r"\(1, 2, 2\) vs \(1, 1, 3\)$"):
        nearest_neighbour_labels(keys, labels, np.array([[[1.0, 0.0, 0.0]]]))
    with pytest.raises(InputError, match=shape):
        nearest_neighbour_labels(keys, labels, np.concatenate([queries, queries]))
    with pytest.raises(InputError, match=shape):
        nearest_neighbour_labels(keys[0], labels, queries)
    with pytest.raises(InputError, match=shape):
        nearest_neighbour_labels(keys, labels, queries[0])
    with pytest.raises(InputError, match=r"^labels must be \(batch, K\) = \(1, 2\), got \(1, 3\)$"):
        nearest_neighbour_labels(keys, np.array([[0, 1, 1]]), queries)
    with pytest.raises(InputError, match=r"^keys must be unit vectors"):
        nearest_neighbour_labels(2 * keys, labels, queries)
    with pytest.raises(InputError, match=r"^queries must be unit vectors"):
        nearest_neighbour_labels(keys, labels, 2 * queries)
    with pytest.raises(InputError, match=r"^xs must be unit vectors"):
        nearest_neighbour_sequence(2 * keys, labels[:, :1])


def literal_sequence(xs: np.ndarray, prompt: np.ndarray) -> list[list[int]]:
    out = []
    for x, p in zip(xs, prompt, strict=True):
        ys = list(p)
        for k in range(len(p), len(x)):
            scores = [float(np.dot(x[k], x[i])) for i in range(k)]
            ys.append(ys[max(range(k), key=scores.__getitem__)])  # first maximum
        out.append([int(v) for v in ys])
    return out


def test_sequence_against_a_loop_where_queries_see_queries() -> None:
    rng = np.random.default_rng(3)
    g = rng.standard_normal((30, 8, 3))
    xs = g / np.linalg.norm(g, axis=-1, keepdims=True)
    prompt = rng.integers(0, 5, (30, 4))
    assert nearest_neighbour_sequence(xs, prompt).tolist() == literal_sequence(xs, prompt)
    assert nearest_neighbour_sequence(xs, prompt).dtype == prompt.dtype  # labels keep their type
    # a query that is nearest to an earlier query copies that query's computed label
    e1, e2 = [1.0, 0.0], [0.0, 1.0]
    near = [0.6, 0.8]
    xs2 = np.array([[e1, [-1.0, 0.0], e2, near]])
    assert nearest_neighbour_sequence(xs2, np.array([[3, 4]])).tolist() == [[3, 4, 3, 3]]


def test_sequence_shortest_and_empty_batches() -> None:
    xs = np.array([[[1.0, 0.0], [0.0, 1.0]]])
    assert nearest_neighbour_sequence(xs, np.array([[9]]), gamma=2.0).tolist() == [[9, 9]]
    assert nearest_neighbour_sequence(np.zeros((0, 4, 2)), np.zeros((0, 2)), gamma=1).shape == (
        0,
        4,
    )
    with pytest.raises(
        InputError, match=r"^xs must be \(batch, N, d\) with N even and >= 2, got \(1, 0, 2\)$"
    ):
        nearest_neighbour_sequence(np.zeros((1, 0, 2)), np.zeros((1, 0)))
    with pytest.raises(InputError, match=r"N even and >= 2, got \(1, 3, 2\)$"):
        nearest_neighbour_sequence(np.tile(xs[:, :1], (1, 3, 1)), np.zeros((1, 1)))
    with pytest.raises(InputError, match=r"N even and >= 2, got \(2, 2\)$"):
        nearest_neighbour_sequence(xs[0], np.zeros((1, 1)))
    with pytest.raises(
        InputError, match=r"^prompt_labels must be \(batch, N/2\) = \(1, 1\), got \(1, 2\)$"
    ):
        nearest_neighbour_sequence(xs, np.zeros((1, 2)))


def test_sequence_margin_failure_names_the_query() -> None:
    e1, e2 = [1.0, 0.0], [0.0, 1.0]
    diag = [math.sqrt(0.5), math.sqrt(0.5)]
    xs = np.array([[e1, e2, e1, diag]])
    assert nearest_neighbour_sequence(xs, np.array([[0, 1]])).tolist() == [[0, 1, 0, 0]]
    with pytest.raises(
        InputError,
        match=r"^margin assumption fails at query 4: the smallest gap is 0, below gamma=0\.1$",
    ):
        nearest_neighbour_sequence(xs, np.array([[0, 1]]), gamma=0.1)
    xs_bad_first = np.array([[e1, [-1.0, 0.0], e2, e2]])  # query 3 has gap 0 over +-e1
    with pytest.raises(InputError, match="at query 3: the smallest gap is 0,"):
        nearest_neighbour_sequence(xs_bad_first, np.array([[0, 1]]), gamma=0.1)


# --- the sampler ------------------------------------------------------------------------------


def test_sampler_shapes_labels_and_margins() -> None:
    xs, ys = sample_nearest_neighbour(6, 3, 0.1, 400, np.random.default_rng(4))
    assert xs.shape == (400, 6, 3) and ys.shape == (400, 6)
    assert set(np.unique(ys[:, :3]).tolist()) == {0, 1}
    assert 0.45 < ys[:, :3].mean() < 0.55
    for k in range(3, 6):
        gaps = margin(xs[:, None, :k], xs[:, k : k + 1])
        assert (gaps >= 0.1).all()
    assert ys.tolist() == literal_sequence(xs, ys[:, :3])
    assert np.allclose(np.linalg.norm(xs, axis=-1), 1)


def test_sampler_accepts_a_gap_equal_to_gamma() -> None:
    # d = 1: every vector is +-1 and gaps are 0 or 2; gamma = 0 accepts a zero gap at once
    xs, _ = sample_nearest_neighbour(4, 1, 0.0, 30, np.random.default_rng(5), max_rounds=1)
    assert set(np.unique(np.abs(xs)).tolist()) == {1.0}
    # gamma = 2 (the largest allowed) is always met with a single candidate
    xs2, ys2 = sample_nearest_neighbour(2, 2, 2.0, 5, np.random.default_rng(6), max_rounds=1)
    assert (ys2[:, 1] == ys2[:, 0]).all() and xs2.shape == (5, 2, 2)
    empty = sample_nearest_neighbour(4, 2, 0.1, 0, np.random.default_rng(7))
    assert empty[0].shape == (0, 4, 2) and empty[1].shape == (0, 4)


def test_sampler_refusals() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match=r"^length must be an integer >= 2, got 0$"):
        sample_nearest_neighbour(0, 2, 0.1, 1, rng)
    with pytest.raises(InputError, match=r"^nearest neighbour needs an even length, got 3$"):
        sample_nearest_neighbour(3, 2, 0.1, 1, rng)
    with pytest.raises(InputError, match=r"^dim must be an integer >= 1, got 0$"):
        sample_nearest_neighbour(4, 0, 0.1, 1, rng)
    with pytest.raises(InputError, match=r"^batch must be an integer >= 0, got -1$"):
        sample_nearest_neighbour(4, 2, 0.1, -1, rng)
    with pytest.raises(InputError, match=r"^max_rounds must be an integer >= 1, got 0$"):
        sample_nearest_neighbour(4, 2, 0.1, 1, rng, max_rounds=0)
    for gamma in (-0.01, 2.01):
        with pytest.raises(InputError, match=r"^gamma must lie in \[0, 2\] for unit vectors, got"):
            sample_nearest_neighbour(4, 2, gamma, 1, rng)
    with pytest.raises(InputError, match=r"^rng must be a numpy\.random\.Generator, got int$"):
        sample_nearest_neighbour(4, 2, 0.1, 1, 3)  # type: ignore[arg-type]
    with pytest.raises(
        InputError,
        match=r"^no query with margin gamma=1\.9 found in 1 rejection rounds \(d=1, N=6\); "
        r"lower gamma, raise dim or raise max_rounds$",
    ):
        sample_nearest_neighbour(6, 1, 1.9, 50, rng, max_rounds=1)


# --- hypercube codes and MQAR -----------------------------------------------------------------


def test_hypercube_codes_digit_by_digit() -> None:
    assert [hypercube_dim(n) for n in (1, 2, 3, 4, 5, 8, 9, 64, 65)] == [1, 1, 2, 2, 3, 3, 4, 6, 7]
    assert hypercube_codes(1).tolist() == [[1.0]]
    assert hypercube_codes(2).tolist() == [[1.0], [-1.0]]
    r = 1 / math.sqrt(2)
    assert np.allclose(hypercube_codes(4), [[r, r], [r, -r], [-r, r], [-r, -r]])
    codes = hypercube_codes(6) * math.sqrt(3)
    assert np.allclose(codes[5], [-1, 1, -1])  # 5 = 101, most significant first
    with pytest.raises(InputError, match=r"^n_symbols must be an integer >= 1, got 0$"):
        hypercube_codes(0)
    with pytest.raises(InputError, match=r"^n_symbols must be an integer >= 1, got 0$"):
        hypercube_dim(0)


def test_mqar_batch_is_an_immutable_copy() -> None:
    keys = np.array([[0, 2]])
    labels = np.array([[1, 0]])
    batch = MQARBatch(keys, labels, keys[:, ::-1], labels[:, ::-1], hypercube_codes(3))
    keys[0, 0] = 1  # the batch holds its own copy
    assert batch.key_symbols.tolist() == [[0, 2]]
    assert batch.gamma == 1.0  # d = 2
    xs, ys = batch.sequence()
    assert np.allclose(xs[0], hypercube_codes(3)[[0, 2, 2, 0]])
    assert ys.tolist() == [[1, 0, 0, 1]]
    for name in ("key_symbols", "labels", "query_symbols", "targets", "codes"):
        assert not getattr(batch, name).flags.writeable
    with pytest.raises(InputError, match=r"^MQAR fields must all be \(batch, K\)$"):
        MQARBatch(keys, labels[:, :1], keys, labels, hypercube_codes(3))
    with pytest.raises(InputError, match=r"^MQAR fields must all be \(batch, K\)$"):
        MQARBatch(keys, labels, keys, labels[:, :1], hypercube_codes(3))


def test_sample_mqar_fields_and_limits() -> None:
    batch = sample_mqar(5, 5, 400, np.random.default_rng(8), n_labels=3)  # n_pairs = n_symbols
    assert batch.key_symbols.shape == batch.targets.shape == (400, 5)
    assert (np.sort(batch.key_symbols, axis=1) == np.arange(5)).all()
    assert (np.sort(batch.query_symbols, axis=1) == np.arange(5)).all()
    assert set(np.unique(batch.labels).tolist()) == {0, 1, 2}
    first = np.bincount(batch.key_symbols[:, 0], minlength=5)
    assert first.min() > 50  # keys uniform
    assert (batch.query_symbols == batch.key_symbols).all(axis=1).mean() < 0.05  # shuffled
    for row in range(400):
        look = dict(zip(batch.key_symbols[row].tolist(), batch.labels[row].tolist(), strict=True))
        assert batch.targets[row].tolist() == [look[q] for q in batch.query_symbols[row].tolist()]
    one = sample_mqar(1, 1, 3, np.random.default_rng(9), n_labels=1)
    assert one.labels.tolist() == [[0]] * 3 and one.codes.shape == (1, 1)
    assert sample_mqar(2, 4, 0, np.random.default_rng(9)).key_symbols.shape == (0, 2)
    rng = np.random.default_rng(0)
    with pytest.raises(
        InputError, match=r"^MQAR needs distinct keys: n_pairs=6 exceeds n_symbols=5$"
    ):
        sample_mqar(6, 5, 1, rng)
    with pytest.raises(InputError, match=r"^n_pairs must be an integer >= 1, got 0$"):
        sample_mqar(0, 5, 1, rng)
    with pytest.raises(InputError, match=r"^n_symbols must be an integer >= 1, got 0$"):
        sample_mqar(1, 0, 1, rng)
    with pytest.raises(InputError, match=r"^batch must be an integer >= 0, got -1$"):
        sample_mqar(1, 2, -1, rng)
    with pytest.raises(InputError, match=r"^n_labels must be an integer >= 1, got 0$"):
        sample_mqar(1, 2, 1, rng, n_labels=0)
    with pytest.raises(InputError, match=r"^rng must be a numpy\.random\.Generator, got NoneType$"):
        sample_mqar(1, 2, 1, None)  # type: ignore[arg-type]


def test_margin_slack_is_inclusive_at_its_edge() -> None:
    # a gap of exactly 1 (e1 against e1, e2) and gamma with gamma - MARGIN_TOLERANCE == 1.0 in
    # floating point: the gap meets gamma within the slack; the next double above does not
    e1, e2 = [1.0, 0.0], [0.0, 1.0]
    edge = 1.000000001
    assert edge - retrieval.MARGIN_TOLERANCE == 1.0
    above = float(np.nextafter(edge, 2.0))
    keys = np.array([[e1, e2]])
    check_margin(keys, np.array([[e1, e2]]), edge)
    with pytest.raises(InputError, match=r"^margin assumption fails: the smallest gap is 1, "):
        check_margin(keys, np.array([[e1, e2]]), above)
    xs = np.array([[e1, e2, e1, e2]])  # queries 3 and 4 both have gap exactly 1
    assert nearest_neighbour_sequence(xs, np.array([[0, 1]]), gamma=edge).tolist() == [[0, 1, 0, 1]]
    with pytest.raises(InputError, match=r"^margin assumption fails at query 3: the smallest gap"):
        nearest_neighbour_sequence(xs, np.array([[0, 1]]), gamma=above)
