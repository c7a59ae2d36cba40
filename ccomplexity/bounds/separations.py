"""Bounds of Bhattamishra et al., "Separations in the Representational Capabilities of
Transformers and Recurrent Architectures" (spec ``separations-transformers-rnns``, Sec. 2).

Every statement with a bound (Thm 1-8, 10-13, Prop 9, Lemmas 1, 2, 4, 5, Cor 8.1, 13.1, Facts 1-4),
and the accounting of Theorem 4's protocol: the paper's closed form 3 m (p + log N) H, its four
steps itemised, and the bits of the two protocols ``ccx protocol attention`` runs (two-way, and
the cheaper single-output variant on which the widths of Thm 5 and Thm 12 rest).

The module is longer than most by design: one module per paper, and the paper has 22 statements,
each a data entry with its statement, citation, formula and errata; two more state Thm 5 and
Thm 12 for one-layer transformers trained at p bits, against the protocol such a model runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ccomplexity.bounds.base import (
    Bound,
    as_number,
    first_true,
    log_allows,
    over_p_log,
)
from ccomplexity.codes import paper_k
from ccomplexity.errors import check_int
from ccomplexity.integers import ceil_log2, log2_exact

# -- Theorem 4 protocol accounting --------------------------------------------------------------


def thm4_closed_form(m: int, p: int, n: int, h: int = 1) -> float:
    """Theorem 4's stated protocol length, 3 m (p + log2 N) H bits (Sec. 4, App. D)."""
    m, p, n, h = (
        check_int(m, "width m"),
        check_int(p, "precision p"),
        check_int(n, "length N"),
        check_int(h, "heads H"),
    )
    return 3 * m * (p + log2_exact(n)) * h


@dataclass(frozen=True)
class Thm4Bits:
    """Bits the Theorem 4 protocol sends, step by step (App. D; spec Sec. 3.5, erratum 1).

    Step 1 (``query``, once): Alice sends x_N, d p bits.  Per head: step 2 (``maximum``) both
    local maxima of the logits, 2p; step 3 (``normaliser``) the partial softmax sums Z_A, Z_B
    in [0, N], 2 (p + log2 N); step 4 (``values``) the partial sums U_A, U_B of m coordinates at
    2p bits each, 4 m p.  ``closed_form`` is the paper's 3 m (p + log2 N) H for comparison.
    log2 N is real-valued as in the paper; an actual bit string needs ceil(log2 N) there.
    """

    width: int
    model_dim: int
    precision: int
    length: int
    heads: int
    query: float
    maximum: float
    normaliser: float
    values: float
    total: float
    closed_form: float

    def breakdown(self) -> dict[str, float]:
        """Per-step bit counts (all heads) plus the total, JSON-ready."""
        return {
            "step1_query_dp": self.query,
            "step2_max_2p_per_head": self.maximum,
            "step3_normaliser_2(p+logN)_per_head": self.normaliser,
            "step4_values_4mp_per_head": self.values,
            "total": self.total,
        }


def thm4_itemised(m: int, d: int, p: int, n: int, h: int = 1) -> Thm4Bits:
    """What the Theorem 4 protocol actually sends: d p + H (2p + 2(p + log2 N) + 4 m p) bits.

    This exceeds the stated 3 m (p + log2 N) H when d ~ m and log2 N < 2p/3 (spec erratum 1):
    m = d = 64, p = 32, N = 400, H = 1 gives 10,385.3 bits against 7,803.3.  Both are
    O(m (p + log N) H), so the asymptotic consequences (Thm 5, Thm 12) are unaffected.
    Step 1 is counted once since x_N serves every head.
    """
    m, d = check_int(m, "width m"), check_int(d, "model dim d")
    p, n, h = check_int(p, "precision p"), check_int(n, "length N"), check_int(h, "heads H")
    query = float(d * p)
    maximum = float(2 * p * h)
    normaliser = float(2 * (p + log2_exact(n)) * h)
    values = float(4 * m * p * h)
    return Thm4Bits(
        width=m,
        model_dim=d,
        precision=p,
        length=n,
        heads=h,
        query=query,
        maximum=maximum,
        normaliser=normaliser,
        values=values,
        total=query + maximum + normaliser + values,
        closed_form=float(thm4_closed_form(m, p, n, h)),
    )


