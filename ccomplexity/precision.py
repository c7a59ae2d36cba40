"""Fixed-point numbers of ``p`` bits: the finite-precision arithmetic of the separations paper.

Bhattamishra, Hahn, Blunsom, Kanade, "Separations in the Representational Capabilities of
Transformers and Recurrent Architectures", App. B.2, works with p = Θ(log N) bits on the grid
``{-N^Kc, ..., -Δ, 0, Δ, ..., N^Kc}`` with ``Δ = N^-Kc``: every value is rounded *down* onto the
grid and values above ``N^Kc`` are clipped to ``N^Kc``.

**Binary grid instead of the paper's.** A :class:`FixedPoint` has ``bits`` bits in all (sign
included) and ``frac`` fractional bits, so its grid is ``{k · 2^-frac : |k| <= 2^(bits-1) - 1}``.
A number is stored as its *raw* value, the integer ``k``. Why not ``Δ = N^-Kc``? With a power-of-two
step every grid value is an integer multiple of the step, so sums are exact integer sums
(associative, commutative, independent of summation order) and a product has exactly
``2·frac`` fractional bits, so rounding it back to the grid is one integer shift. The paper's
grid has none of this for N not a power of two: ``1/3`` is not a float and the grid is not closed
under the float arithmetic a simulator would use. :meth:`FixedPoint.for_length` returns the
smallest binary grid that is at least as fine (``2^-frac <= N^-Kc``) and at least as wide
(``max_value >= N^Kc``) as the paper's, so any rounding error the paper's analysis tolerates at
step Δ is tolerated here too. It costs about ``2·Kc·log2 N + 2`` bits against the paper's
``2·Kc·log N`` (the paper's count also drops the one bit that the sign needs).

**Symmetric range.** ``min_raw = -max_raw``: the two's-complement code ``-2^(bits-1)`` is unused.
The paper's grid is symmetric too, negation is closed and saturation treats both ends alike.
:meth:`FixedPoint.from_bits` rejects that code.

**Rounding.** ``"floor"`` rounds towards -∞ (App. B.2: "rounded down"); ``"nearest"`` rounds to the
nearest grid point with ties to even (App. F.2 rounds weights within Δ/2 of 1 to 1). Ties to even
is unbiased, is what ``numpy.rint`` and IEEE 754 do, and commutes with negation.

**Overflow.** ``"saturate"`` clips to ``[min_value, max_value]`` (App. B.2 clips at the top; the
bottom clip is implied by symmetry); ``"error"`` raises :class:`InputError` naming the value and
the range.

**One rounding per operation.** :meth:`FixedPoint.mul`, :meth:`FixedPoint.dot` and
:meth:`FixedPoint.div` compute the exact rational result with integers and round it once;
:meth:`FixedPoint.sum` and :meth:`FixedPoint.add` are exact and only saturate (or raise) once.
This is footnote 3 of the paper: sum exactly with p + log N bits, then round back to p bits.
Under saturation :meth:`FixedPoint.add` is associative whenever no partial sum overflows, and
always for non-negative operands (the case the paper needs).

**Exactness of the integer arithmetic.** Results are always ``int64`` arrays of raw values (they
fit, since ``bits <= 64``). Intermediates use ``int64`` only when a bound on their magnitude proves
they stay below 2^62 (one bit of headroom for the rounding step); otherwise they are computed on
numpy object arrays of Python integers, which are exact at any size. Both paths give identical
results.

**exp.** :meth:`FixedPoint.exp` is the float64 exponential of the grid value rounded to the grid.
It is not the exactly rounded real exponential, but it is a fixed deterministic function of the
grid point, which is all a protocol simulating a model needs (App. D only needs each exponential
of a non-positive score to lie in [0, 1]). The real exp of a non-positive number lies in (0, 1];
on the grid it can round to 0 when it is below one step.

**Bit strings.** :meth:`FixedPoint.to_bits` and :meth:`FixedPoint.from_bits` are the protocols'
message encoding (two's complement, ``bits`` characters per number); the ``_rows`` forms encode
and decode a batch of messages in one pass. The module stays whole (a little over 500 lines): it
is one class, whose arithmetic, rounding and bit strings share its range checks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from ccomplexity.errors import InputError

Rounding = Literal["floor", "nearest"]
Overflow = Literal["saturate", "error"]
Axis = int | tuple[int, ...] | None

ROUNDINGS: tuple[str, ...] = ("floor", "nearest")
OVERFLOWS: tuple[str, ...] = ("saturate", "error")
MIN_BITS = 2
MAX_BITS = 64

_INT64_LIMIT = 1 << 62
"""Largest intermediate magnitude computed in int64; above it Python ints are used.

