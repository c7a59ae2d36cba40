"""Mixture-of-parrots paper: every statement's value and outputs pinned at two points.

The expected values are the paper's formulas written out here (seed ``mixture-of-parrots``,
spec ``mixture-of-parrots`` Sec. 3 with its reconstruction of the Lemma A.3 protocol and its
gaps (a), (b)): integers and ``Fraction`` where the formula is rational, brute-force minima and
maxima where the value is a least width or a largest |V|, and the few real-valued bounds (square
roots and logarithms of reals) to a relative 1e-12. Every parameter limit is checked at, below
and above it, with the message a user reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest

from ccomplexity import bounds
from ccomplexity.bounds import parrots as par
from ccomplexity.bounds.base import PARAMS
from ccomplexity.errors import InputError

P = "parrots."
REL = 1e-12


def clog2(n: int) -> int:
    """ceil(log2 n) by doubling (0 for n = 1)."""
    bits = 0
    while 2**bits < n:
        bits += 1
    return bits


def exact_bits(m: int, h: int, p: int, a: int) -> int:
    """Lemma A.3's message sent exactly: H (p - 1 + ceil(log2 |A|) + m (p + ceil(log2 |A|)))."""
    c = clog2(a)
    return h * (p - 1 + c + m * (p + c))


def least(pred: Callable[[int], bool], start: int = 1) -> int:
    n = start
    while not pred(n):
        n += 1
    return n


def params_paper(m: int, h: int, hidden: int, k: int, n_out: int = 2) -> int:
    """The paper's count of Transformer^N_{m,H,1,K}: 3 H m^2 attention, K m H router (K > 1),
    K experts of m' (m H + 1) + m' (n_out - 1)."""
    return 3 * h * m * m + (k * m * h if k > 1 else 0) + k * (hidden * (m * h + 1) + hidden)


def matched(v: int, k: int, h: int) -> int:
    """Largest m_s with params_paper(m_s, H, m_s H, K) <= the dense |V|-width count; 0 if none."""
    budget = params_paper(v, 1, v, 1)
    fits = [m for m in range(1, v + 2) if params_paper(m, h, m * h, k) <= budget]
    return max(fits, default=0)


# -- Thm 3.1 / Lemma A.3 / Thm A.4 ------------------------------------------------------------


def test_one_way_widths_and_bits() -> None:
    # Z_A: p - 1 + ceil(log2 |A|) bits unsigned, L_A coordinate p + ceil(log2 |A|) (two's compl.)
    assert par.one_way_widths(2, 1) == (1, 2)
    assert par.one_way_widths(8, 5) == (7 + 3, 8 + 3)
    assert par.one_way_widths(16, 256) == (23, 24)
    assert par.one_way_widths(16, 257) == (24, 25)
    assert par.one_way_bits(8, 2, 16, 32) == exact_bits(8, 2, 16, 32) == 2 * (20 + 8 * 21)
    assert par.one_way_bits(1, 1, 2, 1) == 1 + 2
    # the paper's count H (m + 1) p
    assert par.paper_one_way_bits(15, 1, 16) == 256 and par.paper_one_way_bits(3, 2, 5) == 40


@pytest.mark.parametrize(("m", "p", "h"), [(1, 2, 1), (2, 3, 1), (1, 4, 2), (3, 2, 3), (5, 8, 1)])
def test_exact_max_vertices_against_brute_force(m: int, p: int, h: int) -> None:
    top = 4 * exact_bits(m, h, p, 1) + 64  # the message grows by H (1 + m) per doubling
    want = max(v for v in range(1, top) if exact_bits(m, h, p, v) >= v)
    assert par.exact_max_vertices(m, p, h) == want
    assert bounds.get(P + "thm3_1_exact").max_length(m, p, h) == want


def test_exact_max_vertices_on_a_grid() -> None:
    for m in (1, 2, 4):
        for p in (2, 3, 5, 6):
            for h in (1, 2, 3):
                top = 4 * exact_bits(m, h, p, 1) + 64
                want = max(v for v in range(1, top) if exact_bits(m, h, p, v) >= v)
                assert par.exact_max_vertices(m, p, h) == want, (m, p, h)


