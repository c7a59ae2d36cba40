"""Bounds of the layer-looping paper: Lemma B.18 and Thm B.19 against exact integers and brute
force, the spec's table, and the construction formulas' structure."""

from __future__ import annotations

import itertools
import math

import pytest

from ccomplexity import bounds
from ccomplexity.bounds.kg import (
    construction_counts,
    default_experts,
    expert_bounds,
    expert_triples,
    min_monomials,
    permutation_storage,
)
from ccomplexity.errors import InputError


def least_power(base: int, at_least: int) -> int:
    p = 0
    while base**p < at_least:
        p += 1
    return p


@pytest.mark.parametrize(("entities", "m"), [(128, 8), (128, 64), (5, 7), (10, 100), (2, 1)])
def test_lemma_b18_against_exact_integers(entities, m):
    out = permutation_storage(entities, m)
    count = math.comb(math.factorial(entities), m)
    assert out["bits"] == pytest.approx(math.log2(count), rel=1e-12)
    assert out["min_parameters"] == least_power(entities, count)
    assert out["min_parameters_exact"] is True
    assert out["bits_paper"] <= out["bits"] + 1e-9  # C(n, k) >= (n/k)^k
    assert out["mE"] == m * entities


def test_lemma_b18_spec_numbers_and_float_range():
    out = bounds.get("kg.lemma_b18").describe(entities=128, permutations=8)
    assert out["log2_factorial"] == pytest.approx(716.16, abs=0.01)  # spec: log2 128! = 716.2
    assert out["bits_paper"] == pytest.approx(5705.3, abs=0.1)  # spec: m = 8 -> 5,705 bits
    assert out["value"] == out["min_parameters"] == 817  # exact count: 5714.0 bits / 7
    big = permutation_storage(128, 4096)  # beyond the integer range: floats, m << E!
    expected = 4096 * math.lgamma(129) / math.log(2) - math.lgamma(4097) / math.log(2)
    assert big["bits"] == pytest.approx(expected, rel=1e-12)
    assert big["min_parameters"] == math.ceil(big["bits"] / 7)
    with pytest.raises(InputError, match="only E! = 6 permutations"):
        permutation_storage(3, 7)


def brute_min_sum(target: int, layers: int) -> int:
    best = None
    for ms in itertools.product(range(1, target + 1), repeat=layers):
        if math.prod(ms) >= target and (best is None or sum(ms) < best):
            best = sum(ms)
    return best


@pytest.mark.parametrize(("target", "layers"), [(1, 2), (7, 1), (8, 2), (30, 2), (27, 3), (50, 3)])
def test_min_monomials_against_brute_force(target, layers):
    total, split = min_monomials(target, layers)
    assert total == brute_min_sum(target, layers)
    assert sum(n for _, n in split) == layers and sum(m * n for m, n in split) == total
    assert math.prod(m**n for m, n in split) >= target


SPEC_TABLE = {  # spec 2.5: integer minimum of sum m_l for E = 128, R = 8
    (1, 1): 8, (2, 1): 64, (2, 2): 16, (3, 1): 512, (3, 2): 46, (3, 3): 24,
    (4, 1): 4096, (4, 2): 128, (4, 3): 48, (4, 4): 32,
}  # fmt: skip


@pytest.mark.parametrize(("q", "layers"), sorted(SPEC_TABLE))
def test_thm_b19_spec_table(q, layers):
    out = bounds.describe("kg.thm_b19", entities=128, relations=8, hops=q, layers=layers)
    assert out["min_monomials"] == SPEC_TABLE[q, layers]
    assert out["value"] == out["min_parameters"] == 128 * SPEC_TABLE[q, layers]
    assert out["continuous_parameters"] <= out["min_parameters"] + 1e-6
    if layers == q:
        assert out["min_parameters"] == out["qER"] == q * 128 * 8  # qT
    assert out["theorem_applies"] and out["derived"]


