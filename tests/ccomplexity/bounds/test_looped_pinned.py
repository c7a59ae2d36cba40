"""The looped-reasoning statements pinned exactly: every output of every calculator at two (or
more) parameter points against the paper's formula written out here, the limits of each check at,
below and above, and the messages a user sees.

Sources: the paper (``seeds/looped-reasoning.txt``: Thm 2.1, 2.2, B.1, B.6, Cor 2.3, Lemmas
B.2-B.5, Eq. 3, App. A.1) and the spec's errata (``spec/looped-reasoning.md``). Where the two
differ the module follows the spec (Thm 2.1's ``*_needed`` widths, Thm 2.2's explicit O(L), the
d(d-1) pair neurons of Lemma B.2, App. A.1's 10^96); each pin says which source it follows.
Expected values use only ints and ``fractions.Fraction`` and helpers written here.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from ccomplexity import bounds
from ccomplexity.bounds import looped
from ccomplexity.errors import InputError
from tests.ccomplexity.formulas import clog2


def flog2(n: int) -> int:
    """floor(log2 n) by doubling."""
    bits = 0
    while 2 ** (bits + 1) <= n:
        bits += 1
    return bits


def dense(*widths: int) -> int:
    """Weights and biases of affine maps widths[0] -> widths[1] -> ..., one map at a time."""
    total = 0
    for k in range(len(widths) - 1):
        total += widths[k] * widths[k + 1] + widths[k + 1]
    return total


# -- Theorem 2.1 ---------------------------------------------------------------------------------


def thm2_1(order: int, n: int) -> dict[str, int]:
    """Thm 2.1 read literally (paper), with the spec's erratum widths (``*_needed``)."""
    g = clog2(order)
    pos = clog2(n + 1)  # spec: +-1 codes of the positions 0..n
    return {
        "group_order": order,
        "loops": clog2(n),  # paper: T = ceil(lg n)
        "block_layers": 1,
        "heads": 2,
        "model_dim": 3 * (g + clog2(n) + 1),  # paper: 3(ceil(lg|G|) + ceil(lg n + 1))
        "model_dim_needed": 3 * (g + pos),  # spec erratum
        "mlp_width": order * order + 6 * g,  # paper: |G|^2 + 6 ceil(lg|G|)
        "head_dim": clog2(n),  # paper: d_ATTN = ceil(lg n)
        "attention_dim_needed": max(pos, g),  # spec erratum: values carry the group code
        "key_dim_needed": pos,
        "value_dim_needed": g,
        "group_code_bits": g,
        "position_code_bits": pos,
    }


@pytest.mark.parametrize(
    ("group", "order", "n"),
    [
        ("S5", 120, 8),  # value code (7 bits) wider than the position code (4)
        ("Z3", 3, 16),  # position code (5 bits) wider than the value code (2)
        ("A4", 12, 24),  # ceil(lg n + 1) = 6 against ceil(lg(n + 1)) = 5
        ("D4", 8, 1),  # one element: no loop
    ],
)
def test_thm2_1_every_output(group: str, order: int, n: int) -> None:
    b = bounds.get("looped.thm2_1")
    assert b.outputs(group=group, length=n) == thm2_1(order, n)
    assert b.value(group=group, length=n) == clog2(n)


def test_thm2_1_hand_values() -> None:
    out = looped.thm2_1_sizes("S5", 8)
    assert (out["model_dim"], out["model_dim_needed"], out["mlp_width"]) == (33, 33, 14_442)
    assert (out["head_dim"], out["key_dim_needed"], out["attention_dim_needed"]) == (3, 4, 7)
    out = looped.thm2_1_sizes("Z3", 16)
    assert (out["model_dim"], out["model_dim_needed"], out["mlp_width"]) == (21, 21, 21)
    assert (out["attention_dim_needed"], out["position_code_bits"]) == (5, 5)
    out = looped.thm2_1_sizes("Z1", 3)  # the trivial group: no group code bits
    assert (out["group_code_bits"], out["mlp_width"], out["model_dim"]) == (0, 1, 9)


def test_thm2_1_length_limit_and_messages() -> None:
    b = bounds.get("looped.thm2_1")
    assert b.value(group="S3", length=1) == 0  # at the limit n >= 1
    assert b.value(group="S3", length=2) == 1  # above
    with pytest.raises(InputError, match="length must be an integer >= 1, got 0"):
        b.value(group="S3", length=0)
    with pytest.raises(InputError, match="unknown group"):
        b.value(group="Q8", length=4)


