"""Every statement's value pinned at two parameter points against the paper's formula.

The expected values are computed here, independently of ``ccomplexity.bounds`` and
``ccomplexity.codes``: integers and ``fractions.Fraction`` where the formula is rational, 50-digit
``decimal`` logarithms for the ceilings of ln (ceil(128 ln 2N) has no tie: it is transcendental),
lengths that are powers of two where log2 N must be exact, brute-force minima where the formula
is a least m or P. The few formulas with a square root or a logarithm of a real number are
compared to 1e-12. A statement with no single value (App. A Thm A.12) pins its outputs.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from ccomplexity import bounds
from tests.ccomplexity.formulas import clog2, cor81_k, lemma2_k


def no_residual(d: int, h: int) -> int:
    """Prop. B.8 in KeepNegatives: 2 (3 (2d)^2 + 3 (2d)(4d') + 2 (4d'))."""
    return 2 * (3 * (2 * d) ** 2 + 3 * (2 * d) * (4 * h) + 2 * (4 * h))


def kg_b(e: int, r: int, q: int) -> int:
    """b = ceil(log2(E + 1 + q + R))."""
    return clog2(e + 1 + q + r)


def least(pred, start: int = 1) -> int:
    n = start
    while not pred(n):
        n += 1
    return n


def thm3_1_exact(v: int, p: int, h: int) -> int:
    """The least m with H (p - 1 + ceil(log2 |V|) + m (p + ceil(log2 |V|))) >= |V|."""
    c = clog2(v)
    return least(lambda m: h * (p - 1 + c + m * (p + c)) >= v)


def lemma_b18(e: int, m: int) -> int:
    """min{P : E^P >= C(E!, m)}."""
    choices = math.comb(math.factorial(e), m)
    return least(lambda p: e**p >= choices, 0)


def thm_b19(e: int, r: int, q: int, layers: int) -> int:
    """E min{sum m_l : prod_{l <= L} m_l >= R^q}, by trying every m in 1..R^q per layer."""
    need = r**q
    best = min(
        sum(ms)
        for ms in itertools.product(range(1, need + 1), repeat=layers)
        if math.prod(ms) >= need
    )
    return e * best


def fr(x: Fraction) -> int | float:
    return int(x) if x.denominator == 1 else float(x)


S, P, L, K = "separations.", "parrots.", "looped.", "kg."
# (statement, parameters, the paper's value)
EXACT = [
    (S + "lemma2", {"length": 20, "gamma": 0.25}, lemma2_k(20, Fraction(1, 4))),
    (S + "lemma2", {"length": 1000, "gamma": 0.5}, lemma2_k(1000, Fraction(1, 2))),
    (S + "cor8_1", {"length": 20}, 473),
    (S + "cor8_1", {"length": 7}, cor81_k(7)),
    (S + "thm1", {"length": 20}, cor81_k(20)),
    (S + "thm1", {"length": 9, "alphabet": 5}, 3 + 2 * cor81_k(9)),
    (S + "thm2", {"width": 3, "precision": 7}, 21),
    (S + "thm2", {"width": 64, "precision": 16}, 1024),
    (S + "thm3", {"length": 100, "precision": 8}, 12.5),
    (S + "thm3", {"length": 96, "precision": 8}, 12),
    (S + "thm4", {"width": 2, "precision": 8, "length": 16}, 3 * 2 * (8 + 4)),
    (S + "thm4", {"width": 5, "precision": 3, "length": 1024, "heads": 4}, 3 * 5 * 13 * 4),
    (S + "lemma1", {"length": 10}, 9),
    (S + "lemma1", {"length": 1000}, 999),
    (S + "thm5", {"length": 16, "precision": 4}, float(Fraction(15, 3 * (4 + 4)))),
    (S + "thm5", {"length": 256, "precision": 9, "heads": 2}, float(Fraction(255, 3 * 17))),
    (S + "thm6", {"length": 20}, 2 * 473 + 3),
    (S + "thm6", {"length": 4}, 2 * cor81_k(4) + 3),
    (S + "thm7", {"length": 4, "gamma": 0.5}, lemma2_k(8, Fraction(1, 200))),
    (
        S + "thm7",
        {"length": 10, "gamma": 0.25, "input_dim": 3},
        3 + 2 + 3 * lemma2_k(20, Fraction(1, 400)),
    ),
    (S + "thm8", {"length": 100, "precision": 8}, 6.25),
    (S + "thm8", {"length": 96, "precision": 3}, 16),
    (S + "prop9", {"length": 10, "precision": 4}, 2.5),
    (S + "prop9", {"length": 12, "precision": 4}, 3),
    (S + "lemma4", {"states": 1024}, 10),
    (S + "lemma4", {"states": 2}, 1),
    (S + "thm11", {"length": 10}, 5),
    (S + "thm11", {"length": 1002}, 501),
    (S + "thm12", {"length": 64, "precision": 2}, float(Fraction(64, 6 * 8))),
    (S + "thm12", {"length": 1024, "precision": 6, "heads": 3}, float(Fraction(1024, 96))),
    (S + "thm13", {"length": 10, "sparsity": 2}, 1 + 3 * cor81_k(11)),
    (S + "thm13", {"length": 100, "sparsity": 5}, 1 + 6 * cor81_k(101)),
    (S + "lemma5", {"length": 8}, 4),
    (S + "lemma5", {"length": 50}, 25),
    (S + "cor13_1", {"length": 16}, 1.0),
    (S + "cor13_1", {"length": 256}, 4.0),
    (S + "fact1", {"length": 7}, 7),
    (S + "fact1", {"length": 64}, 64),
    (S + "fact2", {"length": 5}, 5),
    (S + "fact2", {"length": 33}, 33),
    (S + "fact3", {"length": 9}, 9),
    (S + "fact3", {"length": 128}, 128),
    (S + "fact4", {"size": 8}, 3),
    (S + "fact4", {"size": 1 << 40}, 40),
    (P + "thm3_1", {"vertices": 64, "length": 256}, 8.0),
    (P + "thm3_1", {"vertices": 100, "length": 1024}, 10.0),
    (P + "thm3_2", {"vertices": 7}, 7),
    (P + "thm3_2", {"vertices": 256, "length": 600}, 256),
    (P + "thm3_1_exact", {"vertices": 256, "precision": 16}, 10),
    (P + "thm3_1_exact", {"vertices": 256, "precision": 16}, thm3_1_exact(256, 16, 1)),
    (P + "thm3_1_exact", {"vertices": 100, "precision": 4, "heads": 3}, thm3_1_exact(100, 4, 3)),
    (P + "cor3_3", {"vertices": 256, "experts": 16, "precision": 8}, 64.0),
    (P + "cor3_3", {"vertices": 90, "experts": 9, "precision": 4}, 30.0),
    (P + "thm3_4", {"examples": 100, "dim": 3, "experts": 4}, 3 * 100 / 4 + 3 * 4),
    (P + "thm3_4", {"examples": 64, "dim": 8, "experts": 8}, 64.0 + 64),
    (P + "thm3_5", {"examples": 100, "precision": 8}, 12.5),
    (P + "thm3_5", {"examples": 96, "precision": 8}, 12),
    (P + "thmA_10", {"examples": 50, "dim": 8}, 50),
    (P + "thmA_10", {"examples": 3, "dim": 100}, 3),
    (P + "thmA_11", {"examples": 40, "length": 8, "dim": 4}, 40),
    (P + "thmA_11", {"examples": 9, "length": 3, "dim": 2}, 9),
    (L + "thm2_1", {"group": "S5", "length": 9}, 4),
    (L + "thm2_1", {"group": "Z2", "length": 1024}, 10),
    (
        L + "thm2_2",
        {"model_dim": 4, "mlp_width": 8, "heads": 2, "distinct_layers": 3, "layers": 5},
        5,
    ),
    (
        L + "thm2_2",
        {"model_dim": 8, "mlp_width": 8, "heads": 1, "distinct_layers": 1, "layers": 12},
        12,
    ),
    (L + "thmB_6", {"hops": 1}, 2),
    (L + "thmB_6", {"hops": 16}, 6),
    (L + "thmB_6", {"hops": 31}, 6),
    (L + "cor2_3", {"hops": 8}, 5),
    (L + "cor2_3", {"hops": 7}, 4),
    (L + "thmB_1", {"cot_steps": 3}, 3),
    (L + "thmB_1", {"cot_steps": 40}, 40),
    (L + "lemmaB_2", {"dim": 3, "precision": 8}, 9),
    (L + "lemmaB_2", {"dim": 10, "precision": 4}, 100),
    (L + "lemmaB_3", {"alphabet": 4, "model_dim": 8, "precision": 8}, 16),
    (L + "lemmaB_3", {"alphabet": 7, "model_dim": 3, "precision": 2}, 49),
    (L + "lemmaB_4", {"precision": 8}, 4),
    (L + "lemmaB_4", {"precision": 8, "model_dim": 6}, 24),
    (L + "lemmaB_5", {"model_dim": 5}, 2),
    (L + "lemmaB_5", {"model_dim": 64}, 2),
    (L + "appA1_examples", {}, sum(1000**n for n in (2, 4, 8, 16, 32))),
    (L + "appA1_examples", {"operands": 4}, 1000**2 + 1000**4),
    (L + "eq3", {"looped_score": 0.75, "base_score": 0.5, "deep_score": 1.0}, 50.0),
    (L + "eq3", {"looped_score": 0.25, "base_score": 0.5, "deep_score": 0.75}, -100.0),
    (L + "word_problem", {"group": "S3"}, 3),
    (L + "word_problem", {"group": "Z8"}, 3),
    (L + "word_problem", {"group": "A5"}, 6),
    (L + "carry", {"operands": 2}, 2),
    (L + "carry", {"operands": 17}, 17),
    (K + "lemma_b18", {"entities": 3, "permutations": 2}, lemma_b18(3, 2)),
    (K + "lemma_b18", {"entities": 4, "permutations": 5}, lemma_b18(4, 5)),
    (K + "thm_b19", {"entities": 5, "relations": 2, "hops": 3, "layers": 2}, thm_b19(5, 2, 3, 2)),
    (K + "thm_b19", {"entities": 3, "relations": 3, "hops": 2, "layers": 2}, thm_b19(3, 3, 2, 2)),
    (K + "thm_b19", {"entities": 4, "relations": 2, "hops": 3, "layers": 3}, 3 * 4 * 2),
    (K + "prop_b6", {"model_dim": 4, "mlp_width": 8}, 1),
    (K + "prop_b6", {"model_dim": 9, "mlp_width": 2}, 1),
    (K + "cor_b7", {"model_dim": 4, "mlp_width": 8, "layers": 3}, 3),
    (K + "cor_b7", {"model_dim": 2, "mlp_width": 2, "layers": 7}, 7),
    (K + "prop_b8", {"model_dim": 4, "mlp_width": 8}, 2),
    (K + "prop_b8", {"model_dim": 16, "mlp_width": 3}, 2),
    (K + "prop_b9", {"model_dim": 4, "mlp_width": 8}, 4),
    (K + "prop_b9", {"model_dim": 2, "mlp_width": 30}, 4),
    # b = ceil(log2 8) = 3, T = 6, d = 16: NoResidual(d, 4b + T) then NoResidual(d, d).
    (
        K + "prop_b10",
        {"entities": 3, "relations": 2, "hops": 2},
        no_residual(16, 18) + no_residual(16, 16),
    ),
    (K + "prop_b12", {"entities": 3, "relations": 2, "hops": 2}, 9),
    (K + "prop_b12", {"entities": 100, "relations": 9, "hops": 5}, 9),
]


def kg_row(e: int, r: int, q: int) -> tuple[int, int]:
    return kg_b(e, r, q), e * r


def prop_b10(e: int, r: int, q: int) -> int:
    b, t = kg_row(e, r, q)
    d = 5 * b + 1
    return no_residual(d, 4 * b + t) + no_residual(d, d)


def experts_default(t: int, e: int) -> int:
    """round(sqrt T) (never a tie: sqrt T = k + 1/2 has no integer T), at most E."""
    return min(min(range(t + 1), key=lambda k: abs(Fraction(k) - Fraction(t) ** 0.5)), e)


KG_POINTS = [(3, 2, 2), (20, 5, 3), (6, 1, 1)]


@pytest.mark.parametrize(("theorem", "params", "expected"), EXACT)
def test_each_statement_has_the_papers_value(theorem, params, expected):
    value = bounds.get(theorem).value(**params)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(("e", "r", "q"), KG_POINTS)
def test_the_kg_constructions_count_the_papers_parameters(e, r, q):
    b, t = kg_row(e, r, q)
    p = {"entities": e, "relations": r, "hops": q}
    assert bounds.get(K + "prop_b10").value(**p) == prop_b10(e, r, q)
    k = min(round(math.sqrt(t)), e)
    assert bounds.get(K + "prop_b11").value(**p) == t * (3 * b + 1) + k * (b + 1) + 1
    assert bounds.get(K + "prop_b11").value(**p, experts=2) == t * (3 * b + 1) + 2 * (b + 1) + 1
    assert bounds.get(K + "prop_b13").value(**p) == t * (3 * b + 1) + 2
    assert bounds.get(K + "thm5_1").value(**p) == q * (t * (3 * b + 1) + 2)
    assert bounds.get(K + "thm5_3").value(**p) == t * (3 * b + 1) + k * (b + 1) + 2
    assert bounds.get(K + "thm5_3").value(**p, experts=1) == t * (3 * b + 1) + (b + 1) + 2


def test_the_real_valued_lemmas_of_app_a():
    n, d, delta = 1000, 64, 0.01
    a7 = bounds.get(P + "lemmaA_7").value(examples=n, dim=d, delta=delta)
    assert a7 == pytest.approx(math.sqrt(2 * d * (2 * math.log(n) + math.log(2 / delta))), 1e-12)
    a7 = bounds.get(P + "lemmaA_7").value(examples=10, dim=3, delta=0.5, sigma=0.5)
    assert a7 == pytest.approx(0.25 * math.sqrt(6 * (2 * math.log(10) + math.log(4))), 1e-12)
    a8 = bounds.get(P + "lemmaA_8").value(examples=n, dim=d, delta=delta)
    assert a8 == pytest.approx(math.sqrt(2 * math.log(2 * n * d / delta)), 1e-12)
    a8 = bounds.get(P + "lemmaA_8").value(examples=5, dim=2, delta=0.5, sigma=3.0)
    assert a8 == pytest.approx(3 * math.sqrt(2 * math.log(40)), 1e-12)
    a9 = bounds.get(P + "lemmaA_9").value(examples=n, dim=d, delta=delta)
    assert a9 == pytest.approx(8 * (1 - math.sqrt(2 * math.log(n / delta) / d)), 1e-12)
    a9 = bounds.get(P + "lemmaA_9").value(examples=4, dim=100, delta=0.5, sigma=2.0)
    assert a9 == pytest.approx(20 * (1 - math.sqrt(2 * math.log(8) / 100)), 1e-12)


@pytest.mark.parametrize(("n", "d", "k", "delta"), [(100, 50, 4, 0.04), (1000, 64, 8, 0.1)])
def test_thm_a12_weight_and_bias_bounds(n, d, k, delta):
    # N examples of dimension d, K experts, each of n = length parameters' worth of sigma.
    out = bounds.describe(P + "thmA_12", examples=n, length=8, dim=d, experts=k, delta=delta)
    weight = math.sqrt(2 * math.log(2 * n * d * k / delta)) / math.sqrt(8)
    bias = d / 8 * (1 + math.sqrt(2 * math.log(n * k / delta) / d))
    assert out["weight_bound"] == pytest.approx(weight, rel=1e-12)
    assert out["bias_bound"] == pytest.approx(bias, rel=1e-12)
    assert out["neurons"] == n


def test_the_helpers_agree_with_known_values():
    assert cor81_k(20) == 473 and clog2(1) == 0 and clog2(9) == 4 and clog2(8) == 3
    assert experts_default(6, 3) == 2 and experts_default(100, 20) == 10