def test_thm_b19_is_at_least_qr_where_it_applies():
    for r, q in itertools.product(range(3, 7), range(1, 6)):
        for layers in range(1, q + 1):
            total, _ = min_monomials(r**q, layers)
            assert total >= q * r  # the theorem's conclusion, with alpha = 1
    # outside its conditions the counting bound can go below qR: R = 2 < e, or L > q
    assert min_monomials(2**13, 9)[0] == 25 < 13 * 2  # 3^7 2^2 = 8748 >= 2^13
    assert min_monomials(8, 2)[0] == 6 < 1 * 8  # q = 1, L = 2: 3 * 3 >= 8
    out = bounds.describe("kg.thm_b19", entities=8, relations=8, hops=1, layers=2)
    assert out["theorem_applies"] is False and out["min_parameters"] == 8 * 6


def test_thm_b19_products_replace_words_and_alias():
    fewer = bounds.describe("kg.thm5_2", entities=128, relations=8, hops=3, layers=3, products=100)
    assert fewer["id"] == "kg.thm_b19"
    assert fewer["target_products"] == 100 and fewer["min_monomials"] == 14  # 5 * 5 * 4 >= 100
    with pytest.raises(InputError, match="only R\\^q = 512 relation words"):
        bounds.describe("kg.thm_b19", entities=128, relations=8, hops=3, layers=3, products=513)
    tiny = bounds.describe("kg.thm_b19", entities=3, relations=8, hops=2, layers=1)
    assert tiny["min_parameters_lemma_b18"] is None  # 64 monomials > 3! permutations