def test_exact_max_vertices_when_the_message_just_reaches_a_new_interval() -> None:
    # m = 1, p = 4, H = 1 on (16, 32]: 3 + 5 + 4 + 5 = 17 bits, exactly 2^4 + 1: |V| = 17 fits
    assert exact_bits(1, 1, 4, 32) == 17 and exact_bits(1, 1, 4, 16) == 15
    assert par.exact_max_vertices(1, 4, 1) == 17


def test_exact_max_vertices_default_heads_and_a_message_shorter_than_one() -> None:
    assert par.exact_max_vertices(1, 2) == par.exact_max_vertices(1, 2, 1)
    # m = 1, p = 2, H = 1: 3 + 2c bits, c = ceil(log2 |V|): 11 on (8, 16], 13 < 17 on (16, 32]
    assert par.exact_max_vertices(1, 2, 1) == 11
    assert exact_bits(1, 1, 2, 11) == 11 and exact_bits(1, 1, 2, 12) == 11
    assert exact_bits(1, 1, 2, 17) == 13


@pytest.mark.parametrize(("v", "p", "h"), [(256, 16, 1), (100, 4, 3), (1, 2, 1), (2, 2, 1)])
def test_exact_min_width_against_brute_force(v: int, p: int, h: int) -> None:
    want = least(lambda m: exact_bits(m, h, p, v) >= v)
    assert par.exact_min_width(v, p, h) == want
    assert bounds.get(P + "thm3_1_exact").value(vertices=v, precision=p, heads=h) == want
    assert bounds.get(P + "thm3_1_exact").min_width(v, p, h) == want


def test_thm3_1_exact_outputs_pinned() -> None:
    out = bounds.describe(P + "thm3_1_exact", vertices=256, precision=16)
    # 23 + 10 * 24 = 263 >= 256 > 23 + 9 * 24 = 239; paper count: 16 (m + 1) >= 256 at m = 15
    assert out["value"] == out["min_width_exact"] == 10
    assert out["bits_at_min_width"] == 263
    assert (out["sum_bits"], out["coordinate_bits"]) == (23, 24)
    assert out["min_width_paper_count"] == 15
    three = bounds.describe(P + "thm3_1_exact", vertices=100, precision=4, heads=3)
    m = least(lambda w: exact_bits(w, 3, 4, 100) >= 100)
    assert three["min_width_exact"] == m and three["bits_at_min_width"] == exact_bits(m, 3, 4, 100)
    assert three["min_width_paper_count"] == least(lambda w: 3 * (w + 1) * 4 >= 100) == 8
    assert (three["sum_bits"], three["coordinate_bits"]) == (3 + 7, 4 + 7)


def test_thm3_1_value_and_outputs() -> None:
    # value: |V| / log2 N with N = 2|V| + 4 + 1 by default (the toolkit's layout)
    thm = bounds.get(P + "thm3_1")
    assert thm.value(vertices=64, length=256) == 8.0
    assert thm.value(vertices=6) == pytest.approx(6 / math.log2(17), rel=REL)
    out = thm.outputs(vertices=64, length=256)
    assert out == {"length_N": 256, "mH_asymptotic": 8.0}
    out = thm.outputs(vertices=10)
    assert out["length_N"] == 25 and "min_width_run_protocol" not in out
    # |V| = 11, p = 2: 3 + 2 ceil(log2 11) = 11 bits at m = 1, exactly |V|: m = 1 suffices
    tie = thm.outputs(vertices=11, precision=2)
    assert tie["min_width_run_protocol"] == 1 and tie["run_protocol_bits_at_that_width"] == 11
    out = thm.outputs(vertices=64, precision=8, heads=2)
    m = least(lambda w: exact_bits(w, 2, 8, 64) >= 64)
    assert out["length_N"] == 133
    assert out["min_width_run_protocol"] == m == 2
    assert out["run_protocol_bits_at_that_width"] == exact_bits(m, 2, 8, 64) == 2 * (13 + 28)
    one = thm.outputs(vertices=64, precision=8)
    assert one["min_width_run_protocol"] == least(lambda w: exact_bits(w, 1, 8, 64) >= 64) == 4
    # the paper count H (m + 1) p >= |V|: inverted exactly both ways
    assert thm.min_width(256, 16, 1) == 15 and thm.max_length(15, 16, 1) == 256
    assert thm.allows(256, 15, 16) and not thm.allows(257, 15, 16)
    assert not thm.allows(256, 14, 16) and thm.max_length(3, 5, 2) == 40