# -- Theorem 2.2 ---------------------------------------------------------------------------------


def thm2_2(d: int, d_ff: int, h: int, r: int, layers: int) -> dict[str, int]:
    """Thm 2.2: d + R + 2, R d_FF + O(L) with the O(L) = L + 3 of the spec, R H heads."""
    return {
        "loops": layers,
        "block_layers": 1,
        "looped_model_dim": d + r + 2,
        "looped_mlp_width": r * d_ff + layers + 3,
        "looped_heads": r * h,
    }


@pytest.mark.parametrize(
    ("d", "d_ff", "h", "r", "layers"), [(4, 8, 2, 3, 5), (16, 5, 3, 2, 11), (7, 9, 1, 4, 4)]
)
def test_thm2_2_every_output(d: int, d_ff: int, h: int, r: int, layers: int) -> None:
    params = {"model_dim": d, "mlp_width": d_ff, "heads": h, "distinct_layers": r}
    b = bounds.get("looped.thm2_2")
    assert b.outputs(**params, layers=layers) == thm2_2(d, d_ff, h, r, layers)
    assert b.value(**params, layers=layers) == layers
    assert b.value(**params, layers=layers, head_dim=3) == layers  # d_ATTN is unchanged


def test_thm2_2_distinct_layers_limit() -> None:
    params = {"model_dim": 8, "mlp_width": 8, "heads": 1}
    b = bounds.get("looped.thm2_2")
    assert b.outputs(**params, distinct_layers=3, layers=3)["looped_model_dim"] == 13  # R = L
    assert b.outputs(**params, distinct_layers=3, layers=4)["looped_mlp_width"] == 31  # R < L
    with pytest.raises(InputError, match=r"^distinct layers R = 4 cannot exceed layers L = 3$"):
        b.outputs(**params, distinct_layers=4, layers=3)
    with pytest.raises(InputError, match="distinct_layers must be an integer >= 1"):
        b.outputs(**params, distinct_layers=0, layers=3)


# -- Theorem B.6 and Corollary 2.3 ---------------------------------------------------------------


def test_phop_layers_is_floor_lg_p_plus_2() -> None:
    # Thm B.6 / Cor 2.3 (paper): floor(lg p) + 2, at and around every power of two
    for p in range(1, 130):
        assert looped.phop_layers(p) == flog2(p) + 2
    assert [looped.phop_layers(p) for p in (1, 2, 3, 4, 7, 8)] == [2, 3, 3, 4, 4, 5]
    assert bounds.get("looped.thmB_6").outputs(hops=5) == {
        "layers": 4,
        "distinct_layers": 3,
        "heads": 1,
    }


def cor2_3(p: int) -> dict[str, int]:
    """Cor 2.3 via Thm 2.2 with R = 3, H = 1 (paper); the contiguous selector (spec/module)."""
    loops = flog2(p) + 2
    return {
        "loops": loops,
        "block_layers": 1,
        "heads": 3,
        "distinct_layers": 3,
        "model_dim_extra": 3 + 2,
        "mlp_width_extra": loops + 3,
        "mlp_width_extra_contiguous": 1 + 2 * (3 - 1),
    }


@pytest.mark.parametrize("p", [1, 6, 32])
def test_cor2_3_every_output(p: int) -> None:
    b = bounds.get("looped.cor2_3")
    assert b.outputs(hops=p) == cor2_3(p)
    assert b.value(hops=p) == flog2(p) + 2
    loops = flog2(p) + 2
    with_d = b.outputs(hops=p, model_dim=10)
    assert with_d == {**cor2_3(p), "looped_model_dim": 15}
    with_ff = b.outputs(hops=p, mlp_width=7)
    assert with_ff == {
        **cor2_3(p),
        "looped_mlp_width": 3 * 7 + loops + 3,
        "looped_mlp_width_contiguous": 3 * 7 + 5,
    }
    both = b.outputs(hops=p, model_dim=10, mlp_width=7)
    assert both == {**with_d, **with_ff}


def test_cor2_3_is_thm2_2_with_three_layers_and_one_head() -> None:
    for p, d, d_ff in [(6, 3, 4), (40, 12, 2)]:
        loops = flog2(p) + 2
        via = thm2_2(d, d_ff, 1, 3, loops)
        out = looped.cor2_3_sizes(p, model_dim=d, mlp_width=d_ff)
        assert out["looped_model_dim"] == via["looped_model_dim"]
        assert out["looped_mlp_width"] == via["looped_mlp_width"]
        assert out["heads"] == via["looped_heads"]


