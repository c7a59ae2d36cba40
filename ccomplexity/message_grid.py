"""The grid of p-bit numbers that a model trained at p bits holds where its protocol sends a
number: every one of the 2^p codes of p-bit two's complement used.

A model whose messages are held on this grid *is* the protocol of its theorem: an RNN's state
(Thm 2 of the separations paper: m numbers of p bits, m p bits across any cut), a one-layer
attention's logits, softmax numerators and value terms (Thm 4: each party's partial sums of such
numbers are exact in p + ceil(log2 N) bits). Where :class:`ccomplexity.precision.FixedPoint` is
the arithmetic of the paper's finite-precision model (every value rounded, a symmetric range so
that negation is closed), a message grid only stores: a number is the integer code ``raw`` in
``-2^(p-1) .. 2^(p-1) - 1`` and stands for ``raw * 2^-frac``. So p = 1 holds two values
(``-2^-frac`` and 0) and p = 2 four, as p bits allow; sums of codes are exact integers.

Rounding is to the nearest grid value, ties to even (unbiased, what a straight-through
quantiser trains best with), and values beyond the grid saturate at its ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ccomplexity.errors import InputError
from ccomplexity.protocol import decode_ints, encode_ints

MOST_BITS = 24
"""Most bits a message grid holds: a model computes in float32, whose 24-bit significand holds
every code of such a grid (and every sum of up to 2^(24 - p) of them) exactly."""


@dataclass(frozen=True)
class MessageGrid:
    """``bits`` p (1 .. :data:`MOST_BITS`) and ``frac`` fractional bits (0 .. 2 p; default
    p // 2 at the spec that makes it): the values ``raw * 2^-frac``, raw a p-bit code."""

    bits: int
    frac: int

    def __post_init__(self) -> None:
        if isinstance(self.bits, bool) or not isinstance(self.bits, int):
            raise InputError(f"a message grid's bits must be an integer, got {self.bits!r}")
        if not 1 <= self.bits <= MOST_BITS:
            raise InputError(
                f"a model holds its messages on a grid of 1..{MOST_BITS} bits (float32), got "
                f"{self.bits}"
            )
        if isinstance(self.frac, bool) or not isinstance(self.frac, int):
            raise InputError(f"a message grid's frac must be an integer, got {self.frac!r}")
        if not 0 <= self.frac <= 2 * self.bits:
            raise InputError(
                f"frac must lie in 0..2p = {2 * self.bits} fractional bits, got {self.frac}"
            )

    @property
    def min_raw(self) -> int:
        return -(1 << (self.bits - 1))

    @property
    def max_raw(self) -> int:
        return (1 << (self.bits - 1)) - 1

    @property
    def step(self) -> float:
        return 2.0**-self.frac

    @property
    def levels(self) -> int:
        """Values the grid holds: 2^p."""
        return 1 << self.bits

    def quantize(self, x: Any) -> np.ndarray:
        """Codes (int64) of real values: nearest, ties to even, saturating."""
        scaled = np.rint(np.asarray(x, dtype=np.float64) * 2.0**self.frac)
        return np.clip(scaled, self.min_raw, self.max_raw).astype(np.int64)

    def sum_bits(self, terms: int) -> int:
        """Bits of two's complement that hold any sum of ``terms`` codes exactly:
        p + ceil(log2 terms)."""
        if terms < 1:
            raise InputError(f"a sum needs at least one term, got {terms}")
        return self.bits + (terms - 1).bit_length()

    def to_bits_rows(self, raw: np.ndarray, width: int | None = None) -> list[str]:
        """One string per row of codes (rows, k): ``width`` (default p) bits per code."""
        w = self.bits if width is None else width
        return [encode_ints([int(v) for v in row], w, full_range=True) for row in np.asarray(raw)]

    def from_bits_rows(self, texts: list[str], count: int, width: int | None = None) -> np.ndarray:
        """Codes (rows, count) decoded from :meth:`to_bits_rows`'s strings."""
        w = self.bits if width is None else width
        rows = [decode_ints(t, w, count, full_range=True) for t in texts]
        return np.array(rows, dtype=np.int64).reshape(len(texts), count)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "message-grid",
            "bits": self.bits,
            "frac": self.frac,
            "rounding": "nearest",
            "min_raw": self.min_raw,
            "max_raw": self.max_raw,
        }

    @classmethod
    def default_frac(cls, bits: int) -> int:
        """p // 2 fractional bits: values up to about 2^(p/2) and steps of 2^-(p/2) (the
        convention of the protocols' grids)."""
        return bits // 2


__all__ = ["MOST_BITS", "MessageGrid"]
