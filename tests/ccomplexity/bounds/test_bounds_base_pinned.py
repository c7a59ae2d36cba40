"""The Bound type and its exact helpers: pinned values, every limit at its edge, every message.

The helpers are checked against brute force in exact arithmetic: ``a log2 n >= r`` against
integer powers (a log2 n >= r iff n^a >= 2^r), the searches ``last_true`` / ``first_true``
against a scan, and the inversions against the raw inequality. A small Bound built here
exercises every validation of the type with the message a user reads.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import pytest

from ccomplexity import bounds
from ccomplexity.bounds import base
from ccomplexity.bounds.base import (
    PARAMS,
    Bound,
    a_log2_at_least,
    as_number,
    first_true,
    last_true,
    log_allows,
    over_p_log,
    positive_int,
    unit_interval,
)
from ccomplexity.errors import InputError


def make(**kw: Any) -> Bound:
    """A Bound with the required text filled in; ``kw`` overrides."""
    fields: dict[str, Any] = dict(
        id="demo.thm",
        name="Demo",
        statement="s",
        citation="c",
        formula="f",
        kind="lower",
        architecture="rnn",
        task="t",
        quantity="q",
        value_params=("length", "precision"),
        _value=lambda length, precision: length * precision,
    )
    fields.update(kw)
    return Bound(**fields)


def linear(factor: int) -> Callable[[int, int, int, int], bool]:
    return lambda n, m, p, h: factor * m * p * h >= n


# -- parameters ---------------------------------------------------------------------------------


def test_define_param_registers_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "PARAMS", dict(base.PARAMS))
    param = base.define_param("demo_param", positive_int("demo_param"), "a demo")
    assert base.PARAMS["demo_param"] is param
    assert (param.name, param.help) == ("demo_param", "a demo") and param.check(3) == 3
    with pytest.raises(RuntimeError, match=r"^parameter 'demo_param' defined twice$"):
        base.define_param("demo_param", positive_int("demo_param"), "again")


def test_positive_int_digit_limit_and_least() -> None:
    check = positive_int("length")
    assert base.MAX_PARAM_DIGITS == 64
    assert check(10**64 - 1) == 10**64 - 1 and check(1) == 1
    with pytest.raises(InputError, match=r"^length must have at most 64 digits$"):
        check(10**64)
    with pytest.raises(InputError, match=r"^length must be an integer >= 1, got 0$"):
        check(0)
    frac = PARAMS["frac"].check
    assert frac(0) == 0
    with pytest.raises(InputError, match=r"^frac must be an integer >= 0, got -1$"):
        frac(-1)
    with pytest.raises(InputError, match=r"^width must be an integer >= 1, got True$"):
        PARAMS["width"].check(True)


def test_unit_interval_edges() -> None:
    check = unit_interval("gamma")
    assert check(0.5) == 0.5 and check(1e-6) == 1e-6 and check(Fraction(1, 3)) == 1 / 3
    assert type(check(Fraction(1, 2))) is float
    assert check(1 - 1e-12) == 1 - 1e-12
    for bad in (0, 1, -0.5, 1.5, True, "0.5", None):
        with pytest.raises(InputError, match=r"^gamma must be a real number in \(0, 1\), got "):
            check(bad)
    with pytest.raises(InputError, match=r"^gamma must be a real number in \(0, 1\), got 1$"):
        check(1)
    with pytest.raises(
        InputError, match=r"^gamma must be at least 1e-6 \(the widths grow as 1/gamma\^2\)$"
    ):
        check(9.99e-7)


def test_the_shared_parameters_are_registered_with_their_help() -> None:
    assert PARAMS["length"].help == "input length N" and PARAMS["frac"].name == "frac"
    assert PARAMS["gamma"].check(0.25) == 0.25
    assert PARAMS["heads"].help == "attention heads H"


# -- exact arithmetic ---------------------------------------------------------------------------


def test_as_number() -> None:
    assert as_number(Fraction(4, 2)) == 2 and type(as_number(Fraction(4, 2))) is int
    assert as_number(Fraction(1, 2)) == 0.5 and type(as_number(Fraction(1, 2))) is float
    assert as_number(Fraction(-3, 1)) == -3


def brute_a_log2(a: int, n: int, r: int) -> bool:
    """a log2 n >= r  iff  n^a >= 2^r (r > 0), exactly."""
    return r <= 0 or n**a >= 2**r


def test_a_log2_at_least_against_integer_powers() -> None:
    for a in (1, 2, 3, 7):
        for n in range(1, 40):
            for r in range(-2, 40):
                assert a_log2_at_least(a, n, r) is brute_a_log2(a, n, r), (a, n, r)


def test_a_log2_at_least_at_the_edges() -> None:
    assert a_log2_at_least(1, 1, 0) is True and a_log2_at_least(1, 1, 1) is False
    assert a_log2_at_least(3, 8, 9) is True and a_log2_at_least(3, 8, 10) is False  # tie at 2^k
    assert a_log2_at_least(1, 6, 2) is True and a_log2_at_least(1, 6, 3) is False
    assert a_log2_at_least(5, 1, -1) is True


def floor_a_log2(a: int, n: int) -> int:
    """floor(a log2 n) with a 100-digit logarithm."""
    with localcontext() as ctx:
        ctx.prec = 100
        return int(
            (Decimal(a) * Decimal(n).ln() / Decimal(2).ln()).to_integral_value("ROUND_FLOOR")
        )


def test_a_log2_at_least_near_ties_go_to_decimal() -> None:
    # a = 10^12, n = 3: a log2 3 = 1584962500721.156..., within 1e-9 r of both neighbours
    a = 10**12
    r = floor_a_log2(a, 3)
    assert r == 1584962500721
    assert a_log2_at_least(a, 3, r) is True and a_log2_at_least(a, 3, r + 1) is False
    # 2^19 < 3^12 = 531441 < 2^20: 12 log2 3 = 19.0195..., a near tie within the float margin?
    assert a_log2_at_least(12, 3, 19) is True and a_log2_at_least(12, 3, 20) is False
    # a log2 n within 1e-9 of r with n = 3 * 2^t: log2 n = t + log2 3
    big = 10**15
    lg3 = floor_a_log2(big, 3)
    assert lg3 == 1584962500721156
    assert a_log2_at_least(big, 3, lg3) is True and a_log2_at_least(big, 3, lg3 + 1) is False
    assert a_log2_at_least(big, 6, big + lg3) is True
    assert a_log2_at_least(big, 6, big + lg3 + 1) is False


def test_log_allows_against_brute_force() -> None:
    # a (p + log2 n) >= n - c  iff  n^a 2^(ap) >= 2^(n - c)
    for a in (1, 2, 5):
        for p in (0, 1, 3):
            for c in (0, 1, 4):
                for n in range(1, 60):
                    want = n - c <= 0 or n**a * 2 ** (a * p) >= 2 ** (n - c)
                    assert log_allows(a, p, n, c) is want, (a, p, n, c)


@pytest.mark.parametrize("t", [1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 1000])
def test_last_true_and_first_true_find_the_threshold(t: int) -> None:
    assert last_true(lambda j: j <= t) == t
    assert first_true(lambda m: m >= t) == t
    calls: list[int] = []
    assert first_true(lambda m: calls.append(m) or m >= t) == t
    assert all(m >= 1 for m in calls)


def test_over_p_log() -> None:
    assert over_p_log(1, 3)(16, 4) == float(Fraction(15, 3 * 8))
    assert over_p_log(0, 6)(1024, 6) == float(Fraction(1024, 96))
    assert over_p_log(0, 1)(1, 2) == 0.5


# -- the Bound type: construction ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"kind": "middle"}, r"^demo\.thm: kind must be one of lower, upper, fact, got 'middle'$"),
        ({"statement": ""}, r"^demo\.thm: statement, citation and formula are required$"),
        ({"citation": ""}, r"^demo\.thm: statement, citation and formula are required$"),
        ({"formula": ""}, r"^demo\.thm: statement, citation and formula are required$"),
        ({"value_params": ("colour",)}, r"^demo\.thm: unknown value parameter 'colour'$"),
        ({"optional_params": ("colour",)}, r"^demo\.thm: unknown value parameter 'colour'$"),
        ({"bounds_length": True}, r"^demo\.thm: bounds_length needs an inequality$"),
        ({"_value": None}, r"^demo\.thm: needs a value or outputs$"),
    ],
)
def test_construction_refusals(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        make(**kw)


def test_construction_accepts_each_kind_and_outputs_alone() -> None:
    for kind in ("lower", "upper", "fact"):
        assert make(kind=kind).kind == kind
    b = make(_value=None, _outputs=lambda length, precision: {"x": length})
    assert b.outputs(length=3, precision=1) == {"x": 3}
    assert make(bounds_length=True, _allows=linear(1)).bounds_length


def test_paper_length_key_and_params() -> None:
    assert make(id="kg.a.b").paper == "kg"
    b = make()
    assert b.length_key == "length" and b.params == ("length", "precision")
    assert make(length_name="n (DFA states)").length_key == "states"
    assert make(length_param="vertices", length_name="|V|").length_key == "vertices"
    ineq = make(_allows=linear(1), optional_params=("heads",))
    assert ineq.params == ("length", "precision", "heads", "width")
    heads = make(value_params=("size",), _value=lambda size: size, _allows=linear(1))
    assert heads.params == ("size", "length", "width", "precision")
    with_heads = make(
        value_params=("size",), _value=lambda size: size, _allows=linear(1), uses_heads=True
    )
    assert with_heads.params == ("size", "length", "width", "precision", "heads")
    states = make(value_params=(), _value=lambda: 1, _allows=linear(1), length_name="n")
    assert states.params == ("states", "width", "precision")


# -- validation and evaluation ------------------------------------------------------------------


def test_length_limits_and_evenness() -> None:
    b = make(min_length=2, even_length=True, _allows=linear(1), bounds_length=True)
    assert b._length(2) == 2 and b._length(10) == 10
    with pytest.raises(InputError, match=r"^demo\.thm: length N must be an integer >= 2, got 1$"):
        b._length(1)
    with pytest.raises(
        InputError,
        match=r"^demo\.thm: length N must be even \(the input splits in halves\), got 3$",
    ):
        b._length(3)
    odd = make(_allows=linear(1))
    assert odd._length(1) == 1 and odd._length(3) == 3
    with pytest.raises(InputError, match=r"^demo\.thm: length n must be an integer >= 1, got 0$"):
        make(length_name="n")._length(0)
    # value() checks the length too
    with pytest.raises(InputError, match=r"must be even \(the input splits in halves\), got 5$"):
        b.value(length=5, precision=1)
    assert b.value(length=4, precision=3) == 12


def test_model_limits_and_heads() -> None:
    rnn = make(_allows=linear(1), bounds_length=True)
    assert rnn._model(1, 1, 1) == (1, 1, 1)
    with pytest.raises(InputError, match=r"^width must be an integer >= 1, got 0$"):
        rnn._model(0, 1, 1)
    with pytest.raises(InputError, match=r"^precision must be an integer >= 1, got 0$"):
        rnn._model(1, 0, 1)
    with pytest.raises(InputError, match=r"^heads must be an integer >= 1, got 0$"):
        rnn._model(1, 1, 0)
    with pytest.raises(InputError, match=r"^demo\.thm is about rnn; heads must be 1, got 2$"):
        rnn._model(1, 1, 2)
    tf = make(_allows=linear(1), bounds_length=True, uses_heads=True)
    assert tf._model(2, 3, 4) == (2, 3, 4)


def test_checked_messages() -> None:
    b = make(optional_params=("heads",))
    with pytest.raises(
        InputError, match=r"^demo\.thm: unknown parameter 'alpha'; takes length, precision, heads$"
    ):
        b.value(length=1, precision=1, zeta=1, alpha=2)
    with pytest.raises(InputError, match=r"^demo\.thm needs length, precision; missing precision$"):
        b.value(length=1)
    with pytest.raises(InputError, match=r"^demo\.thm needs length, precision; missing length$"):
        b.value()
    none = make(value_params=(), _value=lambda: 7)
    assert none.value() == 7
    with pytest.raises(InputError, match=r"^demo\.thm: unknown parameter 'length'; takes none$"):
        none.value(length=1)
    with pytest.raises(InputError, match=r"^precision must be an integer >= 1, got 0$"):
        b.value(length=1, precision=0)
    opt = make(optional_params=("heads",), _value=lambda length, precision, heads=1: heads)
    assert opt.value(length=2, precision=3) == 1 and opt.value(length=2, precision=3, heads=5) == 5
    with pytest.raises(InputError, match=r"^heads must be an integer >= 1, got 0$"):
        opt.value(length=2, precision=3, heads=0)


def test_value_and_outputs_when_absent() -> None:
    b = make(_value=None, _outputs=lambda length, precision: {"sum": length + precision})
    with pytest.raises(InputError, match=r"^demo\.thm has no single value; see its outputs$"):
        b.value(length=1, precision=1)
    assert make().outputs(length=1, precision=1) == {}
    assert b.outputs(length=2, precision=5) == {"sum": 7}


def test_allows_max_length_min_width() -> None:
    plain = make(kind="upper")
    assert plain.allows(4, 1, 1) is None
    assert plain.max_length(1, 1) is None and plain.min_width(4, 1) is None
    ineq = make(_allows=linear(2))  # not bounds_length: no max_length, but min_width
    assert ineq.max_length(3, 5) is None
    assert ineq.allows(30, 3, 5) is True and ineq.allows(31, 3, 5) is False
    assert ineq.min_width(30, 5) == 3 and ineq.min_width(31, 5) == 4 and ineq.min_width(1, 5) == 1
    full = make(_allows=linear(2), bounds_length=True)
    for m, p in ((1, 1), (3, 5), (7, 2)):
        assert full.max_length(m, p) == 2 * m * p
    even = make(_allows=linear(1), bounds_length=True, even_length=True, min_length=2)
    assert even.max_length(3, 3) == 8 and even.max_length(2, 2) == 4
    heads = make(_allows=linear(1), bounds_length=True, uses_heads=True)
    assert heads.max_length(2, 3, 4) == 24 and heads.min_width(25, 3, 4) == 3
    assert heads.min_width(24, 3, 4) == 2 and heads.allows(24, 2, 3, 4) is True
    fixed = make(_allows=linear(1), bounds_length=True, _max_length=lambda m, p, h: 100 * m + h)
    assert fixed.max_length(2, 1) == 201
    with pytest.raises(InputError, match=r"^demo\.thm is about rnn; heads must be 1, got 3$"):
        full.max_length(1, 1, 3)
    with pytest.raises(InputError, match=r"^demo\.thm is about rnn; heads must be 1, got 3$"):
        full.min_width(4, 1, 3)
    with pytest.raises(InputError, match=r"^demo\.thm is about rnn; heads must be 1, got 3$"):
        full.allows(4, 1, 1, 3)


def test_min_width_checks_the_length() -> None:
    even = make(_allows=linear(1), bounds_length=True, even_length=True, min_length=2)
    with pytest.raises(InputError, match=r"must be even \(the input splits in halves\), got 7$"):
        even.min_width(7, 1)
    with pytest.raises(InputError, match=r"must be even \(the input splits in halves\), got 7$"):
        even.allows(7, 1, 1)
    with pytest.raises(InputError, match=r"^precision must be an integer >= 1, got 0$"):
        even.min_width(8, 0)
    assert even.min_width(8, 1) == 8


# -- describe and needs -------------------------------------------------------------------------


def test_describe_fields() -> None:
    b = make(
        _allows=linear(1),
        bounds_length=True,
        notes="a note",
        errata=("one", "two"),
        aliases=("demo.alias",),
        derived=True,
        width_note="rests on the raw inequality",
    )
    out = b.describe(length=12, precision=3, width=2)
    assert out == {
        "id": "demo.thm",
        "paper": "demo",
        "name": "Demo",
        "kind": "lower",
        "architecture": "rnn",
        "task": "t",
        "statement": "s",
        "citation": "c",
        "formula": "f",
        "quantity": "q",
        "derived": True,
        "aliases": ["demo.alias"],
        "length_name": "N",
        "inputs": {"length": 12, "precision": 3, "width": 2},
        "notes": "a note",
        "errata": ["one", "two"],
        "value": 36,
        "max_length": 6,
        "min_width": 4,
        "width_rests_on": "rests on the raw inequality",
        "evaluated": True,
    }
    assert set(out) <= base.DESCRIBE_KEYS | {"paper"}


def test_describe_leaves_out_what_is_not_given() -> None:
    b = make(_allows=linear(1), bounds_length=True, width_note="w")
    out = b.describe(precision=3, length=None)
    assert out["inputs"] == {"precision": 3} and out["evaluated"] is False
    for key in ("value", "max_length", "min_width", "width_rests_on", "notes", "errata"):
        assert key not in out
    only_max = b.describe(width=2, precision=3)
    assert only_max["max_length"] == 6 and "min_width" not in only_max
    assert only_max["width_rests_on"] == "w" and only_max["evaluated"] is True
    only_min = b.describe(length=7, precision=3)
    assert only_min["min_width"] == 3 and "max_length" not in only_min
    assert only_min["evaluated"] is True and only_min["value"] == 21
    no_precision = b.describe(width=2, length=7)
    assert "max_length" not in no_precision and "min_width" not in no_precision
    assert "width_rests_on" not in no_precision
    assert "width_rests_on" not in make(_allows=linear(1)).describe(length=3, precision=1)
    not_bounding = make(_allows=linear(1)).describe(width=2, precision=3)
    assert "max_length" not in not_bounding and not_bounding["evaluated"] is False


def test_describe_heads_default_to_one_and_pass_through() -> None:
    b = make(_allows=linear(1), bounds_length=True, uses_heads=True)
    assert b.describe(width=2, precision=3)["max_length"] == 6
    assert b.describe(width=2, precision=3, heads=5)["max_length"] == 30
    assert b.describe(length=31, precision=3, heads=5)["min_width"] == 3


def test_describe_value_is_width_and_outputs() -> None:
    b = make(
        kind="upper",
        value_is_width=True,
        optional_params=("heads",),
        _value=lambda length, precision, heads=1: length + heads,
        _outputs=lambda length, precision, heads=1: {"extra": precision * heads},
    )
    out = b.describe(length=4, precision=3)
    assert out["value"] == out["min_width"] == 5 and out["extra"] == 3
    out = b.describe(length=4, precision=3, heads=2)
    assert out["value"] == out["min_width"] == 6 and out["extra"] == 6
    plain = make(kind="upper").describe(length=4, precision=3)
    assert plain["value"] == 12 and "min_width" not in plain
    outputs_only = make(_value=None, _outputs=lambda length, precision: {"bits": length})
    out = outputs_only.describe(length=4, precision=1)
    assert "value" not in out and out["bits"] == 4 and out["evaluated"] is True


def test_describe_refusals() -> None:
    b = make(_allows=linear(1), bounds_length=True)
    with pytest.raises(
        InputError,
        match=r"^demo\.thm takes no parameter 'alpha'; it takes length, precision, width$",
    ):
        b.describe(zeta=1, alpha=1)
    clash = make(_outputs=lambda length, precision: {"precision": 1})
    with pytest.raises(RuntimeError, match=r"^demo\.thm: output 'precision' names an input or a "):
        clash.describe(length=1, precision=1)
    field = make(_outputs=lambda length, precision: {"value": 1, "kind": 2})
    with pytest.raises(RuntimeError, match=r"^demo\.thm: output 'kind' names an input or a field$"):
        field.describe(length=1, precision=1)


def test_needs() -> None:
    assert make().needs() == "--length --precision"
    assert make(value_params=(), _value=lambda: 1).needs() == "nothing"
    assert make(value_params=("mlp_width",), _value=lambda mlp_width: 1).needs() == "--mlp-width"
    lower = make(_allows=linear(1), bounds_length=True)
    assert lower.needs() == "--length --precision | --width --precision"
    tf = make(_allows=linear(1), bounds_length=True, uses_heads=True)
    assert tf.needs() == "--length --precision | --width --precision [--heads] | " + (
        "--length --precision [--heads]"
    )
    states = make(value_params=("states",), _value=lambda states: 1, _allows=linear(1))
    assert states.needs() == "--states | --length --precision"
    assert make(value_params=("states",), _value=lambda states: 1, _allows=linear(1),
                length_name="n").needs() == "--states | --states --precision"  # fmt: skip
    protocol = make(value_params=(), _value=None, _outputs=lambda: {"a": 1}, _allows=linear(1))
    assert protocol.needs() == "nothing | --length --precision"


def test_needs_of_registered_statements() -> None:
    # the formula's and the inequality's "--length --precision" are said once
    assert bounds.get("separations.thm3").needs() == "--length --precision | --width --precision"
    assert bounds.get("separations.thm5").needs() == (
        "--length --precision | --width --precision [--heads] | --length --precision [--heads]"
    )
    assert bounds.get("parrots.thm3_1").needs() == (
        "--vertices | --width --precision [--heads] | --vertices --precision [--heads]"
    )
