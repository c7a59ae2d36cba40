"""The message grid: all 2^p codes of p bits, nearest rounding, saturation, and its strings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccomplexity.errors import InputError
from ccomplexity.message_grid import MOST_BITS, MessageGrid


@pytest.mark.parametrize("bits", [1, 2, 3, 8])
def test_every_code_of_p_bits_is_a_value(bits):
    grid = MessageGrid(bits, 1)
    assert grid.levels == 2**bits == grid.max_raw - grid.min_raw + 1
    codes = grid.quantize(np.linspace(-100, 100, 10_001))
    assert set(codes.tolist()) == set(range(grid.min_raw, grid.max_raw + 1))
    assert grid.from_bits_rows(grid.to_bits_rows(codes[None]), len(codes)).tolist() == [
        codes.tolist()
    ]


def test_one_bit_holds_two_values_and_two_bits_four():
    assert MessageGrid(1, 0).quantize([-3.0, -0.6, -0.4, 0.2, 9.0]).tolist() == [-1, -1, 0, 0, 0]
    assert MessageGrid(2, 1).quantize([-5.0, -0.75, -0.25, 0.25, 0.3, 5.0]).tolist() == [
        -2,
        -2,
        0,
        0,
        1,
        1,
    ]  # fmt: skip  (ties to even: -0.75 -> -1.5 -> -2, -0.25 -> -0.5 -> 0, 0.25 -> 0.5 -> 0)


def test_sums_of_n_codes_fit_p_plus_ceil_log2_n_bits():
    grid = MessageGrid(3, 0)
    for terms in (1, 2, 3, 4, 5, 8, 9):
        width = grid.sum_bits(terms)
        lowest, highest = terms * grid.min_raw, terms * grid.max_raw
        text = grid.to_bits_rows(np.array([[lowest, highest]]), width)
        assert grid.from_bits_rows(text, 2, width).tolist() == [[lowest, highest]]
    with pytest.raises(InputError):
        grid.sum_bits(0)


@pytest.mark.parametrize(
    ("bits", "frac", "match"),
    [
        (0, 0, "1..24 bits"),
        (MOST_BITS + 1, 0, "1..24 bits"),
        (4, 9, "frac must lie"),
        (4, -1, "frac must lie"),
        (True, 0, "integer"),
    ],
)
def test_grids_are_checked_at_their_edges(bits, frac, match):
    with pytest.raises(InputError, match=match):
        MessageGrid(bits, frac)
    MessageGrid(MOST_BITS, 2 * MOST_BITS)  # the largest grid is fine


@given(st.integers(1, 12), st.integers(0, 12), st.lists(st.floats(-1e4, 1e4), max_size=20))
def test_quantize_is_nearest_and_saturating(bits, frac, values):
    grid = MessageGrid(bits, min(frac, 2 * bits))
    codes = grid.quantize(values)
    exact = np.rint(np.asarray(values, dtype=np.float64) * 2.0**grid.frac)
    assert np.array_equal(codes, np.clip(exact, grid.min_raw, grid.max_raw))