def test_hops_limit() -> None:
    b = bounds.get("looped.cor2_3")
    assert b.value(hops=1) == 2
    with pytest.raises(InputError, match="hops must be an integer >= 1, got 0"):
        b.value(hops=0)


# -- the contiguous selector ---------------------------------------------------------------------


def test_stretch_selector_pinned() -> None:
    # one boundary at loop 3: loops 1, 2 select stretch 0, loops 3.. stretch 1
    assert looped.stretch_selector(1, (3,)) == ([1, 0], 3)
    assert looped.stretch_selector(2, (3,)) == ([1, 0], 3)
    assert looped.stretch_selector(3, (3,)) == ([0, 1], 3)
    assert looped.stretch_selector(9, (3,)) == ([0, 1], 3)
    # two boundaries (Cor 2.3's three stretches), below, at and above each
    want = {1: [1, 0, 0], 2: [1, 0, 0], 3: [0, 1, 0], 4: [0, 1, 0], 5: [0, 0, 1], 8: [0, 0, 1]}
    for loop, e in want.items():
        assert looped.stretch_selector(loop, (3, 5)) == (e, 5)
    assert looped.stretch_selector(1, ()) == ([1], 1)  # one stretch: the counter alone
    assert looped.stretch_selector(4, (2, 3, 4)) == ([0, 0, 0, 1], 7)


# -- Lemmas B.2-B.5 ------------------------------------------------------------------------------


def test_affine_parameters() -> None:
    assert looped.affine_parameters(3) == 0
    assert looped.affine_parameters(2, 3) == 2 * 3 + 3
    assert looped.affine_parameters(2, 3, 4) == 9 + 3 * 4 + 4
    assert looped.affine_parameters(5, 1, 7, 2) == dense(5, 1, 7, 2) == 6 + 14 + 16


@pytest.mark.parametrize(("d", "p"), [(3, 4), (6, 9), (1, 2)])
def test_lemma_b2_every_output(d: int, p: int) -> None:
    # paper: 3 layers, width d^2; spec/module: the d(d-1) pair neurons it uses
    out = bounds.get("looped.lemmaB_2").outputs(dim=d, precision=p)
    assert out == {
        "layers": 3,
        "width": d * d,
        "width_used": d * (d - 1),
        "hidden_widths": [d * (d - 1), d],
        "output_dim": d,
        "parameter_count": dense(d, d * (d - 1), d, d),
        # 2 weights per pair neuron, d - 1 per s_i plus its bias, 1 weight per output
        "nonzero_parameters": 2 * d * (d - 1) + (d - 1) * d + d + d,
        "margin_log2": -p,
        "input_bound": f"||x||_inf = O(2^{p})",
    }
    assert bounds.get("looped.lemmaB_2").value(dim=d, precision=p) == d * d


def test_lemma_b2_hand_values() -> None:
    out = looped.lemma_b2_sizes(4, 8)
    assert (out["parameter_count"], out["nonzero_parameters"]) == (
        4 * 12 + 12 + 12 * 4 + 4 + 16 + 4,
        24 + 12 + 4 + 4,
    )
    assert out["input_bound"] == "||x||_inf = O(2^8)" and out["margin_log2"] == -8


@pytest.mark.parametrize(("a", "d", "p"), [(4, 8, 8), (7, 3, 2)])
def test_lemma_b3_every_output(a: int, d: int, p: int) -> None:
    out = bounds.get("looped.lemmaB_3").outputs(alphabet=a, model_dim=d, precision=p)
    assert out == {
        "layers": 5,  # paper
        "layers_used": 3,
        "width": a * a,  # paper: max(|Sigma|^2)
        "width_used": a * (a - 1),
        "hidden_widths": [a * (a - 1), a],
        "output_dim": d,
        "parameter_count": dense(d, a * (a - 1), a, d),
        "margin_log2": -p,
    }
    assert looped.lemma_b3_sizes(3, 5, 1)["parameter_count"] == (5 * 6 + 6) + (6 * 3 + 3) + (
        3 * 5 + 5
    )