def test_experts_route_by_balanced_head_ranges():
    assert default_experts(32, 4) == 11 and default_experts(64, 8) == 23  # round(sqrt T)
    assert default_experts(4, 64) == 4  # at most E
    for e, k in [(64, 23), (32, 11), (10, 10), (7, 3)]:
        b = expert_bounds(e, k)
        sizes = [b[i + 1] - b[i] for i in range(k)]
        assert b[0] == 0 and b[-1] == e and set(sizes) <= {e // k, -(-e // k)}
        assert expert_triples(e, 5, k) == [5 * s for s in sizes]
    b = expert_bounds(64, 8)  # K a power of two dividing E: the top 3 bits of the entity id
    assert all(b[e >> 3] <= e < b[(e >> 3) + 1] for e in range(64))
    with pytest.raises(InputError, match="at most E = 4 experts"):
        expert_bounds(4, 5)


def test_construction_formulas():
    b, t = 6, 128  # E = 32, R = 4, q = 4: c = 41 tokens
    looped = construction_counts("looped", 32, 4, 4)
    assert looped["lookup_parameters"] == t * (3 * b + 1) == 2432
    assert looped["parameters"] == 2432 + 2
    standard = construction_counts("standard", 32, 4, 4)
    assert standard["parameters"] == 4 * looped["parameters"]
    assert standard["flops"] == looped["flops"]  # same work, q copies of the weights
    moe = construction_counts("looped-moe", 32, 4, 4)
    assert moe["experts"] == 11 and moe["largest_expert_triples"] == 12
    assert bounds.describe("kg.thm5_3", entities=32, relations=4, hops=4)["experts_used"] == 11
    assert moe["parameters"] == 2432 + 11 * 7 + 2
    assert moe["active_lookup_parameters"] == 11 * 7 + 12 * 19
    assert moe["flops"] < looped["flops"]
    out = bounds.describe("kg.thm5_3", entities=64, relations=8, hops=3, experts=23)
    assert out["value"] == 512 * 22 + 23 * 8 + 2
    assert bounds.get("kg.thm_b14") is bounds.get("kg.thm5_3")
    assert bounds.get("kg.thm_b15") is bounds.get("kg.thm5_1")
    with pytest.raises(InputError, match="has no experts"):
        construction_counts("looped", 32, 4, 4, 3)


@pytest.mark.parametrize(
    ("theorem", "extra", "depth", "width", "hidden", "parameters"),
    [
        # by hand, d = 8, d' = 16; a Layer (W, h) holds 3 W^2 + 3 W h + 2 h
        ("kg.prop_b6", {}, 1, 8, 32, 3 * 64 + 3 * 8 * 32 + 2 * 32),  # hidden doubled: 1024
        ("kg.cor_b7", {"layers": 3}, 3, 8, 32, 3 * 1024),
        ("kg.prop_b8", {}, 2, 16, 64, 2 * (3 * 256 + 3 * 16 * 64 + 2 * 64)),  # 7936
        ("kg.prop_b9", {}, 4, 16, 64, 4 * (3 * 256 + 3 * 16 * 64 + 2 * 64)),
    ],
)
def test_primitives_depths_and_layers(theorem, extra, depth, width, hidden, parameters):
    out = bounds.describe(theorem, model_dim=8, mlp_width=16, **extra)
    assert out["value"] == out["depth"] == depth
    assert (out["model_width"], out["hidden_width"]) == (width, hidden)
    assert out["parameters"] == parameters
    assert out["inputs"] == {"model_dim": 8, "mlp_width": 16, **extra}


def test_stated_depths_of_lookup_and_substitute_come_out_of_the_primitives():
    from ccomplexity.bounds import kg_blocks

    b10 = bounds.describe("kg.prop_b10", entities=32, relations=4, hops=4)
    b12 = bounds.describe("kg.prop_b12", entities=32, relations=4, hops=4)
    assert b10["paper_depth"] == 4 and b12["paper_depth"] == 9  # the paper's "depth(4)", "(9)"
    # by hand, b = 6, T = 128, d = 5b + 1 = 31, W = 2d = 62: lookup = NoResidual with
    # d' = 4b + T = 152 (2 Layers of hidden 4 * 152) + NoResidual with d' = d (2 of hidden 124)
    first = 3 * 62**2 + 3 * 62 * 608 + 2 * 608
    second = 3 * 62**2 + 3 * 62 * 124 + 2 * 124
    assert b10["paper_parameters"] == 2 * first + 2 * second == 321_360
    assert b10["paper_attention_parameters"] == 4 * 3 * 62**2
    # substitute: attention Layer (hidden 2d = 62), then 8 Layers of hidden 4d = 124
    glu = 3 * 62 * 124 + 2 * 124
    assert b12["paper_parameters"] == 9 * 3 * 62**2 + (3 * 62 * 62 + 2 * 62) + 8 * glu
    assert b12["paper_parameters"] == 301_940
    # the T log c term: each triple adds 2 Layers x (3 W 4 + 4 2) entries, W = 10b + 2
    more = kg_blocks.lookup_block(6, 129).counts()["parameters"]
    assert more - b10["paper_parameters"] == 2 * (12 * 62 + 8)
    assert b10["parameters"] == 2433 and "hard argmax" in b10["parameters_counted"]


def test_paper_counts_of_the_compositions():
    b10 = bounds.describe("kg.prop_b10", entities=32, relations=4, hops=4)
    b12 = bounds.describe("kg.prop_b12", entities=32, relations=4, hops=4)
    block = b10["paper_parameters"] + b12["paper_parameters"]
    looped = construction_counts("looped", 32, 4, 4)
    assert looped["paper_parameters"] == block and looped["paper_block_depth"] == 13
    assert construction_counts("standard", 32, 4, 4)["paper_parameters"] == 4 * block
    moe = bounds.describe("kg.thm5_3", entities=32, relations=4, hops=4)
    b11 = bounds.describe("kg.prop_b11", entities=32, relations=4, hops=4)
    assert moe["paper_parameters"] == b11["paper_parameters"] + b12["paper_parameters"]
    # 11 experts: 10 of 12 triples, 1 of 8 (ranges of 3 or 2 entities, R = 4): every expert
    # is B.10's block on its triples; attention shared; a router W x K in each of 4 Layers
    from ccomplexity.bounds import kg_blocks

    glu = [kg_blocks.lookup_block(6, t).counts()["glu_parameters"] for t in [12] * 10 + [8]]
    assert b11["paper_parameters"] == 4 * 3 * 62**2 + 4 * 62 * 11 + sum(glu)
    assert b11["paper_active_parameters"] == 4 * 3 * 62**2 + 4 * 62 * 11 + max(glu)
