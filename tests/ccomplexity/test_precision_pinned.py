"""Pinned: :meth:`FixedPoint.sub` is exact on the Python-integer path (63 and 64 bits).

At 63 and 64 bits a difference can exceed int64's safe range, so both operands are computed on
Python integers; a float64 operand there would round ``2^63 - 2`` up to ``2^63`` and saturate.
References are plain Python integers.
"""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint


@pytest.mark.parametrize("bits", [63, 64])
def test_sub_on_python_integers_is_exact_near_the_top(bits: int) -> None:
    fmt = FixedPoint(bits, 0)
    top = (1 << (bits - 1)) - 1
    assert fmt.max_raw == top
    got = fmt.sub([top, 5, -top, top - 7], [1, top, -1, -8])
    assert got.tolist() == [top - 1, 5 - top, -top + 1, top]  # the last saturates: top + 1
    assert int(fmt.sub(top, 2)) == top - 2
    assert int(fmt.sub(-top, 3)) == -top  # saturates at the symmetric bottom
    assert int(fmt.sub(1, top)) == 1 - top


def test_sub_error_mode_names_the_difference_at_64_bits() -> None:
    fmt = FixedPoint(64, 0, "floor", "error")
    top = fmt.max_raw
    assert int(fmt.sub(top, 1)) == top - 1
    with pytest.raises(InputError, match=r"^difference "):
        fmt.sub(-top, 1)


def test_mul_is_exact_where_products_overflow_int64() -> None:
    """At 48 bits with 20 fractional, raw products reach 2^66 while the rounded result still
    fits: the product must be taken on Python integers (int64 would wrap)."""
    fmt = FixedPoint(48, 20)
    a = [(1 << 33) + 12345, -(1 << 33) - 7, (1 << 40) + 3, 5]
    b = [(1 << 33) + 999, (1 << 33) + 1, (1 << 26) + 1, -3]
    got = fmt.mul(a, b)
    assert got.tolist() == [(x * y) >> 20 for x, y in zip(a, b, strict=True)]


def test_dot_is_exact_where_a_float_would_round_the_products() -> None:
    """At 64 bits with 8 fractional, raw products near 2^70 need 71 bits: the sum of exact
    integer products, floored once, is the reference (a float64 operand would lose the low
    ~17 bits of each product, far more than the 8 rounded away)."""
    fmt = FixedPoint(64, 8)
    x = [(1 << 35) + 123457, (1 << 35) - 98765]
    y = [(1 << 35) + 31, (1 << 34) + 77777]
    exact = sum(p * q for p, q in zip(x, y, strict=True)) >> 8
    assert int(fmt.dot(x, y)) == exact
    assert int(fmt.dot(y, x)) == exact