# -- Thm 3.2, Cor 3.3 -------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "frac"), [(2, 2), (3, 2), (6, 3), (7, 3), (8, 4), (1000, 10)])
def test_thm3_2_precision_grid(n: int, frac: int) -> None:
    # frac = ceil(log2(N + 1)) (2^frac > N), p = frac + ceil(log2(N + 1)) + 1 (2^(p-1-frac) > N)
    assert frac == clog2(n + 1)
    assert par.thm3_2_precision(n) == {"frac": frac, "precision": 2 * frac + 1}
    assert 2**frac > n and 2 ** (frac - 1) <= n


def test_thm3_2_value_and_outputs() -> None:
    b = bounds.get(P + "thm3_2")
    assert b.value(vertices=7) == 7 and b.value(vertices=256, length=600) == 256
    assert b.outputs(vertices=7) == {
        "heads": 1,
        "mlp_width": 7,
        "length_N": 19,
        "frac": 5,
        "precision": 11,
    }
    assert b.outputs(vertices=3, length=16) == {
        "heads": 1,
        "mlp_width": 3,
        "length_N": 16,
        "frac": 5,
        "precision": 11,
    }
    assert b.outputs(vertices=3, length=15)["frac"] == 4
    assert bounds.describe(P + "thm3_2", vertices=5)["min_width"] == 5


def test_one_layer_parameters_pinned() -> None:
    c = par.one_layer_parameters(4, 2, 6, 3, 2, vocab=5, n_out=3)
    expert = 6 * (8 + 1) + 6 * 2
    assert c == {
        "embedding": 20,
        "attention": 3 * 2 * 16,
        "router": 3 * 4 * 2,
        "expert": expert,
        "paper_total": 96 + 24 + 3 * expert,
        "paper_active": 96 + 24 + 2 * expert,
        "total": 20 + 96 + 24 + 3 * expert,
        "active": 20 + 96 + 24 + 2 * expert,
    }
    dense = par.one_layer_parameters(5)  # H = 1, m' = m H, K = 1, top-1, no vocab, binary out
    assert dense == {
        "embedding": 0,
        "attention": 75,
        "router": 0,
        "expert": 5 * 6 + 5,
        "paper_total": 75 + 35,
        "paper_active": 75 + 35,
        "total": 110,
        "active": 110,
    }
    assert par.one_layer_parameters(3, 2, None, 2)["expert"] == 6 * 7 + 6  # m' = m H = 6
    assert par.one_layer_parameters(3, 2, None, 2)["router"] == 2 * 6
    assert par.one_layer_parameters(3, 1, 4, 5, 5)["paper_active"] == params_paper(3, 1, 4, 5)


@pytest.mark.parametrize(("v", "k", "h"), [(64, 16, 1), (20, 4, 2), (1, 2, 1), (9, 1, 1)])
def test_moe_matched_width_against_brute_force(v: int, k: int, h: int) -> None:
    assert par.moe_matched_width(v, k, h) == matched(v, k, h)


def test_moe_matched_width_pinned() -> None:
    assert par.moe_matched_width(1, 1) == 1  # 3 + 3 = 6 parameters, the dense budget exactly
    assert par.moe_matched_width(64, 2000) == 1 == matched(64, 2000, 1)
    assert par.moe_matched_width(1, 2) == 0  # 11 parameters at m_s = 1 against a budget of 6
    assert par.moe_matched_width(9, 1) == 9  # K = 1 is the dense model itself
    assert par.moe_matched_width(64, 16) == matched(64, 16, 1)


