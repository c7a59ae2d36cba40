"""Theorem registry: exact inversions, the spec's checked numbers, and registry hygiene."""

import json
import math

import pytest

from ccomplexity import bounds
from ccomplexity.bounds import all_bounds, get, thm4_closed_form, thm4_itemised
from ccomplexity.errors import InputError

REQUIRED_IDS = [
    "separations.thm1",
    "separations.thm2",
    "separations.thm3",
    "separations.thm4",
    "separations.thm5",
    "separations.thm10",
    "separations.thm6",
    "separations.thm7",
    "separations.thm8",
    "separations.prop9",
    "separations.lemma4",
    "separations.thm11",
    "separations.thm12",
    "separations.lemma1",
    "separations.fact1",
    "separations.fact2",
    "separations.fact3",
    "separations.fact4",
    "separations.cor13_1",
    "separations.lemma5",
]


def test_thm3_paper_example_and_tight_inversion():
    thm3 = get("separations.thm3")
    assert thm3.max_length(128, 64) == 8192  # Sec. 6: m = 128, p = 64 bites only past 8k
    assert 128 >= 8192 / 64 and not 128 >= 8193 / 64  # raw m >= N/p at L and L + 1
    assert thm3.allows(8192, 128, 64) and not thm3.allows(8193, 128, 64)
    assert thm3.min_width(8192, 64) == 128 and thm3.min_width(8193, 64) == 129
    assert thm3.value(length=8192, precision=64) == 128
    assert thm3.value(length=100, precision=64) == pytest.approx(100 / 64)


@pytest.mark.parametrize(
    ("theorem", "factor", "even"),
    [
        ("separations.thm3", 1, False),
        ("separations.prop9", 1, False),
        ("separations.thm8", 2, False),
        ("separations.thm11", 2, True),
    ],
)
def test_linear_rnn_bounds_invert_exactly(theorem, factor, even):
    b = get(theorem)
    step = 2 if even else 1
    for m in (1, 3, 128, 10**6):
        for p in (1, 7, 64):
            top = b.max_length(m, p)
            assert top == factor * m * p  # largest N with factor * m * p >= N
            assert factor * m * p >= top and factor * m * p < top + step
            assert b.min_width(top, p) <= m < b.min_width(top + step, p)


@pytest.mark.parametrize(
    ("p", "n", "expected", "tol"),
    [
        (16, 400, 5.40, 0.005),
        (16, 8192, 94.15, 0.005),
        (16, 10**4, 113.8, 0.05),
        (16, 10**6, 9277, 1),
        (32, 400, 3.27, 0.005),
        (32, 8192, 60.67, 0.005),
        (32, 10**4, 73.6, 0.05),
        (32, 10**6, 6419, 1),
        (64, 400, 1.83, 0.005),
        (64, 8192, 35.46, 0.005),
        (64, 10**4, 43.1, 0.05),
        (64, 10**6, 3971, 1),
    ],
)
def test_thm5_closed_form_matches_spec_checked_table(p, n, expected, tol):
    thm5 = get("separations.thm5")
    value = thm5.value(length=n, precision=p)
    assert value == pytest.approx(expected, abs=tol)
    out = thm5.describe(length=n, precision=p)
    assert out["min_width_closed_form"] == math.ceil(value)  # H = 1
    out2 = thm5.describe(length=n, precision=p, heads=2)
    assert out2["min_width_closed_form"] == math.ceil(value / 2)


def test_thm5_closed_form_exact_tie_at_power_of_two():
    # m = 3, p = 1, H = 1, N = 64: 3 m H (p + log2 N) = 9 * 7 = 63 = N - 1 exactly
    assert get("separations.thm5").describe(length=64, precision=1)["min_width_closed_form"] == 3
    assert get("separations.thm5").describe(length=66, precision=1)["min_width_closed_form"] == 4


# The single-output Thm 4 protocol, written out independently: ceil(log2 V) + H (4p + ceil(log2 N)
# + 2 m p) bits with the value sums at their widest; Thm 5 needs N - 1 bits, Thm 12 N / 2.
def single_output_raw(n, m, p, h, alphabet):
    return math.ceil(math.log2(alphabet)) + h * (4 * p + math.ceil(math.log2(n)) + 2 * m * p)


