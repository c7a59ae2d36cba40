"""Tests for ccomplexity.precision: the p-bit fixed-point arithmetic of App. B.2.

References are computed independently with ``fractions.Fraction`` (exact rationals, ``round`` of a
Fraction is half-to-even) and ``decimal`` (correctly rounded exp), never with the module itself.
"""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccomplexity import precision
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint

FAST = settings(max_examples=60, deadline=None)

# (bits, frac): 16 and 32 bits keep every intermediate in int64; 60 and 64 need Python ints.
FORMATS = [(16, 8), (32, 0), (60, 30), (64, 63), (64, 20)]
ROUNDINGS = ["floor", "nearest"]


def ref_round(fp: FixedPoint, value: Fraction) -> int:
    """Exact reference: round value / step to an integer, then saturate."""
    scaled = value * (1 << fp.frac)
    raw = math.floor(scaled) if fp.rounding == "floor" else round(scaled)
    return max(fp.min_raw, min(fp.max_raw, raw))


def val(fp: FixedPoint, raw: int) -> Fraction:
    return Fraction(int(raw), 1 << fp.frac)


def raws(fp: FixedPoint, **kw) -> st.SearchStrategy[int]:
    return st.integers(fp.min_raw, fp.max_raw, **kw)


@contextmanager
def object_path():
    """Force every intermediate onto Python-int object arrays."""
    old = precision._INT64_LIMIT
    precision._INT64_LIMIT = -1
    try:
        yield
    finally:
        precision._INT64_LIMIT = old


# ----------------------------------------------------------------- construction


@pytest.mark.parametrize(
    "args",
    [
        (1, 0),
        (65, 0),
        (True, 0),
        (8.0, 2),
        (8, -1),
        (8, 8),
        (8, 2, "up"),
        (8, 2, "floor", "wrap"),
    ],
)
def test_constructor_rejects_bad_arguments(args):
    with pytest.raises(InputError):
        FixedPoint(*args)


def test_input_error_is_value_error():
    with pytest.raises(ValueError, match=r"bits must lie in 2\.\.64"):
        FixedPoint(70, 3)


def test_properties_and_describe():
    fp = FixedPoint(8, 3, "nearest", "error")
    assert fp.step == 0.125
    assert (fp.max_raw, fp.min_raw) == (127, -127)
    assert (fp.max_value, fp.min_value) == (15.875, -15.875)
    d = json.loads(json.dumps(fp.describe()))
    assert d == {"bits": 8, "frac": 3, "rounding": "nearest", "overflow": "error"}
    assert FixedPoint.from_dict(d) == fp
    with pytest.raises(InputError):
        FixedPoint.from_dict({"bits": 8})
    big = FixedPoint(64, 0)
    assert big.max_raw == 2**63 - 1 and big.min_raw == -(2**63 - 1)


# ----------------------------------------------------------------- quantize / to_float


@FAST
@given(st.data())
def test_grid_points_round_trip(data):
    bits = data.draw(st.integers(2, 53))
    frac = data.draw(st.integers(0, bits - 1))
    fp = FixedPoint(bits, frac, data.draw(st.sampled_from(ROUNDINGS)))
    r = data.draw(st.lists(raws(fp), min_size=1, max_size=8))
    x = fp.to_float(r)
    assert [Fraction(float(v)) for v in x] == [val(fp, v) for v in r]  # exact for bits <= 53
    assert fp.quantize(x).tolist() == r


@pytest.mark.parametrize(
    ("x", "frac", "floor", "nearest"),
    [
        (-0.3, 1, -1, -1),  # floor of -0.3 at frac=1 is -0.5
        (-0.2, 1, -1, 0),
        (0.2, 1, 0, 0),
        (0.25, 1, 0, 0),  # tie 0.5 -> even 0
        (0.75, 1, 1, 2),  # tie 1.5 -> even 2
        (1.25, 1, 2, 2),  # tie 2.5 -> even 2
        (-0.25, 1, -1, 0),
        (-0.75, 1, -2, -2),
        (0.3, 2, 1, 1),
        (0.4, 2, 1, 2),
        (-0.4, 2, -2, -2),
        (2.0, 0, 2, 2),
        (-2.5, 0, -3, -2),
    ],
)
def test_floor_versus_nearest(x, frac, floor, nearest):
    assert FixedPoint(8, frac, "floor").quantize(x) == floor
    assert FixedPoint(8, frac, "nearest").quantize(x) == nearest
    # from_fraction on the float's exact value must agree with quantize
    num, den = Fraction(x).as_integer_ratio()
    assert FixedPoint(8, frac, "floor").from_fraction(num, den) == floor
    assert FixedPoint(8, frac, "nearest").from_fraction(num, den) == nearest