@pytest.mark.parametrize(("v", "k", "p", "h"), [(64, 16, 16, 1), (30, 9, 4, 2)])
def test_cor3_3_outputs_pinned(v: int, k: int, p: int, h: int) -> None:
    out = bounds.get(P + "cor3_3").outputs(vertices=v, experts=k, precision=p, heads=h)
    n = 2 * v + 5
    need = least(lambda m: h * (m + 1) * p >= v)
    m_s = matched(v, k, h)
    exact = least(lambda m: exact_bits(m, h, p, v) >= v)
    assert out["length_N"] == n
    assert out["moe_width_paper"] == pytest.approx(v / math.sqrt(k), rel=REL)
    assert out["experts_critical_paper"] == pytest.approx(math.log2(n) ** 2, rel=REL)
    assert out["dense_parameters"] == params_paper(v, 1, v, 1) == 4 * v * v + 2 * v
    assert out["moe_width_numeric"] == m_s
    assert out["moe_parameters"] == params_paper(max(m_s, 1), h, max(m_s, 1) * h, k)
    assert out["min_width_thm3_1"] == need
    assert out["moe_ruled_out"] is (m_s < need)
    assert out["min_width_exact"] == exact
    assert out["moe_ruled_out_exact"] is (m_s < exact)
    assert out["experts_critical_numeric"] == least(lambda kk: matched(v, kk, h) < need)
    value = bounds.get(P + "cor3_3").value(vertices=v, experts=k, precision=p)
    assert value == v / math.sqrt(k)


@pytest.mark.parametrize(
    ("v", "k", "p", "h", "ruled_out", "ruled_out_exact"),
    [
        # |V| = 64, p = 16: the paper count needs m_s >= 3, the exact-sum count m_s >= 2
        (64, 600, 16, 1, False, False),  # m_s = 3: exactly the paper count's width, not ruled out
        (64, 1000, 16, 1, True, False),  # m_s = 2: exactly the exact count's width
        # |V| = 30, p = 4, H = 2, m_s = 2: the paper count needs 3; the exact count needs 1
        # at two heads (3 at one head)
        (30, 100, 4, 2, True, False),
    ],
)
def test_cor3_3_ruled_out_at_the_edge(
    v: int, k: int, p: int, h: int, ruled_out: bool, ruled_out_exact: bool
) -> None:
    out = bounds.get(P + "cor3_3").outputs(vertices=v, experts=k, precision=p, heads=h)
    m_s = matched(v, k, h)
    assert out["moe_width_numeric"] == m_s
    assert out["moe_ruled_out"] is ruled_out is (m_s < least(lambda m: h * (m + 1) * p >= v))
    exact = least(lambda m: exact_bits(m, h, p, v) >= v)
    assert out["moe_ruled_out_exact"] is ruled_out_exact is (m_s < exact)


def test_cor3_3_pinned_numbers() -> None:
    out = bounds.describe(P + "cor3_3", vertices=64, experts=16, precision=16)
    assert out["value"] == 16.0 and out["min_width_thm3_1"] == 3 and out["min_width_exact"] == 2
    assert out["dense_parameters"] == 16512 and out["length_N"] == 133
    given = bounds.get(P + "cor3_3").outputs(vertices=64, experts=16, precision=16, length=200)
    assert given["length_N"] == 200
    assert given["experts_critical_paper"] == pytest.approx(math.log2(200) ** 2, rel=REL)
    # K large enough that no m_s fits: moe_parameters is counted at m_s = 1
    small = bounds.get(P + "cor3_3").outputs(vertices=1, experts=2, precision=2, length=3)
    assert small["moe_width_numeric"] == 0 and small["moe_parameters"] == params_paper(1, 1, 1, 2)
    assert small["min_width_thm3_1"] == small["min_width_exact"] == 1
    assert small["moe_ruled_out"] is True and small["moe_ruled_out_exact"] is True


# -- Thm 3.4, 3.5 and the App. A.2 memorisers -------------------------------------------------


