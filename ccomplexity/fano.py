"""Accuracy ceilings of a b-bit one-way message, from Fano's inequality.

The communication bounds are worst-case: a protocol of fewer bits than a fooling set's log2 |S|
errs on *some* input. A trained model is scored on sampled inputs, so reaching 0.99 on them
beyond a worst-case wall is possible for a model that errs elsewhere (equality over random
pairs is the plain case: a b-bit hash answers all but about 2^-b of the unequal pairs). Where
the inputs are uniform, information theory bounds the *average* accuracy too, and a sampled
accuracy above that ceiling is impossible for any b-bit protocol, whatever it does.

Index lookup over ``symbols`` = S symbols, Alice holding a uniform a in [S]^N and Bob a uniform
query i (Thm 3's split: the state after a is the message M of b bits). Then
H(a | M) >= N log2 S - b, and by the chain rule sum_i H(a_i | M) >= H(a | M). Fano's inequality
for each position, H(a_i | M) <= h(e_i) + e_i log2(S - 1) with e_i the error of the best guess
of a_i from M, and the concavity of the right side give, for the average error e over i:

    h(e) + e log2(S - 1) >= log2 S - b / N,

so the accuracy is at most 1 - e* with e* the least e in [0, 1 - 1/S] satisfying it
(:func:`index_lookup_ceiling`). At S = 2 and N = 1.5 b the ceiling is 0.938, at N = 2 b 0.890;
0.99 needs N <= 1.088 b.
"""

from __future__ import annotations

import math

from ccomplexity.errors import check_int


def _entropy_bound(e: float, symbols: int) -> float:
    """h(e) + e log2(S - 1), in bits: the most H(a_i | M) can be at error e (Fano)."""
    if e <= 0.0:
        return 0.0
    h = -e * math.log2(e) - (1 - e) * math.log2(1 - e) if e < 1 else 0.0
    return h + e * math.log2(symbols - 1) if symbols > 2 else h


def index_lookup_ceiling(bits: int, length: int, symbols: int = 2) -> float:
    """The largest average accuracy of any protocol sending ``bits`` bits about a uniform word
    of ``length`` symbols of ``symbols`` kinds, for a uniform query position (see the module
    docstring); 1.0 when the bits suffice to send the whole word."""
    b = check_int(bits, "bits", 0)
    n = check_int(length, "length", 1)
    s = check_int(symbols, "symbols", 2)
    needed = math.log2(s) - b / n  # bits of uncertainty per position the message leaves
    if needed <= 0:
        return 1.0
    lo, hi = 0.0, 1.0 - 1.0 / s  # the bound increases on [0, 1 - 1/S] up to log2 S
    for _ in range(200):  # bisection to float precision, rounded up: a ceiling
        mid = (lo + hi) / 2
        if _entropy_bound(mid, s) >= needed:
            hi = mid
        else:
            lo = mid
    return 1.0 - lo


__all__ = ["index_lookup_ceiling"]