@pytest.mark.parametrize(
    ("theorem", "alphabet", "needed"),
    [("separations.thm5", 4, lambda n: n - 1), ("separations.thm12", 2, lambda n: n // 2)],
)
def test_protocol_widths_against_brute_force(theorem, alphabet, needed):
    b = get(theorem)
    for m in (1, 2, 5, 17):
        for p in (1, 4, 16):
            for h in (1, 3):
                ok = [
                    n
                    for n in range(2, 6000, 2)
                    if single_output_raw(n, m, p, h, alphabet) >= needed(n)
                ]
                assert b.max_length(m, p, h) == max(ok)
                assert all(b.allows(n, m, p, h) == (n in ok) for n in range(2, 600, 2))
    for n in (2, 10, 64, 400, 8192):
        for p in (1, 16):
            w = b.min_width(n, p)
            assert single_output_raw(n, w, p, 1, alphabet) >= needed(n)
            assert w == 1 or single_output_raw(n, w - 1, p, 1, alphabet) < needed(n)


def test_thm5_example_rests_on_the_run_protocol():
    thm5 = get("separations.thm5")
    out = thm5.describe(length=400, precision=16)
    # 2 + (64 + 9 + 32 m) >= 399 first at m = 11; the paper's closed form gives 6
    assert out["min_width"] == 11 and out["min_width_closed_form"] == 6
    assert "single-output" in out["width_rests_on"]
    assert get("separations.thm10") is thm5
    assert not thm5.allows(400, 10, 16) and thm5.allows(400, 11, 16)


def test_thm12_is_marked_derived_and_uses_six():
    thm12 = get("separations.thm12")
    assert thm12.derived and not get("separations.thm5").derived
    assert thm12.value(length=400, precision=16) == pytest.approx(400 / (6 * (16 + math.log2(400))))


def test_thm4_itemised_vs_closed_form_spec_example():
    bits = thm4_itemised(64, 64, 32, 400, 1)
    assert math.floor(bits.total) == 10_385
    assert round(bits.closed_form, -2) == 7_800  # 3 * 64 * (32 + log2 400) = 7803.6
    assert bits.closed_form == pytest.approx(thm4_closed_form(64, 32, 400, 1))
    steps = bits.breakdown()
    assert steps["step1_query_dp"] == 64 * 32
    assert steps["step4_values_4mp_per_head"] == 4 * 64 * 32
    assert sum(v for k, v in steps.items() if k != "total") == pytest.approx(bits.total)
    assert bits.total > bits.closed_form  # spec erratum 1
    # x_N is sent once for all heads; the other steps repeat per head
    two = thm4_itemised(64, 64, 32, 400, 2)
    assert two.total == pytest.approx(64 * 32 + 2 * (bits.total - 64 * 32))
    assert get("separations.thm4").value(width=64, precision=32, length=400) == pytest.approx(
        bits.closed_form
    )
    assert get("separations.thm4").max_length(64, 32) is None


def test_rnn_state_and_fact_values():
    assert get("separations.thm2").value(width=128, precision=64) == 8192
    lemma4 = get("separations.lemma4")
    assert lemma4.max_length(4, 8) is None
    assert [lemma4.min_width(n, 1) for n in (1, 2, 7, 8, 9)] == [1, 1, 3, 3, 4]
    assert lemma4.min_width(2**20, 8) == 3 and lemma4.min_width(2**20 + 1, 8) == 3
    assert lemma4.min_width(2**24 + 1, 8) == 4
    assert lemma4.value(states=8) == 3
    assert get("separations.thm11").value(length=10) == 5
    assert get("separations.lemma1").value(length=10) == 9
    assert get("separations.lemma5").value(length=10) == 5
    for fact in ("separations.fact1", "separations.fact2", "separations.fact3"):
        assert get(fact).value(length=37) == 37
        assert get(fact).max_length(4, 4) is None and get(fact).min_width(4, 4) is None
    assert get("separations.fact4").value(size=2**10) == 10
    assert get("separations.fact4").value(size=3) == pytest.approx(math.log2(3))
    assert get("separations.cor13_1").value(length=1024) == pytest.approx(1024 / 100)


def test_upper_bound_widths_use_paper_k():
    assert get("separations.thm1").value(length=20) == 473
    assert get("separations.thm1").value(length=20, alphabet=64) == 6 + 2 * 473
    assert get("separations.thm6").value(length=20) == 2 * 473 + 3
    assert get("separations.cor8_1").value(length=100) == 679
    assert get("separations.lemma2").value(length=20, gamma=0.1) == 2952
    k = get("separations.thm7").value(length=10, gamma=0.5)
    assert get("separations.thm7").value(length=10, gamma=0.5, input_dim=8) == 8 + 2 + 3 * k


GENERIC_PARAMS = dict(width=8, precision=8, length=64, gamma=0.25, states=9, size=4, sparsity=2)
GENERIC_PARAMS.update(entities=8, relations=3, hops=2, layers=2, permutations=4)
GENERIC_PARAMS.update(vertices=16, experts=4, examples=100, dim=8, delta=0.01)
GENERIC_PARAMS.update(group="S5", operands=4, model_dim=16, mlp_width=32, heads=2, head_dim=8)
GENERIC_PARAMS.update(distinct_layers=2, cot_steps=4, looped_score=0.5, base_score=0.4)
GENERIC_PARAMS.update(deep_score=0.6, alphabet=4)
"""Parameters at which every registered statement is evaluated (each takes those it names)."""


def test_registry_is_complete_and_documented():
    listed = all_bounds()
    assert len({b.id for b in listed}) == len(listed)
    for theorem in REQUIRED_IDS:
        assert get(theorem).id in {b.id for b in listed}
    for b in listed:
        assert b.statement and b.citation and b.formula and b.name and b.task and b.quantity
        assert b.kind in bounds.KINDS and b.paper in bounds.PAPERS
        if b.kind != "lower":
            assert b.max_length(8, 8) is None and b.min_width(8, 8) is None
        # describe is JSON-ready for every bound, evaluated at generic parameters
        params = GENERIC_PARAMS
        out = b.describe(**{k: v for k, v in params.items() if k in b.params})
        json.dumps(out)
        assert out["evaluated"], b.id


def test_no_output_of_any_statement_takes_an_input_or_field_name():
    from ccomplexity.bounds.base import DESCRIBE_KEYS

    params = GENERIC_PARAMS
    for b in all_bounds():
        formula = set(b.value_params) | set(b.optional_params)
        given = {k: v for k, v in params.items() if k in formula}
        assert set(b.value_params) <= set(given), b.id
        assert not set(b.outputs(**given)) & (DESCRIBE_KEYS | set(b.params)), b.id
        out = b.describe(**{k: v for k, v in params.items() if k in b.params})
        assert out["inputs"] == {k: v for k, v in params.items() if k in b.params}, b.id


def test_describe_refuses_an_output_that_overwrites_an_input():
    from ccomplexity.bounds.base import Bound

    clash = Bound(
        id="kg.clash",
        name="n",
        statement="s",
        citation="c",
        formula="f",
        kind="fact",
        architecture="a",
        task="t",
        quantity="q",
        value_params=("hops",),
        _value=None,
        _outputs=lambda hops: {"hops": hops + 1},
    )
    with pytest.raises(RuntimeError, match="output 'hops' names an input"):
        clash.describe(hops=2)


def test_kg_prop_b10_b12_lead_with_the_papers_block():
    out = bounds.describe("kg.prop_b10", entities=32, relations=4, hops=4)
    assert out["inputs"] == {"entities": 32, "relations": 4, "hops": 4}
    assert out["value"] == out["paper_parameters"] == 321_360  # the paper's block leads
    assert out["parameters"] == 2433  # the toolkit's program: T (3b + 1) + 1, T = 128, b = 6
    keys = list(out)
    assert keys.index("value") < keys.index("paper_parameters") < keys.index("parameters")
    b12 = bounds.describe("kg.prop_b12", entities=32, relations=4, hops=4)
    assert b12["value"] == b12["paper_depth"] == 9 and b12["parameters"] == 1
    assert b12["paper_parameters"] == 301_940


def test_describe_thm3_cli_example():
    out = bounds.describe("separations.thm3", width=128, precision=64)
    assert out["max_length"] == 8192 and out["kind"] == "lower"
    assert "min_width" not in out and "value" not in out


def test_unknown_id_raises_one_line_input_error():
    with pytest.raises(InputError, match="unknown theorem 'separations.thm99'; known: ") as err:
        get("separations.thm99")
    assert "\n" not in str(err.value) and "separations.thm3" in str(err.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: get("separations.thm3").max_length(0, 64),
        lambda: get("separations.thm3").max_length(128, 64, heads=2),  # RNNs have no heads
        lambda: get("separations.thm5").min_width(401, 16),  # Dyck lengths are even
        lambda: get("separations.thm11").allows(7, 1, 1),
        lambda: get("separations.thm3").value(length=10),
        lambda: get("separations.thm3").value(length=10, precision=4, heads=2),
        lambda: get("separations.lemma2").value(length=10, gamma=2),
        lambda: get("separations.thm5").max_length(True, 16),
        lambda: bounds.describe("separations.thm3", colour=3),
    ],
)
def test_input_errors_are_one_line(call):
    with pytest.raises(InputError) as err:
        call()
    assert "\n" not in str(err.value)