def hoeffding(n: int, k: int, delta: float) -> float:
    return n / k + math.sqrt(n * math.log(2 * k / delta) / 2)


def test_thm3_4_value_and_outputs() -> None:
    b = bounds.get(P + "thm3_4")
    assert b.value(examples=100, dim=3, experts=4) == 3 * 100 / 4 + 3 * 4
    assert b.value(examples=64, dim=8, experts=8, delta=0.5) == 128.0
    out = b.outputs(examples=100, dim=3, experts=4)  # delta defaults to 0.01
    assert out["total_paper"] == 300 + 12
    assert out["max_load_hoeffding"] == pytest.approx(hoeffding(100, 4, 0.01), rel=REL)
    assert out["active_load_corrected"] == pytest.approx(3 * hoeffding(100, 4, 0.01) + 12, rel=REL)
    assert out["experts_best"] == 10
    assert out["active_at_best"] == pytest.approx(3 * 100 / 10 + 30, rel=REL)
    assert out["active_at_best_corrected"] == pytest.approx(
        3 * hoeffding(100, 10, 0.01) + 30, rel=REL
    )
    out = b.outputs(examples=30, dim=2, experts=3, delta=0.2)
    assert out["experts_best"] == 5  # round(sqrt 30) = round(5.48)
    assert out["max_load_hoeffding"] == pytest.approx(10 + math.sqrt(15 * math.log(30)), rel=REL)
    assert out["active_at_best_corrected"] == pytest.approx(2 * hoeffding(30, 5, 0.2) + 10, rel=REL)
    for n, best in ((1, 1), (2, 1), (3, 2), (6, 2), (7, 3)):
        assert b.outputs(examples=n, dim=1, experts=1)["experts_best"] == best


def test_max_load_hoeffding() -> None:
    assert par.max_load_hoeffding(10000, 100, 0.01) == pytest.approx(
        100 + math.sqrt(5000 * math.log(20000)), rel=REL
    )
    assert par.max_load_hoeffding(8, 2, 0.5) == pytest.approx(4 + math.sqrt(4 * math.log(8)), REL)


def test_thm3_5_counting() -> None:
    # W >= n / c and the least integer count ceil(n / c)
    b = bounds.get(P + "thm3_5")
    assert b.value(examples=100, precision=8) == 12.5
    assert b.value(examples=96, precision=8) == 12
    assert b.outputs(examples=100, precision=8) == {"min_parameters": 13}
    assert b.outputs(examples=96, precision=8) == {"min_parameters": 12}


@pytest.mark.parametrize(("n", "d", "delta", "sigma"), [(1000, 64, 0.01, 1.0), (10, 3, 0.5, 0.5)])
def test_lemmas_a7_a8_a9(n: int, d: int, delta: float, sigma: float) -> None:
    a7 = sigma**2 * math.sqrt(2 * d * (2 * math.log(n) + math.log(2 / delta)))
    a8 = sigma * math.sqrt(2 * math.log(2 * n * d / delta))
    a9 = sigma * math.sqrt(d) * (1 - math.sqrt(2 * math.log(n / delta) / d))
    assert par.lemma_a7(n, d, delta, sigma) == pytest.approx(a7, rel=REL)
    assert par.lemma_a8(n, d, delta, sigma) == pytest.approx(a8, rel=REL)
    assert par.lemma_a9(n, d, delta, sigma) == pytest.approx(a9, rel=REL)
    kw = {"examples": n, "dim": d, "delta": delta, "sigma": sigma}
    assert bounds.get(P + "lemmaA_7").value(**kw) == pytest.approx(a7, rel=REL)
    assert bounds.get(P + "lemmaA_8").value(**kw) == pytest.approx(a8, rel=REL)
    assert bounds.get(P + "lemmaA_9").value(**kw) == pytest.approx(a9, rel=REL)


