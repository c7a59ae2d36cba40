"""The papers' small formulas written out independently of ``ccomplexity``, in exact
arithmetic, for the tests that pin the bounds against them."""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction


def ceil_ln(scale: Fraction, arg: int) -> int:
    """ceil(scale ln(arg)) with a 50-digit logarithm (never a tie: ln of an integer > 1 is
    transcendental)."""
    with localcontext() as ctx:
        ctx.prec = 50
        x = Decimal(scale.numerator) * Decimal(arg).ln() / Decimal(scale.denominator)
        return int(x.to_integral_value(rounding="ROUND_CEILING"))


def lemma2_k(n: int, gamma: Fraction) -> int:
    """Lemma 2 (App. B.3, as printed; spec erratum 9 keeps the constant): ceil(8 ln(2N)/g^2)."""
    return ceil_ln(8 / gamma**2, 2 * n)


def cor81_k(n: int) -> int:
    """Corollary 8.1: Lemma 2 at gamma = 1/4, k = ceil(128 ln(2N))."""
    return ceil_ln(Fraction(128), 2 * n)


def clog2(n: int) -> int:
    """ceil(log2 n) by doubling (0 for n = 1)."""
    bits = 0
    while 2**bits < n:
        bits += 1
    return bits
