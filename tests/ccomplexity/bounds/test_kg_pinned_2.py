"""Lemma B.18 (``ccomplexity.bounds.kg.permutation_storage``) at the edge of its integer range.

Pinned: E = 200 is the largest E whose E! is built as an integer; from E = 201 on, ``bits`` is
the docstring's float formula m log2 E! - log2 m! (the first-order term m (m - 1) / (2 E! ln 2)
is below 1e-370 and taken as 0), to the last bit, even where C(E!, m) would fit the exact range
(m log2 E! <= 2^20). At E = 200 the same m take log2 of the exact integer C(E!, m).
"""

from __future__ import annotations

import math

import pytest

from ccomplexity.bounds import kg


def float_bits(e: int, m: int) -> float:
    """m log2 E! - log2 m! as the module's floats compute it (no first-order term)."""
    return m * (math.lgamma(e + 1) / math.log(2)) - math.lgamma(m + 1) / math.log(2) - 0.0


@pytest.mark.parametrize("m", [3, 4, 18])
def test_lemma_b18_at_e_201_is_the_float_formula(m: int) -> None:
    # at these m the float formula and log2 of the exact C(201!, m) are different floats
    count = math.comb(math.factorial(201), m)
    assert m * (math.lgamma(202) / math.log(2)) <= kg.EXACT_BITS_LIMIT
    assert float_bits(201, m) != kg._log2_int(count)
    out = kg.permutation_storage(201, m)
    assert out["bits"] == float_bits(201, m)
    per = math.log2(201)
    assert out["min_parameters"] == math.ceil(float_bits(201, m) / per)
    # the integers agree with the ceiling: 201^(P-1) < C(201!, m) <= 201^P
    p = out["min_parameters"]
    assert 201 ** (p - 1) < count <= 201**p
    assert out["min_parameters_exact"] is True


@pytest.mark.parametrize("m", [3, 4, 18])
def test_lemma_b18_at_e_200_is_log2_of_the_integer(m: int) -> None:
    count = math.comb(math.factorial(200), m)
    out = kg.permutation_storage(200, m)
    assert out["bits"] == kg._log2_int(count)
    p = out["min_parameters"]
    assert 200 ** (p - 1) < count <= 200**p