def test_lemmas_default_sigma_is_one() -> None:
    assert par.lemma_a7(100, 8, 0.1) == par.lemma_a7(100, 8, 0.1, 1.0)
    assert par.lemma_a8(100, 8, 0.1) == par.lemma_a8(100, 8, 0.1, 1.0)
    assert par.lemma_a9(100, 8, 0.1) == par.lemma_a9(100, 8, 0.1, 1.0)


def a10(n: int, d: int, delta: float, sigma: float) -> dict[str, object]:
    eps = math.sqrt(2 * math.log(n / delta) / d)
    gamma = math.sqrt(2 * (2 * math.log(n) + math.log(2 / delta)) / d)
    return {
        "shift_s": sigma**2 * d / 2,
        "epsilon": eps,
        "gamma": gamma,
        # Lemma A.9's ||x|| >= sigma sqrt(d)(1 - eps) says nothing once eps >= 1
        "sufficient_condition": gamma - max(0.0, 1 - eps) ** 2 + 0.5 < 0,
        "weight_bound": sigma * math.sqrt(2 * math.log(2 * n * d / delta)),
        "bias_bound_stated": sigma**2 * d * (1 + eps),
        "probability_proved": 1 - 3 * delta,
    }


def same(got: dict[str, object], want: dict[str, object]) -> None:
    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, float):
            assert got[key] == pytest.approx(value, rel=REL), key
        else:
            assert got[key] == value and type(got[key]) is type(value), key


@pytest.mark.parametrize(
    ("n", "d", "delta", "sigma", "works"),
    [
        (1000, 4096, 0.01, 1.0, True),
        (50, 8, 0.2, 2.0, False),
        (2, 16, 0.5, 1.0, False),  # gamma - (1 - eps)^2 + 1/2 = 0.748: between 0 and 1
        (2, 128, 0.5, 1.0, True),  # -0.019: (1 - eps)^3 in place of the square would fail
    ],
)
def test_thm_a10_outputs(n: int, d: int, delta: float, sigma: float, works: bool) -> None:
    b = bounds.get(P + "thmA_10")
    out = b.outputs(examples=n, dim=d, delta=delta, sigma=sigma)
    same(out, a10(n, d, delta, sigma))
    assert out["sufficient_condition"] is works
    assert b.value(examples=n, dim=d) == n
    same(b.outputs(examples=n, dim=d), a10(n, d, 0.01, 1.0))


@pytest.mark.parametrize(("n", "length", "d", "delta"), [(1000, 16, 4096, 0.05), (20, 3, 5, 0.01)])
def test_thm_a11_outputs(n: int, length: int, d: int, delta: float) -> None:
    # A.10 on the means S_i ~ N(0, I/n): sigma = 1/sqrt(n), n = length
    base = a10(n, d, delta, 1 / math.sqrt(length))
    want = {
        "neurons": n,
        "attention_weight_bound": 1,
        "output_weight": 1,
        "shift_s": base["shift_s"],
        "sufficient_condition": base["sufficient_condition"],
        "weight_bound": base["weight_bound"],
        "bias_bound_stated": base["bias_bound_stated"],
        "ffn_parameters": n * (d + 2),
        "probability_proved": 1 - 3 * delta,
    }
    b = bounds.get(P + "thmA_11")
    same(b.outputs(examples=n, length=length, dim=d, delta=delta), want)
    assert b.value(examples=n, length=length, dim=d) == n
    default = b.outputs(examples=n, length=length, dim=d)
    assert default["probability_proved"] == pytest.approx(0.97, rel=REL)


def test_thm_a10_condition_is_strict_at_zero() -> None:
    # at this delta, gamma - (1 - eps)^2 + 1/2 is exactly 0.0 in floats: not < 0
    delta = 0.9939324698841265
    eps = math.sqrt(2 * math.log(2 / delta) / 72)
    gamma = math.sqrt(2 * (2 * math.log(2) + math.log(2 / delta)) / 72)
    assert gamma - (1 - eps) ** 2 + 0.5 == 0.0
    out = bounds.get(P + "thmA_10").outputs(examples=2, dim=72, delta=delta)
    assert out["sufficient_condition"] is False


