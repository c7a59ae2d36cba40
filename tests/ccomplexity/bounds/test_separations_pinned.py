"""Separations paper (Bhattamishra et al.): every statement's value pinned at two points.

Each expected value is the paper's formula written out here (seed
``separations-transformers-rnns``; the spec's errata where the module follows them, said per
test) in exact arithmetic: integers and ``Fraction``, 50-digit ``decimal`` logarithms for
ceil(c ln x), lengths that are powers of two where log2 N must be exact. The Theorem 4
protocol counts are pinned step by step, the inversions (min_width / max_length) against brute
force, and every limit at, below and above it with the message a user reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest

from ccomplexity import bounds
from ccomplexity.bounds import separations as sep
from ccomplexity.errors import InputError
from tests.ccomplexity.formulas import ceil_ln, clog2, cor81_k, lemma2_k

S = "separations."


# -- the paper's formulas, written out independently ---------------------------------------------


def log2_pow2(n: int) -> int:
    """log2 N for a power of two N, exactly."""
    assert n & (n - 1) == 0
    return clog2(n)


def single_output(n: int, m: int, p: int, h: int, alphabet: int) -> int:
    """The single-output Thm 4 protocol with value sums at frac = p: ceil(log2 V) + 2Hp +
    H (p + ceil(log2 N)) + Hp + Hm (2p)."""
    return clog2(alphabet) + 2 * h * p + h * (p + clog2(n)) + h * p + h * m * 2 * p


def held_single(n: int, m: int, p: int, h: int, alphabet: int) -> int:
    """The held single-output protocol: ceil(log2 V) + 2Hp + H (1 + m)(p + ceil(log2 N))."""
    return clog2(alphabet) + 2 * h * p + h * (1 + m) * (p + clog2(n))


def brute_max_even(ok: Callable[[int], bool], top: int) -> int:
    """Largest even N in [2, top] with ok(N), 0 if none."""
    return max((n for n in range(2, top + 1, 2) if ok(n)), default=0)


# -- values of the statements ------------------------------------------------------------------


def test_lemma2_and_cor8_1_code_widths() -> None:
    # N = 20, gamma = 1/4 is Cor 8.1's 473 (App. B.3); N = 1000, gamma = 1/2: ceil(32 ln 2000)
    assert bounds.get(S + "lemma2").value(length=20, gamma=0.25) == 473 == cor81_k(20)
    assert bounds.get(S + "lemma2").value(length=1000, gamma=0.5) == lemma2_k(1000, Fraction(1, 2))
    assert lemma2_k(1000, Fraction(1, 2)) == 244
    assert bounds.get(S + "lemma2").value(length=3, gamma=0.75) == lemma2_k(3, Fraction(3, 4))
    assert bounds.get(S + "cor8_1").value(length=1) == cor81_k(1) == 89  # ceil(128 ln 2)
    assert bounds.get(S + "cor8_1").value(length=100) == cor81_k(100) == 679
    out = bounds.describe(S + "cor8_1", length=7)
    assert out["value"] == out["min_width"] == cor81_k(7)  # a construction's width


def test_thm1_embedding_width() -> None:
    # App. C.2: width ceil(log2 |Sigma|) + 2k, k of Cor 8.1 (spec erratum 5: log|Sigma| + 2k)
    thm1 = bounds.get(S + "thm1")
    assert thm1.value(length=20) == 473
    assert thm1.value(length=9) == cor81_k(9)
    for alphabet, bits in ((1, 0), (2, 1), (5, 3), (8, 3), (9, 4), (64, 6)):
        assert thm1.value(length=9, alphabet=alphabet) == bits + 2 * cor81_k(9)
    assert sep._ceillog2_exact(1) == 0 and sep._ceillog2_exact(1024) == 10
    assert sep._ceillog2_exact(1025) == 11


def test_rnn_linear_bounds() -> None:
    # Thm 2: mp bits; Thm 3 and Prop 9: m >= N/p; Thm 8: m >= N/(2p); Thm 11: mp >= N/2
    assert bounds.get(S + "thm2").value(width=3, precision=7) == 21
    assert bounds.get(S + "thm3").value(length=100, precision=8) == float(Fraction(100, 8))
    assert bounds.get(S + "thm3").value(length=96, precision=8) == 12
    assert bounds.get(S + "prop9").value(length=7, precision=2) == 3.5
    assert bounds.get(S + "thm8").value(length=100, precision=8) == float(Fraction(100, 16))
    assert bounds.get(S + "thm8").value(length=96, precision=3) == 16
    assert bounds.get(S + "thm11").value(length=1002) == 501


def test_thm4_closed_form_pinned() -> None:
    # Thm 4: 3 m (p + log2 N) H, log2 N exact at powers of two
    assert sep.thm4_closed_form(2, 8, 16) == 3 * 2 * (8 + 4) == 72
    assert sep.thm4_closed_form(5, 3, 1024, 4) == 3 * 5 * (3 + 10) * 4
    assert sep.thm4_closed_form(1, 1, 1) == 3
    assert sep.thm4_closed_form(2, 3, 400, 2) == pytest.approx(12 * (3 + math.log2(400)), 1e-15)
    thm4 = bounds.get(S + "thm4")
    assert thm4.value(width=2, precision=8, length=16, heads=3) == 3 * 2 * 12 * 3
    assert thm4.value(width=2, precision=8, length=16) == 72


@pytest.mark.parametrize(("m", "d", "p", "n", "h"), [(2, 5, 3, 16, 1), (4, 7, 5, 1024, 3)])
def test_thm4_itemised_steps(m: int, d: int, p: int, n: int, h: int) -> None:
    # App. D, spec erratum 1: d p + H (2p + 2 (p + log2 N) + 4 m p); x_N is sent once
    bits = sep.thm4_itemised(m, d, p, n, h)
    lg = log2_pow2(n)
    assert (bits.width, bits.model_dim, bits.precision, bits.length, bits.heads) == (
        m,
        d,
        p,
        n,
        h,
    )
    assert bits.query == d * p and bits.maximum == 2 * p * h
    assert bits.normaliser == 2 * (p + lg) * h and bits.values == 4 * m * p * h
    assert bits.total == d * p + h * (2 * p + 2 * (p + lg) + 4 * m * p)
    assert bits.closed_form == 3 * m * (p + lg) * h
    assert bits.breakdown() == {
        "step1_query_dp": d * p,
        "step2_max_2p_per_head": 2 * p * h,
        "step3_normaliser_2(p+logN)_per_head": 2 * (p + lg) * h,
        "step4_values_4mp_per_head": 4 * m * p * h,
        "total": bits.total,
    }
    assert all(type(v) is float for v in bits.breakdown().values())


def test_thm4_itemised_spec_example_and_default_heads() -> None:
    # spec erratum 1: m = d = 64, p = 32, N = 400, H = 1 gives 10,385.3 bits against 7,803.3
    bits = sep.thm4_itemised(64, 64, 32, 400)
    assert bits.heads == 1
    assert bits.total == pytest.approx(2048 + 64 + 2 * (32 + math.log2(400)) + 8192, 1e-15)
    assert bits.closed_form == pytest.approx(3 * 64 * (32 + math.log2(400)), 1e-15)


@pytest.mark.parametrize(
    ("m", "h", "p", "n", "frac", "alphabet"), [(3, 2, 8, 100, 2, 8), (1, 1, 5, 1024, 0, 3)]
)
def test_thm4_run_bits_two_way_and_single_output(
    m: int, h: int, p: int, n: int, frac: int, alphabet: int
) -> None:
    # two-way: ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2Hm(p + frac)
    two = sep.thm4_run_bits(m, h, p, n, frac=frac, alphabet=alphabet)
    query, sums = clog2(alphabet), p + clog2(n)
    assert list(two.items()) == [
        ("query_token", query),
        ("max_logit", 2 * h * p),
        ("partial_softmax_sums", 2 * h * sums),
        ("partial_value_sums", 2 * h * m * (p + frac)),
        ("total", query + 2 * h * p + 2 * h * sums + 2 * h * m * (p + frac)),
    ]
    # single-output: ceil(log2 V) + 2Hp + H(p + ceil(log2 N)) + Hp + Hm(p + frac)
    one = sep.thm4_run_bits(m, h, p, n, frac=frac, alphabet=alphabet, single_output=True)
    assert list(one.items()) == [
        ("query_token", query),
        ("max_logit", 2 * h * p),
        ("partial_softmax_sums", h * sums),
        ("softmax_sum", h * p),
        ("partial_value_sums", h * m * (p + frac)),
        ("total", query + 2 * h * p + h * sums + h * p + h * m * (p + frac)),
    ]


def test_thm4_run_bits_defaults() -> None:
    # frac defaults to p // 2 and the alphabet to 8 (3 bits); p = 7: frac 3
    assert sep.thm4_run_bits(2, 1, 7, 16) == sep.thm4_run_bits(2, 1, 7, 16, frac=3, alphabet=8)
    assert sep.thm4_run_bits(2, 1, 7, 16)["partial_value_sums"] == 2 * 2 * (7 + 3)
    assert sep.thm4_run_bits(2, 1, 7, 16)["query_token"] == 3
    assert sep.single_output_bits(2, 3, 4, 16, 4) == single_output(16, 2, 4, 3, 4)
    assert sep.single_output_bits(2, 3, 4, 16, 4) == 2 + 3 * (4 * 4 + 4 + 2 * 2 * 4)


@pytest.mark.parametrize(("m", "h", "p", "n", "alphabet"), [(3, 2, 8, 100, 8), (1, 1, 5, 2, 2)])
def test_thm4_held_bits(m: int, h: int, p: int, n: int, alphabet: int) -> None:
    # held at p bits: ceil(log2 V) + 2Hp + 2H(1 + m)(p + ceil(log2 N)) (two-way)
    sums = p + clog2(n)
    two = sep.thm4_held_bits(m, h, p, n, alphabet=alphabet)
    assert list(two.items()) == [
        ("query_token", clog2(alphabet)),
        ("max_logit", 2 * h * p),
        ("partial_softmax_sums", 2 * h * sums),
        ("partial_value_sums", 2 * h * m * sums),
        ("total", clog2(alphabet) + 2 * h * p + 2 * h * (1 + m) * sums),
    ]
    one = sep.thm4_held_bits(m, h, p, n, alphabet=alphabet, single_output=True)
    assert one["partial_softmax_sums"] == h * sums and one["partial_value_sums"] == h * m * sums
    assert one["total"] == held_single(n, m, p, h, alphabet)
    assert sep.held_single_output_bits(m, h, p, n, alphabet) == one["total"]
    assert sep.thm4_held_bits(m, h, p, n)["query_token"] == 3  # default alphabet 8


def test_thm4_outputs_pinned() -> None:
    out = bounds.describe(S + "thm4", width=3, precision=6, length=64, heads=2)
    itemised = sep.thm4_itemised(3, 6, 6, 64, 2)  # d defaults to m H = 6
    assert out["value"] == 3 * 3 * (6 + 6) * 2 == out["bits_closed_form"]
    assert out["bits_itemised"] == 6 * 6 + 2 * (12 + 2 * 12 + 4 * 3 * 6) == itemised.total
    assert out["itemised"] == itemised.breakdown()
    two = sep.thm4_run_bits(3, 2, 6, 64, frac=3, alphabet=8)
    one = sep.thm4_run_bits(3, 2, 6, 64, frac=3, alphabet=8, single_output=True)
    assert out["bits_two_way"] == two["total"] == 3 + 24 + 4 * 12 + 12 * 9
    assert out["bits_single_output"] == one["total"] == 3 + 24 + 2 * 12 + 12 + 6 * 9
    assert out["run_protocols"] == {"two_way": two, "single_output": one}
    assert out["run_settings"] == {"model_dim": 6, "alphabet": 8, "frac": 3}
    odd = bounds.describe(S + "thm4", width=1, precision=7, length=2)  # frac = 7 // 2 = 3
    assert odd["run_settings"] == {"model_dim": 1, "alphabet": 8, "frac": 3}
    assert type(odd["run_settings"]["frac"]) is int
    assert odd["bits_two_way"] == 3 + 14 + 2 * 8 + 2 * 10
    given = bounds.describe(
        S + "thm4", width=3, precision=6, length=64, model_dim=10, alphabet=2, frac=5
    )
    assert given["run_settings"] == {"model_dim": 10, "alphabet": 2, "frac": 5}
    assert given["bits_itemised"] == sep.thm4_itemised(3, 10, 6, 64, 1).total
    assert given["bits_two_way"] == 1 + 12 + 2 * 12 + 2 * 3 * 11
    assert given["bits_single_output"] == 1 + 12 + 12 + 6 + 3 * 11


def test_lemma1_lemma5_and_the_facts() -> None:
    assert bounds.get(S + "lemma1").value(length=2) == 1
    assert bounds.get(S + "lemma1").value(length=1000) == 999
    assert bounds.get(S + "lemma5").value(length=2) == 1
    assert bounds.get(S + "lemma5").value(length=50) == 25
    assert bounds.get(S + "cor13_1").value(length=2) == 2.0
    assert bounds.get(S + "cor13_1").value(length=10) == pytest.approx(10 / math.log2(10) ** 2)
    assert bounds.get(S + "fact4").value(size=1) == 0
    assert bounds.get(S + "fact4").value(size=2**40) == 40


def test_thm5_and_thm12_closed_forms() -> None:
    # Thm 5: mH >= (N - 1) / (3(p + log2 N));
    # Thm 12 (derived, spec Sec. 2 note): mH >= N / (6(p + log2 N))
    thm5, thm12 = bounds.get(S + "thm5"), bounds.get(S + "thm12")
    assert thm5.value(length=16, precision=4) == float(Fraction(15, 3 * 8))
    assert thm5.value(length=256, precision=9, heads=2) == float(Fraction(255, 3 * 17))
    assert thm12.value(length=64, precision=2) == float(Fraction(64, 6 * 8))
    assert thm12.value(length=1024, precision=6) == float(Fraction(1024, 6 * 16))
    # min_width_closed_form: least m with 3 m H (p + log2 N) >= N - 1 (resp. 6 m H (..) >= N)
    for n, p, h in ((64, 1, 1), (66, 1, 1), (256, 2, 3), (1024, 1, 2), (2, 1, 1)):
        lg = Fraction(log2_pow2(n)) if n & (n - 1) == 0 else None
        out5 = thm5.describe(length=n, precision=p, heads=h)["min_width_closed_form"]
        out12 = thm12.describe(length=n, precision=p, heads=h)["min_width_closed_form"]
        if lg is not None:
            assert out5 == next(m for m in range(1, 10**4) if 3 * m * h * (p + lg) >= n - 1)
            assert out12 == next(m for m in range(1, 10**4) if 6 * m * h * (p + lg) >= n)
    # N = 64, p = 1: 3 m (1 + 6) reaches 63 = N - 1 exactly at m = 3 (a tie)
    assert thm5.describe(length=64, precision=1)["min_width_closed_form"] == 3
    # N = 66 (log2 66 = 6.04): 3 * 3 * 7.04 = 63.4 < 65, so 4
    assert thm5.describe(length=66, precision=1)["min_width_closed_form"] == 4
    # N = 48, p = 2: 6 (2 + log2 48) = 45.5 < 48 <= 91.0, so 2
    assert thm12.describe(length=48, precision=2)["min_width_closed_form"] == 2


@pytest.mark.parametrize(
    ("theorem", "alphabet", "needed", "count"),
    [
        (S + "thm5", 4, lambda n: n - 1, single_output),
        (S + "thm12", 2, lambda n: n // 2, single_output),
        (S + "thm5_held", 4, lambda n: n - 1, held_single),
        (S + "thm12_held", 2, lambda n: n // 2, held_single),
    ],
)
def test_protocol_walls_against_brute_force(
    theorem: str, alphabet: int, needed: Callable[[int], int], count: Callable[..., int]
) -> None:
    b = bounds.get(theorem)
    for m in (1, 2, 3):
        for p in (1, 2, 5):
            for h in (1, 2):

                def ok(n: int, m: int = m, p: int = p, h: int = h) -> bool:
                    return count(n, m, p, h, alphabet) >= needed(n)

                assert b.max_length(m, p, h) == brute_max_even(ok, 1200), (m, p, h)
                for n in range(2, 80, 2):
                    assert b.allows(n, m, p, h) is ok(n)
    for n in (2, 10, 64, 66, 400):
        for p in (1, 16):
            w = b.min_width(n, p)
            assert count(n, w, p, 1, alphabet) >= needed(n)
            assert w == 1 or count(n, w - 1, p, 1, alphabet) < needed(n)


def test_held_values() -> None:
    assert bounds.get(S + "thm5_held").value(length=2) == 1
    assert bounds.get(S + "thm5_held").value(length=400) == 399
    assert bounds.get(S + "thm12_held").value(length=2) == 1
    assert bounds.get(S + "thm12_held").value(length=400) == 200


def test_thm6_thm7_thm13_widths() -> None:
    # Thm 6 (App. F.2, spec erratum 6): d = 2k + 3 (the paper prints 2 + 2k)
    assert bounds.get(S + "thm6").value(length=20) == 2 * 473 + 3
    assert bounds.get(S + "thm6").value(length=2) == 2 * cor81_k(2) + 3
    # Thm 7 (App. G.2, spec erratum 8): k = Lemma 2 at 2N codes and gamma/100; d = d' + 2 + 3k
    thm7 = bounds.get(S + "thm7")
    assert thm7.value(length=4, gamma=0.5) == lemma2_k(8, Fraction(1, 200))
    assert thm7.value(length=10, gamma=0.25, input_dim=3) == 5 + 3 * lemma2_k(20, Fraction(1, 400))
    assert thm7.value(length=10, gamma=0.25) == ceil_ln(Fraction(8 * 400**2), 40)
    # Thm 13 (App. F.3, spec 3.8): width 1 + (k + 1) r, codes T(0..N): r = ceil(128 ln(2(N + 1)))
    thm13 = bounds.get(S + "thm13")
    assert thm13.value(length=10, sparsity=2) == 1 + 3 * cor81_k(11) == 1189
    assert thm13.value(length=100, sparsity=5) == 1 + 6 * cor81_k(101)
    assert thm13.value(length=1, sparsity=1) == 1 + 2 * ceil_ln(Fraction(128), 4)


def test_lemma4_dfa_states() -> None:
    # Lemma 4 (spec erratum 4): mp >= log2 n, i.e. 2^(mp) >= n
    lemma4 = bounds.get(S + "lemma4")
    assert lemma4.value(states=1024) == 10 and lemma4.value(states=1) == 0
    assert lemma4.value(states=7) == pytest.approx(math.log2(7))
    for n, p, m in ((8, 1, 3), (9, 1, 4), (2**20, 8, 3), (2**20 + 1, 8, 3), (2**24 + 1, 8, 4)):
        assert lemma4.min_width(n, p) == m
        assert lemma4.allows(n, m, p) and (m == 1 or not lemma4.allows(n, m - 1, p))
    assert lemma4.allows(1, 1, 1) and lemma4.allows(2, 1, 1) and not lemma4.allows(3, 1, 1)


def test_linear_inversions_at_the_edge() -> None:
    # Thm 3 (m = 128, p = 64 in Sec. 6): N = 8192 allowed, 8193 not
    thm3 = bounds.get(S + "thm3")
    assert thm3.max_length(128, 64) == 8192
    assert thm3.allows(8192, 128, 64) and not thm3.allows(8193, 128, 64)
    thm8 = bounds.get(S + "thm8")
    assert thm8.max_length(3, 5) == 30 and thm8.allows(30, 3, 5) and not thm8.allows(31, 3, 5)
    thm11 = bounds.get(S + "thm11")
    assert thm11.max_length(3, 5) == 30 and not thm11.allows(32, 3, 5)
    assert bounds.get(S + "prop9").max_length(3, 5) == 15


# -- the exact inversion helpers ----------------------------------------------------------------


def test_last_true_in() -> None:
    for lo in (1, 5):
        for hi in (lo, lo + 1, lo + 7):
            for t in range(lo, hi + 1):
                got = sep.last_true_in(lambda x, t=t: x <= t, lo, hi)
                assert got == t and type(got) is int


@pytest.mark.parametrize(
    "needed",
    [
        lambda n: 100 * (n - 1),  # only N = 1 fits: the first interval is [1, 2]
        lambda n: n + 100,  # nothing fits: 0
        lambda n: 3 * n - 3,
        lambda n: n - 1,
    ],
)
def test_single_output_max_length_for_any_needed_bits(needed: Callable[[int], int]) -> None:
    # largest N (even N) with the protocol's bits >= needed(N), 0 when there is none
    for m, p, h in ((1, 1, 1), (2, 1, 1), (1, 3, 2)):

        def ok(n: int, m: int = m, p: int = p, h: int = h) -> bool:
            return single_output(n, m, p, h, 1) >= needed(n)

        for even in (False, True):
            got = sep.single_output_max_length(needed, 1, even=even)(m, p, h)
            odd_best = max((n for n in range(1, 400) if ok(n)), default=0)
            assert got == (brute_max_even(ok, 400) if even else odd_best), (m, p, h, even)
            assert type(got) is int


def test_single_output_max_length_odd_and_even() -> None:
    # the same search with odd lengths allowed: the largest N, even or not
    for alphabet in (2, 4):
        for m, p, h in ((1, 1, 1), (2, 3, 1), (1, 2, 2), (3, 1, 2)):

            def ok(n: int, m: int = m, p: int = p, h: int = h, a: int = alphabet) -> bool:
                return single_output(n, m, p, h, a) >= n - 1

            odd = sep.single_output_max_length(lambda n: n - 1, alphabet, even=False)
            even = sep.single_output_max_length(lambda n: n - 1, alphabet, even=True)
            assert odd(m, p, h) == max(n for n in range(1, 1200) if ok(n))
            assert even(m, p, h) == brute_max_even(ok, 1200)
    # m = p = h = 1, alphabet 4: 8 + ceil(log2 N) bits; N <= 8 + 4 + 1 = 13 on (8, 16]
    assert sep.single_output_max_length(lambda n: n - 1, 4, even=False)(1, 1, 1) == 13
    assert sep.single_output_max_length(lambda n: n - 1, 4, even=True)(1, 1, 1) == 12


def test_single_output_max_length_when_only_an_odd_length_fits_the_interval() -> None:
    # needed(N) = N - 8: bits at m = p = h = 1, alphabet 1: 0 + 2 + (1 + k) + 1 + 2 = 6 + k on
    # (2^(k-1), 2^k]: k = 4 gives N <= 18 -> 16 (all of (8, 16]); k = 5: N <= 19, (16, 32]: 17,
    # 18, 19 -> 18 even. With needed N - 7 at k = 5: N <= 18 -> 18; k = 6: 12 + 7 = 19 < 33.
    for c in range(0, 12):
        for m in (1, 2):

            def ok(n: int, c: int = c, m: int = m) -> bool:
                return single_output(n, m, 1, 1, 1) >= n - c

            for even in (False, True):
                got = sep.single_output_max_length(lambda n, c=c: n - c, 1, even=even)(m, 1, 1)
                want = (
                    brute_max_even(ok, 600)
                    if even
                    else max((n for n in range(1, 600) if ok(n)), default=0)
                )
                assert got == want, (c, m, even)


def test_the_unused_over_p_log_copy_agrees_with_the_formula() -> None:
    f = sep._over_p_log(1, 3)
    assert f(16, 4) == float(Fraction(15, 24)) and f(1, 1) == 0.0
    assert sep._over_p_log(0, 6)(64, 2) == float(Fraction(64, 48))


# -- limits and the messages users read ---------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sep.thm4_closed_form(0, 1, 1), r"^width m must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_closed_form(1, 0, 1), r"^precision p must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_closed_form(1, 1, 0), r"^length N must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_closed_form(1, 1, 1, 0), r"^heads H must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_itemised(0, 1, 1, 1), r"^width m must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_itemised(1, 0, 1, 1), r"^model dim d must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_itemised(1, 1, 0, 1), r"^precision p must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_itemised(1, 1, 1, 0), r"^length N must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_itemised(1, 1, 1, 1, 0), r"^heads H must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_run_bits(0, 1, 1, 1), r"^width m must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_run_bits(1, 0, 1, 1), r"^heads H must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_run_bits(1, 1, 0, 1), r"^precision p must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_run_bits(1, 1, 1, 0), r"^length N must be an integer >= 1, got 0$"),
        (
            lambda: sep.thm4_run_bits(1, 1, 1, 1, frac=-1),
            r"^frac must be an integer >= 0, got -1$",
        ),
        (
            lambda: sep.thm4_run_bits(1, 1, 1, 1, alphabet=0),
            r"^alphabet must be an integer >= 1, got 0$",
        ),
        (lambda: sep.thm4_held_bits(0, 1, 1, 1), r"^width m must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_held_bits(1, 0, 1, 1), r"^heads H must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_held_bits(1, 1, 0, 1), r"^precision p must be an integer >= 1, got 0$"),
        (lambda: sep.thm4_held_bits(1, 1, 1, 0), r"^length N must be an integer >= 1, got 0$"),
        (
            lambda: sep.thm4_held_bits(1, 1, 1, 1, alphabet=0),
            r"^alphabet must be an integer >= 1, got 0$",
        ),
    ],
)
def test_protocol_count_messages(call: Callable[[], object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()


def test_protocol_counts_at_their_least_arguments() -> None:
    # every count accepts 1 (and frac 0): the limits sit exactly at 1 and 0
    assert sep.thm4_closed_form(1, 1, 1, 1) == 3
    assert sep.thm4_itemised(1, 1, 1, 1, 1).total == 1 + 2 + 2 + 4
    assert sep.thm4_run_bits(1, 1, 1, 1, frac=0, alphabet=1)["total"] == 0 + 2 + 2 + 2
    assert sep.thm4_held_bits(1, 1, 1, 1, alphabet=1)["total"] == 0 + 2 + 2 + 2


def test_even_and_least_lengths() -> None:
    for theorem in ("lemma1", "thm5", "thm6", "thm11", "thm12", "lemma5"):
        b = bounds.get(S + theorem)
        assert b.even_length and b.min_length == 2
        with pytest.raises(InputError, match=rf"^{S}{theorem}: length N must be even .*got 7$"):
            b._length(7)
        with pytest.raises(InputError, match=r"length N must be an integer >= 2, got 0$"):
            b._length(0)
        assert b._length(2) == 2
    with pytest.raises(InputError, match=r"length N must be an integer >= 2, got 1$"):
        bounds.get(S + "cor13_1").value(length=1)
