"""Bounds of "Mixture of Parrots: Mixtures of experts improve memorization more than reasoning"
(spec ``mixture-of-parrots``): Thm 3.1 / Lemma A.3 / Thm A.4, Thm 3.2, Cor 3.3, Thm 3.4, Thm 3.5,
Lemmas A.7-A.9 and Thms A.10-A.12, with the parameter accounting of the paper's one-layer class.

Names follow the main text (examples n, length N, dimension m; see
:mod:`ccomplexity.languages.memorization` for App. A.2's). Logs are base 2 except where a
lemma writes ln.

**Thm 3.1 (one-way protocol).** A one-layer model f in Transformer^N_{m,H,1,K} that solves
length-2 path on |V| items is a one-way protocol for DISJ_|V| (Lemma A.2): Alice sends, per head,
her partial softmax sum Z_{h,A} and partial value sum L_{h,A} (m numbers), H(m + 1) numbers;
Bob adds his and the fixed positions' parts, divides, routes and applies the chosen expert. The
one-way complexity of DISJ_r is exactly r bits (its 2^r rows are distinct), so
H(m + 1) p >= |V| with p the bits of one number: the paper's count. The protocol that
``ccx protocol attention --one-way --task length2-path`` runs sends the sums *exactly*, each a
sum of |A| grid values of p bits: Z in p - 1 + ceil(log2 |A|) bits, each coordinate of L in
p + ceil(log2 |A|) bits (:func:`one_way_bits`); ``min_width_run_protocol`` inverts that count.

**Memorisers (App. A.2).** Thm A.10 (one ReLU layer), A.11 (its dense one-layer transformer)
and A.12 (the MoE one, with the bits per parameter made explicit by :func:`a12_bits`).

Longer than most modules by design, like every paper's bounds module: the paper's statements
are data entries (statement, citation, formula, errata) beside the counts they evaluate.

The module is the paper's one registry of statements and stays whole (over 500 lines): one
``Bound`` entry per statement with its formula, errata and inversions, and the few counts
they share.
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real
from typing import Any

from ccomplexity.bounds.base import (
    Bound,
    as_number,
    define_param,
    first_true,
    last_true,
    unit_interval,
)
from ccomplexity.errors import InputError, check_int
from ccomplexity.integers import ceil_log2, log2_exact
from ccomplexity.languages import graphs


def _positive_real(what: str):
    def check(value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < math.inf:
            raise InputError(f"{what} must be a positive real number, got {value!r}")
        return float(value)

    return check


define_param("delta", unit_interval("delta"), "failure probability delta")
define_param("sigma", _positive_real("sigma"), "standard deviation sigma of the Gaussian inputs")

# -- the one-way protocol of Lemma A.3 / Thm A.4 ------------------------------------------------


def one_way_widths(precision: int, alice_positions: int) -> tuple[int, int]:
    """Bits of Alice's exact partial softmax sum Z_A (unsigned) and of one coordinate of L_A
    (two's complement): sums of |A| grid values whose raw codes are at most 2^(p-1) - 1."""
    p = check_int(precision, "precision p", 2)
    c = ceil_log2(check_int(alice_positions, "Alice's positions |A|", 1))
    return p - 1 + c, p + c


def one_way_bits(width: int, heads: int, precision: int, alice_positions: int) -> int:
    """Bits of the exact one-way protocol: H (z + m l) with (z, l) = :func:`one_way_widths`."""
    z, coord = one_way_widths(precision, alice_positions)
    return check_int(heads, "heads H") * (z + check_int(width, "width m") * coord)


def paper_one_way_bits(width: int, heads: int, precision: int) -> int:
    """The paper's count H (m + 1) p (Lemma A.3: H (m + 1) numbers of p bits)."""
    return heads * (width + 1) * precision


def exact_max_vertices(width: int, precision: int, heads: int = 1) -> int:
    """Largest |V| the exact one-way protocol does not rule out: on each (2^(k-1), 2^k] the
    message is constant (ceil(log2 |V|) = k) while |V| grows, and once 2^(k-1) exceeds it no
    later interval has room (its length grows by H (1 + m) per k, |V| doubles)."""
    best, k = 0, 0
    while True:
        lo, hi = (1, 1) if k == 0 else (2 ** (k - 1) + 1, 2**k)
        bits = one_way_bits(width, heads, precision, hi)
        if bits < lo:
            return best
        best = max(best, min(hi, bits))
        k += 1


def exact_min_width(vertices: int, precision: int, heads: int = 1) -> int:
    """Smallest width m that the exact one-way protocol does not rule out on |V| items: the
    least m with H (p - 1 + ceil(log2 |V|) + m (p + ceil(log2 |V|))) >= |V| (Alice holds the |V|
    edges at s, |A| = |V|). Each number costs ceil(log2 |V|) bits more than the paper's p, so
    this width is smaller than the paper's (|V| = 256, p = 16: 10 against 15)."""
    v = check_int(vertices, "vertices |V|")
    return first_true(lambda m: one_way_bits(m, heads, precision, v) >= v)


def _thm3_1_exact_outputs(vertices: int, precision: int, heads: int = 1) -> dict[str, Any]:
    m = exact_min_width(vertices, precision, heads)
    z, coord = one_way_widths(precision, vertices)
    return {
        "min_width_exact": m,
        "bits_at_min_width": one_way_bits(m, heads, precision, vertices),
        "sum_bits": z,
        "coordinate_bits": coord,
        "min_width_paper_count": first_true(
            lambda w: paper_one_way_bits(w, heads, precision) >= vertices
        ),
    }


# -- parameters of the paper's one-layer class ---------------------------------------------------


def one_layer_parameters(
    width: int,
    heads: int = 1,
    mlp_width: int | None = None,
    experts: int = 1,
    top_k: int = 1,
    vocab: int = 0,
    n_out: int = 2,
) -> dict[str, int]:
    """Parameters of Transformer^N_{m,H,1,K} as ``models`` builds it (``concat-transformer``).

    Embedding phi: vocab x m (0 for vector inputs, phi the identity); per head Q_h, K_h, V_h in
    R^{m x m}; each expert psi_i(x) = u_i^T relu(W_i x + b_i) with W_i in R^{m' x mH}, b_i in
    R^{m'} and u_i in R^{m' x (n_out - 1)} (a scalar for a binary output); router vectors
    r_1..r_K in R^{mH} when K > 1. ``paper_total`` / ``paper_active`` leave the embedding out,
    as the paper's O(m^2) counts do (Cor 3.3); ``active`` counts the top-k experts.
    """
    m, h, k = check_int(width, "width m"), check_int(heads, "heads H"), check_int(experts, "K")
    hidden = m * h if mlp_width is None else check_int(mlp_width, "mlp_width m'")
    chosen = check_int(top_k, "top_k")
    if chosen > k:
        raise InputError(f"top_k {chosen} exceeds the {k} experts")
    embedding = check_int(vocab, "vocab", 0) * m
    attention = 3 * h * m * m
    router = k * m * h if k > 1 else 0
    expert = hidden * (m * h + 1) + hidden * (check_int(n_out, "n_out", 2) - 1)
    paper_total = attention + router + k * expert
    paper_active = attention + router + chosen * expert
    return {
        "embedding": embedding,
        "attention": attention,
        "router": router,
        "expert": expert,
        "paper_total": paper_total,
        "paper_active": paper_active,
        "total": embedding + paper_total,
        "active": embedding + paper_active,
    }


# -- statements ---------------------------------------------------------------------------------


def _default_length(vertices: int, length: int | None) -> int:
    """N of the toolkit's layout unless given: 2|V| + M + 1 with M = DEFAULT_MIDDLE edges."""
    return graphs.Layout(vertices, graphs.DEFAULT_MIDDLE).length() if length is None else length


def _thm3_1_outputs(
    vertices: int, length: int | None = None, precision: int | None = None, heads: int = 1
) -> dict[str, Any]:
    n = _default_length(vertices, length)
    out: dict[str, Any] = {"length_N": n, "mH_asymptotic": vertices / log2_exact(n)}
    if precision is not None:
        m = first_true(lambda w: one_way_bits(w, heads, precision, vertices) >= vertices)
        out["min_width_run_protocol"] = m
        out["run_protocol_bits_at_that_width"] = one_way_bits(m, heads, precision, vertices)
    return out


def thm3_2_precision(length: int) -> dict[str, int]:
    """Grid of Thm 3.2's construction at N tokens: floor rounding keeps Q(1/N) N - 1 <= 0 and
    makes Q(2/N) N - 1 >= 1 - N 2^-frac > 0 once 2^frac > N; the weight N (of psi) and the
    uniform softmax sum N must be on the grid, so 2^(p - 1 - frac) > N."""
    n = check_int(length, "length N", 2)
    frac = ceil_log2(n + 1)
    return {"frac": frac, "precision": frac + ceil_log2(n + 1) + 1}


def _thm3_2_outputs(vertices: int, length: int | None = None) -> dict[str, Any]:
    n = _default_length(vertices, length)
    return {"heads": 1, "mlp_width": vertices, "length_N": n, **thm3_2_precision(n)}


def moe_matched_width(vertices: int, experts: int, heads: int = 1) -> int:
    """Largest width m_s whose K-expert model (m' = m_s H) has at most the paper-count parameters
    of Thm 3.2's dense model (width |V|, one head, m' = |V|); 0 if none."""
    budget = one_layer_parameters(vertices, 1, vertices)["paper_total"]

    def fits(m: int) -> bool:
        return one_layer_parameters(m, heads, None, experts)["paper_total"] <= budget

    return last_true(fits) if fits(1) else 0


def _cor3_3_outputs(
    vertices: int, experts: int, precision: int, length: int | None = None, heads: int = 1
) -> dict[str, Any]:
    n = _default_length(vertices, length)
    need = first_true(lambda m: paper_one_way_bits(m, heads, precision) >= vertices)
    matched = moe_matched_width(vertices, experts, heads)

    def fails(k: int) -> bool:
        return moe_matched_width(vertices, k, heads) < need

    return {
        "length_N": n,
        "moe_width_paper": vertices / math.sqrt(experts),
        "experts_critical_paper": log2_exact(n) ** 2,
        "dense_parameters": one_layer_parameters(vertices, 1, vertices)["paper_total"],
        "moe_width_numeric": matched,
        "moe_parameters": one_layer_parameters(max(matched, 1), heads, None, experts)[
            "paper_total"
        ],
        "min_width_thm3_1": need,
        "moe_ruled_out": matched < need,
        "min_width_exact": exact_min_width(vertices, precision, heads),
        "moe_ruled_out_exact": matched < exact_min_width(vertices, precision, heads),
        "experts_critical_numeric": first_true(fails),
    }


def max_load_hoeffding(examples: int, experts: int, delta: float) -> float:
    """A.12 step 4: N_j <= n/K + sqrt(n ln(2K/delta) / 2) for every expert (stated, spec gap a)."""
    return examples / experts + math.sqrt(examples * math.log(2 * experts / delta) / 2)


def _thm3_4_outputs(examples: int, dim: int, experts: int, delta: float = 0.01) -> dict[str, Any]:
    load = max_load_hoeffding(examples, experts, delta)
    best = max(1, round(math.sqrt(examples)))
    return {
        "total_paper": dim * examples + dim * experts,
        "max_load_hoeffding": load,
        "active_load_corrected": dim * load + dim * experts,
        "experts_best": best,
        "active_at_best": dim * examples / best + dim * best,
        "active_at_best_corrected": dim * max_load_hoeffding(examples, best, delta) + dim * best,
    }


def lemma_a7(examples: int, dim: int, delta: float, sigma: float = 1.0) -> float:
    """|x_i^T x_j| <= sigma^2 sqrt(2d(2 ln N + ln(2/delta))) for all i != j (CLT heuristic)."""
    return sigma**2 * math.sqrt(2 * dim * (2 * math.log(examples) + math.log(2 / delta)))


def lemma_a8(examples: int, dim: int, delta: float, sigma: float = 1.0) -> float:
    """||x_i||_inf <= sigma sqrt(2 ln(2Nd/delta)) for all i."""
    return sigma * math.sqrt(2 * math.log(2 * examples * dim / delta))


def lemma_a9(examples: int, dim: int, delta: float, sigma: float = 1.0) -> float:
    """||x_i||_2 >= sigma sqrt(d) (1 - sqrt(2 ln(N/delta)/d)) for all i."""
    return sigma * math.sqrt(dim) * (1 - math.sqrt(2 * math.log(examples / delta) / dim))


def _thm_a10_outputs(
    examples: int, dim: int, delta: float = 0.01, sigma: float = 1.0
) -> dict[str, Any]:
    eps = math.sqrt(2 * math.log(examples / delta) / dim)
    gamma = math.sqrt(2 * (2 * math.log(examples) + math.log(2 / delta)) / dim)
    return {
        "shift_s": sigma**2 * dim / 2,
        "epsilon": eps,
        "gamma": gamma,
        # Lemma A.9 bounds ||x|| below by sigma sqrt(d)(1 - eps): nothing once eps >= 1.
        "sufficient_condition": gamma - max(0.0, 1 - eps) ** 2 + 0.5 < 0,
        "weight_bound": lemma_a8(examples, dim, delta, sigma),
        "bias_bound_stated": sigma**2 * dim * (1 + eps),
        "probability_proved": 1 - 3 * delta,
    }


def _thm_a11_outputs(examples: int, length: int, dim: int, delta: float = 0.01) -> dict[str, Any]:
    """A.11: A.10 on the means S_i ~ N(0, I/n), sigma = 1/sqrt(n); the FFN has N neurons."""
    out = _thm_a10_outputs(examples, dim, delta, 1 / math.sqrt(length))
    return {
        "neurons": examples,
        "attention_weight_bound": 1,
        "output_weight": 1,
        "shift_s": out["shift_s"],
        "sufficient_condition": out["sufficient_condition"],
        "weight_bound": out["weight_bound"],
        "bias_bound_stated": out["bias_bound_stated"],
        "ffn_parameters": examples * (dim + 2),
        "probability_proved": out["probability_proved"],
    }


def a12_bits(examples: int, length: int, dim: int, experts: int, delta: float) -> dict[str, Any]:
    """Thm A.12 step 6 with its O() made explicit: bits per parameter on a fixed-point grid.

    The proof rounds each parameter to a step epsilon and counts log2(M / epsilon) bits for the
    largest magnitude M; it leaves epsilon a constant. The epsilon that keeps every sign is
    explicit from its own bounds: rounding to nearest moves a pre-activation w^T S + b by at most
    (epsilon / 2)(||S||_1 + 1) <= (epsilon / 2)(d M_w + 1) (Lemma A.8 bounds S_i like w_i =
    S_i), and the sign of f(S_j) = y_j s stays right while that is below the margin mu =
    (d / n) min(1/2, (1 - eps)^2 - 1/2 - gamma) (the own neuron's s = d / (2n), the others' z_ij
    <= (d / n)(gamma - (1 - eps)^2 + 1/2) in A.10's proof, each expert at delta / K). So
    f = floor(log2((d M_w + 1) / (2 mu))) + 1 fractional bits, ceil(log2(M + 1)) integer bits
    for M = max(M_w, M_b, 1) (the output weights are +-1) and a sign bit: O(log(nd) +
    log ln(NK / delta)), the theorem's form. None where the margin is not positive (d too small
    for A.10's sufficient condition). ``bits_paper_form`` is log2(nd) + log2 ln(NK / delta),
    the O() with constant 1.
    """
    n, d, k = length, dim, experts
    m_w = math.sqrt(2 * math.log(2 * examples * d * k / delta) / n)
    eps = math.sqrt(2 * math.log(examples * k / delta) / d)
    m_b = d / n * (1 + eps)
    gamma = math.sqrt(2 * (2 * math.log(examples) + math.log(2 * k / delta)) / d)
    margin = d / n * min(0.5, max(0.0, 1 - eps) ** 2 - 0.5 - gamma)  # A.9 is void at eps >= 1
    out: dict[str, Any] = {
        "weight_bound": m_w,
        "bias_bound": m_b,
        "margin_proved": margin,
        "bits_paper_form": math.log2(n * d) + math.log2(math.log(examples * k / delta)),
    }
    if margin <= 0:
        out.update(fraction_bits=None, integer_bits=None, bits_per_parameter=None)
        return out
    frac = math.floor(math.log2((d * m_w + 1) / (2 * margin))) + 1
    whole = math.ceil(math.log2(max(m_w, m_b, 1.0) + 1))
    out.update(fraction_bits=frac, integer_bits=whole, bits_per_parameter=1 + whole + frac)
    return out


def _thm_a12_outputs(
    examples: int, length: int, dim: int, experts: int, delta: float = 0.01
) -> dict[str, Any]:
    bits = a12_bits(examples, length, dim, experts, delta)
    return {
        **bits,
        "neurons": examples,
        "max_load_hoeffding": max_load_hoeffding(examples, experts, delta),
        "output_weight": 1,
        "probability_proved": 1 - 4 * delta,
    }


_A2_LETTERS = (
    "Formulas in App. A.2's letters: N examples (--examples), n tokens (--length), dimension d "
    "(--dim); the main text calls them n, N and m."
)
_A7_A9 = dict(
    kind="fact",
    architecture="Gaussian data",
    task="memorisation",
    value_params=("examples", "dim", "delta"),
    optional_params=("sigma",),
)

BOUNDS: tuple[Bound, ...] = (
    Bound(
        id="parrots.thm3_1",
        name="Theorem 3.1 / A.4, Lemma A.3 (one-layer MoE transformers on length-2 path)",
        statement=(
            "A one-layer transformer in Transformer^N_{m,H,1,K} (concatenated heads, any psi, "
            "any router and number of experts K) with O(log N)-bit precision that solves "
            "length-2 path on |V| vertices, Alice holding the edges at s and Bob those at d, has "
            "mH = Omega(|V| / log N); explicitly H (m + 1) p >= |V| (Alice's one-way message "
            "against the one-way complexity of DISJ_|V|, |V| bits)."
        ),
        citation="Sec. 3.1, Theorem 3.1; App. A.1, Lemma A.3 and Theorem A.4",
        formula="H (m + 1) p >= |V|; asymptotic form mH >= |V| / log2 N (c = 1)",
        kind="lower",
        architecture="transformer-1layer-concat (dense or MoE)",
        task="length-2 path (DISJ_|V| by Lemma A.2)",
        quantity=(
            "required m H in the asymptotic form |V| / log2 N; N = 2|V| + 5 by default (the "
            "toolkit's layout: 4 middle edges)"
        ),
        value_params=("vertices",),
        optional_params=("length", "precision", "heads"),
        _value=lambda vertices, length=None, **_: (
            vertices / log2_exact(_default_length(vertices, length))
        ),
        _outputs=_thm3_1_outputs,
        _allows=lambda n, m, p, h: paper_one_way_bits(m, h, p) >= n,
        bounds_length=True,
        uses_heads=True,
        length_name="|V|",
        length_param="vertices",
        aliases=("parrots.thmA_4", "parrots.lemmaA_3"),
        derived=True,
        width_note=(
            "the paper's count H (m + 1) p >= |V|; min_width_run_protocol inverts the exact "
            "protocol ccx runs, H (p - 1 + ceil(log2 |V|) + m (p + ceil(log2 |V|)))"
        ),
        notes=(
            "The seed does not reproduce the protocol ('the proof of [63] still holds'); it is "
            "reconstructed from Sanford et al. (spec 3.1). Independent of K: Bob routes."
        ),
    ),
    Bound(
        id="parrots.thm3_2",
        name="Theorem 3.2 / A.5 (a dense width-|V| transformer solves length-2 path)",
        statement=(
            "A dense one-layer transformer of width |V| and O(log N)-bit precision solves "
            "length-2 path on every input in the Thm 3.2 token layout."
        ),
        citation="Sec. 3.1, Theorem 3.2; App. A.1.2, Theorem A.5",
        formula=(
            "width m = |V|, H = 1, m' = |V|; frac = ceil(log2(N + 1)), "
            "p = frac + ceil(log2(N + 1)) + 1"
        ),
        kind="upper",
        value_is_width=True,
        architecture="transformer-1layer-concat (dense)",
        task="length-2 path",
        quantity="width m",
        value_params=("vertices",),
        optional_params=("length",),
        _value=lambda vertices, length=None: vertices,
        _outputs=_thm3_2_outputs,
        errata=(
            "phi(u, v) = e_v if u in {s, d} (the paper writes 'u = s or u = v')",
            "Q_h = K_h = 0 and V_h = I (the paper writes 'Q_h, V_h both 0')",
            "uniform weights are 1/N, not 1/|V|",
        ),
    ),
    Bound(
        id="parrots.thm3_1_exact",
        name="Theorem 3.1 for the exact-sum protocol (the finite-precision concat-transformer)",
        statement=(
            "A one-layer transformer in Transformer^N_{m,H,1,K} whose attention sums are exact "
            "sums of p-bit grid values (the finite-precision mode of the concat-transformer) and "
            "that solves length-2 path on |V| items, Alice holding the |V| edges at s, has "
            "H (p - 1 + ceil(log2 |V|) + m (p + ceil(log2 |V|))) >= |V|: Alice's exact partial "
            "softmax sum and m value coordinates per head against the one-way complexity of "
            "DISJ_|V|."
        ),
        citation="Sec. 3.1, Theorem 3.1; App. A.1, Lemma A.3 (with the message counted exactly)",
        formula=(
            "H (p - 1 + ceil(log2 |V|) + m (p + ceil(log2 |V|))) >= |V|; value: the least such m"
        ),
        kind="lower",
        architecture="transformer-1layer-concat (dense or MoE), exact attention sums",
        task="length-2 path (DISJ_|V| by Lemma A.2)",
        quantity="smallest width m not ruled out",
        value_params=("vertices", "precision"),
        optional_params=("heads",),
        _value=exact_min_width,
        _outputs=_thm3_1_exact_outputs,
        _allows=lambda n, m, p, h: one_way_bits(m, h, p, n) >= n,
        _max_length=exact_max_vertices,
        bounds_length=True,
        uses_heads=True,
        length_name="|V|",
        length_param="vertices",
        derived=True,
        notes=(
            "What is proved for the models the toolkit runs at p bits: the message of "
            "`ccx protocol attention --one-way --task length2-path` has exactly this length. "
            "The paper's count H (m + 1) p (parrots.thm3_1) gives each sum p bits, which an "
            "exact sum of |V| grid values exceeds by ceil(log2 |V|) bits; float32 training "
            "is covered by neither count's p without a rounding argument."
        ),
    ),
    Bound(
        id="parrots.cor3_3",
        name="Corollary 3.3 / A.6 (parameter-matched dense vs MoE)",
        statement=(
            "At equal total parameters there is a number of experts K beyond which a one-layer "
            "MoE transformer cannot solve length-2 path while the dense one can: m_s = m_d / "
            "sqrt(K) with m_d = |V|, ruled out once K >= Omega((log N)^2)."
        ),
        citation="Sec. 3.1, Corollary 3.3; App. A.1.3, Corollary A.6",
        formula=(
            "paper: m_s = |V| / sqrt(K), critical K = (log2 N)^2; numeric: the largest m_s with "
            "3 m_s^2 H + K (m' (m_s H + 2) + m_s H) <= 3|V|^2 + |V| (|V| + 2), ruled out when "
            "H (m_s + 1) p < |V| (paper count; moe_ruled_out_exact: the exact-sum count of "
            "parrots.thm3_1_exact)"
        ),
        kind="lower",
        architecture="transformer-1layer-concat (MoE vs dense)",
        task="length-2 path",
        quantity="parameter-matched MoE width m_s = |V| / sqrt(K) (paper form)",
        value_params=("vertices", "experts", "precision"),
        optional_params=("length", "heads"),
        _value=lambda vertices, experts, **_: vertices / math.sqrt(experts),
        _outputs=_cor3_3_outputs,
        derived=True,
        notes=(
            "Parameters are the paper's count (attention and psi, no embedding), m' = m H, "
            "top-1; the numeric form uses the exact counts of models' concat-transformer."
        ),
    ),
    Bound(
        id="parrots.thm3_4",
        name="Theorem 3.4 / A.12 (MoE memoriser)",
        statement=(
            "With probability >= 0.99 a one-layer MoE transformer with K experts memorises n "
            "Gaussian sequences with arbitrary labels using O(mn/K + mK) active and O(mn + mK) "
            "total parameters; K = sqrt(n) gives O(m sqrt(n)) active parameters."
        ),
        citation="Sec. 3.2, Theorem 3.4; App. A.2, Theorem A.12",
        formula=(
            "active = m n / K + m K, total = m n + m K; corrected: m (n/K + sqrt(n ln(2K/delta)"
            " / 2)) + m K"
        ),
        kind="upper",
        architecture="transformer-1layer-concat (MoE)",
        task="memorisation",
        quantity="active parameters m n / K + m K (constants 1)",
        value_params=("examples", "dim", "experts"),
        optional_params=("delta",),
        _value=lambda examples, dim, experts, **_: dim * examples / experts + dim * experts,
        _outputs=_thm3_4_outputs,
        errata=(
            "the router's assignment probabilities are not 1/K (they depend on the r_j), so "
            "Hoeffding around n/K does not hold as stated: measure the loads (spec gap a)",
            "at K = sqrt(n) the deviation sqrt(n ln(2K/delta)/2) exceeds n/K: O(m sqrt(n log n))"
            " active parameters (spec gap b)",
        ),
    ),
    Bound(
        id="parrots.thm3_5",
        name="Theorem 3.5 (dense memorisation needs Omega(n) parameters)",
        statement=(
            "A transformer with W parameters of c bits each can realise at most 2^(cW) "
            "labelings, so memorising all 2^n labelings of n inputs needs W >= n / c."
        ),
        citation="Sec. 3.2, Theorem 3.5",
        formula="W >= n / c (c = bits per parameter)",
        kind="lower",
        architecture="any (the MoE's total parameters too)",
        task="memorisation",
        quantity="required parameters W",
        value_params=("examples", "precision"),
        _value=lambda examples, precision: as_number(Fraction(examples, precision)),
        _outputs=lambda examples, precision: {"min_parameters": -(-examples // precision)},
        notes="Counting only: binds the MoE's total parameters as well, not its active ones.",
    ),
    Bound(
        id="parrots.lemmaA_7",
        name="Lemma A.7 (pairwise inner products of Gaussian vectors)",
        statement=(
            "For x_1..x_N ~ N(0, sigma^2 I_d) i.i.d., with probability >= 1 - delta every "
            "|x_i^T x_j|, i != j, is at most sigma^2 sqrt(2d(2 ln N + ln(2/delta)))."
        ),
        citation="App. A.2, Lemma A.7",
        formula="sigma^2 sqrt(2 d (2 ln N + ln(2/delta)))",
        quantity="bound on |x_i^T x_j|",
        _value=lemma_a7,
        notes="The proof treats x_i^T x_j as Gaussian (CLT); it is sub-exponential: a heuristic.",
        **_A7_A9,
    ),
    Bound(
        id="parrots.lemmaA_8",
        name="Lemma A.8 (max norm of Gaussian vectors)",
        statement="With probability >= 1 - delta, ||x_i||_inf <= sigma sqrt(2 ln(2Nd/delta)).",
        citation="App. A.2, Lemma A.8",
        formula="sigma sqrt(2 ln(2 N d / delta))",
        quantity="bound on ||x_i||_inf",
        _value=lemma_a8,
        **_A7_A9,
    ),
    Bound(
        id="parrots.lemmaA_9",
        name="Lemma A.9 (norm lower bound of Gaussian vectors)",
        statement=(
            "With probability >= 1 - delta, ||x_i||_2 >= sigma sqrt(d) (1 - sqrt(2 ln(N/delta)"
            " / d)) for every i."
        ),
        citation="App. A.2, Lemma A.9",
        formula="sigma sqrt(d) (1 - sqrt(2 ln(N/delta) / d))",
        quantity="lower bound on ||x_i||_2",
        _value=lemma_a9,
        **_A7_A9,
    ),
    Bound(
        id="parrots.thmA_10",
        name="Theorem A.10 (one-hidden-layer ReLU memoriser)",
        statement=(
            "With probability >= 1 - delta, N ReLU neurons w_i = x_i, b_i = -||x_i||^2 + "
            "sigma^2 d / 2, alpha_i = y_i classify N Gaussian points with arbitrary labels."
        ),
        citation="App. A.2, Theorem A.10",
        formula="neurons = N; works when gamma - (1 - eps)^2 + 1/2 < 0",
        kind="upper",
        architecture="one-hidden-layer ReLU network",
        task="memorisation",
        quantity="neurons N",
        value_params=("examples", "dim"),
        optional_params=("delta", "sigma"),
        _value=lambda examples, dim, **_: examples,
        _outputs=_thm_a10_outputs,
        errata=(
            "the proof bounds |b_i| with a lower bound on ||x_i|| where an upper bound is "
            "needed; bias_bound_stated is the stated bound, measure the range instead",
            "the probability is 1 - 3 delta, not 1 - delta: Step 1 takes Lemmas A.7, A.8 and "
            "A.9 each at delta, a union over three events (probability_proved)",
        ),
    ),
    Bound(
        id="parrots.thmA_11",
        name="Theorem A.11 (dense one-layer transformer memoriser)",
        statement=(
            "For N sequences of length n with N(0, I_d) tokens and arbitrary labels, with "
            "probability >= 1 - delta a one-layer transformer with inner dimension N (W^Q = W^K"
            " = 0, W^V = I: the last token holds the mean S_i ~ N(0, I/n); A.10's network on "
            "the S_i) gives sign(f(X_i)) = y_i for all i, with attention weights <= 1, "
            "||W_ff||_inf <= sqrt(2 ln(2Nd/delta) / n), ||b_ff||_inf <= (d/n)(1 + sqrt(2 "
            "ln(N/delta) / d)) and |alpha_i| = 1."
        ),
        citation="App. A.2, Theorem A.11",
        formula=(
            "neurons = N; weight bound (1/sqrt(n)) sqrt(2 ln(2Nd/delta)); bias bound "
            "(d/n)(1 + sqrt(2 ln(N/delta)/d)) (A.10 at sigma = 1/sqrt(n))"
        ),
        kind="upper",
        architecture="transformer-1layer-concat (dense)",
        task="memorisation",
        quantity="FFN neurons (inner dimension N)",
        value_params=("examples", "length", "dim"),
        optional_params=("delta",),
        _value=lambda examples, **_: examples,
        _outputs=_thm_a11_outputs,
        notes=_A2_LETTERS,
        errata=(
            "inherits A.10's errata: the bias bound uses a lower bound on ||S_i|| where an upper "
            "one is needed (measure it: ccx construct --task memorize), and the probability is "
            "1 - 3 delta",
        ),
    ),
    Bound(
        id="parrots.thmA_12",
        name="Theorem A.12 (MoE memoriser: weights, biases and bits per parameter)",
        statement=(
            "With probability >= 1 - delta a one-layer MoE transformer with K experts of "
            "O(N/K) neurons (uniform attention, router vectors r_j ~ N(0, I_d), expert j A.10's "
            "network on its N_j inputs at delta/K) memorises N Gaussian sequences with "
            "arbitrary labels, with ||w||_inf <= (1/sqrt(n)) sqrt(2 ln(2NdK/delta)), |b| <= "
            "(d/n)(1 + sqrt(2 ln(NK/delta)/d)) and O(log(nd) + log ln(NK/delta)) bits per "
            "parameter."
        ),
        citation="App. A.2, Theorem A.12 (Steps 5-6); Sec. 3.2, Theorem 3.4",
        formula=(
            "weight (1/sqrt(n)) sqrt(2 ln(2NdK/delta)); bias (d/n)(1 + sqrt(2 ln(NK/delta)/d));"
            " bits = 1 + ceil(log2(max(M_w, M_b, 1) + 1)) + floor(log2((d M_w + 1)/(2 mu))) + 1"
            ", mu = (d/n) min(1/2, (1 - eps)^2 - 1/2 - gamma)"
        ),
        kind="upper",
        architecture="transformer-1layer-concat (MoE)",
        task="memorisation",
        quantity="bits per parameter (explicit form of O(log(nd) + log ln(NK/delta)))",
        value_params=("examples", "length", "dim", "experts"),
        optional_params=("delta",),
        _value=None,
        _outputs=_thm_a12_outputs,
        derived=True,
        notes=(
            "The proof leaves the rounding step epsilon a constant; here it is the step that "
            "keeps every sign by the proof's own margins (a12_bits); bits_per_parameter is null "
            "where that margin is not positive. Parameter counts: parrots.thm3_4. " + _A2_LETTERS
        ),
        errata=(
            "the probability is 1 - 4 delta: delta for the loads (Step 3) and, per expert, "
            "A.10 at delta/K, itself a union of three lemmas (3 delta/K), over K experts",
            "inherits A.10's bias-bound flaw and spec gap a (assignments are not uniform): "
            "measure the biases and loads (ccx construct --task memorize --experts K)",
        ),
    ),
)