@pytest.mark.parametrize(("p", "d"), [(8, 1), (3, 5)])
def test_lemma_b4_every_output(p: int, d: int) -> None:
    out = bounds.get("looped.lemmaB_4").outputs(precision=p, model_dim=d)
    assert out == {
        "layers": 2,
        "width": 4 * d,
        "width_per_coordinate": 4,
        "input_dim": 2 * d + 1,
        "output_dim": d,
        "parameter_count": dense(2 * d + 1, 4 * d, d),
        # per coordinate: 4 input weights, 4 M weights, 2 biases (-2^p on x), 4 output weights
        "nonzero_parameters": (4 + 4 + 2 + 4) * d,
        "input_range": f"[-2^{p}, 2^{p}]",
    }
    assert bounds.get("looped.lemmaB_4").value(precision=p, model_dim=d) == 4 * d


def test_lemma_b4_default_model_dim() -> None:
    assert looped.lemma_b4_sizes(5) == looped.lemma_b4_sizes(5, 1)
    assert looped.lemma_b4_sizes(5)["parameter_count"] == 3 * 4 + 4 + 4 + 1
    assert bounds.get("looped.lemmaB_4").outputs(precision=2)["input_range"] == "[-2^2, 2^2]"


@pytest.mark.parametrize("d", [2, 3, 64])
def test_lemma_b5_every_output(d: int) -> None:
    out = bounds.get("looped.lemmaB_5").outputs(model_dim=d)
    assert out == {
        "attention_layers": 1,
        "heads": 2,  # paper
        "mlp_width": 0,
        "key_dim": 2,  # spec erratum: keys (j, j^2)
        "value_dim": d - 1,
        "positional_features": 3,
        # W_Q 3 + 2, W_K 2 + 2, W_O W_V (d - 1) per head
        "nonzero_parameters": (3 + 2) + (2 + 2) + 2 * (d - 1),
    }


def test_lemma_b5_width_limit_message() -> None:
    assert looped.lemma_b5_sizes(2)["value_dim"] == 1  # at the limit
    msg = r"^SHIFT acts on \(x_i, i\) with x_i in R\^\(d-1\): d must be >= 2, got 1$"
    with pytest.raises(InputError, match=msg):
        looped.lemma_b5_sizes(1)
    with pytest.raises(InputError, match="d must be >= 2, got 0"):
        looped.lemma_b5_sizes(0)


# -- App. A.1 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operands", "counts"),
    [
        (2, [2]),
        (3, [2]),
        (4, [2, 4]),
        (15, [2, 4, 8]),
        (16, [2, 4, 8, 16]),
        (31, [2, 4, 8, 16]),
        (32, [2, 4, 8, 16, 32]),
        (33, [2, 4, 8, 16, 32]),
    ],
)
def test_app_a1_inputs_at_each_operand_count(operands: int, counts: list[int]) -> None:
    # spec erratum: sum_n 1000^n, about 10^96, not the paper's > 10^320
    total = sum(1000**n for n in counts)
    out = looped.addition_inputs(operands)
    assert out["operand_counts"] == counts
    assert out["distinct_inputs"] == total
    assert out["training_examples"] == 200_000 * 1024 == 204_800_000
    top = 3 * max(counts)  # total = 10^top (1 + tiny): log10 = top to 6 places
    assert out["log10_inputs"] == top and type(out["log10_inputs"]) is float
    assert bounds.get("looped.appA1_examples").value(operands=operands) == total


def test_app_a1_needs_two_operands() -> None:
    # below the mixture's smallest operand count there is no input: a clear refusal, not log10(0)
    with pytest.raises(InputError, match=r"^App\. A\.1's mixture has 2 to 32 operands; operands=1"):
        bounds.get("looped.appA1_examples").outputs(operands=1)
    assert looped.addition_inputs(2)["distinct_inputs"] == 10**6


def test_app_a1_default_is_the_whole_mixture() -> None:
    out = looped.addition_inputs()
    assert out == looped.addition_inputs(32)
    assert out["distinct_inputs"] == 10**96 + 10**48 + 10**24 + 10**12 + 10**6
    assert out["log10_inputs"] == 96.0 and type(out["log10_inputs"]) is float
    assert bounds.get("looped.appA1_examples").value() == out["distinct_inputs"]


# -- Eq. 3 ---------------------------------------------------------------------------------------


def gap(looped_score: Fraction, base: Fraction, deep: Fraction) -> Fraction:
    """Eq. 3 (paper) in percent."""
    return 100 * (looped_score - base) / (deep - base)


