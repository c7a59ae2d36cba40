"""The torch quantiser (``models.base.Quantizer``) against exact rationals, at the grid's edges.

Each value's grid code is computed independently with ``fractions.Fraction``: floor or
nearest-ties-to-even of x 2^frac, then clipped to the symmetric range [-(2^(p-1) - 1),
2^(p-1) - 1]. The code -2^(p-1) of two's complement is never used, on either side of the grid.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.base import Quantizer


def code(x: float, bits: int, frac: int, rounding: str) -> int:
    """The grid code of ``x``, exactly."""
    scaled = Fraction(x) * 2**frac
    raw = math.floor(scaled) if rounding == "floor" else round(scaled)  # round: ties to even
    top = 2 ** (bits - 1) - 1
    return max(-top, min(top, raw))


# Below, at and above each end of the 8-bit grid with 3 fractional bits (codes -127..127, so
# values -15.875..15.875), ties of nearest rounding, and far beyond the grid on both sides.
EDGES = [-1e300, -16.0, -15.9375, -15.875, -15.8, -0.0625, -0.1875, 0.0, 0.0625, 0.1875, 0.3125,
         15.8, 15.875, 15.9375, 16.0, 1e300]  # fmt: skip


@pytest.mark.parametrize("rounding", ["floor", "nearest"])
def test_quantiser_codes_match_exact_rounding_and_saturate_at_both_ends(rounding):
    fmt = FixedPoint(8, 3, rounding)
    q = Quantizer(fmt)
    x = torch.tensor(EDGES, dtype=torch.float64)
    expected = [code(v, 8, 3, rounding) for v in EDGES]
    assert q.raw(q(x)).tolist() == expected
    assert q(x).tolist() == [c / 8 for c in expected]
    # The numpy twin agrees code for code.
    assert fmt.quantize(EDGES).tolist() == expected
    assert min(expected) == -127 and max(expected) == 127


def test_quantiser_saturates_below_the_grid_at_minus_max_raw():
    q = Quantizer(FixedPoint(8, 3))
    low = q(torch.tensor([-16.0, -100.0]))
    assert q.raw(low).tolist() == [-127, -127]
    assert low.tolist() == [-15.875, -15.875]


def test_quantiser_map_rounds_the_function_values():
    q = Quantizer(FixedPoint(8, 3, "nearest"))
    x = torch.tensor([[0.5, -0.5], [0.5, 2.0]], dtype=torch.float64)
    out = q.map(math.exp, x)
    want = [[code(math.exp(v), 8, 3, "nearest") / 8 for v in row] for row in x.tolist()]
    assert out.tolist() == want
    assert out.shape == x.shape
    # Many fractional bits: the function values must stay in float64 (float32 would move them
    # by about 1e-7, hundreds of grid steps of 2^-40).
    fine = Quantizer(FixedPoint(48, 40, "nearest"))
    x = torch.tensor([0.1, 1.3, -2.7], dtype=torch.float64)
    assert fine.map(math.exp, x).tolist() == [
        code(math.exp(v), 48, 40, "nearest") / 2**40 for v in x.tolist()
    ]
    assert fine.fmt == FixedPoint(48, 40, "nearest")


@pytest.mark.parametrize(("bits", "ok"), [(52, True), (53, True), (54, False)])
def test_quantiser_accepts_at_most_53_bits(bits, ok):
    fmt = FixedPoint(bits, 0)
    if ok:
        q = Quantizer(fmt)
        top = 2 ** (bits - 1) - 1
        assert q.raw(q(torch.tensor([1e300, -1e300]))).tolist() == [top, -top]
    else:
        with pytest.raises(InputError, match="at most 53 bits, got 54"):
            Quantizer(fmt)