def thm4_run_bits(
    m: int,
    h: int,
    p: int,
    n: int,
    *,
    frac: int | None = None,
    alphabet: int = 8,
    single_output: bool = False,
) -> dict[str, int]:
    """Bits the Theorem 4 protocols of ``ccx protocol attention`` send, per step and in total.

    Both run on the p-bit grid with ``frac`` fractional bits (default p // 2) and reproduce the
    one-layer model's output exactly (``simulations.protocols.attention``). The holder of the
    query position N sends its token, ceil(log2 |alphabet|) bits; per head, both local maxima of
    the logits cross (2p); an exact partial softmax sum in [0, N] takes p + ceil(log2 N) bits and
    an exact partial value sum p + frac bits per coordinate (m per head).

    * two-way (``single_output=False``, both parties output): both partial softmax sums and both
      value sums cross: ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2Hm(p + frac).
    * single-output: only the holder of N outputs; the other party sends its softmax sum, receives
      the total Z on the grid (p bits; it rounds each weight with Z as the model does) and sends
      its value sums: ceil(log2 V) + 2Hp + H(p + ceil(log2 N)) + Hp + Hm(p + frac).
    """
    m, h, p, n = (check_int(m, "width m"), check_int(h, "heads H"), check_int(p, "precision p"),
                  check_int(n, "length N"))  # fmt: skip
    frac = p // 2 if frac is None else check_int(frac, "frac", 0)
    ways = 1 if single_output else 2
    steps = {
        "query_token": ceil_log2(check_int(alphabet, "alphabet")),
        "max_logit": 2 * h * p,
        "partial_softmax_sums": ways * h * (p + ceil_log2(n)),
    }
    if single_output:
        steps["softmax_sum"] = h * p
    steps["partial_value_sums"] = ways * h * m * (p + frac)
    steps["total"] = sum(steps.values())
    return steps


def single_output_bits(m: int, h: int, p: int, n: int, alphabet: int) -> int:
    """The single-output protocol's bits with every value sum at its widest (frac <= p): what a
    lower bound may rest on whatever grid the model uses."""
    return thm4_run_bits(m, h, p, n, frac=p, alphabet=alphabet, single_output=True)["total"]


def thm4_held_bits(
    m: int, h: int, p: int, n: int, *, alphabet: int = 8, single_output: bool = False
) -> dict[str, int]:
    """Bits the Theorem 4 protocols send for a one-layer transformer trained at p bits, which
    holds its logits, softmax numerators and value terms on a p-bit message grid
    (``models.transformer.Transformer.held_attention``; ``ccx protocol attention`` on its
    checkpoint). The query's token crosses (ceil(log2 |alphabet|)); per head both local maxima
    (2p: a maximum of grid values is one); each partial sum of at most N codes of p bits is exact
    in p + ceil(log2 N) bits: the softmax sum Z_S and the m coordinates of the value sum U_S.

    * two-way: ceil(log2 V) + 2Hp + 2H(1 + m)(p + ceil(log2 N));
    * single-output (the holder of N alone outputs): ceil(log2 V) + 2Hp + H(1 + m)(p +
      ceil(log2 N)).
    """
    m, h, p, n = (check_int(m, "width m"), check_int(h, "heads H"), check_int(p, "precision p"),
                  check_int(n, "length N"))  # fmt: skip
    ways = 1 if single_output else 2
    sums = p + ceil_log2(n)
    steps = {
        "query_token": ceil_log2(check_int(alphabet, "alphabet")),
        "max_logit": 2 * h * p,
        "partial_softmax_sums": ways * h * sums,
        "partial_value_sums": ways * h * m * sums,
    }
    steps["total"] = sum(steps.values())
    return steps


def held_single_output_bits(m: int, h: int, p: int, n: int, alphabet: int) -> int:
    """:func:`thm4_held_bits` of the single-output protocol."""
    return thm4_held_bits(m, h, p, n, alphabet=alphabet, single_output=True)["total"]


