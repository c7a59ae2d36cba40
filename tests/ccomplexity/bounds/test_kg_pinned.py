"""The layer-looping paper's statements (``ccomplexity.bounds.kg``) pinned exactly: every output
at two or more points against the paper's formula written out here, each limit at, below and
above, and the messages a user sees.

Sources: the paper (``seeds/looping-kg-moe.txt``: Lemma B.18 min{P : E^P >= C(E!, m)}, Thm B.19
E min{sum m_l : prod m_l >= R^q}, the constructions of Props B.10-B.13, Thms 5.1 and 5.3 with
one ReLU detector per triple, T (3b + 1) entries) and the spec (``spec/looping-kg-moe.md``:
b = ceil(log2 c), c = E + 1 + q + R; the sink of the substitute; sqrt(T) experts by head range;
the binomial bound the right way round, bits_paper = m (log2 E! - log2 m)). The toolkit's counts
(``parameters``, ``flops``) follow the module's program as its docstring states them; the
paper's (``paper_*``) the Layers of App. B.4, written out again here. Only ints, Fractions and
50-digit Decimals compute the expected values.
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

from ccomplexity import bounds
from ccomplexity.bounds import kg
from ccomplexity.errors import InputError
from tests.ccomplexity.formulas import clog2
from tests.ccomplexity.formulas import kg_lookup as lookup_block
from tests.ccomplexity.formulas import kg_moe as moe_block
from tests.ccomplexity.formulas import kg_paper_counts as paper
from tests.ccomplexity.formulas import kg_substitute as substitute_block
from tests.ccomplexity.formulas import layer_counts as block


def code_bits(e: int, r: int, q: int) -> int:
    """b = ceil(log2 c), c = E + 1 + q + R (at least 1)."""
    return max(1, clog2(e + 1 + q + r))


def experts(e: int, r: int) -> int:
    """round(sqrt(E R)) (no ties: sqrt(T) = k + 1/2 has no integer T), at most E."""
    t = e * r
    k = 0  # the nearest integer to sqrt(t): compare (k + 1/2)^2 with t exactly
    while Fraction(2 * k + 1, 2) ** 2 < t:
        k += 1
    return min(k, e)


def head_ranges(e: int, k: int) -> list[int]:
    """Triples per expert / R: expert i owns entities floor(iE/K) <= x < floor((i+1)E/K)."""
    return [(i + 1) * e // k - i * e // k for i in range(k)]


# -- the construction (Thm 5.1, Prop B.13, Thm 5.3) ----------------------------------------------


def construction(comp: str, e: int, r: int, q: int, k: int | None = None) -> dict[str, object]:
    """The toolkit's program: T (3b + 1) detector entries per lookup copy, one shared threshold
    and one sink per block; FLOPs 2 per multiply-add of its matrix products."""
    b, t = code_bits(e, r, q), e * r
    det = t * (3 * b + 1)
    sub = 2 * q * q * b + 2 * q * (q + 1) * (b + 1)  # (q, b)(b, q) and (q, q+1)(q+1, b+1)
    out: dict[str, object] = {"composition": comp, "code_bits": b, "triples": t}
    if comp == "looped-moe":
        k = experts(e, r) if k is None else k
        sizes = [r * s for s in head_ranges(e, k)]
        largest = max(sizes)
        out.update(
            experts=k,
            parameters=det + k * (b + 1) + 2,
            lookup_parameters=det,
            active_lookup_parameters=k * (b + 1) + largest * (3 * b + 1),
            largest_expert_triples=largest,
        )
        per_iteration = sub + 2 * q * b * k + 2 * q * largest * (3 * b + 1)
    else:
        sizes = [t]
        copies = q if comp == "standard" else 1
        out.update(parameters=copies * (det + 2), lookup_parameters=copies * det)
        per_iteration = sub + 2 * q * t * (3 * b + 1)
    out["flops"] = q * per_iteration + 2 * b * e  # the readout against the E entity codes
    out["parameters_counted"] = kg.COUNTED
    out.update(paper(comp, b, t, q, sizes))
    return out


POINTS = [(32, 4, 4), (10, 3, 2), (5, 1, 1), (2, 2, 3)]


@pytest.mark.parametrize(("e", "r", "q"), POINTS)
@pytest.mark.parametrize("comp", ["standard", "looped", "looped-moe"])
def test_construction_counts_every_output(comp: str, e: int, r: int, q: int) -> None:
    assert kg.construction_counts(comp, e, r, q) == construction(comp, e, r, q)


@pytest.mark.parametrize(("e", "r", "q", "k"), [(32, 4, 4, 3), (10, 3, 2, 10), (7, 2, 5, 1)])
def test_construction_counts_with_given_experts(e: int, r: int, q: int, k: int) -> None:
    assert kg.construction_counts("looped-moe", e, r, q, k) == construction(
        "looped-moe", e, r, q, k
    )


def test_construction_hand_values() -> None:
    # spec 2.4: E = 32, R = 4, q = 4: c = 41, b = 6, T = 128, detectors 2432
    out = kg.construction_counts("looped", 32, 4, 4)
    assert (out["code_bits"], out["triples"], out["parameters"]) == (6, 128, 2434)
    sub = 2 * 16 * 6 + 2 * 4 * 5 * 7
    assert out["flops"] == 4 * (sub + 2 * 4 * 128 * 19) + 2 * 6 * 32 == 80_096
    moe = kg.construction_counts("looped-moe", 10, 3, 2)  # c = 16: b = 4; K = round(sqrt 30) = 5
    assert (moe["code_bits"], moe["experts"], moe["largest_expert_triples"]) == (4, 5, 6)
    assert moe["parameters"] == 30 * 13 + 5 * 5 + 2 == 417
    assert moe["flops"] == 2 * (2 * 4 * 4 + 2 * 2 * 3 * 5 + 2 * 2 * 4 * 5 + 2 * 2 * 6 * 13) + 80


def test_theorems_evaluate_the_construction() -> None:
    for e, r, q in POINTS:
        p = {"entities": e, "relations": r, "hops": q}
        assert bounds.get("kg.thm5_1").value(**p) == construction("standard", e, r, q)["parameters"]
        assert bounds.get("kg.prop_b13").value(**p) == construction("looped", e, r, q)["parameters"]
        moe = construction("looped-moe", e, r, q)
        assert bounds.get("kg.thm5_3").value(**p) == moe["parameters"]
        out = bounds.get("kg.thm5_3").outputs(**p)
        want = {k: v for k, v in moe.items() if k != "experts"}
        assert out == {**want, "experts_used": moe["experts"]}
        assert bounds.get("kg.prop_b13").outputs(**p) == construction("looped", e, r, q)
        assert bounds.get("kg.thm5_1").outputs(**p) == construction("standard", e, r, q)
    out = bounds.get("kg.thm5_3").outputs(entities=10, relations=3, hops=2, experts=2)
    assert out["experts_used"] == 2 and "experts" not in out


def test_the_theorems_outputs_built_afresh() -> None:
    # the statements' output functions are built at import; build them here, as they are built
    moe = construction("looped-moe", 10, 3, 2, 2)
    want = {k: v for k, v in moe.items() if k != "experts"}
    assert kg._counts("looped-moe")(10, 3, 2, 2) == {**want, "experts_used": 2}
    default = construction("looped-moe", 10, 3, 2)
    out = kg._counts("looped-moe")(entities=10, relations=3, hops=2)
    assert out["experts_used"] == default["experts"] == 5 and "experts" not in out
    assert kg._counts("looped")(10, 3, 2) == construction("looped", 10, 3, 2)
    assert kg._counts("standard")(10, 3, 2) == construction("standard", 10, 3, 2)


def test_construction_limits_and_messages() -> None:
    assert kg.construction_counts("looped", 2, 1, 1)["triples"] == 2  # E = 2: the least
    with pytest.raises(InputError, match=r"^entities must be an integer >= 2, got 1$"):
        kg.construction_counts("looped", 1, 1, 1)
    with pytest.raises(InputError, match=r"^entities must be an integer >= 2, got 1$"):
        bounds.get("kg.thm5_1").value(entities=1, relations=1, hops=1)
    with pytest.raises(InputError, match=r"^relations must be an integer >= 1, got 0$"):
        kg.construction_counts("looped", 2, 0, 1)
    with pytest.raises(InputError, match=r"^hops must be an integer >= 1, got 0$"):
        kg.construction_counts("looped", 2, 1, 0)
    with pytest.raises(InputError, match=r"^experts must be an integer >= 1, got 0$"):
        kg.construction_counts("looped-moe", 4, 1, 1, 0)
    msg = r"^composition must be one of standard, looped, looped-moe$"
    with pytest.raises(InputError, match=msg):
        kg.construction_counts("moe", 4, 1, 1)
    for comp in ("looped", "standard"):
        with pytest.raises(InputError, match=rf"^the {comp} composition has no experts$"):
            kg.construction_counts(comp, 4, 1, 1, 2)
    # experts: at most E (at the limit, above it)
    assert kg.construction_counts("looped-moe", 4, 1, 1, 4)["largest_expert_triples"] == 1
    with pytest.raises(InputError, match=r"^experts route by head entity: at most E = 4 experts, "):
        kg.construction_counts("looped-moe", 4, 1, 1, 5)


# -- the pieces ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("e", "r", "q"),
    [(3, 2, 2), (4, 1, 2), (4, 2, 2), (1, 1, 1), (100, 9, 5), (2, 1, 1), (59, 3, 1)],
)
def test_code_bits_at_powers_of_two(e: int, r: int, q: int) -> None:
    # c = 8 (3 bits) and c = 9 (4 bits) around a power of two; c = 4: 2 bits; c = 64, 65
    assert kg.code_bits(e, r, q) == code_bits(e, r, q)
    assert bounds.get("kg.prop_b12").outputs(entities=e, relations=r, hops=q)["code_bits"] == (
        code_bits(e, r, q)
    )
    assert [
        kg.code_bits(3, 2, 2),
        kg.code_bits(4, 2, 2),
        kg.code_bits(59, 3, 1),
        kg.code_bits(60, 3, 1),
    ] == [3, 4, 6, 7]


def test_default_experts_rounds_sqrt_t() -> None:
    for e in (1, 2, 3, 5, 12, 40):
        for r in (1, 2, 3, 7):
            assert kg.default_experts(e, r) == experts(e, r)
    # T = k^2 + k rounds down, k^2 + k + 1 up (E large enough not to cap)
    assert kg.default_experts(12, 1) == 3 and kg.default_experts(13, 1) == 4
    assert kg.default_experts(6, 2) == 3 and kg.default_experts(16, 1) == 4
    assert kg.default_experts(20, 1) == 4 and kg.default_experts(21, 1) == 5
    # at most E: E = 3, R = 9 gives sqrt(27) ~ 5.2 -> 3
    assert kg.default_experts(3, 9) == 3 and kg.default_experts(5, 5) == 5
    with pytest.raises(InputError, match=r"^entities must be an integer >= 1, got 0$"):
        kg.default_experts(0, 2)
    with pytest.raises(InputError, match=r"^relations must be an integer >= 1, got 0$"):
        kg.default_experts(2, 0)


def test_expert_ranges_and_triples() -> None:
    assert kg.expert_bounds(10, 3) == [0, 3, 6, 10]
    assert kg.expert_bounds(7, 7) == list(range(8))
    assert kg.expert_bounds(5, 1) == [0, 5]
    for e, k in [(10, 3), (64, 23), (9, 4)]:
        b = kg.expert_bounds(e, k)
        assert [b[i + 1] - b[i] for i in range(k)] == head_ranges(e, k)
    assert kg.expert_triples(10, 4, 3) == [12, 12, 16]
    assert kg.expert_triples(9, 2, 4) == [2 * s for s in head_ranges(9, 4)] == [4, 4, 4, 6]
    msg = r"^experts route by head entity: at most E = 3 experts, got 4$"
    with pytest.raises(InputError, match=msg):
        kg.expert_bounds(3, 4)
    with pytest.raises(InputError, match=r"^entities must be an integer >= 1, got 0$"):
        kg.expert_bounds(0, 1)
    with pytest.raises(InputError, match=r"^experts must be an integer >= 1, got 0$"):
        kg.expert_bounds(3, 0)


def test_flop_pieces() -> None:
    assert kg.substitute_flops(3, 4) == 2 * 9 * 4 + 2 * 3 * 4 * 5 == 192
    assert kg.substitute_flops(1, 1) == 2 + 2 * 2 * 2
    assert kg._detect_flops(3, 5, 2) == 2 * 3 * 5 * 7


# -- Prop B.10, B.11, B.12 and the primitives B.6-B.9 --------------------------------------------


@pytest.mark.parametrize(("e", "r", "q"), [(32, 4, 4), (3, 2, 2), (9, 5, 1)])
def test_prop_b10_lookup(e: int, r: int, q: int) -> None:
    b, t = code_bits(e, r, q), e * r
    out = bounds.get("kg.prop_b10").outputs(entities=e, relations=r, hops=q)
    assert out == {
        **{f"paper_{k}": v for k, v in lookup_block(b, t).items()},
        "code_bits": b,
        "triples": t,
        "lookup_parameters": t * (3 * b + 1),
        "parameters": t * (3 * b + 1) + 1,
        "flops_per_row": 2 * t * (3 * b + 1),
        "parameters_counted": kg.COUNTED,
    }
    value = bounds.get("kg.prop_b10").value(entities=e, relations=r, hops=q)
    assert value == lookup_block(b, t)["parameters"]


@pytest.mark.parametrize(("e", "r", "q", "k"), [(32, 4, 4, None), (10, 3, 2, 3), (9, 5, 1, 9)])
def test_prop_b11_expert_lookup(e: int, r: int, q: int, k: int | None) -> None:
    b, t = code_bits(e, r, q), e * r
    used = experts(e, r) if k is None else k
    loads = [r * s for s in head_ranges(e, used)]
    extra = {} if k is None else {"experts": k}
    out = bounds.get("kg.prop_b11").outputs(entities=e, relations=r, hops=q, **extra)
    assert out == {
        "code_bits": b,
        "triples": t,
        "experts_used": used,
        "expert_triples_min": min(loads),
        "expert_triples_max": max(loads),
        "lookup_parameters": t * (3 * b + 1),
        "parameters": t * (3 * b + 1) + used * (b + 1) + 1,
        "active_lookup_parameters": used * (b + 1) + max(loads) * (3 * b + 1),
        "flops_per_row": 2 * b * used + 2 * max(loads) * (3 * b + 1),
        "parameters_counted": kg.COUNTED,
        **{f"paper_{key}": v for key, v in moe_block(b, loads).items()},
    }
    value = bounds.get("kg.prop_b11").value(entities=e, relations=r, hops=q, **extra)
    assert value == t * (3 * b + 1) + used * (b + 1) + 1


def test_prop_b11_unbalanced_loads() -> None:
    out = bounds.get("kg.prop_b11").outputs(entities=10, relations=3, hops=2, experts=3)
    assert (out["expert_triples_min"], out["expert_triples_max"]) == (9, 12)
    with pytest.raises(InputError, match="at most E = 10 experts, got 11"):
        bounds.get("kg.prop_b11").outputs(entities=10, relations=3, hops=2, experts=11)


@pytest.mark.parametrize(("e", "r", "q"), [(32, 4, 4), (3, 2, 2), (9, 5, 7)])
def test_prop_b12_substitute(e: int, r: int, q: int) -> None:
    b = code_bits(e, r, q)
    out = bounds.get("kg.prop_b12").outputs(entities=e, relations=r, hops=q)
    assert out == {
        **{f"paper_{k}": v for k, v in substitute_block(b).items()},
        "code_bits": b,
        "parameters": 1,
        "flops_per_iteration": 2 * q * q * b + 2 * q * (q + 1) * (b + 1),
        "parameters_counted": kg.COUNTED,
    }
    assert bounds.get("kg.prop_b12").value(entities=e, relations=r, hops=q) == 9


@pytest.mark.parametrize(("d", "h", "layers"), [(8, 16, 1), (3, 5, 4), (1, 1, 2)])
def test_props_b6_b7_keep_negatives(d: int, h: int, layers: int) -> None:
    one = block(d, [2 * h])  # Prop B.6: the hidden width doubles, the model width stays d
    want = {
        "depth": layers,
        "model_width": d,
        "hidden_width": 2 * h,
        "attention_parameters": layers * one["attention_parameters"],
        "glu_parameters": layers * one["glu_parameters"],
        "parameters": layers * (3 * d * d + 3 * d * 2 * h + 2 * 2 * h),
    }
    out = bounds.get("kg.cor_b7").outputs(model_dim=d, mlp_width=h, layers=layers)
    assert out == want
    assert bounds.get("kg.cor_b7").value(model_dim=d, mlp_width=h, layers=layers) == layers
    assert kg._wrapped(d, h, layers) == want
    assert bounds.get("kg.prop_b6").outputs(model_dim=d, mlp_width=h) == block(d, [2 * h])
    assert kg._wrapped(d, h) == block(d, [2 * h])


# -- Lemma B.18 ----------------------------------------------------------------------------------


def log2_decimal(n: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 50
        return Decimal(n).ln() / Decimal(2).ln()


def least_power(base: int, at_least: int) -> int:
    p = 0
    while base**p < at_least:
        p += 1
    return p


@pytest.mark.parametrize(("e", "m"), [(3, 2), (5, 7), (10, 3), (4, 24), (6, 1)])
def test_lemma_b18_every_output(e: int, m: int) -> None:
    fact = math.factorial(e)
    count = math.comb(fact, m)
    out = kg.permutation_storage(e, m)
    assert out["bits"] == pytest.approx(float(log2_decimal(count)), rel=1e-13, abs=1e-13)
    assert out["min_parameters"] == least_power(e, count)
    assert out["min_parameters_exact"] is True
    assert out["log2_factorial"] == pytest.approx(float(log2_decimal(fact)), rel=1e-13)
    assert out["bits_per_parameter"] == pytest.approx(float(log2_decimal(e)), rel=1e-15)
    # the proof's estimate with C(n, k) >= (n/k)^k: m (log2 E! - log2 m)
    paper = float(m * (log2_decimal(fact) - log2_decimal(m)))
    assert out["bits_paper"] == pytest.approx(paper, rel=1e-12, abs=1e-12)
    assert out["mE"] == m * e
    assert set(out) == {"bits", "bits_paper", "log2_factorial", "bits_per_parameter",
                        "min_parameters", "min_parameters_exact", "mE"}  # fmt: skip
    assert bounds.get("kg.lemma_b18").value(entities=e, permutations=m) == least_power(e, count)


def test_lemma_b18_odd_counts_keep_every_bit() -> None:
    # C(3!, 2) = 15, C(4!, 3) = 2024: log2 of an odd count, not of its half
    assert kg.permutation_storage(3, 2)["bits"] == pytest.approx(math.log2(15), rel=1e-15)
    assert kg.permutation_storage(4, 3)["bits"] == pytest.approx(math.log2(2024), rel=1e-15)
    assert kg._log2_int(15) == pytest.approx(math.log2(15), rel=1e-15)
    assert kg._log2_int(1) == 0.0
    big = 3**200 + 1  # 317 bits: shifted to its top 60 bits
    assert kg._log2_int(big) == pytest.approx(float(log2_decimal(big)), rel=1e-15)


def test_lemma_b18_ties_are_settled_with_integers() -> None:
    # E = 2: C(2, 1) = 2 = 2^1 exactly; m = E!: C = 1 = E^0
    assert kg.permutation_storage(2, 1)["min_parameters"] == 1
    assert kg.permutation_storage(2, 2)["min_parameters"] == 0
    assert kg.permutation_storage(3, 6)["min_parameters"] == 0
    assert kg.permutation_storage(4, 24)["min_parameters"] == 0
    for e, m in [(2, 1), (2, 2), (3, 6)]:
        assert kg.permutation_storage(e, m)["min_parameters_exact"] is True


def test_lemma_b18_near_tie_in_the_integer_range_is_settled() -> None:
    # log_27 C(27!, 2681) = 46905.0000004 (within 1e-9 of an integer, relative): the float
    # alone is not trusted; integers count up from 46904 to the least P, 46906
    count = math.comb(math.factorial(27), 2681)
    assert 27**46905 < count <= 27**46906
    out = kg.permutation_storage(27, 2681)
    assert out["min_parameters"] == 46906
    assert out["min_parameters_exact"] is True


def test_lemma_b18_near_tie_beyond_the_integers_is_not_certain() -> None:
    # E = 885 > 200: floats only. log_885 C(885!, 20) = 15097.999995..., within 1e-9 (relative)
    # of an integer: the float cannot settle P, so the count says it is not certain; the
    # integers (checked here) agree with the ceiling it reports
    count = math.comb(math.factorial(885), 20)
    assert 885**15097 < count <= 885**15098
    out = kg.permutation_storage(885, 20)
    assert out["min_parameters"] == 15098
    assert out["min_parameters_exact"] is False
    assert out["bits"] == pytest.approx(float(log2_decimal(count)), rel=1e-13)
    # one permutation fewer: far from a tie, certain
    assert kg.permutation_storage(885, 19)["min_parameters_exact"] is True


def test_lemma_b18_limits_and_messages() -> None:
    assert kg.permutation_storage(3, 6)["bits"] == 0.0  # m = E!: one choice
    with pytest.raises(InputError, match=r"^there are only E! = 6 permutations of 3 entities, "):
        kg.permutation_storage(3, 7)
    with pytest.raises(InputError, match=r"not m = 7$"):
        bounds.get("kg.lemma_b18").value(entities=3, permutations=7)
    with pytest.raises(InputError, match=r"^entities must be an integer >= 2, got 1$"):
        kg.permutation_storage(1, 1)
    with pytest.raises(InputError, match=r"^permutations must be an integer >= 1, got 0$"):
        kg.permutation_storage(3, 0)


def test_lemma_b18_float_range_limit() -> None:
    # E = 20: m log2 20! > 2^20 from m = 17_171 on; floats up to m^2 <= 20!/2^20
    fact = math.factorial(20)
    top = math.isqrt(fact >> 20)
    assert (top * top) << 20 <= fact < ((top + 1) * (top + 1)) << 20
    out = kg.permutation_storage(20, top)  # at the limit
    assert out["min_parameters_exact"] is True
    assert out["mE"] == 20 * top
    msg = (
        r"^Lemma B\.18 is evaluated for m\^2 <= E!/2\^20 or m log2 E! <= 1048576; "
        rf"m = {top + 1} with E = 20 is outside both$"
    )
    with pytest.raises(InputError, match=msg):
        kg.permutation_storage(20, top + 1)


def stirling_log2_factorial(m: int) -> Decimal:
    """log2 m!: exactly for m <= 1000, else Stirling's series to 1/(1260 m^5) (the next term,
    1/(1680 m^7), is below 1e-23), 50 digits."""
    if m <= 1000:
        return log2_decimal(math.factorial(m))
    with localcontext() as ctx:
        ctx.prec = 50
        x = Decimal(m)
        pi = Decimal("3.14159265358979323846264338327950288419716939937511")
        ln = x * x.ln() - x + (2 * pi * x).ln() / 2
        ln += 1 / (12 * x) - 1 / (360 * x**3) + 1 / (1260 * x**5)
        return ln / Decimal(2).ln()


@pytest.mark.parametrize(
    ("e", "m"), [(20, 1_000_000), (20, 30_000), (201, 5), (201, 5000), (300, 900)]
)
def test_lemma_b18_in_floats_is_log2_of_the_binomial(e: int, m: int) -> None:
    # log2 C(n, m) = m log2 n - log2 m! + sum_{i<m} log2(1 - i/n), the sum -m(m-1)/(2 n ln 2)
    # to within m^3/n^2 (below 1e-16 here); E > 200 or m beyond 2^20 bits: no exact integer
    n = math.factorial(e)
    with localcontext() as ctx:
        ctx.prec = 50
        correction = Decimal(m * (m - 1)) / (2 * Decimal(n) * Decimal(2).ln())
        truth = m * log2_decimal(n) - stirling_log2_factorial(m) - correction
    out = kg.permutation_storage(e, m)
    assert out["bits"] == pytest.approx(float(truth), rel=2e-15)
    if e == 20 and m == 1_000_000:
        assert float(correction) > 2e-7  # the first-order term is resolved
        assert abs(out["bits"] - float(truth)) < 5e-8
    per = log2_decimal(e)
    assert out["min_parameters"] == math.ceil(truth / per)
    assert out["min_parameters_exact"] is True


# -- Theorem B.19 --------------------------------------------------------------------------------


def brute_min_sum(target: int, layers: int) -> int:
    best = None
    for ms in itertools.product(range(1, target + 1), repeat=layers):
        if math.prod(ms) >= target and (best is None or sum(ms) < best):
            best = sum(ms)
    assert best is not None
    return best


def balanced_split(total: int, layers: int) -> list[list[int]]:
    a, r = divmod(total, layers)
    return [[a, layers - r]] + ([[a + 1, r]] if r else [])


def test_balanced_product() -> None:
    assert kg.balanced_product(7, 3) == 2 * 2 * 3
    assert kg.balanced_product(9, 3) == 27
    assert kg.balanced_product(5, 1) == 5
    assert kg.balanced_product(4, 4) == 1
    for total, layers in [(10, 4), (11, 3), (6, 5)]:
        best = max(
            math.prod(ms)
            for ms in itertools.product(range(1, total + 1), repeat=layers)
            if sum(ms) == total
        )
        assert kg.balanced_product(total, layers) == best


@pytest.mark.parametrize(
    ("target", "layers"), [(1, 3), (2, 1), (8, 2), (9, 2), (10, 2), (64, 3), (30, 3), (12, 4)]
)
def test_min_monomials(target: int, layers: int) -> None:
    total, split = kg.min_monomials(target, layers)
    assert total == brute_min_sum(target, layers)
    if target == 1:
        assert split == [[1, layers]]
    else:
        assert split == balanced_split(total, layers)


def test_min_monomials_messages() -> None:
    with pytest.raises(InputError, match=r"^target must be an integer >= 1, got 0$"):
        kg.min_monomials(0, 2)
    with pytest.raises(InputError, match=r"^layers must be an integer >= 1, got 0$"):
        kg.min_monomials(4, 0)


def thm_b19(e: int, r: int, q: int, layers: int, products: int | None = None) -> dict:
    target = r**q if products is None else products
    total = brute_min_sum(target, layers)
    split = balanced_split(total, layers) if target > 1 else [[1, layers]]
    try:
        b18 = 0
        for m, n in split:
            count = math.comb(math.factorial(e), m)
            b18 += least_power(e, count) * n
    except ValueError:  # m > E!: C(E!, m) = 0 choices, Lemma B.18 does not apply
        b18 = None
    if any(m > math.factorial(e) for m, _ in split):
        b18 = None
    return {
        "target_products": target,
        "min_monomials": total,
        "monomials_per_layer": split,
        "min_parameters": e * total,
        "min_parameters_lemma_b18": b18,
        "qER": q * e * r,
        "theorem_applies": r >= 3 and layers <= q,
    }


@pytest.mark.parametrize(
    ("e", "r", "q", "layers", "products"),
    [
        (5, 2, 3, 2, None),
        (3, 3, 2, 2, None),
        (4, 3, 2, 3, None),  # L > q: the theorem does not apply
        (4, 3, 3, 3, None),  # L = q, R = 3: it does, and reaches qER
        (3, 4, 2, 1, None),  # 16 monomials > 3! permutations: no Lemma B.18 count
        (6, 5, 2, 2, 7),
        (6, 5, 2, 2, 25),
        (4, 1, 3, 2, None),  # R = 1: one word
    ],
)
def test_thm_b19_every_output(e: int, r: int, q: int, layers: int, products: int | None) -> None:
    extra = {} if products is None else {"products": products}
    p = {"entities": e, "relations": r, "hops": q, "layers": layers, **extra}
    out = bounds.get("kg.thm_b19").outputs(**p)
    want = thm_b19(e, r, q, layers, products)
    target = want["target_products"]
    continuous = out.pop("continuous_monomials")
    assert continuous == pytest.approx(layers * target ** (1 / layers), rel=1e-12)
    assert out.pop("continuous_parameters") == pytest.approx(e * continuous, rel=1e-15)
    assert out == want
    assert bounds.get("kg.thm_b19").value(**p) == want["min_parameters"]


def test_thm_b19_reaches_qer_at_l_equals_q() -> None:
    out = bounds.describe("kg.thm_b19", entities=5, relations=3, hops=3, layers=3)
    assert out["min_parameters"] == out["qER"] == 45 and out["theorem_applies"] is True
    # theorem_applies: R >= 3 and L <= q, each at, below and above its limit
    applies = {
        (3, 3, 3): True,
        (2, 3, 3): False,
        (4, 3, 3): True,
        (3, 3, 4): False,
        (3, 3, 2): True,
    }
    for (r, q, layers), want in applies.items():
        out = bounds.describe("kg.thm_b19", entities=3, relations=r, hops=q, layers=layers)
        assert out["theorem_applies"] is want


def test_thm_b19_products_limit_and_messages() -> None:
    b = bounds.get("kg.thm_b19")
    p = {"entities": 4, "relations": 3, "hops": 2, "layers": 2}
    assert b.outputs(**p, products=9)["target_products"] == 9  # at R^q
    assert b.outputs(**p, products=8)["min_monomials"] == brute_min_sum(8, 2)  # below
    msg = r"^there are only R\^q = 9 relation words, not 10 products$"
    with pytest.raises(InputError, match=msg):
        b.outputs(**p, products=10)


def test_thm_b19_size_limits() -> None:
    b = bounds.get("kg.thm_b19")
    msg = r"^Thm B\.19 is evaluated for R\^q below 2\^65536 and L <= 1048576$"
    # R^q = 2^65536 exactly: at the limit (q log2 R = 65536)
    out = b.outputs(entities=3, relations=2, hops=65_536, layers=65_536)
    assert out["min_monomials"] == 2 * 65_536 and out["monomials_per_layer"] == [[2, 65_536]]
    assert out["continuous_monomials"] == pytest.approx(2 * 65_536, rel=1e-9)
    out = b.outputs(entities=3, relations=4, hops=32_768, layers=65_536)
    assert out["min_monomials"] == 2 * 65_536
    with pytest.raises(InputError, match=msg):
        b.outputs(entities=3, relations=2, hops=65_537, layers=65_537)
    with pytest.raises(InputError, match=msg):
        b.outputs(entities=3, relations=4, hops=32_769, layers=65_538)
    # L = 2^20 at the limit, one more above it
    top = 1 << 20
    out = b.outputs(entities=3, relations=3, hops=1, layers=top)
    assert out["min_monomials"] == top + 2 and out["monomials_per_layer"] == [[1, top - 2], [2, 2]]
    with pytest.raises(InputError, match=msg):
        b.outputs(entities=3, relations=3, hops=1, layers=top + 1)


@pytest.mark.parametrize("e", [171, 200])
def test_lemma_b18_beyond_float_factorials(e: int) -> None:
    # 171! > 1.8e308: the first-order term m(m - 1)/(2 E! ln 2) is taken from the exact integers
    m = 2000
    out = kg.permutation_storage(e, m)
    fact = math.factorial(e)
    with localcontext() as ctx:
        ctx.prec = 60
        ln2 = Decimal(2).ln()
        log2_fact = Decimal(fact).ln() / ln2
        log2_m_fact = Decimal(math.factorial(m)).ln() / ln2
        first = Decimal(m * (m - 1)) / (2 * Decimal(fact) * ln2)
        want = m * log2_fact - log2_m_fact - first
    assert out["bits"] == pytest.approx(float(want), rel=1e-12)


def test_thm_b19_continuous_form_beyond_float_range() -> None:
    # R^q = 2^1100 at L = 1: the exact counts stand, the float L R^(q/L) is not given
    out = bounds.get("kg.thm_b19").outputs(entities=10, relations=2, hops=1100, layers=1)
    assert out["min_monomials"] == 2**1100 and out["min_parameters"] == 10 * 2**1100
    assert out["continuous_monomials"] is None and out["continuous_parameters"] is None
    two = bounds.get("kg.thm_b19").outputs(entities=10, relations=2, hops=1100, layers=2)
    assert two["continuous_monomials"] == pytest.approx(2 * 2.0**550, rel=1e-12)
    assert two["continuous_parameters"] == pytest.approx(20 * 2.0**550, rel=1e-12)


# R^5 with ln(R^5) + ln 2 exactly 709.0 as floats (found by search): E L R^(q/L) at the float
# limit. The form is given only while ln(R^q)/L + ln(L E) < 709 (strictly).
R_AT_709 = 33323570994004487764606745726214768681620589070607165102424991


def test_thm_b19_continuous_form_at_the_float_limit() -> None:
    b = bounds.get("kg.thm_b19")
    assert math.log(R_AT_709**5) + math.log(2) == 709.0  # the tie itself
    tie = b.outputs(entities=2, relations=R_AT_709, hops=5, layers=1)
    assert tie["min_monomials"] == R_AT_709**5 and tie["min_parameters"] == 2 * R_AT_709**5
    assert tie["min_parameters_lemma_b18"] is None  # m = R^5 > 2! permutations
    assert tie["continuous_monomials"] is None and tie["continuous_parameters"] is None
    # between 709 and 710 (ln(R^5) + ln 2 = 709.5): not given either
    r = int(Decimal(709.5 - math.log(2)).__truediv__(5).exp())
    assert 709 < math.log(r**5) + math.log(2) < 710
    mid = b.outputs(entities=2, relations=r, hops=5, layers=1)
    assert mid["continuous_monomials"] is None and mid["continuous_parameters"] is None
    # just below: ln(R^5) + ln 2 = 708.5, given, E L R^(q/L) = 2 R^5
    r = int(Decimal(708.5 - math.log(2)).__truediv__(5).exp())
    below = b.outputs(entities=2, relations=r, hops=5, layers=1)
    assert below["continuous_monomials"] == pytest.approx(float(r**5), rel=1e-12)
    assert below["continuous_parameters"] == pytest.approx(2.0 * float(r**5), rel=1e-12)


def test_lemma_b18_refuses_more_than_e_factorial_at_e_200() -> None:
    # E = 200 is the largest E whose E! is computed: m = 200! + 1 is refused in words
    fact = math.factorial(200)
    with pytest.raises(InputError, match=rf"^there are only E! = {fact} permutations of 200 "):
        kg.permutation_storage(200, fact + 1)


@pytest.mark.parametrize("m", [20010, 20139])
def test_lemma_b18_first_order_term_in_floats(m: int) -> None:
    # E = 18 past the integer range (m log2 18! > 2^20) and within m^2 <= E!/2^20: bits is the
    # docstring's float formula m log2 E! - log2 m! - m (m - 1) / (2 E! ln 2), to the last bit
    # (at these m a first-order term of m (m + 1) or m (m - 2) rounds to another float)
    fact = math.factorial(18)
    assert m * (math.lgamma(19) / math.log(2)) > 1 << 20 and (m * m) << 20 <= fact
    log2_fact = math.lgamma(19) / math.log(2)
    first = m * (m - 1) / (2 * fact) / math.log(2)
    want = m * log2_fact - math.lgamma(m + 1) / math.log(2) - first
    out = kg.permutation_storage(18, m)
    assert out["bits"] == want
    assert out["min_parameters"] == math.ceil(want / math.log2(18))


@pytest.mark.parametrize("n", [1459978698266139265, 2237721328587751041, 3, 2**60 - 1, 2**200 + 1])
def test_log2_of_an_integer_to_float_precision(n: int) -> None:
    # the 61-bit n (found by search) end in ...10000001: keeping 60 leading bits gives the float
    # nearest log2 n; 61 would round the last bit of the argument, and of log2 n, the other way
    with localcontext() as ctx:
        ctx.prec = 60
        want = float(Decimal(n).ln() / Decimal(2).ln())
    assert kg._log2_int(n) == want


def test_lemma_b18_refuses_an_m_beyond_float_range() -> None:
    # 171 <= E <= 200: E! exceeds a float, so m up to E! passes the count check; an m of 1000
    # bits or more is refused in one short line (Thm B.19 then reports no Lemma B.18 count)
    with pytest.raises(InputError, match=r"^Lemma B\.18 is evaluated for m below 2\^1000; m has"):
        kg.permutation_storage(200, math.factorial(200))
    with pytest.raises(InputError, match=r"m = a 1000-bit number with E = 200 is outside both$"):
        kg.permutation_storage(200, 2**999)
    out = bounds.get("kg.thm_b19").outputs(entities=200, relations=2, hops=1100, layers=1)
    assert out["min_parameters_lemma_b18"] is None and out["min_monomials"] == 2**1100