def test_quantize_shapes_and_dtype():
    fp = FixedPoint(8, 2)
    out = fp.quantize([[0.5, -0.5], [1.0, 2.0]])
    assert out.dtype == np.int64 and out.tolist() == [[2, -2], [4, 8]]
    zero_d = fp.quantize(1.0)
    assert isinstance(zero_d, np.ndarray) and zero_d.shape == () and zero_d == 4


def test_quantize_saturates_symmetrically():
    fp = FixedPoint(4, 1)  # grid -3.5 .. 3.5
    got = fp.quantize([100.0, -100.0, math.inf, -math.inf, 3.5, 3.9, -3.9])
    assert got.tolist() == [7, -7, 7, -7, 7, 7, -7]
    big = FixedPoint(64, 0)
    assert big.quantize([1e30, -1e30, 2.0**62, 2.0**63]).tolist() == [
        2**63 - 1,
        -(2**63 - 1),
        2**62,
        2**63 - 1,
    ]


def test_quantize_overflow_error_names_value_and_range():
    fp = FixedPoint(4, 1, "floor", "error")
    assert fp.quantize(3.9) == 7  # floor(7.8) = 7 is in range
    with pytest.raises(InputError, match=r"4\.0.*\[-3\.5, 3\.5\]"):
        fp.quantize([1.0, 4.0])
    with pytest.raises(InputError, match=r"-3\.75"):
        fp.quantize(-3.75)  # floor goes to raw -8, outside the symmetric range
    with pytest.raises(InputError, match="3.9"):
        FixedPoint(4, 1, "nearest", "error").quantize(3.9)  # rint(7.8) = 8


def test_quantize_rejects_nan():
    with pytest.raises(InputError, match="NaN"):
        FixedPoint(8, 2).quantize([1.0, math.nan])


def test_raw_inputs_are_validated():
    fp = FixedPoint(4, 1)
    for bad in ([1.5], [8], [-8], np.array([True])):
        with pytest.raises(InputError):
            fp.add(bad, 0)
    with pytest.raises(InputError):
        fp.to_float([2**70])
    assert fp.add(np.array([3], dtype=object), np.uint8(2)).tolist() == [5]


# ----------------------------------------------------------------- addition and reductions


def test_add_sub_neg_saturate_and_error():
    fp = FixedPoint(4, 1)
    assert fp.add([7, -7, 3], [7, -7, 2]).tolist() == [7, -7, 5]
    assert fp.sub([7, -7], [-7, 7]).tolist() == [7, -7]
    assert fp.neg([7, -7, 0]).tolist() == [-7, 7, 0]
    strict = FixedPoint(4, 1, overflow="error")
    with pytest.raises(InputError, match=r"4\.0.*\[-3\.5, 3\.5\]"):
        strict.add(4, 4)
    with pytest.raises(InputError):
        strict.sub(-7, 1)
    big = FixedPoint(64, 10)
    m = big.max_raw
    assert big.add(m, m) == m and big.add(-m, 1) == -m + 1 and big.sub(-m, m) == -m


def test_saturating_add_is_not_associative_with_mixed_signs():
    # Why the paper restricts its associativity claim to non-negative numbers.
    fp = FixedPoint(4, 1)
    assert fp.add(fp.add(7, 7), -7) == 0
    assert fp.add(7, fp.add(7, -7)) == 7


@FAST
@given(st.sampled_from(FORMATS), st.data())
def test_add_commutative_and_associative(fmt, data):
    fp = FixedPoint(*fmt)
    a, b, c = (data.draw(raws(fp)) for _ in range(3))
    assert fp.add(a, b) == fp.add(b, a)
    left, right = fp.add(fp.add(a, b), c), fp.add(a, fp.add(b, c))
    if all(abs(s) <= fp.max_raw for s in (a + b, b + c, a + b + c)):
        assert left == right == a + b + c
    # non-negative operands: associative even when saturating (App. B.2)
    a, b, c = abs(a), abs(b), abs(c)
    assert fp.add(fp.add(a, b), c) == fp.add(a, fp.add(b, c)) == min(a + b + c, fp.max_raw)


