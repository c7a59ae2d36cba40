"""Mixture-of-parrots bounds pinned where the pinned file does not reach: the positive-real
check behind the ``sigma`` parameter (built once at import, so tested on a fresh instance:
bools, non-reals, 0, inf and nan refused with the parameter's name; a positive real returned
as a float), and Thm A.12's integer bits at the grid's edge, where M = max(M_w, M_b, 1) = 1
for a length so large that both bounds vanish in float arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from ccomplexity.bounds import parrots as par
from ccomplexity.errors import InputError


@pytest.mark.parametrize("bad", [True, False, "1", None, 0, 0.0, -1, -0.5, math.inf, math.nan])
def test_positive_real_refuses_with_the_parameter_name(bad: object) -> None:
    check = par._positive_real("sigma")
    with pytest.raises(InputError, match=r"^sigma must be a positive real number, got "):
        check(bad)


@pytest.mark.parametrize("good", [1, 0.25, Fraction(1, 3), 1e-300, 1e300, 5])
def test_positive_real_returns_a_float(good: object) -> None:
    got = par._positive_real("sigma")(good)
    assert type(got) is float and got == float(good)  # type: ignore[arg-type]


def test_a12_integer_bits_count_the_output_weights_when_both_bounds_vanish() -> None:
    """At N = 10^40 both M_w (~5e-20) and M_b (~4e-37) are below float's 2^-53, so
    log2(M + 1) is 0 without the output weights' magnitude 1: the integer part needs
    ceil(log2(max(M_w, M_b, 1) + 1)) = 1 bit."""
    out = par.a12_bits(2, 10**40, 4096, 1, 0.01)
    assert out["weight_bound"] < 2.0**-53 and out["bias_bound"] < 2.0**-53
    assert out["integer_bits"] == 1
    assert out["bits_per_parameter"] == 1 + 1 + out["fraction_bits"]