def test_no_norm_bound_once_eps_reaches_one() -> None:
    # d = 1, N = 1000: eps = 4.80 and (1 - eps)^2 = 14.4 would make the condition hold and give
    # a positive margin, though Lemma A.9's lower bound on ||x|| is negative there
    out = bounds.get(P + "thmA_10").outputs(examples=1000, dim=1)
    assert out["epsilon"] > 1 and out["sufficient_condition"] is False
    bits = par.a12_bits(1000, 4, 1, 1, 0.01)
    assert bits["margin_proved"] < 0 and bits["bits_per_parameter"] is None
    same(bits, a12(1000, 4, 1, 1, 0.01))


def test_thm_a12_margin_exactly_zero_has_no_bits() -> None:
    # at this delta, (1 - eps)^2 - 1/2 - gamma is exactly 0.0: no positive margin, no bit count
    delta = 0.8839596559669151
    out = par.a12_bits(2, 8, 80, 1, delta)
    assert out["margin_proved"] == 0.0
    assert out["fraction_bits"] is out["integer_bits"] is out["bits_per_parameter"] is None


def a12(n: int, length: int, d: int, k: int, delta: float) -> dict[str, object]:
    """Thm A.12 step 6 with the rounding step that keeps every sign (the module's a12_bits)."""
    m_w = math.sqrt(2 * math.log(2 * n * d * k / delta) / length)
    eps = math.sqrt(2 * math.log(n * k / delta) / d)
    m_b = d / length * (1 + eps)
    gamma = math.sqrt(2 * (2 * math.log(n) + math.log(2 * k / delta)) / d)
    mu = d / length * min(0.5, max(0.0, 1 - eps) ** 2 - 0.5 - gamma)
    out: dict[str, object] = {
        "weight_bound": m_w,
        "bias_bound": m_b,
        "margin_proved": mu,
        "bits_paper_form": math.log2(length * d) + math.log2(math.log(n * k / delta)),
    }
    if mu <= 0:
        out.update(fraction_bits=None, integer_bits=None, bits_per_parameter=None)
        return out
    frac = math.floor(math.log2((d * m_w + 1) / (2 * mu))) + 1
    whole = math.ceil(math.log2(max(m_w, m_b, 1.0) + 1))
    out.update(fraction_bits=frac, integer_bits=whole, bits_per_parameter=1 + whole + frac)
    return out


@pytest.mark.parametrize(
    ("n", "length", "d", "k", "delta", "bits"),
    [
        (1000, 8, 2048, 32, 0.01, (7, 9, 17)),
        (100, 1000, 4096, 4, 0.1, None),
        (1000, 8, 64, 32, 0.01, (None, None, None)),
        (2, 1, 1024, 4, 0.7, (4, 11, 16)),  # d M_w - 1 against + 1 crosses a power of two
        (2, 8, 256, 1, 0.59, (5, 6, 12)),  # d M_w + 2 against + 1 crosses a power of two
    ],
)
def test_thm_a12_bits(
    n: int, length: int, d: int, k: int, delta: float, bits: tuple[object, ...] | None
) -> None:
    got = par.a12_bits(n, length, d, k, delta)
    want = a12(n, length, d, k, delta)
    same(got, want)
    if bits is not None:
        assert (got["fraction_bits"], got["integer_bits"], got["bits_per_parameter"]) == bits
    out = bounds.get(P + "thmA_12").outputs(
        examples=n, length=length, dim=d, experts=k, delta=delta
    )
    same(
        out,
        {
            **want,
            "neurons": n,
            "max_load_hoeffding": hoeffding(n, k, delta),
            "output_weight": 1,
            "probability_proved": 1 - 4 * delta,
        },
    )