def single_output_max_length(
    needed: Callable[[int], int],
    alphabet: int,
    even: bool,
    protocol_bits: Callable[[int, int, int, int, int], int] = single_output_bits,
) -> Callable[[int, int, int], int]:
    """Exact largest N with protocol_bits(m, H, p, N, alphabet) >= needed(N), N even if
    ``even`` (the single-output protocol's bits: :func:`single_output_bits`, or
    :func:`held_single_output_bits` for a model trained at p bits).

    The bits grow by H each time ceil(log2 N) does, so the predicate is not monotone in N; but
    on each (2^(k-1), 2^k] the bits are constant while needed(N) grows, and once 2^(k-1) beats
    the bits (exponential against linear in k) no later interval has a solution.
    """

    def max_length(m: int, p: int, h: int) -> int:
        best, k = 0, 1
        while True:
            lo, hi = (1 if k == 1 else 2 ** (k - 1) + 1), 2**k
            bits = protocol_bits(m, h, p, hi, alphabet)
            if needed(lo) > bits:  # the whole interval and every later one are ruled out
                return best
            top = last_true_in(lambda x, bits=bits: needed(x) <= bits, lo, hi)
            if even and top % 2:
                top -= 1  # may leave the interval: then it has no even solution
            if top >= lo:
                best = max(best, top)
            k += 1

    return max_length


