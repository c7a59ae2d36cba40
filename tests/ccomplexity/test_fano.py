"""Fano's accuracy ceiling of index lookup against the best protocol found by brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.fano import index_lookup_ceiling


def best_protocol_accuracy(bits: int, length: int, symbols: int) -> float:
    """The best average accuracy of index lookup over every message function of ``bits`` bits
    (Alice's word -> one of 2^bits messages; Bob answers each (message, i) with the symbol most
    frequent among the words sending that message)."""
    words = np.array(list(itertools.product(range(symbols), repeat=length)))
    labels = np.array(list(itertools.product(range(1 << bits), repeat=len(words))))
    onehot = np.eye(symbols, dtype=np.int64)[words].reshape(len(words), -1)  # (W, N S)
    right = np.zeros(len(labels), dtype=np.int64)
    for message in range(1 << bits):
        counts = (labels == message).astype(np.int64) @ onehot  # (F, N S)
        right += counts.reshape(len(labels), length, symbols).max(axis=2).sum(axis=1)
    return float(right.max()) / (len(words) * length)


@pytest.mark.parametrize(
    "bits, length, symbols",
    [(0, 1, 2), (0, 3, 2), (1, 2, 2), (1, 3, 2), (2, 3, 2), (1, 4, 2), (0, 2, 3), (1, 2, 3)],
)
def test_no_protocol_beats_the_ceiling(bits, length, symbols):
    best = best_protocol_accuracy(bits, length, symbols)
    ceiling = index_lookup_ceiling(bits, length, symbols)
    assert best <= ceiling + 1e-12
    assert ceiling < 1.0  # fewer bits than the word: never certain


def test_known_values():
    h_inverse_half = 0.110027864  # h(e) = 1/2
    assert index_lookup_ceiling(16, 32) == pytest.approx(1 - h_inverse_half, abs=1e-8)
    assert index_lookup_ceiling(0, 5, 4) == pytest.approx(0.25, abs=1e-7)  # a blind guess
    assert index_lookup_ceiling(16, 16) == 1.0 and index_lookup_ceiling(12, 2, 64) == 1.0
    # one bit short of the word: close to, but below, certainty
    assert 0.99 < index_lookup_ceiling(16, 17) < 1.0
    # 0.99 needs N <= 1.088 b at two symbols
    h = -0.01 * math.log2(0.01) - 0.99 * math.log2(0.99)
    edge = 16 / (1 - h)
    assert (
        index_lookup_ceiling(16, math.floor(edge))
        >= 0.99
        > index_lookup_ceiling(16, math.ceil(edge))
    )


def test_bad_sizes_are_refused():
    with pytest.raises(InputError, match="symbols"):
        index_lookup_ceiling(4, 8, 1)
    with pytest.raises(InputError, match="length"):
        index_lookup_ceiling(4, 0)
