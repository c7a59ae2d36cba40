"""p-hop induction pinned: find_1 on every word of tiny lengths against Def. A.1 written out,
find_p's position argument at its ends, the chain and its statistics on hand-made words, the
work limit at, below and above it, and every refusal's message."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import hops
from ccomplexity.languages.hops import (
    BOTTOM,
    as_words,
    chain_statistics,
    find_1_table,
    find_p,
    hop_chain,
    hop_p,
)


def find_1(v: tuple[int, ...], i: int, strict: bool) -> int:
    """max({0} u {j <= i (j < i if strict) : j >= 2, v_{j-1} = v_i}), 1-based."""
    if i == 0:
        return 0
    upper = i - 1 if strict else i
    return max([0, *(j for j in range(2, upper + 1) if v[j - 2] == v[i - 1])])


@pytest.mark.parametrize("strict", [False, True])
def test_find_1_table_on_every_word(strict: bool) -> None:
    for n in range(1, 6):
        words = list(itertools.product(range(3), repeat=n))
        table = find_1_table(np.array(words), strict)
        assert table.shape == (len(words), n + 1)
        expected = [[find_1(w, i, strict) for i in range(n + 1)] for w in words]
        assert table.tolist() == expected, n


def test_find_p_position_argument_at_its_ends() -> None:
    v = np.array([[0, 1, 0, 2, 1]])
    assert find_1_table(v).tolist() == [[0, 0, 0, 2, 0, 3]]
    assert find_1_table(v, strict=True).tolist() == [[0, 0, 0, 2, 0, 3]]
    assert find_p(v, 1).tolist() == [3] and find_p(v, 1, i=5).tolist() == [3]
    assert find_p(v, 1, i=0).tolist() == [0]
    assert find_p(v, 2, i=3).tolist() == [0]
    assert find_p(v, 1, i=3).tolist() == [2]
    with pytest.raises(InputError, match=r"^position i must be at most n = 5, got 6$"):
        find_p(v, 1, i=6)
    with pytest.raises(InputError, match=r"^position i must be an integer >= 0, got -1$"):
        find_p(v, 1, i=-1)
    with pytest.raises(InputError, match=r"^hops p must be an integer >= 1, got 0$"):
        find_p(v, 0)


def test_strict_skips_the_occurrence_right_before() -> None:
    v = np.array([[1, 2, 2]])  # v_2 = v_3: find_1(3) = 3 (a fixed point); strict: none
    assert find_1_table(v).tolist() == [[0, 0, 0, 3]]
    assert find_1_table(v, strict=True).tolist() == [[0, 0, 0, 0]]
    assert hop_p(v, 4).tolist() == [2] and hop_p(v, 1, strict=True).tolist() == [BOTTOM]
    w = np.array([[2, 5, 2, 2]])  # strict looks past the 2 at position 3 to the one at 1
    assert find_1_table(w, strict=True).tolist() == [[0, 0, 0, 2, 2]]


def test_hop_values_and_bottom() -> None:
    assert BOTTOM == -1
    v = np.array([[0, 1, 0, 2, 1], [3, 3, 3, 3, 3], [0, 1, 2, 3, 4]])
    assert hop_p(v, 1).tolist() == [0, 3, BOTTOM]
    assert hop_p(v, 2).tolist() == [1, 3, BOTTOM]
    assert hop_p(v, 3).tolist() == [BOTTOM, 3, BOTTOM]
    assert hop_p(np.array([7]), 1).tolist() == [BOTTOM]  # n = 1: nothing before
    assert hop_p(np.array([[4, 9, 4]]), 1).tolist() == [9]  # after the 4 at 1 comes v_2 = 9


def test_chain_and_statistics_on_hand_made_words() -> None:
    v = np.array([[0, 1, 0, 2, 1], [3, 3, 3, 3, 3], [0, 1, 2, 3, 4], [1, 0, 1, 1, 0]])
    chain = hop_chain(v, 3)
    assert chain.tolist() == [[5, 3, 2, 0], [5, 5, 5, 5], [5, 0, 0, 0], [5, 3, 2, 0]]
    stats = chain_statistics(v, 3)
    assert stats == {"bottom_rate": 0.75, "fixed_point_rate": 0.25, "mean_span": 0.0}
    two = chain_statistics(v, 1)
    assert two["bottom_rate"] == 0.25 and two["fixed_point_rate"] == 0.25
    assert two["mean_span"] == pytest.approx((2 + 0 + 2) / 3)
    dead = chain_statistics(np.array([[0, 1, 2]]), 2)
    assert dead["bottom_rate"] == 1.0 and dead["fixed_point_rate"] == 0.0
    assert math.isnan(dead["mean_span"])
    with pytest.raises(InputError, match=r"^hops p must be an integer >= 1, got 0$"):
        hop_chain(v, 0)
    fixed = np.array([[1, 2, 2]])  # a fixed point, which the strict variant does not have
    assert chain_statistics(fixed, 2)["fixed_point_rate"] == 1.0
    strict = chain_statistics(fixed, 2, strict=True)
    assert strict["bottom_rate"] == 1.0 and strict["fixed_point_rate"] == 0.0


def test_as_words_refusals() -> None:
    shape = r"^p-hop needs a \(batch, n\) array with n >= 1, got shape "
    with pytest.raises(InputError, match=shape + r"\(2, 0\)$"):
        as_words(np.zeros((2, 0), dtype=int))
    with pytest.raises(InputError, match=shape + r"\(1, 1, 2\)$"):
        as_words(np.zeros((1, 1, 2), dtype=int))
    with pytest.raises(InputError, match=r"^p-hop symbols must be non-negative integers$"):
        as_words(np.array([[0, -1]]))
    with pytest.raises(InputError, match=r"^p-hop symbols must be non-negative integers$"):
        as_words(np.array([[0.0, 1.0]]))
    got = as_words(np.array([0, 3], dtype=np.uint8))
    assert got.dtype == np.int64 and got.tolist() == [[0, 3]]


def test_work_limit_at_below_and_above(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hops.WORK_LIMIT == 1 << 27
    with pytest.raises(
        InputError,
        match=r"^p-hop oracle: batch x n x \|Sigma\| = 2199023255554 exceeds 134217728; "
        r"split the batch$",
    ):
        find_1_table(np.array([[0, 1 << 40]]))
    monkeypatch.setattr(hops, "WORK_LIMIT", 12)
    assert find_1_table(np.array([[0, 1], [1, 0], [0, 0]])).shape == (3, 3)  # 3 x 2 x 2 = 12
    assert find_1_table(np.zeros((1, 11), dtype=int)).shape == (1, 12)  # 1 x 11 x 1 = 11
    with pytest.raises(InputError, match=r"batch x n x \|Sigma\| = 13 exceeds 12;"):
        find_1_table(np.zeros((1, 13), dtype=int))
    with pytest.raises(InputError, match=r"batch x n x \|Sigma\| = 18 exceeds 12;"):
        hop_p(np.array([[0, 1, 2]] * 2), 1)  # 2 x 3 x 3


def test_find_p_is_non_strict_by_default() -> None:
    # j = i is allowed: v_1 = v_2 gives find_1(v, 2) = 2; the strict variant skips it (0)
    assert hops.find_p(np.array([3, 3]), 1).tolist() == [2]
    assert hops.find_p(np.array([3, 3]), 1, strict=True).tolist() == [0]
    assert hops.find_p(np.array([[0, 1, 0, 1]]), 2).tolist() == [2]


def test_mean_span_is_measured_to_the_last_hop() -> None:
    # v = 0 1 0 1: the chain is 4 -> 3 -> 2, so after two hops the span is 4 - 2 = 2 (not 4 - 3)
    assert hops.hop_chain(np.array([0, 1, 0, 1]), 2).tolist() == [[4, 3, 2]]
    stats = hops.chain_statistics(np.array([[0, 1, 0, 1], [0, 1, 2, 1]]), 2)
    # second row: 4 -> 3 -> find_1(3) = 0 (symbol 2 never came before): bottom
    assert stats == {"bottom_rate": 0.5, "fixed_point_rate": 0.0, "mean_span": 2.0}


def test_all_bottom_chains_give_a_nan_span_without_a_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Mean of empty slice" from an empty mean
        stats = hops.chain_statistics(np.array([[0, 1], [1, 0]]), 1)
    assert stats["bottom_rate"] == 1.0 and math.isnan(stats["mean_span"])