@FAST
@given(st.sampled_from(FORMATS), st.data())
def test_sum_and_dot_are_order_independent(fmt, data):
    fp = FixedPoint(*fmt, rounding=data.draw(st.sampled_from(ROUNDINGS)))
    n = data.draw(st.integers(1, 12))
    a = data.draw(st.lists(raws(fp), min_size=n, max_size=n))
    b = data.draw(st.lists(raws(fp), min_size=n, max_size=n))
    perm = data.draw(st.permutations(range(n)))
    s = fp.sum(a)
    assert s == max(fp.min_raw, min(fp.max_raw, sum(a)))
    assert fp.sum([a[i] for i in perm]) == s
    d = fp.dot(a, b)
    assert d == ref_round(
        fp, sum((val(fp, x) * val(fp, y) for x, y in zip(a, b, strict=True)), Fraction(0))
    )
    assert fp.dot([a[i] for i in perm], [b[i] for i in perm]) == d


def test_sum_overflow_once_not_per_term():
    # The partial sum 7 + 7 overflows, the total does not: exact sum, then one check.
    strict = FixedPoint(4, 1, overflow="error")
    assert strict.sum([7, 7, -7]) == 7
    with pytest.raises(InputError):
        strict.sum([7, 7])


def test_reductions_over_axes():
    fp = FixedPoint(16, 4)
    a = np.arange(24).reshape(2, 3, 4)
    assert fp.sum(a).tolist() == a.sum(axis=-1).tolist()
    assert fp.sum(a, axis=(0, 2)).tolist() == a.sum(axis=(0, 2)).tolist()
    assert fp.sum(a, axis=None) == a.sum()
    assert fp.max(a, axis=1).tolist() == a.max(axis=1).tolist()
    assert fp.max(-a, axis=None) == 0
    b = np.full((4,), 16)  # 1.0 at frac=4: the dot is the plain sum over the last axis
    assert fp.dot(a, b).tolist() == a.sum(axis=-1).tolist()
    assert fp.sum(np.zeros((3, 0), dtype=np.int64)).tolist() == [0, 0, 0]
    with pytest.raises(InputError, match="empty"):
        fp.max(np.zeros((3, 0), dtype=np.int64))
    with pytest.raises(InputError, match="axis"):
        fp.sum(a, axis=3)
    with pytest.raises(InputError):
        fp.dot([1, 2], [1, 2, 3])


def test_broadcasting():
    fp = FixedPoint(16, 4)
    out = fp.add(np.arange(3)[:, None], np.arange(2))
    assert out.shape == (3, 2) and out.dtype == np.int64
    assert fp.mul(np.arange(3)[:, None], [16, 32]).tolist() == [[0, 0], [1, 2], [2, 4]]


# ----------------------------------------------------------------- mul / div against Fractions


@FAST
@given(st.sampled_from(FORMATS), st.sampled_from(ROUNDINGS), st.data())
def test_mul_matches_fraction(fmt, rounding, data):
    fp = FixedPoint(*fmt, rounding=rounding)
    a = data.draw(st.lists(raws(fp), min_size=1, max_size=6))
    b = data.draw(st.lists(raws(fp), min_size=len(a), max_size=len(a)))
    want = [ref_round(fp, val(fp, x) * val(fp, y)) for x, y in zip(a, b, strict=True)]
    assert fp.mul(a, b).tolist() == want


@FAST
@given(st.sampled_from(FORMATS), st.sampled_from(ROUNDINGS), st.data())
def test_div_matches_fraction(fmt, rounding, data):
    fp = FixedPoint(*fmt, rounding=rounding)
    a = data.draw(st.lists(raws(fp), min_size=1, max_size=6))
    b = data.draw(
        st.lists(raws(fp).filter(bool), min_size=len(a), max_size=len(a))
    )  # no zero divisors
    want = [ref_round(fp, val(fp, x) / val(fp, y)) for x, y in zip(a, b, strict=True)]
    assert fp.div(a, b).tolist() == want


