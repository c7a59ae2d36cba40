"""Mixture-of-parrots bounds: exact inversions, parameter counts, the stated formulas."""

from __future__ import annotations

import math

import pytest

from ccomplexity import bounds, claims
from ccomplexity.bounds.parrots import (
    moe_matched_width,
    one_layer_parameters,
    one_way_bits,
    paper_one_way_bits,
)


def test_thm3_1_min_width_inverts_h_m_plus_1_p_exactly():
    b = bounds.get("parrots.thm3_1")
    assert bounds.describe("parrots.thm3_1", vertices=256, precision=16, heads=1)["min_width"] == 15
    for v in range(1, 200, 7):
        for p in (4, 8, 16):
            for h in (1, 2, 3):
                m = b.min_width(v, p, h)
                assert paper_one_way_bits(m, h, p) >= v
                assert m == 1 or paper_one_way_bits(m - 1, h, p) < v
    assert b.max_length(15, 16, 1) == 256  # the largest |V| not ruled out: (15 + 1) 16
    assert bounds.get("parrots.thmA_4") is b and bounds.get("parrots.lemmaA_3") is b


def test_run_protocol_count_and_its_inversion():
    assert one_way_bits(8, 2, 16, 32) == 2 * ((15 + 5) + 8 * (16 + 5))
    out = bounds.describe("parrots.thm3_1", vertices=64, precision=8, heads=1)
    m = out["min_width_run_protocol"]
    assert one_way_bits(m, 1, 8, 64) >= 64 > one_way_bits(m - 1, 1, 8, 64)
    assert out["mH_asymptotic"] == pytest.approx(64 / math.log2(133))


def test_thm3_1_default_length_is_the_toolkits_layout():
    import torch

    from simulations.tasks import get_task

    task = get_task("length2-path", 64)
    tokens = task.sample(2, 64, torch.Generator().manual_seed(0))[0]
    out = bounds.describe("parrots.thm3_1", vertices=64)
    assert out["length_N"] == tokens.shape[1] == 2 * 64 + 4 + 1  # 4 middle edges
    assert bounds.describe("parrots.thm3_2", vertices=64)["length_N"] == tokens.shape[1]
    given = bounds.describe("parrots.thm3_1", vertices=64, length=129)
    assert given["length_N"] == 129 and given["value"] == pytest.approx(64 / 7.011227255423254)


def test_parameter_counts_of_the_one_layer_class():
    c = one_layer_parameters(8, 2, 6, 4, 1, vocab=5)
    assert c["attention"] == 3 * 2 * 64 and c["router"] == 4 * 16 and c["expert"] == 6 * 18
    assert c["total"] == 40 + 384 + 64 + 4 * 108 and c["active"] == c["total"] - 3 * 108
    assert one_layer_parameters(8)["router"] == 0


def test_cor3_3_matches_parameters_and_finds_the_critical_k():
    out = bounds.describe("parrots.cor3_3", vertices=64, experts=16, precision=16)
    assert out["value"] == 16.0 and out["experts_critical_paper"] == pytest.approx(
        math.log2(133) ** 2
    )
    m = out["moe_width_numeric"]
    budget = one_layer_parameters(64, 1, 64)["paper_total"]
    assert one_layer_parameters(m, 1, None, 16)["paper_total"] <= budget
    assert one_layer_parameters(m + 1, 1, None, 16)["paper_total"] > budget
    k = out["experts_critical_numeric"]
    assert moe_matched_width(64, k) < out["min_width_thm3_1"] <= moe_matched_width(64, k - 1)


def test_thm3_4_and_3_5_formulas():
    out = bounds.describe("parrots.thm3_4", examples=10000, dim=64, experts=100)
    assert out["value"] == 64 * 100 + 64 * 100 and out["total_paper"] == 64 * 10000 + 6400
    assert out["max_load_hoeffding"] == pytest.approx(100 + math.sqrt(5000 * math.log(20000)))
    assert out["max_load_hoeffding"] - 100 > 100  # spec gap (b): the deviation beats n/K
    t35 = bounds.describe("parrots.thm3_5", examples=1000, precision=32)
    assert t35["value"] == 31.25 and t35["min_parameters"] == 32


def test_lemmas_a7_to_a9_and_a10():
    a7 = bounds.get("parrots.lemmaA_7").value(examples=100, dim=64, delta=0.01)
    assert a7 == pytest.approx(math.sqrt(128 * (2 * math.log(100) + math.log(200))))
    a9 = bounds.get("parrots.lemmaA_9").value(examples=100, dim=64, delta=0.01, sigma=2.0)
    assert a9 == pytest.approx(16 * (1 - math.sqrt(2 * math.log(1e4) / 64)))
    a10 = bounds.describe("parrots.thmA_10", examples=1000, dim=4096)
    assert a10["sufficient_condition"] and a10["shift_s"] == 2048
    assert a10["probability_proved"] == pytest.approx(0.97)  # three lemmas at delta = 0.01
    assert any("1 - 3 delta" in e for e in a10["errata"])


