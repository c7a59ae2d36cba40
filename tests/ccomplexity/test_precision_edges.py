"""The p-bit grid at its edges: exact rationals, the grid App. B.2 gives a length, saturation and
the error mode at the ends of the range, and the messages of each refusal.

References are computed here with ``fractions.Fraction`` and plain integers (``round`` of a
Fraction is half-to-even), never with :mod:`ccomplexity.precision` itself.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ccomplexity import precision
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint


def reference(value: Fraction, fmt: FixedPoint) -> int | None:
    """The raw code of ``value``: rounded once, then saturated; None where "error" raises."""
    scaled = value * 2**fmt.frac
    raw = math.floor(scaled) if fmt.rounding == "floor" else round(scaled)
    if abs(raw) > fmt.max_raw:
        return None if fmt.overflow == "error" else (fmt.max_raw if raw > 0 else -fmt.max_raw)
    return raw


FORMATS = [FixedPoint(6, 2, r, o) for r in ("floor", "nearest") for o in ("saturate", "error")]
FORMATS += [FixedPoint(64, 60, "nearest"), FixedPoint(64, 3, "floor", "error")]


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
def test_from_fraction_rounds_once_and_saturates(fmt):
    top = Fraction(fmt.max_raw, 2**fmt.frac)
    cases = [(1, 3), (-1, 3), (5, -8), (-5, -8), (3, 8), (-3, 8), (1, 8), (-1, 8), (7, 1)]
    cases += [(int(top * 8) + 1, 8), (-int(top * 8) - 1, 8), (int(top * 8), 8), (10**30, 3)]
    cases += [(-(10**30), 7), (0, 5)]
    for num, den in cases:
        want = reference(Fraction(num, den), fmt)
        if want is None:
            with pytest.raises(InputError, match="value .* is outside the range"):
                fmt.from_fraction(num, den)
        else:
            assert fmt.from_fraction(num, den) == want, (num, den)
    assert fmt.from_fraction(np.int64(3)) == reference(Fraction(3), fmt)


@pytest.mark.parametrize(
    ("num", "den", "message"),
    [
        (True, 1, "num must be an integer, got True"),
        (1.5, 1, "num must be an integer, got 1.5"),
        (1, 2.0, "den must be an integer, got 2.0"),
        (1, False, "den must be an integer, got False"),
        (1, 0, "from_fraction: denominator is 0"),
    ],
)
def test_from_fraction_refuses_what_is_not_a_rational(num, den, message):
    with pytest.raises(InputError, match=message):
        FixedPoint(8, 3).from_fraction(num, den)


def least_grid(length: int, k: Fraction) -> tuple[int, int] | None:
    """App. B.2 by brute force: frac the least f with N^k <= 2^f, bits the least p >= max(2,
    frac + 1) with N^k <= (2^(p-1) - 1) / 2^frac; powers compared as integers (k = a/b)."""
    a, b = k.numerator, k.denominator

    def at_most(num: int, den: int) -> bool:  # N^(a/b) <= num/den
        return length**a * den**b <= num**b

    frac = next((f for f in range(64) if at_most(1 << f, 1)), None)
    if frac is None:
        return None
    for bits in range(max(2, frac + 1), 65):
        if at_most((1 << (bits - 1)) - 1, 1 << frac):
            return bits, frac
    return None


@pytest.mark.parametrize(
    ("length", "k"),
    [
        (1, 2),
        (2, 2),
        (3, 2),
        (4, 2),
        (5, 1),
        (8, 1),
        (9, 2),
        (16, 1.5),
        (10, 0.5),
        (100, 2),
        (1000, 3),
        (2**31, 1),
        (7, 0.25),
        (1 << 20, 1.5),
        (3, 20),
        (2, 31),
        (2, 32),
    ],
)
def test_for_length_is_the_least_grid_of_app_b2(length, k):
    want = least_grid(length, Fraction(k))
    if want is None:
        with pytest.raises(InputError, match="needs more than 64 bits"):
            FixedPoint.for_length(length, k)
        return
    fmt = FixedPoint.for_length(length, k, "nearest", "error")
    assert (fmt.bits, fmt.frac) == want
    assert (fmt.rounding, fmt.overflow) == ("nearest", "error")
    assert FixedPoint.for_length(length, k) == FixedPoint(*want)


@pytest.mark.parametrize(
    ("length", "k_c", "message"),
    [
        (0, 2, "length must be an integer >= 1, got 0"),
        (True, 2, "length must be an integer >= 1, got True"),
        (2.0, 2, "length must be an integer >= 1, got 2.0"),
        (4, True, "k_c must be a positive number, got True"),
        (4, "2", "k_c must be a positive number, got '2'"),
        (4, 0, "k_c must be a positive finite number, got 0"),
        (4, -1.0, "k_c must be a positive finite number, got -1.0"),
        (4, math.inf, "k_c must be a positive finite number, got inf"),
    ],
)
def test_for_length_refusals(length, k_c, message):
    with pytest.raises(InputError, match=message):
        FixedPoint.for_length(length, k_c)


def test_power_at_most_exact_and_by_logarithms(monkeypatch):
    # n^k <= num/den exactly; at one and beyond the exact-size limit (logs at 80 digits).
    assert precision._power_at_most(1, 5.0, 1, 1) and not precision._power_at_most(1, 5.0, 1, 2)
    for n, k, num, den in [(3, 2.0, 9, 1), (3, 2.0, 8, 1), (2, 0.5, 3, 2), (2, 0.5, 141, 100)]:
        exact = Fraction(n) ** int(k) <= Fraction(num, den) if k == int(k) else None
        if exact is None:  # n^(1/2) <= num/den  <=>  n den^2 <= num^2
            exact = n * den * den <= num * num
        assert precision._power_at_most(n, k, num, den) is exact
        monkeypatch.setattr(precision, "_EXACT_POWER_BITS", 0)  # the log path, away from a tie
        assert precision._power_at_most(n, k, num + (num if exact else 0), den) is exact
        monkeypatch.undo()
    monkeypatch.setattr(precision, "_EXACT_POWER_BITS", 0)
    assert not precision._power_at_most(3, 2.0, 9, 1)  # a tie: the log path answers False


@pytest.mark.parametrize("fmt", [FixedPoint(6, 2), FixedPoint(6, 2, "floor", "error")], ids=str)
def test_add_sub_sum_at_the_ends_of_the_range(fmt):
    top = fmt.max_raw  # 31
    cases = [
        (lambda: fmt.add([top, -top, 30], [0, 0, 1]), [top, -top, top], None),
        (lambda: fmt.add([top], [1]), [top], "sum 8.0 is outside"),
        (lambda: fmt.add([-top], [-1]), [-top], "sum -8.0 is outside"),
        (lambda: fmt.sub([0, -30], [top, 1]), [-top, -top], None),
        (lambda: fmt.sub([-top], [1]), [-top], "difference -8.0 is outside"),
        (lambda: fmt.sub([top], [-1]), [top], "difference 8.0 is outside"),
        (lambda: fmt.sum([[16, 15], [-16, -15]]), [top, -top], None),
        (lambda: fmt.sum([16, 16]), top, "sum 8.0 is outside"),
        (lambda: fmt.sum([-16, -16]), -top, "sum -8.0 is outside"),
        (lambda: fmt.mul([top], [8]), [top], "product 15.5 is outside"),
    ]
    for call, saturated, message in cases:
        if fmt.overflow == "error" and message:
            with pytest.raises(InputError, match=message):
                call()
        else:
            assert np.asarray(call()).tolist() == saturated


def test_max_and_raw_validation():
    fmt = FixedPoint(6, 2)
    assert fmt.max([[3, -4, 2], [-31, -30, -29]]).tolist() == [3, -29]
    assert fmt.max([[3, -4], [5, 1]], axis=0).tolist() == [5, 1]
    with pytest.raises(InputError, match="max over an empty axis"):
        fmt.max(np.zeros((2, 0), dtype=np.int64))
    with pytest.raises(InputError, match=r"raw value 32 is outside \[-31, 31\]"):
        fmt.add([32], [0])
    with pytest.raises(InputError, match=r"raw value -32 is outside \[-31, 31\]"):
        fmt.add([0], [-32])
    with pytest.raises(InputError, match="raw values must be integers, got dtype float64"):
        fmt.add([1.0], [0])
    with pytest.raises(InputError, match="raw values must be integers, got True"):
        fmt.add(np.array([True, 1], dtype=object), [0, 0])
    assert fmt.to_float([31, -31, 2]).tolist() == [7.75, -7.75, 0.5]


@pytest.mark.parametrize("fmt", [FixedPoint(6, 2), FixedPoint(64, 10)], ids=str)
def test_bit_strings_at_the_ends_of_the_range(fmt):
    top = fmt.max_raw
    raws = [top, -top, 0, 1, -1]
    text = fmt.to_bits(raws)
    width = fmt.bits
    assert text[:width] == "0" + "1" * (width - 1)  # +max_raw
    assert text[width : 2 * width] == "1" + "0" * (width - 2) + "1"  # -max_raw
    assert text[2 * width : 3 * width] == "0" * width
    assert text[4 * width :] == "1" * width  # -1
    assert fmt.from_bits(text).tolist() == raws
    assert fmt.from_bits(text, count=5).tolist() == raws
    with pytest.raises(InputError, match=f"\\(number 1\\) is -2\\^{width - 1}, outside the sym"):
        fmt.from_bits("0" * width + "1" + "0" * (width - 1))
    with pytest.raises(InputError, match=f"is not 4 numbers of {width} bits"):
        fmt.from_bits(text, count=4)
    with pytest.raises(InputError, match=f"not a multiple of {width} bits"):
        fmt.from_bits(text[:-1])
    with pytest.raises(InputError, match="may hold only '0' and '1', found '2'"):
        fmt.from_bits("2" * width)
    with pytest.raises(InputError, match="bit string must be a str, got bytes"):
        fmt.from_bits(b"0" * width)
    rows = fmt.to_bits_rows([[top, 0], [-1, 1]])
    assert rows == [text[:width] + "0" * width, "1" * width + "0" * (width - 1) + "1"]
    assert fmt.from_bits_rows(rows, 2).tolist() == [[top, 0], [-1, 1]]
    with pytest.raises(InputError, match="message 1: bit string length"):
        fmt.from_bits_rows([rows[0], rows[1][:-1]], 2)
    with pytest.raises(InputError, match="message 0: code"):
        fmt.from_bits_rows(["1" + "0" * (2 * width - 1), rows[1]], 2)
    with pytest.raises(InputError, match="must be a 2-D array, got 1 dimensions"):
        fmt.to_bits_rows([1, 2])


def test_describe_and_from_dict_round_trip():
    fmt = FixedPoint(12, 5, "nearest", "error")
    assert {k: fmt.describe()[k] for k in ("bits", "frac", "rounding", "overflow")} == {
        "bits": 12,
        "frac": 5,
        "rounding": "nearest",
        "overflow": "error",
    }
    assert FixedPoint.from_dict(fmt.describe()) == fmt


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 0), r"bits must lie in 2\.\.64, got 1"),
        ((65, 0), r"bits must lie in 2\.\.64, got 65"),
        ((True, 0), "bits must be an integer, got True"),
        ((8, 2.0), "frac must be an integer, got 2.0"),
        ((8, -1), r"frac must lie in 0\.\.7 \(bits - 1\), got -1"),
        ((8, 8), r"frac must lie in 0\.\.7 \(bits - 1\), got 8"),
        ((8, 2, "up"), "rounding must be one of floor, nearest, got 'up'"),
        ((8, 2, "floor", "wrap"), "overflow must be one of saturate, error, got 'wrap'"),
    ],
)
def test_each_refused_format_names_its_limit(args, message):
    with pytest.raises(InputError, match=message):
        FixedPoint(*args)
    assert FixedPoint(2, 1).max_raw == 1 and FixedPoint(64, 63).frac == 63  # the ends: accepted


def test_reductions_name_a_bad_axis():
    fmt = FixedPoint(8, 2)
    with pytest.raises(InputError, match="axis 2 is out of bounds for an array of 2 dimensions"):
        fmt.sum(np.zeros((2, 2), dtype=np.int64), axis=2)
    with pytest.raises(InputError, match=r"axis \(0, -2\) repeats a dimension"):
        fmt.sum(np.zeros((2, 2), dtype=np.int64), axis=(0, -2))
    assert fmt.sum([[1, 2], [3, 4]], axis=-2).tolist() == [4, 6]
    assert fmt.sum([[1, 2], [3, 4]], axis=None) == 10


def test_the_error_mode_accepts_both_ends_exactly():
    fmt = FixedPoint(6, 2, "floor", "error")
    assert fmt.add([-30, 30], [-1, 1]).tolist() == [-31, 31]
    assert fmt.sub([-30], [1]).tolist() == [-31]
    assert fmt.from_fraction(-31, 4) == -31 and fmt.from_fraction(31, 4) == 31


def test_messages_of_the_arithmetic_name_the_operation():
    fmt = FixedPoint(6, 2, "floor", "error")
    with pytest.raises(InputError, match=r"^quotient 31\.0 is outside the range \[-7\.75, 7\.75\]"):
        fmt.div([31], [1])
    with pytest.raises(InputError, match=r"^division by zero \(a divisor's raw value is 0\)$"):
        fmt.div([4, 4], [2, 0])
    assert fmt.div([4, -4], [1, -1]).tolist() == [16, 16]  # a divisor of raw 1 or -1 is fine
    with pytest.raises(InputError, match=r"^dot product 15\.5 is outside"):
        fmt.dot([31, 31], [4, 4])
    with pytest.raises(InputError, match=r"^dot: shapes \(2,\) and \(3,\) do not broadcast$"):
        fmt.dot([1, 2], [1, 2, 3])
    with pytest.raises(InputError, match=r"^value 8\.0 is outside the range \[-7\.75, 7\.75\]"):
        fmt.quantize([1.0, 8.0])
    with pytest.raises(InputError, match="^cannot quantize NaN$"):
        fmt.quantize([1.0, math.nan])
    with pytest.raises(InputError, match="^from_fraction: denominator is 0$"):
        fmt.from_fraction(1, 0)
    with pytest.raises(InputError, match="^max over an empty axis$"):
        fmt.max(np.zeros((0,), dtype=np.int64))
    with pytest.raises(InputError, match=r"^a fixed-point description needs exactly the keys"):
        FixedPoint.from_dict({"bits": 8})


def test_the_out_of_range_raw_value_named_is_the_offending_one():
    fmt = FixedPoint(6, 2)
    for raws, bad in (([-32, 5], -32), ([-31, 32], 32), ([5, 32], 32), ([-33, 40], -33)):
        with pytest.raises(InputError, match=f"^raw value {bad} is outside"):
            fmt.add(raws, [0, 0])


def test_exact_at_64_bits_and_beyond_int64_inputs():
    big = FixedPoint(64, 0)
    top = big.max_raw
    assert big.sub([2**62 + 1], [1]).tolist() == [2**62]
    assert big.add([2**62 + 1], [-1]).tolist() == [2**62]
    assert big.quantize([2**70, -(2**70)]).tolist() == [top, -top]
    assert FixedPoint(8, 2).quantize([2**70, 3]).tolist() == [127, 12]
    assert FixedPoint.for_length(4) == FixedPoint.for_length(4, 2.0)
