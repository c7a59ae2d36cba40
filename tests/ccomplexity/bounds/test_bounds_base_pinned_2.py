"""More pinned values of ``ccomplexity.bounds.base``: the exact test a log2 n >= r on near-ties
that only its own tolerances and precisions settle, and a validator with ``least`` 0.

- a = 103873643, n = 5, r = 241187130: a log2 5 - r = +1.7e-9 while the float product gives
  -3.0e-8 (r ~ 2.4e8, so the float is off by ~1e-8): only the margin 1e-9 r (not 1e-9 / r)
  sends this to the Decimal logarithms.
- a = q, r = p of a convergent p/q of log2 3 with 30 digits: a log2 3 - r = +2.3e-30 on a value
  of 4.6e29, so 60 significant digits are not enough; the Decimal precision must grow with
  the digits of r and of a (60 + both).

Expected values come from 150-digit Decimal logarithms computed here.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import pytest

from ccomplexity.bounds.base import a_log2_at_least, positive_int
from ccomplexity.errors import InputError


def gap(a: int, n: int, r: int) -> Decimal:
    """a log2 n - r to 150 significant digits."""
    with localcontext() as ctx:
        ctx.prec = 150
        return Decimal(a) * Decimal(n).ln() / Decimal(2).ln() - r


def test_near_tie_where_the_float_has_the_wrong_sign() -> None:
    a, n, r = 103873643, 5, 241187130
    assert Decimal("1.7e-9") < gap(a, n, r) < Decimal("1.8e-9")
    assert a * math.log2(n) - r < 0  # the float alone says the opposite
    assert a_log2_at_least(a, n, r) is True
    assert a_log2_at_least(a, n, r + 1) is False
    assert a_log2_at_least(a, n, r - 1) is True


# the 30-digit convergent p/q of log2 3 (q log2 3 - p = +2.3e-30)
Q30 = 290018006858822128380673693491
P30 = 459667665405124146032685965339


def test_near_tie_beyond_sixty_digits() -> None:
    g = gap(Q30, 3, P30)
    assert Decimal("2.2e-30") < g < Decimal("2.4e-30")
    assert a_log2_at_least(Q30, 3, P30) is True
    assert a_log2_at_least(Q30, 3, P30 + 1) is False
    # n = 3 * 2^t: log2 n = t + log2 3, the same near-tie shifted by a t
    assert a_log2_at_least(Q30, 12, P30 + 2 * Q30) is True
    assert a_log2_at_least(Q30, 12, P30 + 2 * Q30 + 1) is False


def test_near_ties_below_the_convergent() -> None:
    # q log2 3 - (p - 1) = 1 + 2.3e-30: far from a tie, true; with r = p + 1 the gap is -1
    assert a_log2_at_least(Q30, 3, P30 - 1) is True
    assert gap(Q30, 3, P30 + 1) < -Decimal("0.99")


def test_positive_int_least_zero_made_at_call_time() -> None:
    check = positive_int("offset", 0)
    assert check(0) == 0 and check(5) == 5
    with pytest.raises(InputError, match=r"^offset must be an integer >= 0, got -1$"):
        check(-1)
    three = positive_int("count", 3)
    assert three(3) == 3
    with pytest.raises(InputError, match=r"^count must be an integer >= 3, got 2$"):
        three(2)
