"""Retrieval oracles pinned, second file: the shape of the infinite single-candidate margin for
every number of leading axes, margins computed in float64 whatever the input dtype (booleans and
integers included), the default number of MQAR labels (binary, as in Thm 8) and the default
number of Nearest Neighbour rejection rounds (1000)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.retrieval import margin, sample_mqar, sample_nearest_neighbour


def test_single_key_margin_is_infinite_with_the_leading_shape() -> None:
    one_key = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])  # (batch=2, K=1, d=2)
    queries = np.array([[1.0, 0.0], [0.6, 0.8]])  # (2, d)
    gaps = margin(one_key, queries)
    assert gaps.shape == (2,)
    assert gaps.tolist() == [math.inf, math.inf]
    # (batch, Q) for queries (batch, Q, d) against keys[:, None]: two leading axes kept
    many = np.array([[[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]] * 2)  # (2, Q=3, d=2)
    gaps2 = margin(one_key[:, None], many)
    assert gaps2.shape == (2, 3)
    assert np.all(gaps2 == math.inf)
    # three leading axes (2, 1, 3, K=1, d)
    gaps3 = margin(one_key[:, None, None], many[:, None])
    assert gaps3.shape == (2, 1, 3)
    assert np.all(gaps3 == math.inf)
    # one key and one query, no leading axis: a 0-d infinite margin
    gaps0 = margin(np.array([[0.0, 1.0]]), np.array([1.0, 0.0]))
    assert gaps0.shape == ()
    assert float(gaps0) == math.inf
    # with two keys the same shapes carry finite gaps: 1 - 0 for e1 against (e1, e2)
    two_keys = np.array([[[1.0, 0.0], [0.0, 1.0]]] * 2)
    assert margin(two_keys[:, None], many).tolist() == [[1.0, 1.0, pytest.approx(0.2)]] * 2


def test_margin_is_float64_for_boolean_and_integer_unit_vectors() -> None:
    keys = np.array([[True, False, False], [False, True, False], [False, False, True]])
    query = np.array([True, False, False])
    gap = margin(keys, query)  # 1 - 0, computed in float64, not as a boolean product
    assert gap.dtype == np.float64
    assert float(gap) == 1.0
    ints = np.array([[1, 0], [0, -1]])
    gap_int = margin(ints, np.array([0, -1]))
    assert gap_int.dtype == np.float64
    assert float(gap_int) == 1.0


def test_mqar_labels_are_binary_by_default() -> None:
    batch = sample_mqar(3, 4, 200, np.random.default_rng(11))
    assert set(np.unique(batch.labels).tolist()) == {0, 1}  # Thm 8: binary labels
    assert set(np.unique(batch.targets).tolist()) == {0, 1}
    three = sample_mqar(3, 4, 200, np.random.default_rng(11), n_labels=3)
    assert set(np.unique(three.labels).tolist()) == {0, 1, 2}


def test_nearest_neighbour_rejection_gives_up_after_1000_rounds_by_default() -> None:
    # d = 1, N = 4: the two prompt vectors are +-1; equal ones leave every query a gap of 0, so
    # gamma = 1 is never met and the sampler gives up after its default 1000 rounds.
    rng = np.random.default_rng(0)
    with pytest.raises(
        InputError,
        match=r"^no query with margin gamma=1 found in 1000 rejection rounds \(d=1, N=4\)",
    ):
        sample_nearest_neighbour(4, 1, 1.0, 8, rng)
    # one more round allowed explicitly says 1001: the default is exactly 1000
    with pytest.raises(InputError, match=r"found in 1001 rejection rounds"):
        sample_nearest_neighbour(4, 1, 1.0, 8, np.random.default_rng(0), max_rounds=1001)