def test_mul_and_div_hand_values():
    fp = FixedPoint(8, 2)
    assert fp.mul(-1, 1) == -1  # -0.25 * 0.25 = -1/16, floor -> -0.25
    assert FixedPoint(8, 2, "nearest").mul(-1, 1) == 0
    assert FixedPoint(8, 2, "nearest").mul(2, 1) == 0  # 0.5 * 0.25 = 1/8, tie -> even 0
    assert FixedPoint(8, 2, "nearest").mul(6, 1) == 2  # 1.5 * 0.25 = 3/8, tie -> even 2/4
    exact = FixedPoint(8, 0, "nearest")
    assert exact.div([5, 7, -5, -7, 5], [2, 2, 2, 2, -2]).tolist() == [2, 4, -2, -4, -2]
    assert FixedPoint(8, 0).div([5, -5, 5], [2, 2, -2]).tolist() == [2, -3, -3]
    with pytest.raises(InputError, match="division by zero"):
        fp.div([1, 2], [1, 0])
    with pytest.raises(InputError):
        FixedPoint(8, 2, overflow="error").div(127, 1)  # 31.75 / 0.25 = 127 > 31.75


def test_64_bit_extremes_are_exact():
    fp = FixedPoint(64, 0)
    assert fp.mul(2**31, 2**31) == 2**62
    assert fp.mul(2**32, 2**32) == fp.max_raw
    assert fp.mul(-(2**32), 2**32) == fp.min_raw
    with pytest.raises(InputError):
        FixedPoint(64, 0, overflow="error").mul(2**32, 2**32)
    m = fp.max_raw
    assert fp.dot([m, -m, 1], [m, m, 1]) == 1  # m^2 - m^2 + 1, exact despite huge partials
    assert fp.sum([m, m, m, -m, -m]) == m  # partial sums beyond int64, exact total
    assert fp.sum([m, m, m, m]) == m and fp.sum([-m, -m, -m]) == -m
    assert fp.add([m], [m]).tolist() == [m]
    with pytest.raises(InputError):
        FixedPoint(64, 0, overflow="error").sum([m, 1])
    # 0-d results on the object path (numpy hands back bare Python ints there)
    wide = FixedPoint(60, 30, "nearest")
    assert wide.dot([70368744177665], [140737488355326]) == wide.max_raw
    assert wide.mul(-(2**58), 3) == -805306368  # -2^58 * 3 / 2^30 = -3 * 2^28
    unit = FixedPoint(64, 63)  # values in (-1, 1)
    assert unit.mul(unit.max_raw, unit.max_raw) == ref_round(unit, val(unit, m) ** 2)


@pytest.mark.parametrize("fmt", [(16, 8), (32, 5), (24, 3), (12, 11)])
@pytest.mark.parametrize("rounding", ROUNDINGS)
def test_int64_and_object_paths_agree(fmt, rounding):
    fp = FixedPoint(*fmt, rounding=rounding)
    rng = np.random.default_rng(sum(fmt))
    a = rng.integers(fp.min_raw, fp.max_raw, size=(5, 7), endpoint=True)
    b = rng.integers(fp.min_raw, fp.max_raw, size=(5, 7), endpoint=True)
    b[b == 0] = 1
    a[0, :3] = [fp.max_raw, fp.min_raw, 0]  # saturating cases too
    ops = {
        "add": lambda: fp.add(a, b),
        "sub": lambda: fp.sub(a, b),
        "mul": lambda: fp.mul(a, b),
        "div": lambda: fp.div(a, b),
        "dot": lambda: fp.dot(a, b),
        "dot0": lambda: fp.dot(a, b, axis=0),
        "sum": lambda: fp.sum(a),
        "sum_all": lambda: fp.sum(a, axis=None),
    }
    # mul, at least, really runs in int64 here (else the comparison would be vacuous)
    assert precision._fits_int64(fp.max_raw**2)
    fast = {name: op() for name, op in ops.items()}
    with object_path():
        slow = {name: op() for name, op in ops.items()}
    for name in ops:
        assert slow[name].dtype == fast[name].dtype == np.int64, name
        assert np.array_equal(slow[name], fast[name]), name


