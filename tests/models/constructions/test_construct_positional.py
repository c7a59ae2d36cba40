"""Positional codes of the constructions: distinct, exact margins, narrowest over the seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ccomplexity.codes import sign_matrix
from ccomplexity.errors import InputError
from models.constructions.positional import (
    TRIES,
    concentration_eta,
    distinct_codes,
    grid_for,
)


@pytest.mark.parametrize("n", [1, 2, 37, 300])
def test_codes_are_the_seeded_family_with_an_exact_gap(n):
    codes = distinct_codes(n, seed=5)
    assert np.array_equal(codes.signs, sign_matrix(n, codes.k, codes.seed))
    gram = codes.signs.astype(np.int64) @ codes.signs.T.astype(np.int64)
    off = gram[~np.eye(n, dtype=bool)]
    assert codes.max_inner == (off.max() if n > 1 else 0)
    assert codes.gap > 0 and math.isclose(codes.gap, 1 - codes.max_inner / codes.k)


def test_no_tried_seed_is_distinct_one_bit_narrower():
    codes = distinct_codes(200, seed=0)
    for s in range(TRIES):
        rows = sign_matrix(200, codes.k - 1, s)
        assert len({r.tobytes() for r in rows}) < 200


def test_width_grows_like_log_n():
    widths = [distinct_codes(n, seed=0).k for n in (10, 100, 1000)]
    assert widths == sorted(widths) and widths[-1] <= 2 * math.log2(1000) + 8


def test_an_explicit_width_too_narrow_is_refused():
    with pytest.raises(InputError, match="no family of 100 distinct codes at k=3"):
        distinct_codes(100, seed=0, k=3)
    with pytest.raises(InputError, match="code width k must lie in 1..64"):
        distinct_codes(10, seed=0, k=65)


def test_eta_puts_four_fifths_on_the_target():
    competitors, gap = 1000, 0.1
    eta = concentration_eta(competitors, gap)
    rest = competitors * math.exp(-eta * gap)
    assert math.isclose(rest, 0.25) and 1 / (1 + rest) >= 0.8
    assert concentration_eta(10, 2.0) == concentration_eta(10, 1.0)  # gap capped at 1


def test_grid_holds_the_largest_value():
    fmt = grid_for(132.4, 8)
    assert fmt.frac == 8 and fmt.max_value >= 132.4 and fmt.rounding == "floor"
    assert grid_for(127.0, 8).bits == 1 + 7 + 8