def test_thm_a12_small_bounds_use_the_floor_of_one() -> None:
    # length 1000, d = 4096: M_w < 1 and M_b = 4.1 (1 + eps): integer bits ceil(log2(M_b + 1))
    got = par.a12_bits(100, 1000, 4096, 4, 0.1)
    assert got["weight_bound"] < 1 < got["bias_bound"]
    assert got["integer_bits"] == math.ceil(math.log2(got["bias_bound"] + 1)) == 3
    # every bound below 1: the integer part holds max(., 1) = 1, so ceil(log2 2) = 1 bit
    tiny = par.a12_bits(100, 100000, 4096, 4, 0.1)
    assert max(tiny["weight_bound"], tiny["bias_bound"]) < 1
    assert tiny["integer_bits"] == 1
    assert bounds.get(P + "thmA_12").outputs(examples=100, length=1000, dim=4096, experts=4)[
        "probability_proved"
    ] == pytest.approx(0.96, rel=REL)


# -- parameters and the messages users read ----------------------------------------------------


@pytest.mark.parametrize("check", [PARAMS["sigma"].check, par._positive_real("sigma")])
def test_sigma_validator(check: Callable[[object], float]) -> None:
    assert check(2) == 2.0 and type(check(2)) is float
    assert check(1e-300) == 1e-300 and check(1e300) == 1e300
    for bad in (0, -1.0, math.inf, math.nan, True, "1", None):
        with pytest.raises(InputError, match=r"^sigma must be a positive real number, got "):
            check(bad)
    with pytest.raises(InputError, match=r"^sigma must be a positive real number, got 0$"):
        check(0)


def test_delta_validator() -> None:
    check = PARAMS["delta"].check
    assert check(0.5) == 0.5 and check(1e-6) == 1e-6
    with pytest.raises(InputError, match=r"^delta must be a real number in \(0, 1\), got 1$"):
        check(1)
    with pytest.raises(InputError, match=r"^delta must be at least 1e-6 \(the widths grow as "):
        check(9e-7)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: par.one_way_widths(1, 1), r"^precision p must be an integer >= 2, got 1$"),
        (lambda: par.one_way_widths(2, 0), r"^Alice's positions \|A\| must be an integer >= 1, "),
        (lambda: par.one_way_bits(1, 0, 2, 1), r"^heads H must be an integer >= 1, got 0$"),
        (lambda: par.one_way_bits(0, 1, 2, 1), r"^width m must be an integer >= 1, got 0$"),
        (lambda: par.exact_min_width(0, 2), r"^vertices \|V\| must be an integer >= 1, got 0$"),
        (lambda: par.thm3_2_precision(1), r"^length N must be an integer >= 2, got 1$"),
        (lambda: par.one_layer_parameters(0), r"^width m must be an integer >= 1, got 0$"),
        (lambda: par.one_layer_parameters(1, 0), r"^heads H must be an integer >= 1, got 0$"),
        (lambda: par.one_layer_parameters(1, 1, None, 0), r"^K must be an integer >= 1, got 0$"),
        (lambda: par.one_layer_parameters(1, 1, 0), r"^mlp_width m' must be an integer >= 1, "),
        (lambda: par.one_layer_parameters(1, 1, 1, 1, 0), r"^top_k must be an integer >= 1, "),
        (lambda: par.one_layer_parameters(1, 1, 1, 2, 3), r"^top_k 3 exceeds the 2 experts$"),
        (lambda: par.one_layer_parameters(1, vocab=-1), r"^vocab must be an integer >= 0, got -1$"),
        (lambda: par.one_layer_parameters(1, n_out=1), r"^n_out must be an integer >= 2, got 1$"),
    ],
)
def test_messages(call: Callable[[], object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()


def test_limits_at_their_edges() -> None:
    assert par.one_layer_parameters(1, 1, 1, 2, 2)["paper_active"] == params_paper(1, 1, 1, 2)
    assert par.one_layer_parameters(1, vocab=0)["embedding"] == 0
    assert par.one_layer_parameters(2, vocab=1)["embedding"] == 2
    assert par.one_layer_parameters(1, n_out=2)["expert"] == 1 * 2 + 1
    assert par.thm3_2_precision(2) == {"frac": 2, "precision": 5}
    assert par.one_way_widths(2, 1) == (1, 2)
    assert Fraction(bounds.get(P + "thm3_5").value(examples=1, precision=1)) == 1