def test_thm_a11_is_a10_at_sigma_one_over_sqrt_n():
    out = bounds.describe("parrots.thmA_11", examples=1000, length=16, dim=4096, delta=0.05)
    # hand values: (1/4) sqrt(2 ln(2 * 1000 * 4096 / 0.05)); (4096/16)(1 + sqrt(2 ln(2e4)/4096))
    assert out["weight_bound"] == pytest.approx(0.25 * math.sqrt(2 * math.log(163_840_000)))
    assert out["weight_bound"] == pytest.approx(1.5376, abs=1e-4)
    assert out["bias_bound_stated"] == pytest.approx(256 * (1 + math.sqrt(2 * 9.903488 / 4096)))
    assert out["bias_bound_stated"] == pytest.approx(273.80, abs=0.01)
    assert out["value"] == out["neurons"] == 1000 and out["shift_s"] == 128
    assert out["attention_weight_bound"] == 1 and out["ffn_parameters"] == 1000 * 4098
    assert out["probability_proved"] == pytest.approx(0.85)
    assert bounds.get("parrots.thmA_11").id == "parrots.thmA_11"


def test_thm_a12_weight_bias_and_explicit_bits():
    out = bounds.describe("parrots.thmA_12", examples=1000, length=8, dim=2048, experts=32)
    # by hand at delta = 0.01: M_w = sqrt(2 ln(2 * 1000 * 2048 * 32 / 0.01) / 8) = 2.41332,
    # eps = sqrt(2 ln(3.2e6) / 2048) = 0.120947, M_b = 256 (1 + eps) = 286.962,
    # gamma = sqrt(2 (2 ln 1000 + ln 6400) / 2048) = 0.148492,
    # mu = 256 min(1/2, (1 - eps)^2 - 1/2 - gamma) = 31.807,
    # fraction bits floor(log2((2048 M_w + 1) / (2 mu))) + 1 = floor(6.28) + 1 = 7,
    # integer bits ceil(log2(287.962)) = 9, plus a sign bit: 17.
    assert out["weight_bound"] == pytest.approx(2.41332, abs=1e-5)
    assert out["bias_bound"] == pytest.approx(286.962, abs=1e-3)
    assert out["margin_proved"] == pytest.approx(31.807, abs=1e-3)
    assert (out["fraction_bits"], out["integer_bits"], out["bits_per_parameter"]) == (7, 9, 17)
    assert out["bits_paper_form"] == pytest.approx(math.log2(8 * 2048) + math.log2(14.978661))
    assert out["probability_proved"] == pytest.approx(0.96)
    small = bounds.describe("parrots.thmA_12", examples=1000, length=8, dim=64, experts=32)
    assert small["margin_proved"] < 0 and small["bits_per_parameter"] is None
    assert "value" not in small and small["weight_bound"] > 0


def test_claims_rows_of_the_paper():
    assert claims.lower_bound_for("length2-path", "concat-attention", 1).bound_id == (
        "parrots.thm3_1"
    )
    row = claims.lower_bound_for("length2-path", "concat-attention", 1)
    assert row.model_params({"width": 8, "heads": 2}, 16)["m"] == 8  # heads of full width m
    assert claims.lower_bound_for("length2-path", "attention", 1).m == "width/heads"
    assert {c.bound_id for c in claims.claims(task="memorize")} == {
        "parrots.thm3_4",
        "parrots.thm3_5",
    }


def test_thm3_1_exact_counts_the_exact_sums_and_is_below_the_papers_count():
    out = bounds.describe("parrots.thm3_1_exact", vertices=256, precision=16)
    assert out["value"] == out["min_width"] == 10 and out["min_width_paper_count"] == 15
    assert (out["sum_bits"], out["coordinate_bits"]) == (23, 24)
    assert out["bits_at_min_width"] == 23 + 10 * 24 >= 256 > 23 + 9 * 24
    exact = bounds.get("parrots.thm3_1_exact")
    for v in range(1, 300, 13):  # brute force over m, against the message's own bit widths
        for p in (4, 8, 16):
            for h in (1, 2):
                m = exact.value(vertices=v, precision=p, heads=h)
                c = math.ceil(math.log2(v)) if v > 1 else 0
                sent = [h * ((p - 1 + c) + w * (p + c)) for w in range(1, m + 1)]
                assert sent[-1] >= v and all(s < v for s in sent[:-1])
                assert exact.min_width(v, p, h) == m
                assert m <= bounds.get("parrots.thm3_1").min_width(v, p, h)
    cor = bounds.describe("parrots.cor3_3", vertices=64, experts=16, precision=16)
    assert cor["min_width_exact"] == exact.value(vertices=64, precision=16)
    assert cor["moe_ruled_out_exact"] == (cor["moe_width_numeric"] < cor["min_width_exact"])
