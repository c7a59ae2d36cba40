"""Exact integer helpers shared by the whole toolkit."""

from __future__ import annotations

import math


def ceil_log2(n: int) -> int:
    """ceil(log2 n) exactly for an integer n >= 1 (0 for n <= 1): bits to tell n things apart."""
    n = int(n)
    return (n - 1).bit_length() if n > 1 else 0


def log2_exact(n: int) -> int | float:
    """log2 n for an integer n >= 1, as an int for powers of two (exact), else a float."""
    return n.bit_length() - 1 if n & (n - 1) == 0 else math.log2(n)


def json_int(n: int) -> int | str:
    """``n`` itself, or its exact hex string when Python refuses a decimal conversion.

    CPython limits int -> decimal str conversion to 4300 digits; counts such as 2^(N-1) for
    N > 14,000 exceed it. Hex conversion is exact and unlimited.
    """
    return n if n.bit_length() <= 14_000 else hex(n)
