"""String oracles pinned: EQ, INEQ and Disj on every word of tiny lengths against their
definitions, the shapes and dtypes they accept, and the messages of the ones they refuse."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.strings import intersects, is_equal_halves, is_unequal_halves


@pytest.mark.parametrize("length", [0, 2, 4, 6])
def test_equality_of_halves_on_every_ternary_word(length: int) -> None:
    words = list(itertools.product(range(3), repeat=length))
    arr = np.array(words, dtype=np.int64).reshape(len(words), length)
    expected = [w[: length // 2] == w[length // 2 :] for w in words]
    assert is_equal_halves(arr).tolist() == expected
    assert is_unequal_halves(arr).tolist() == [not e for e in expected]
    assert sum(expected) == 3 ** (length // 2)


def test_equality_single_word_and_empty_batches() -> None:
    assert is_equal_halves(np.array([5, 7, 5, 7])).tolist() == [True]
    assert is_equal_halves(np.array([5, 7, 7, 5])).tolist() == [False]
    assert is_unequal_halves(np.array([5, 7, 7, 5])).tolist() == [True]
    assert is_equal_halves(np.zeros((0, 4), dtype=np.int64)).shape == (0,)
    assert is_equal_halves(np.zeros((0, 4))).shape == (0,)  # no symbols: the dtype is moot
    assert is_equal_halves(np.zeros((2, 0), dtype=np.int64)).tolist() == [True, True]
    assert is_equal_halves(np.array([[300, 300]], dtype=np.uint16)).tolist() == [True]


def test_equality_refusals_name_the_problem() -> None:
    with pytest.raises(InputError, match=r"^equality of halves needs an even length, got 3$"):
        is_equal_halves(np.array([[1, 2, 1]]))
    with pytest.raises(InputError, match=r"even length, got 1$"):
        is_unequal_halves(np.array([1]))
    with pytest.raises(
        InputError, match=r"^words must be a \(batch, length\) array, got shape \(1, 2, 2\)$"
    ):
        is_equal_halves(np.zeros((1, 2, 2), dtype=np.int64))
    with pytest.raises(InputError, match=r"^words must hold integer symbols, got dtype float64$"):
        is_equal_halves(np.array([[1.0, 1.0]]))
    with pytest.raises(InputError, match=r"got dtype bool$"):
        is_equal_halves(np.array([[True, True]]))


@pytest.mark.parametrize("h", [0, 1, 2, 3])
def test_intersects_on_every_pair_of_sets(h: int) -> None:
    vecs = list(itertools.product((0, 1), repeat=h))
    pairs = list(itertools.product(vecs, vecs))
    x = np.array([p[0] for p in pairs], dtype=np.int64).reshape(len(pairs), h)
    y = np.array([p[1] for p in pairs], dtype=np.int64).reshape(len(pairs), h)
    expected = [any(a and b for a, b in zip(u, v, strict=True)) for u, v in pairs]
    assert intersects(x, y).tolist() == expected
    assert sum(expected) == 4**h - 3**h


def test_intersects_single_rows_and_empty_batches() -> None:
    assert intersects(np.array([0, 1, 1]), np.array([1, 0, 1])).tolist() == [True]
    assert intersects(np.array([0, 1, 0]), np.array([1, 0, 1])).tolist() == [False]
    assert intersects(np.zeros((0, 3), dtype=int), np.zeros((0, 3), dtype=int)).shape == (0,)


def test_intersects_refusals_name_the_problem() -> None:
    one = np.array([[0, 1, 1]])
    with pytest.raises(
        InputError, match=r"^x and y must have the same shape, got \(1, 3\) and \(1, 4\)$"
    ):
        intersects(one, np.array([[0, 1, 1, 0]]))
    for x, y in [(one + 1, one), (one, one + 1), (one - 1, one), (one, one - 1)]:
        with pytest.raises(InputError, match=r"^disjointness inputs must be 0/1 vectors$"):
            intersects(x, y)
    with pytest.raises(InputError, match=r"^x must hold integer symbols, got dtype float64$"):
        intersects(one * 1.0, one)
    with pytest.raises(InputError, match=r"^y must be a \(batch, length\) array, got shape"):
        intersects(one, one[None])