@FAST
@given(st.sampled_from(ROUNDINGS), st.data())
def test_object_path_matches_fraction(rounding, data):
    fp = FixedPoint(16, 8, rounding=rounding)
    a = data.draw(st.lists(raws(fp), min_size=1, max_size=5))
    b = data.draw(st.lists(raws(fp).filter(bool), min_size=len(a), max_size=len(a)))
    with object_path():
        assert fp.mul(a, b).tolist() == [
            ref_round(fp, val(fp, x) * val(fp, y)) for x, y in zip(a, b, strict=True)
        ]
        assert fp.div(a, b).tolist() == [
            ref_round(fp, val(fp, x) / val(fp, y)) for x, y in zip(a, b, strict=True)
        ]
        assert fp.dot(a, b) == ref_round(
            fp, sum((val(fp, x) * val(fp, y) for x, y in zip(a, b, strict=True)), Fraction(0))
        )


# ----------------------------------------------------------------- exp


@pytest.mark.parametrize("rounding", ROUNDINGS)
def test_exp_on_non_positive_grid(rounding):
    fp = FixedPoint(10, 5, rounding)
    r = np.arange(fp.min_raw, 1)  # every non-positive grid point, ascending
    e = fp.exp(r)
    assert np.all(np.diff(e) >= 0)  # monotone
    assert e[-1] == 1 << fp.frac  # exp(0) = 1 exactly
    assert np.all((e >= 0) & (e <= 1 << fp.frac))  # in [0, 1]
    with localcontext() as ctx:
        ctx.prec = 40
        for raw, got in zip(r.tolist(), e.tolist(), strict=True):
            true = (Decimal(raw) / (1 << fp.frac)).exp() * (1 << fp.frac)
            want = int(
                true.to_integral_value("ROUND_FLOOR" if rounding == "floor" else "ROUND_HALF_EVEN")
            )
            assert got == want, raw
            if true >= 1:  # the real value is at least one step: it must not round to 0
                assert got > 0


def test_exp_underflow_overflow_and_determinism():
    fp = FixedPoint(8, 3)
    assert fp.exp(fp.quantize(-10.0)) == 0  # e^-10 < 1/8: rounds to 0 on this grid
    assert fp.exp(fp.max_raw) == fp.max_raw  # e^15.875 saturates
    with pytest.raises(InputError):
        FixedPoint(8, 3, overflow="error").exp(fp.quantize(3.0))
    big = FixedPoint(64, 20)
    x = big.quantize([-1.5, 700.0, 0.0, -1.5])
    e = big.exp(x)
    assert e.shape == (4,) and e[0] == e[3] and e[1] == big.max_raw and e[2] == 1 << 20
    assert np.array_equal(big.exp(x.reshape(2, 2)), e.reshape(2, 2))


# ----------------------------------------------------------------- bit strings


def test_to_bits_hand_values():
    fp = FixedPoint(4, 1)
    assert fp.to_bits([-1, 3, -7, 7, 0]) == "11110011100101110000"
    assert fp.to_bits([[1, 2], [3, 4]]) == "0001001000110100"  # C order
    assert fp.to_bits(5) == "0101"
    assert FixedPoint(64, 0).to_bits(-1) == "1" * 64
    assert FixedPoint(64, 0).to_bits(-(2**63 - 1)) == "1" + "0" * 62 + "1"
    assert fp.from_bits("111100111001").tolist() == [-1, 3, -7]
    assert fp.from_bits("", count=0).shape == (0,)


@FAST
@given(st.sampled_from([2, 3, 16, 53, 63, 64]), st.data())
def test_bits_round_trip(bits, data):
    fp = FixedPoint(bits, 0)
    r = data.draw(st.lists(raws(fp), max_size=8))
    text = fp.to_bits(r)
    assert len(text) == bits * len(r) and set(text) <= {"0", "1"}
    assert fp.from_bits(text, count=len(r)).tolist() == r
    for k, v in enumerate(r):  # each field is the two's-complement code
        assert int(text[k * bits : (k + 1) * bits], 2) == v % (1 << bits)