@pytest.mark.parametrize(
    ("lp", "base", "deep"),
    [
        ("0.75", "0.5", "1.0"),
        ("3", "1", "5"),
        ("0.25", "0.5", "0.75"),
        ("1.5", "0.5", "1.0"),
        ("0.5", "0.5", "0.625"),
        ("0.5", "1.5", "0.25"),
    ],
)
def test_eq3_exactly_at_dyadic_scores(lp: str, base: str, deep: str) -> None:
    want = gap(Fraction(lp), Fraction(base), Fraction(deep))
    value = bounds.get("looped.eq3").value(
        looped_score=float(lp), base_score=float(base), deep_score=float(deep)
    )
    assert value == want  # dyadic inputs and results: the float is exact
    assert looped.gap_percent(float(lp), float(base), float(deep)) == want


def test_eq3_integer_scores_give_a_float() -> None:
    value = bounds.get("looped.eq3").value(looped_score=3, base_score=1, deep_score=5)
    assert value == 50 and type(value) is float


def test_eq3_undefined_when_deep_equals_base() -> None:
    msg = r"^%Gap is undefined when deep_score equals base_score$"
    with pytest.raises(InputError, match=msg):
        looped.gap_percent(0.3, 0.5, 0.5)
    with pytest.raises(InputError, match=msg):
        bounds.get("looped.eq3").value(looped_score=1, base_score=2, deep_score=2)
    # just off the equality it is defined (tiny denominators, exact)
    assert looped.gap_percent(1.0, 0.5, 0.5 + 2.0**-20) == 100 * 2**19


@pytest.mark.parametrize(
    ("name", "bad", "shown"),
    [
        ("looped_score", True, "True"),
        ("base_score", "0.5", "'0.5'"),
        ("deep_score", math.inf, "inf"),
        ("looped_score", math.nan, "nan"),
        ("base_score", -math.inf, "-inf"),
        ("deep_score", None, "None"),
    ],
)
def test_eq3_scores_must_be_finite_numbers(name: str, bad: object, shown: str) -> None:
    scores: dict[str, object] = {"looped_score": 0.5, "base_score": 0.25, "deep_score": 1.0}
    scores[name] = bad
    msg = rf"^{name} must be a finite number, got {shown}$"
    with pytest.raises(InputError, match=msg):
        bounds.get("looped.eq3").value(**scores)


def test_the_score_validator_built_afresh() -> None:
    # the validators of Eq. 3's scores are built at import; build one here, as they are built
    check = looped._real("some_score")
    assert check(3) == 3.0 and type(check(3)) is float
    assert check(Fraction(1, 4)) == 0.25 and check(-2.5) == -2.5
    for bad, shown in [(False, "False"), ("1", "'1'"), (math.inf, "inf"), (math.nan, "nan")]:
        with pytest.raises(InputError, match=rf"^some_score must be a finite number, got {shown}$"):
            check(bad)


def test_eq3_accepts_finite_reals_of_any_type() -> None:
    b = bounds.get("looped.eq3")
    assert b.value(looped_score=Fraction(3, 4), base_score=0, deep_score=1) == 75.0
    assert b.value(looped_score=-1e300, base_score=0, deep_score=1e300) == -100.0
    assert b.value(looped_score=False + 0.5, base_score=0, deep_score=1) == 50.0


# -- the toolkit's own links (word problem, carry automaton) -------------------------------------


@pytest.mark.parametrize(("group", "order"), [("Z1", 1), ("S3", 6), ("D4", 8), ("S5", 120)])
def test_word_problem_bits_and_states(group: str, order: int) -> None:
    b = bounds.get("looped.word_problem")
    assert b.value(group=group) == clog2(order)
    assert b.outputs(group=group) == {"states": order, "fooling_set": order}


@pytest.mark.parametrize("n", [1, 2, 5, 16, 17])
def test_carry_automaton(n: int) -> None:
    b = bounds.get("looped.carry")
    assert b.value(operands=n) == n
    assert b.outputs(operands=n) == {"states": n + 1, "live_states": n, "state_bits": clog2(n)}


def test_chain_of_thought_loops() -> None:
    b = bounds.get("looped.thmB_1")
    assert b.value(cot_steps=1) == 1
    assert b.outputs(cot_steps=7) == {"loops": 7, "dummy_tokens": 7}
    with pytest.raises(InputError, match="cot_steps must be an integer >= 1, got 0"):
        b.value(cot_steps=0)