def last_true_in(pred: Callable[[int], bool], lo: int, hi: int) -> int:
    """Largest x in [lo, hi] with pred(x), for pred true at lo and monotone (true, then false)."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _thm4_outputs(
    width: int,
    precision: int,
    length: int,
    heads: int = 1,
    model_dim: int | None = None,
    alphabet: int = 8,
    frac: int | None = None,
) -> dict[str, object]:
    d = width * heads if model_dim is None else model_dim
    itemised = thm4_itemised(width, d, precision, length, heads)
    two_way = thm4_run_bits(width, heads, precision, length, frac=frac, alphabet=alphabet)
    single = thm4_run_bits(
        width, heads, precision, length, frac=frac, alphabet=alphabet, single_output=True
    )
    return {
        "bits_closed_form": itemised.closed_form,
        "bits_itemised": itemised.total,
        "itemised": itemised.breakdown(),
        "bits_two_way": two_way["total"],
        "bits_single_output": single["total"],
        "run_protocols": {"two_way": two_way, "single_output": single},
        "run_settings": {
            "model_dim": d,
            "alphabet": alphabet,
            "frac": precision // 2 if frac is None else frac,
        },
    }


# -- value formulas -----------------------------------------------------------------------------

DYCK_ALPHABET = 4  # ( ) [ ]: the query token of Dyck-(2,2) takes 2 bits
SINGLE_OUTPUT_NOTE = (
    "the single-output Theorem 4 protocol that ccx protocol attention --single-output runs: "
    "ceil(log2 {alphabet}) + H(4p + ceil(log2 N) + 2mp) bits (value sums at frac <= p), at least "
    "{needed}; min_width_closed_form is the paper's 3m(p + log N)H form"
)
_COR81_GAMMA = 0.25  # Corollary 8.1: diagonal >= 3/4, off-diagonal <= 1/4


def _ceillog2_exact(s: int) -> int:
    return (s - 1).bit_length()  # ceil(log2 s) for s >= 1, exactly


def _thm1_value(length: int, alphabet: int | None = None) -> int:
    k = paper_k(length, _COR81_GAMMA)
    return k if alphabet is None else _ceillog2_exact(alphabet) + 2 * k


def _thm6_value(length: int) -> int:
    return 2 * paper_k(length, _COR81_GAMMA) + 3


def _thm7_value(length: int, gamma: float, input_dim: int | None = None) -> int:
    # T(1..2N) with |<T(i),T(j)> - delta_ij| <= gamma/100: Lemma 2 at 2N vectors and gamma/100
    k = paper_k(2 * length, gamma / 100)
    return k if input_dim is None else input_dim + 2 + 3 * k


def _thm13_value(length: int, sparsity: int) -> int:
    r = paper_k(length + 1, _COR81_GAMMA)  # codes T(0..N), T(0) for [BOS]
    return 1 + (sparsity + 1) * r


def _over_p_log(c: int, scale: int) -> Callable[..., float]:
    """(N - c) / (scale (p + log2 N)) as a float."""
    return lambda length, precision: (length - c) / (scale * (precision + log2_exact(length)))


BOUNDS: tuple[Bound, ...] = (
    Bound(
        id="separations.lemma2",
        name="Lemma 2 (near-orthogonal sign codes)",
        statement=(
            "For every N there are N vectors in k = O(log N / gamma^2) dimensions with entries "
            "±1/sqrt(k), <T_i,T_i> >= 1 - gamma and <T_i,T_j> <= gamma for i != j; the proof "
            "gives k = ceil(8 ln(2N) / gamma^2)."
        ),
        citation="App. B.3, Lemma 2",
        formula="k = ceil(8 ln(2N) / gamma^2)",
        kind="upper",
        value_is_width=True,
        architecture="codes",
        task="near-orthogonal vectors",
        quantity="code width k",
        value_params=("length", "gamma"),
        _value=lambda length, gamma: paper_k(length, gamma),
        notes="The exact Hoeffding constant would give k = 4 ln(2N)/gamma^2 (spec erratum 9).",
    ),
    Bound(
        id="separations.cor8_1",
        name="Corollary 8.1 (codes with margin 1/4)",
        statement=(
            "For every N there are N vectors in k = O(log N) dimensions with entries ±1/sqrt(k), "
            "<T(i),T(i)> >= 3/4 and <T(i),T(j)> <= 1/4 for i != j (Lemma 2 with gamma = 1/4)."
        ),
        citation="App. B.3, Corollary 8.1",
        formula="k = ceil(128 ln(2N))",
        kind="upper",
        value_is_width=True,
        architecture="codes",
        task="near-orthogonal vectors",
        quantity="code width k",
        value_params=("length",),
        _value=lambda length: paper_k(length, _COR81_GAMMA),
    ),
    Bound(
        id="separations.thm1",
        name="Theorem 1 (1-layer Transformer for Index Lookup)",
        statement=(
            "For every N there is a 1-layer Transformer of width m = O(log N) and precision "
            "p = O(log N) that solves Index Lookup on all inputs of length at most N."
        ),
        citation="Sec. 3, Theorem 1; App. C.2",
        formula="k = ceil(128 ln(2N)) (Cor 8.1); width = ceil(log2 |Sigma|) + 2k",
        kind="upper",
        value_is_width=True,
        architecture="transformer-1layer",
        task="IdxL",
        quantity="code width k, or the embedding width ceil(log2|Sigma|) + 2k given alphabet",
        value_params=("length",),
        optional_params=("alphabet",),
        _value=_thm1_value,
    ),
    Bound(
        id="separations.thm2",
        name="Theorem 2 (RNNs give one-way protocols)",
        statement=(
            "If an RNN whose hidden state has m units of p bits computes f on Sigma^N, then for "
            "every split K < N Alice (s_1..s_K) can send Bob (s_K+1..s_N) h_K, mp bits, one way."
        ),
        citation="Sec. 3, Theorem 2",
        formula="bits = m p (one-way, contiguous split)",
        kind="upper",
        architecture="rnn",
        task="any f: Sigma^N -> {0,1}",
        quantity="bits sent",
        value_params=("width", "precision"),
        _value=lambda width, precision: width * precision,
    ),
    Bound(
        id="separations.thm3",
        name="Theorem 3 (RNNs need width N/p for Index Lookup)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision that solves Index "
            "Lookup on all length-N sequences has m >= N/p."
        ),
        citation="Sec. 3, Theorem 3; App. C.1 (example m = 128, p = 64 in Sec. 6)",
        formula="m >= N / p  (mp >= N)",
        kind="lower",
        architecture="rnn",
        task="IdxL",
        quantity="required width m",
        value_params=("length", "precision"),
        _value=lambda length, precision: as_number(Fraction(length, precision)),
        _allows=lambda n, m, p, h: m * p >= n,
        bounds_length=True,
        notes="N counts the symbols before the index token.",
    ),
    Bound(
        id="separations.thm4",
        name="Theorem 4 (1-layer Transformers give short protocols)",
        statement=(
            "For a 1-layer Transformer in TF^1_{m,p,H} on length-N inputs and any partition "
            "S_A, S_B of [N], Alice and Bob compute its output with 3m(p + log N)H bits."
        ),
        citation="Sec. 4, Theorem 4; App. D",
        formula=(
            "bits <= 3 m (p + log2 N) H; itemised: d p + H (2p + 2(p + log2 N) + 4 m p) "
            "(spec erratum 1)"
        ),
        kind="upper",
        architecture="transformer-1layer",
        task="any f computed by TF^1_{m,p,H}, any partition",
        quantity="bits sent, closed form (outputs: the itemised count and the run protocols)",
        value_params=("width", "precision", "length"),
        optional_params=("heads", "model_dim", "alphabet", "frac"),
        _value=lambda width, precision, length, heads=1, **_: thm4_closed_form(
            width, precision, length, heads
        ),
        _outputs=_thm4_outputs,
        uses_heads=True,
        notes="The itemised steps exceed the closed form when d ~ m and log N < 2p/3.",
    ),
    Bound(
        id="separations.lemma1",
        name="Lemma 1 (Dyck-(2,2) with the odd/even split)",
        statement=(
            "If Alice holds the odd and Bob the even positions of s in Sigma^N, deciding "
            "s in Dyck-(2,2) needs at least N - 1 bits (fooling set of all 2^(N-1) members)."
        ),
        citation="Sec. 4.1, Lemma 1; App. E",
        formula="D >= N - 1 bits",
        kind="lower",
        architecture="protocol",
        task="Dyck-(2,2), odd/even partition",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length - 1,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.thm5",
        name="Theorem 5 / 10 (1-layer Transformers on Dyck-(2,2))",
        statement=(
            "A 1-layer Transformer in TF^1_{m,p,H} deciding Dyck-(2,2) on length N has "
            "mH >= (N - 1) / (3(p + log N)) (Theorem 10 restates it with d for m)."
        ),
        citation="Sec. 4.1, Theorem 5; App. E, Theorem 10",
        formula="m H >= (N - 1) / (3 (p + log2 N))",
        kind="lower",
        architecture="transformer-1layer",
        task="Dyck-(2,2)",
        quantity="required m H",
        value_params=("length", "precision"),
        optional_params=("heads",),
        _value=lambda length, precision, heads=1: over_p_log(1, 3)(length, precision),
        _allows=lambda n, m, p, h: single_output_bits(m, h, p, n, DYCK_ALPHABET) >= n - 1,
        _max_length=single_output_max_length(lambda n: n - 1, DYCK_ALPHABET, even=True),
        _outputs=lambda length, precision, heads=1: {
            "min_width_closed_form": first_true(
                lambda m: log_allows(3 * m * heads, precision, length, 1)
            )
        },
        width_note=SINGLE_OUTPUT_NOTE.format(needed="N - 1 (Lemma 1)", alphabet=DYCK_ALPHABET),
        bounds_length=True,
        uses_heads=True,
        even_length=True,
        min_length=2,
        aliases=("separations.thm10",),
        notes="Lemma 1 + Theorem 4 (the paper's Sec. 4.1 says 'Lemmas 4 and 1', spec erratum 2).",
    ),
    Bound(
        id="separations.thm6",
        name="Theorem 6 (2-layer Transformer for Equality)",
        statement=(
            "For every N there is a 2-layer Transformer in TF^2_{m,p,2} with m = O(log N) and "
            "p = O(log N) computing EQ on {0,1}^N; its total size is O((log N)^3)."
        ),
        citation="Sec. 5.1, Theorem 6; App. F.2",
        formula="width d = 2k + 3, k = ceil(128 ln(2N)) (paper prints d = 2 + 2k)",
        kind="upper",
        value_is_width=True,
        architecture="transformer-2layer",
        task="EQ",
        quantity="embedding width 2k + 3",
        value_params=("length",),
        _value=_thm6_value,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.thm7",
        name="Theorem 7 (2-layer Transformer for Nearest Neighbour)",
        statement=(
            "For every N there is a 2-layer Transformer in TF^2_{m,p,2} with m = O(log N) and "
            "p = O(log N) solving NstNb on all length <= N inputs meeting the margin assumption."
        ),
        citation="Sec. 5.2, Theorem 7; App. G.2",
        formula="k = ceil(8 ln(4N) / (gamma/100)^2); width d = d' + 2 + 3k",
        kind="upper",
        value_is_width=True,
        architecture="transformer-2layer",
        task="NstNb",
        quantity="code width k, or the width d' + 2 + 3k given input_dim d'",
        value_params=("length", "gamma"),
        optional_params=("input_dim",),
        _value=_thm7_value,
        notes="k is O(log N) only for constant margin gamma (spec erratum 8).",
    ),
    Bound(
        id="separations.thm8",
        name="Theorem 8 (RNNs need width N/(2p) for Nearest Neighbour)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision that solves NstNb on "
            "all length-N inputs has m >= N/(2p) (via Disj on N/2 bits through MQAR)."
        ),
        citation="Sec. 5.2, Theorem 8; App. G.1",
        formula="m >= N / (2p)  (2mp >= N)",
        kind="lower",
        architecture="rnn",
        task="NstNb",
        quantity="required width m",
        value_params=("length", "precision"),
        _value=lambda length, precision: as_number(Fraction(length, 2 * precision)),
        _allows=lambda n, m, p, h: 2 * m * p >= n,
        bounds_length=True,
    ),
    Bound(
        id="separations.prop9",
        name="Proposition 9 (RNNs need width N/p for associative recall)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision that solves single-"
            "query associative recall on N key-value pairs has m >= N/p."
        ),
        citation="App. C.1, Proposition 9 (proof says 'at most', spec erratum 3)",
        formula="m >= N / p  (mp >= N)",
        kind="lower",
        architecture="rnn",
        task="associative recall",
        quantity="required width m",
        value_params=("length", "precision"),
        _value=lambda length, precision: as_number(Fraction(length, precision)),
        _allows=lambda n, m, p, h: m * p >= n,
        bounds_length=True,
        notes="N counts key-value pairs; the sequence x_1 y_1 .. x_N y_N x_q has 2N + 1 tokens.",
    ),
    Bound(
        id="separations.lemma4",
        name="Lemma 4 (RNNs as DFAs)",
        statement=(
            "If an RNN with a time-invariant update agrees with a DFA whose minimal form has n "
            "states on all of Sigma^*, its state size satisfies mp >= log n."
        ),
        citation="App. F.1, Lemma 4 (proof writes m < log n, spec erratum 4)",
        formula="m p >= log2 n  (2^(mp) >= n)",
        kind="lower",
        architecture="rnn",
        task="regular language with n-state minimal DFA",
        quantity="required state bits mp",
        value_params=("states",),
        _value=lambda states: log2_exact(states),
        _allows=lambda n, m, p, h: _ceillog2_exact(n) <= m * p,  # 2^(mp) >= n, in integers
        length_name="n (DFA states)",
        notes="Dyck-(2,2) has 7 live states (8 with the sink), spec erratum 10.",
    ),
    Bound(
        id="separations.thm11",
        name="Theorem 11 (RNNs on INEQ)",
        statement=(
            "Any recurrent model with hidden width m and p-bit precision computing INEQ on "
            "{0,1}^N has mp >= N/2 (EQ on N/2-bit halves, Fact 2)."
        ),
        citation="App. F.1, Theorem 11",
        formula="m p >= N / 2",
        kind="lower",
        architecture="rnn",
        task="INEQ",
        quantity="required state bits mp",
        value_params=("length",),
        _value=lambda length: length // 2,
        _allows=lambda n, m, p, h: 2 * m * p >= n,
        bounds_length=True,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.thm12",
        name="Theorem 12 (1-layer Transformers on INEQ), explicit form",
        statement=(
            "A 1-layer Transformer of width m, H heads and p-bit precision computing INEQ on "
            "{0,1}^N has mpH = Omega(N); explicitly mH >= N / (6(p + log N)) from Thm 4 + Fact 2."
        ),
        citation="App. F.1, Theorem 12 (explicit form derived, spec Sec. 2 note)",
        formula="m H >= N / (6 (p + log2 N))  (3m(p + log2 N)H >= N/2)",
        kind="lower",
        architecture="transformer-1layer",
        task="INEQ",
        quantity="required m H",
        value_params=("length", "precision"),
        optional_params=("heads",),
        _value=lambda length, precision, heads=1: over_p_log(0, 6)(length, precision),
        _allows=lambda n, m, p, h: single_output_bits(m, h, p, n, 2) >= n // 2,
        _max_length=single_output_max_length(lambda n: n // 2, 2, even=True),
        _outputs=lambda length, precision, heads=1: {
            "min_width_closed_form": first_true(
                lambda m: log_allows(6 * m * heads, precision, length, 0)
            )
        },
        width_note=SINGLE_OUTPUT_NOTE.format(needed="N / 2 (Fact 2)", alphabet=2),
        bounds_length=True,
        uses_heads=True,
        even_length=True,
        min_length=2,
        derived=True,
        notes="The paper states only mpH = Omega(N); the constant is Theorem 4's 3m(p+logN)H.",
    ),
    Bound(
        id="separations.thm13",
        name="Theorem 13 (2-layer Transformers for thresholds of k-sparse features)",
        statement=(
            "For every N and h in Thres_{k,N} there is a 2-layer Transformer with k heads, width "
            "m = O(log N) and precision p = O(log N) equal to h on {0,1}^N."
        ),
        citation="App. F.3, Theorem 13",
        formula="width = 1 + (k + 1) r, r = ceil(128 ln(2(N + 1))) (codes T(0..N))",
        kind="upper",
        value_is_width=True,
        architecture="transformer-2layer",
        task="Thres_{k,N}",
        quantity="embedding width 1 + (k + 1) r",
        value_params=("length", "sparsity"),
        _value=_thm13_value,
    ),
    Bound(
        id="separations.lemma5",
        name="Lemma 5 (a 2-layer Transformer hard for every balanced partition)",
        statement=(
            "For every balanced partition S_A, S_B of [N] there is a 2-layer Transformer of "
            "width O(log N) and precision O(log N) whose output needs >= N/2 bits to compute."
        ),
        citation="App. F.4, Lemma 5",
        formula="D >= N / 2 bits",
        kind="lower",
        architecture="protocol",
        task="f_{S_A,S_B} (EQ of x_{S_A} and x_{S_B})",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length // 2,
        even_length=True,
        min_length=2,
    ),
    Bound(
        id="separations.cor13_1",
        name="Corollary 13.1 (no Theorem-4-style protocol for 2-layer Transformers)",
        statement=(
            "A protocol computing every 2-layer Transformer over every partition with "
            "O(mpH g(N)) bits must have g(N) = Omega(N / (log N)^2)."
        ),
        citation="App. F.4, Corollary 13.1",
        formula="g(N) = Omega(N / (log2 N)^2)",
        kind="lower",
        architecture="protocol",
        task="simulating 2-layer Transformers",
        quantity="N / (log2 N)^2, the order of g(N) (constants hidden)",
        value_params=("length",),
        _value=lambda length: length / log2_exact(length) ** 2,
        min_length=2,
    ),
    Bound(
        id="separations.fact1",
        name="Fact 1 (Disjointness)",
        statement=(
            "Computing Disj(a, b) = max_i a_i b_i for a, b in {0,1}^N needs at least N bits "
            "deterministically; randomised complexity is Omega(N)."
        ),
        citation="App. B.1, Fact 1",
        formula="D(Disj_N) >= N bits",
        kind="fact",
        architecture="protocol",
        task="Disj",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length,
        notes="N is the length of each party's string.",
    ),
    Bound(
        id="separations.fact2",
        name="Fact 2 (Equality)",
        statement=(
            "Computing EQ(a, b) = [a = b] for a, b in {0,1}^N needs at least N bits "
            "deterministically (randomised O(log N))."
        ),
        citation="App. B.1, Fact 2",
        formula="D(EQ_N) >= N bits",
        kind="fact",
        architecture="protocol",
        task="EQ",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length,
        notes="N is the length of each party's string; INEQ on {0,1}^N is EQ on N/2 bits.",
    ),
    Bound(
        id="separations.fact3",
        name="Fact 3 (Index)",
        statement=(
            "With a in {0,1}^N for Alice and b in [N] for Bob, any one-way protocol from Alice "
            "to Bob computing a_b needs N bits (randomised one-way Omega(N))."
        ),
        citation="App. B.1, Fact 3",
        formula="D^{A->B}(Index_N) >= N bits",
        kind="fact",
        architecture="protocol",
        task="Index",
        quantity="bits",
        value_params=("length",),
        _value=lambda length: length,
        notes="Two-way, log N bits suffice (Bob sends b).",
    ),
    Bound(
        id="separations.fact4",
        name="Fact 4 (fooling sets)",
        statement="If f has a fooling set S (Definition 1), then C(f) >= log2 |S|.",
        citation="App. E, Definition 1 and Fact 4",
        formula="C(f) >= log2 |S|",
        kind="fact",
        architecture="protocol",
        task="any f with a fooling set",
        quantity="bits",
        value_params=("size",),
        _value=lambda size: log2_exact(size),
    ),
    # -- the lower bounds of one-layer transformers trained at p bits -------------------------
    # A model that holds Thm 4's numbers on a p-bit message grid while it trains *is* the
    # protocol of thm4_held_bits, so its walls are Lemma 1's and Fact 2's bits against that
    # protocol's: exact, with no gap between the trained model and the statement.
    Bound(
        id="separations.thm5_held",
        name="Theorem 5 for 1-layer Transformers trained at p bits (Dyck-(2,2))",
        statement=(
            "A 1-layer Transformer whose logits, softmax numerators and value terms are held on "
            "a p-bit grid, deciding Dyck-(2,2) on length N, has a single-output Theorem 4 "
            "protocol of ceil(log2 4) + 2Hp + H(1 + m)(p + ceil(log2 N)) bits, at least N - 1."
        ),
        citation="Sec. 4.1, Theorem 5 (Lemma 1 + Theorem 4), for the protocol a model held at "
        "p bits runs (not in the paper as such)",
        formula="2 + 2Hp + H (1 + m)(p + ceil(log2 N)) >= N - 1",
        kind="lower",
        architecture="transformer-1layer",
        task="Dyck-(2,2)",
        quantity="bits of the held protocol",
        value_params=("length",),
        _value=lambda length: length - 1,
        _allows=lambda n, m, p, h: held_single_output_bits(m, h, p, n, DYCK_ALPHABET) >= n - 1,
        _max_length=single_output_max_length(
            lambda n: n - 1, DYCK_ALPHABET, even=True, protocol_bits=held_single_output_bits
        ),
        bounds_length=True,
        uses_heads=True,
        even_length=True,
        min_length=2,
        derived=True,
        notes="m is the width per head; the value is the N - 1 bits Lemma 1 forces.",
    ),
    Bound(
        id="separations.thm12_held",
        name="Theorem 12 for 1-layer Transformers trained at p bits (equality)",
        statement=(
            "A 1-layer Transformer whose logits, softmax numerators and value terms are held on "
            "a p-bit grid, computing EQ of two halves of N/2 bits, has a single-output Theorem 4 "
            "protocol of ceil(log2 2) + 2Hp + H(1 + m)(p + ceil(log2 N)) bits, at least N/2."
        ),
        citation="App. F.1, Theorem 12 (Theorem 4 + Fact 2), for the protocol a model held at "
        "p bits runs (not in the paper as such)",
        formula="1 + 2Hp + H (1 + m)(p + ceil(log2 N)) >= N / 2",
        kind="lower",
        architecture="transformer-1layer",
        task="INEQ",
        quantity="bits of the held protocol",
        value_params=("length",),
        _value=lambda length: length // 2,
        _allows=lambda n, m, p, h: held_single_output_bits(m, h, p, n, 2) >= n // 2,
        _max_length=single_output_max_length(
            lambda n: n // 2, 2, even=True, protocol_bits=held_single_output_bits
        ),
        bounds_length=True,
        uses_heads=True,
        even_length=True,
        min_length=2,
        derived=True,
        notes="m is the width per head; the value is the N/2 bits Fact 2 forces.",
    ),
)