@FAST
@given(st.sampled_from([2, 3, 16, 63, 64]), st.integers(0, 5), st.integers(0, 4), st.data())
def test_rows_of_bits_are_the_rows_one_by_one(bits, rows, count, data):
    fp = FixedPoint(bits, 0)
    raw = [data.draw(st.lists(raws(fp), min_size=count, max_size=count)) for _ in range(rows)]
    texts = fp.to_bits_rows(np.array(raw, dtype=np.int64).reshape(rows, count))
    assert texts == [fp.to_bits(row) for row in raw]
    assert fp.from_bits_rows(texts, count).tolist() == raw
    assert fp.from_bits_rows(texts, count).shape == (rows, count)


@pytest.mark.parametrize(
    ("texts", "match"),
    [
        (["0001", "0010", "001"], "message 2: bit string length 3 is not a multiple of 4"),
        (["0001", "00100011"], "message 1: bit string length 8 is not 1 numbers"),
        (["0001", "1000"], r"message 1: code 1000 \(number 0\)"),
        (["01a1"], "message 0: .*'a'"),
        (["0001", b"0010"], "message 1: bit string must be a str"),
    ],
)
def test_rows_of_bits_name_the_message_refused(texts, match):
    with pytest.raises(InputError, match=match):
        FixedPoint(4, 0).from_bits_rows(texts, 1)
    with pytest.raises(InputError, match="2-D"):
        FixedPoint(4, 0).to_bits_rows([1, 2])


@pytest.mark.parametrize(
    ("text", "count", "match"),
    [
        ("101", None, "multiple of 4"),
        ("00010", None, "multiple of 4"),
        ("01a1", None, "'a'"),
        ("0 01", None, "' '"),
        ("00010010", 3, "not 3 numbers"),
        ("00011000", None, r"code 1000 \(number 1\)"),
    ],
)
def test_from_bits_rejects(text, count, match):
    with pytest.raises(InputError, match=match):
        FixedPoint(4, 1).from_bits(text, count)


def test_from_bits_rejects_invalid_64_bit_code():
    with pytest.raises(InputError, match="symmetric range"):
        FixedPoint(64, 3).from_bits("1" + "0" * 63)


# ----------------------------------------------------------------- for_length (App. B.2)


@pytest.mark.parametrize(
    ("n", "k_c"),
    [(1, 2.0), (2, 1.0), (10, 2.0), (100, 2.0), (4, 1.5), (7, 1.5), (1000, 3.0), (50, 0.5), (3, 4)],
)
def test_for_length_is_as_fine_and_wide_as_the_paper(n, k_c):
    fp = FixedPoint.for_length(n, k_c)
    a, b = Fraction(k_c).as_integer_ratio()
    # N^(a/b) <= X  <=>  N^a <= X^b, exact for these small rationals
    assert n**a <= (1 << fp.frac) ** b  # step 2^-frac <= N^-Kc: at least as fine
    assert n**a <= Fraction(fp.max_raw, 1 << fp.frac) ** b  # max >= N^Kc: at least as wide
    if fp.frac > 0:  # minimal: one fractional bit fewer would be too coarse
        assert n**a > (1 << (fp.frac - 1)) ** b
    if fp.bits > max(2, fp.frac + 1):  # minimal: one bit fewer would be too narrow
        assert n**a > Fraction((1 << (fp.bits - 2)) - 1, 1 << fp.frac) ** b
    assert fp.bits <= 2 * math.ceil(k_c * math.log2(n)) + 2  # ~ the paper's p = 2 Kc log N
    assert fp.rounding == "floor" and fp.overflow == "saturate"


def test_for_length_irrational_exponent_and_options():
    fp = FixedPoint.for_length(100, 2.3, rounding="nearest", overflow="error")
    assert fp.step <= 100**-2.3 and fp.max_value >= 100**2.3
    assert (fp.frac, fp.bits) == (16, 33)  # 100^2.3 = 39810.7: 2^16 >= it, 2^15 not
    assert fp.rounding == "nearest" and fp.overflow == "error"


@pytest.mark.parametrize(
    ("n", "k_c", "match"),
    [(10**6, 6.0, "64"), (0, 2.0, "length"), (10, 0.0, "k_c"), (10, math.nan, "k_c")],
)
def test_for_length_rejects(n, k_c, match):
    with pytest.raises(InputError, match=match):
        FixedPoint.for_length(n, k_c)