One bit below int64's limit so that the rounding step (``2·remainder``, ``quotient + 1``) cannot
overflow. Tests lower it to force the object path and compare the two.
"""

_EXACT_POWER_BITS = 1 << 20
"""Largest integer (in bits) that :meth:`FixedPoint.for_length` builds for an exact comparison."""


def _fits_int64(bound: int) -> bool:
    """Whether intermediates bounded by ``bound`` in magnitude may be computed in int64."""
    return bound <= _INT64_LIMIT


def _power_at_most(n: int, k: float, num: int, den: int) -> bool:
    """Whether ``n ** k <= num / den`` is certain (n >= 1, k > 0, num, den >= 1).

    Exact integer comparison when ``k``'s exact rational form is small; otherwise natural logs at
    80 significant digits, answering False (the caller then takes one more bit) in the near-tie
    where that precision cannot decide.
    """
    if n == 1:  # 1^k = 1 exactly; the log path below could only answer conservatively
        return den <= num
    kf = Fraction(k)
    a, b = kf.numerator, kf.denominator
    # n^(a/b) <= num/den  <=>  n^a * den^b <= num^b, all positive integers.
    size = a * n.bit_length() + b * (num.bit_length() + den.bit_length())
    if size <= _EXACT_POWER_BITS:
        return n**a * den**b <= num**b
    with localcontext() as ctx:
        ctx.prec = 80
        lhs = Decimal(k) * Decimal(n).ln()
        rhs = Decimal(num).ln() - Decimal(den).ln()
        return lhs < rhs - Decimal("1e-60")


def _round_quotient(n: Any, d: Any, rounding: str, wide: bool) -> np.ndarray:
    """``n / d`` rounded to an integer, for integers ``n`` and positive integers ``d`` (arrays).

    ``wide`` computes on Python ints. Works on flat 1-d copies: numpy turns 0-d object arithmetic
    into bare Python ints, which ``np.where`` would then squeeze into int64.
    """
    dt = object if wide else np.int64
    n, d = np.broadcast_arrays(np.asarray(n, dtype=dt), np.asarray(d, dtype=dt))
    shape = n.shape
    n, d = n.ravel(), d.ravel()
    q = n // d  # floor division: exact for int64 and Python ints, towards -inf for any sign
    if rounding == "nearest":
        r = n - q * d  # 0 <= r < d
        twice = 2 * r
        up = (twice > d) | ((twice == d) & (q % 2 != 0))  # above half, or a tie with odd quotient
        q = np.where(up, q + 1, q)
    return np.asarray(q, dtype=dt).reshape(shape)


def _reduced_count(shape: tuple[int, ...], axis: Axis) -> tuple[int, Axis]:
    """Number of terms a reduction over ``axis`` combines, and the axis normalised for numpy."""
    if axis is None:
        return math.prod(shape), None
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    ndim = len(shape)
    norm = []
    for ax in axes:
        ax = int(ax)
        if not -ndim <= ax < ndim:
            raise InputError(f"axis {ax} is out of bounds for an array of {ndim} dimensions")
        norm.append(ax % ndim)
    if len(set(norm)) != len(norm):
        raise InputError(f"axis {axis} repeats a dimension")
    return math.prod(shape[ax] for ax in norm), tuple(norm)


@dataclass(frozen=True)
class FixedPoint:
    """Signed fixed-point numbers of ``bits`` bits with ``frac`` fractional bits (App. B.2).

    Values are ``raw · 2^-frac`` for integers ``raw`` in ``[-(2^(bits-1) - 1), 2^(bits-1) - 1]``.
    Every operation takes and returns raw integer arrays (``int64``, broadcasting like numpy;
    0-d arrays for scalar inputs).
    """

    bits: int
    frac: int
    rounding: Rounding = "floor"
    overflow: Overflow = "saturate"

    def __post_init__(self) -> None:
        for name in ("bits", "frac"):
            value = getattr(self, name)
            if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
                raise InputError(f"{name} must be an integer, got {value!r}")
            object.__setattr__(self, name, int(value))
        if not MIN_BITS <= self.bits <= MAX_BITS:
            raise InputError(f"bits must lie in {MIN_BITS}..{MAX_BITS}, got {self.bits}")
        if not 0 <= self.frac < self.bits:
            raise InputError(f"frac must lie in 0..{self.bits - 1} (bits - 1), got {self.frac}")
        if self.rounding not in ROUNDINGS:
            raise InputError(
                f"rounding must be one of {', '.join(ROUNDINGS)}, got {self.rounding!r}"
            )
        if self.overflow not in OVERFLOWS:
            raise InputError(
                f"overflow must be one of {', '.join(OVERFLOWS)}, got {self.overflow!r}"
            )

    # ----------------------------------------------------------------- the grid

    @property
    def step(self) -> float:
        """Grid spacing 2^-frac (the paper's Δ)."""
        return math.ldexp(1.0, -self.frac)

    @property
    def max_raw(self) -> int:
        """Largest raw value, 2^(bits-1) - 1."""
        return (1 << (self.bits - 1)) - 1

    @property
    def min_raw(self) -> int:
        """Smallest raw value, -max_raw (symmetric range: negation is closed)."""
        return -self.max_raw

    @property
    def max_value(self) -> float:
        """Largest representable number (as float64; rounded when bits > 53)."""
        return self.max_raw / (1 << self.frac)

    @property
    def min_value(self) -> float:
        """Smallest representable number, -max_value."""
        return -self.max_value

    @classmethod
    def for_length(
        cls,
        length: int,
        k_c: float = 2.0,
        rounding: Rounding = "floor",
        overflow: Overflow = "saturate",
    ) -> FixedPoint:
        """Smallest binary grid at least as fine and as wide as App. B.2's for length N and Kc.

        ``frac`` is the least f with 2^-f <= N^-Kc; ``bits`` the least p with
        (2^(p-1) - 1) · 2^-frac >= N^Kc. Raises :class:`InputError` when that needs over 64 bits.
        """
        if isinstance(length, bool) or not isinstance(length, int | np.integer) or length < 1:
            raise InputError(f"length must be an integer >= 1, got {length!r}")
        length = int(length)
        if isinstance(k_c, bool) or not isinstance(k_c, int | float | np.integer | np.floating):
            raise InputError(f"k_c must be a positive number, got {k_c!r}")
        k = float(k_c)
        if not (math.isfinite(k) and k > 0):
            raise InputError(f"k_c must be a positive finite number, got {k_c!r}")
        frac = next(
            (f for f in range(MAX_BITS) if _power_at_most(length, k, 1 << f, 1)),
            None,
        )
        if frac is not None:
            for bits in range(max(MIN_BITS, frac + 1), MAX_BITS + 1):
                if _power_at_most(length, k, (1 << (bits - 1)) - 1, 1 << frac):
                    return cls(bits, frac, rounding, overflow)
        raise InputError(
            f"for_length(N={length}, k_c={k}) needs more than {MAX_BITS} bits "
            f"(about 2*k_c*log2(N) + 2); the limit is {MAX_BITS}"
        )

    def describe(self) -> dict[str, Any]:
        """JSON-ready description; :meth:`from_dict` inverts it."""
        return {
            "bits": self.bits,
            "frac": self.frac,
            "rounding": self.rounding,
            "overflow": self.overflow,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FixedPoint:
        """Rebuild a format from :meth:`describe`'s output."""
        keys = {"bits", "frac", "rounding", "overflow"}
        if not isinstance(d, dict) or set(d) != keys:
            raise InputError(f"a fixed-point description needs exactly the keys {sorted(keys)}")
        return cls(d["bits"], d["frac"], d["rounding"], d["overflow"])

    def __str__(self) -> str:
        return f"{self.bits}-bit fixed point with {self.frac} fractional bits"

    # ----------------------------------------------------------------- conversions

    def _out_of_range(self, value: Any, what: str) -> InputError:
        return InputError(
            f"{what} {value!r} is outside the range [{self.min_value!r}, {self.max_value!r}] "
            f"of {self}"
        )

    def _raw(self, a: ArrayLike, name: str = "raw value") -> np.ndarray:
        """Validate raw values: integers in [min_raw, max_raw]; returns an int64 array."""
        arr = np.asarray(a)
        if arr.dtype.kind == "O":
            for v in arr.flat:
                if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer):
                    raise InputError(f"{name}s must be integers, got {v!r}")
        elif arr.dtype.kind not in "iu" and arr.size:  # [] arrives as float64
            raise InputError(
                f"{name}s must be integers, got dtype {arr.dtype} (use quantize() for reals)"
            )
        if arr.size:
            lo, hi = int(arr.min()), int(arr.max())
            if lo < self.min_raw or hi > self.max_raw:
                bad = lo if lo < self.min_raw else hi
                raise InputError(
                    f"{name} {bad} is outside [{self.min_raw}, {self.max_raw}] for {self}"
                )
        return arr.astype(np.int64)

    def _finish(self, s: Any, wide: bool, what: str = "result") -> np.ndarray:
        """Saturate (or raise on) exact integer results and return them as int64."""
        s = np.asarray(s, dtype=object if wide else np.int64)
        shape = s.shape
        s = s.ravel()  # 1-d: keeps object arithmetic in arrays (see _round_quotient)
        over, under = s > self.max_raw, s < self.min_raw
        if self.overflow == "error":
            bad = over | under
            if np.any(bad):
                raw = int(s[bad][0])
                raise self._out_of_range(raw / (1 << self.frac), what)
        elif np.any(over) or np.any(under):
            s = np.where(over, self.max_raw, np.where(under, self.min_raw, s))
        return np.asarray(s).astype(np.int64).reshape(shape)

    def quantize(self, x: ArrayLike) -> np.ndarray:
        """Real numbers (as float64) to raw values: round onto the grid, then saturate or raise.

        Scaling by 2^frac is exact in float64 and so is floor/rint of the result, so this is the
        exact rounding of each float64 input. NaN raises :class:`InputError`.
        """
        xs = np.asarray(x, dtype=np.float64)
        if np.any(np.isnan(xs)):
            raise InputError("cannot quantize NaN")
        with np.errstate(over="ignore"):  # values beyond float range saturate (or raise) below
            scaled = np.ldexp(xs, self.frac)
        y = np.floor(scaled) if self.rounding == "floor" else np.rint(scaled)
        # Integer-valued y exceeds max_raw = 2^(bits-1) - 1 iff y >= 2^(bits-1), a float-exact test.
        limit = math.ldexp(1.0, self.bits - 1)
        over, under = y >= limit, y <= -limit
        if self.overflow == "error" and np.any(over | under):
            raise self._out_of_range(float(xs[over | under].flat[0]), "value")
        out = np.where(over | under, 0.0, y).astype(np.int64)
        out[over] = self.max_raw
        out[under] = self.min_raw
        return out

    def to_float(self, raw: ArrayLike) -> np.ndarray:
        """Raw values to float64 numbers (exact when bits <= 53, else nearest float)."""
        return np.ldexp(self._raw(raw).astype(np.float64), -self.frac)

    def from_fraction(self, num: int, den: int = 1) -> int:
        """Raw value of the rational ``num / den``, rounded exactly once (then saturated)."""
        for name, v in (("num", num), ("den", den)):
            if isinstance(v, bool) or not isinstance(v, int | np.integer):
                raise InputError(f"{name} must be an integer, got {v!r}")
        num, den = int(num), int(den)
        if den == 0:
            raise InputError("from_fraction: denominator is 0")
        if den < 0:
            num, den = -num, -den
        q = _round_quotient(num << self.frac, den, self.rounding, wide=True)
        return int(self._finish(q, wide=True, what="value"))

    # ----------------------------------------------------------------- arithmetic

    def add(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Exact sum, saturated (or raising) once."""
        x, y = self._raw(a), self._raw(b)
        wide = not _fits_int64(2 * self.max_raw)
        if wide:
            x, y = x.astype(object), y.astype(object)
        return self._finish(x + y, wide, "sum")

    def sub(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Exact difference, saturated (or raising) once."""
        x, y = self._raw(a), self._raw(b)
        wide = not _fits_int64(2 * self.max_raw)
        if wide:
            x, y = x.astype(object), y.astype(object)
        return self._finish(x - y, wide, "difference")

    def neg(self, a: ArrayLike) -> np.ndarray:
        """Negation; exact, since the range is symmetric."""
        return -self._raw(a)

    def mul(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Exact product (2·frac fractional bits) rounded once back to frac bits."""
        x, y = self._raw(a), self._raw(b)
        wide = not _fits_int64(self.max_raw**2)
        if wide:
            x, y = x.astype(object), y.astype(object)
        q = _round_quotient(x * y, 1 << self.frac, self.rounding, wide)
        return self._finish(q, wide, "product")

    def dot(self, a: ArrayLike, b: ArrayLike, axis: Axis = -1) -> np.ndarray:
        """Exact sum of exact products over ``axis``, rounded once (so order-independent)."""
        x, y = self._raw(a), self._raw(b)
        try:
            shape = np.broadcast_shapes(x.shape, y.shape)
        except ValueError as e:
            raise InputError(f"dot: shapes {x.shape} and {y.shape} do not broadcast") from e
        n, ax = _reduced_count(shape, axis)
        wide = not _fits_int64(max(n, 1) * self.max_raw**2)
        if wide:
            x, y = x.astype(object), y.astype(object)
        total = np.sum(x * y, axis=ax)
        q = _round_quotient(total, 1 << self.frac, self.rounding, wide)
        return self._finish(q, wide, "dot product")

    def sum(self, a: ArrayLike, axis: Axis = -1) -> np.ndarray:
        """Exact sum over ``axis``, saturated (or raising) once."""
        x = self._raw(a)
        n, ax = _reduced_count(x.shape, axis)
        wide = not _fits_int64(max(n, 1) * self.max_raw)
        if wide:
            x = x.astype(object)
        return self._finish(np.sum(x, axis=ax), wide, "sum")

    def max(self, a: ArrayLike, axis: Axis = -1) -> np.ndarray:
        """Maximum over ``axis`` (exact; no rounding)."""
        x = self._raw(a)
        n, ax = _reduced_count(x.shape, axis)
        if n == 0:
            raise InputError("max over an empty axis")
        return np.asarray(np.max(x, axis=ax), dtype=np.int64)

    def exp(self, a: ArrayLike) -> np.ndarray:
        """float64 ``exp`` of each grid value, rounded onto the grid (see the module docstring).

        Uses ``math.exp`` (the C library) rather than numpy's vectorised loops, whose last-bit
        results depend on the CPU's SIMD features; the result is a fixed function of the grid point.
        """
        x = self.to_float(a)
        flat = x.ravel()
        uniq, inverse = np.unique(flat, return_inverse=True)
        values = np.array([_exp_or_inf(v) for v in uniq.tolist()], dtype=np.float64)
        return self.quantize(values[inverse.ravel()].reshape(x.shape))

    def div(self, a: ArrayLike, b: ArrayLike) -> np.ndarray:
        """Exact quotient ``a / b`` (raw_a · 2^frac / raw_b) rounded once; b = 0 raises."""
        x, y = self._raw(a), self._raw(b)
        if np.any(y == 0):
            raise InputError("division by zero (a divisor's raw value is 0)")
        scale = 1 << self.frac
        wide = not _fits_int64(max(self.max_raw * scale, 2 * self.max_raw))
        if wide:
            x, y = x.astype(object), y.astype(object)
        sign = np.where(y < 0, -1, 1).astype(x.dtype)  # a positive divisor for _round_quotient
        q = _round_quotient(x * scale * sign, y * sign, self.rounding, wide)
        return self._finish(q, wide, "quotient")

    # ----------------------------------------------------------------- bit strings

    def to_bits(self, raw: ArrayLike) -> str:
        """Each number as exactly ``bits`` characters '0'/'1' (two's complement, most significant
        bit first), concatenated in C order."""
        r = np.ascontiguousarray(self._raw(raw).ravel())
        u = r.view(np.uint64)  # two's complement bit pattern of each int64
        if self.bits < 64:
            u = u & np.uint64((1 << self.bits) - 1)
        shifts = np.arange(self.bits - 1, -1, -1, dtype=np.uint64)
        digits = ((u[:, None] >> shifts) & np.uint64(1)).astype(np.uint8) + np.uint8(ord("0"))
        return digits.tobytes().decode("ascii")

    def from_bits(self, text: str, count: int | None = None) -> np.ndarray:
        """Inverse of :meth:`to_bits`: a 1-D int64 array of raw values (``count`` of them)."""
        if not isinstance(text, str):
            raise InputError(f"bit string must be a str, got {type(text).__name__}")
        if len(text) % self.bits:
            raise InputError(f"bit string length {len(text)} is not a multiple of {self.bits} bits")
        if count is not None and len(text) != count * self.bits:
            raise InputError(
                f"bit string length {len(text)} is not {count} numbers of {self.bits} bits"
            )
        bad = set(text) - {"0", "1"}
        if bad:
            raise InputError(f"bit string may hold only '0' and '1', found {sorted(bad)[0]!r}")
        digits = np.frombuffer(text.encode("ascii"), dtype=np.uint8).reshape(-1, self.bits)
        shifts = np.arange(self.bits - 1, -1, -1, dtype=np.uint64)
        u = ((digits - np.uint8(ord("0"))).astype(np.uint64) << shifts).sum(axis=1, dtype=np.uint64)
        pad = np.uint64(64 - self.bits)
        v = (u << pad).view(np.int64) >> np.int64(pad)  # sign-extend from `bits` to 64 bits
        invalid = np.flatnonzero(v < self.min_raw)
        if invalid.size:
            raise InputError(
                f"code {'1' + '0' * (self.bits - 1)} (number {int(invalid[0])}) is "
                f"-2^{self.bits - 1}, outside the symmetric range [{self.min_raw}, {self.max_raw}]"
            )
        return v

    def to_bits_rows(self, raw: ArrayLike) -> list[str]:
        """One bit string per row of the 2-D array ``raw`` (each as :meth:`to_bits` writes it),
        encoded in one pass: the messages of a batch of protocol runs."""
        rows = np.asarray(raw)
        if rows.ndim != 2:
            raise InputError(f"rows of raw values must be a 2-D array, got {rows.ndim} dimensions")
        text = self.to_bits(rows)
        width = rows.shape[1] * self.bits
        return [text[k * width : (k + 1) * width] for k in range(rows.shape[0])]

    def from_bits_rows(self, texts: Sequence[str], count: int) -> np.ndarray:
        """Inverse of :meth:`to_bits_rows`: an int64 array (len(texts), count), each message
        checked as :meth:`from_bits` checks one string, all decoded in one pass; an error names
        the first message refused and why."""
        texts = list(texts)
        width = count * self.bits
        if all(isinstance(text, str) and len(text) == width for text in texts):
            try:
                joined = self.from_bits("".join(texts), count=count * len(texts))
                return joined.reshape(len(texts), count)
            except InputError:
                pass  # every check is per number: the message at fault is found below
        for k, text in enumerate(texts):
            try:
                self.from_bits(text, count=count)
            except InputError as exc:
                raise InputError(f"message {k}: {exc}") from None
        raise AssertionError("a batch refused whose every message is accepted")


def _exp_or_inf(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:  # exp of a large grid value: saturates (or raises) in quantize
        return math.inf
