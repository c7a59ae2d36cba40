"""Bounds of "Understanding Reasoning with Looped Models" (spec ``looped-reasoning``, Sec. 3-4).

A ``(k ⊗ L)`` model loops a k-layer block L times: the parameters of ``(k ⊗ 1)``, the depth
and FLOPs of ``(kL ⊗ 1)``. The statements here give loops and widths: Thm 2.1 (group
composition in ceil(log2 n) loops of one layer), Thm 2.2 (a looped layer simulating a model
with R distinct layers), Thm B.6 and Cor. 2.3 (p-hop in floor(log2 p) + 2 layers or loops),
Thm B.1 (m chain-of-thought steps as m loops) with its Lemmas B.2-B.5 (argmax, decode and
re-embed, control gate, shift), Eq. 3 (the %Gap of Sec. 3) and App. A.1's count of addition
inputs. Two more are the
toolkit's own link to communication complexity, not the paper's: the word problem of G needs
ceil(log2 |G|) bits across any prefix/suffix cut (its minimal DFA has |G| states), and the
carry automaton of n-ary addition has n live states.

The loop counts are realised by the round-counting simulators of :mod:`ccomplexity.rounds`;
Thm 2.1 is also built as weights (``ccx construct --task group-composition``). The module
stays whole past 500 lines: the registry keeps each paper's statements in one module, and most
of it is the statements' text.
"""

from __future__ import annotations

import math
from numbers import Real

from ccomplexity.bounds.base import Bound, define_param, positive_int
from ccomplexity.errors import InputError
from ccomplexity.groups import canonical_name, group_order
from ccomplexity.integers import ceil_log2


def _real(what: str):
    def check(value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise InputError(f"{what} must be a finite number, got {value!r}")
        return float(value)

    return check


define_param("group", canonical_name, "a finite group: Sk, Ak, Zk or Dk (e.g. S5)")
for _name, _help in (
    ("head_dim", "attention head dimension d_ATTN"),
    ("distinct_layers", "distinct layers R of a model"),
    ("cot_steps", "chain-of-thought steps m"),
):
    define_param(_name, positive_int(_name), _help)
for _name, _help in (
    ("looped_score", "Avg_G of the looped model (k ⊗ 24/k)"),
    ("base_score", "Avg_G of the iso-param model (k ⊗ 1)"),
    ("deep_score", "Avg_G of the iso-FLOP model (24 ⊗ 1)"),
):
    define_param(_name, _real(_name), _help)


# -- Theorem 2.1 --------------------------------------------------------------------------------


def thm2_1_sizes(group: str, length: int) -> dict[str, int]:
    """Loops and widths of Thm 2.1 for n = ``length`` elements of ``group``.

    ``model_dim`` and ``head_dim`` are the theorem's 3(ceil(lg|G|) + ceil(lg n + 1)) and
    ceil(lg n), read literally (ceil(lg n + 1) = ceil(lg n) + 1); ``*_needed`` are what the
    construction uses: +-1 codes of the n + 1 positions 0..n take ceil(lg(n + 1)) coordinates,
    one more than ceil(lg n) when n is a power of two, one fewer than ceil(lg n) + 1 otherwise.
    Queries and keys are position codes (``key_dim_needed`` = ceil(lg(n + 1))) but the values
    are the ceil(lg |G|)-bit group codes (``value_dim_needed``), so a head needs
    ``attention_dim_needed`` = max(ceil(lg(n + 1)), ceil(lg |G|)) coordinates: 7 for S5 at
    n = 8, where the theorem's d_ATTN = ceil(lg n) is 3.
    """
    order = group_order(group)
    g_bits = ceil_log2(order)
    pos_bits = ceil_log2(length + 1)
    return {
        "group_order": order,
        "loops": ceil_log2(length),
        "block_layers": 1,
        "heads": 2,
        "model_dim": 3 * (g_bits + ceil_log2(length) + 1),
        "model_dim_needed": 3 * (g_bits + pos_bits),
        "mlp_width": order * order + 6 * g_bits,
        "head_dim": ceil_log2(length),
        "attention_dim_needed": max(pos_bits, g_bits),
        "key_dim_needed": pos_bits,
        "value_dim_needed": g_bits,
        "group_code_bits": g_bits,
        "position_code_bits": pos_bits,
    }


def thm2_2_sizes(
    model_dim: int, mlp_width: int, heads: int, distinct_layers: int, layers: int, **_: int
) -> dict[str, int]:
    """Sizes of Thm 2.2's looped layer simulating an L-layer model with R distinct layers.

    The MLP holds the R distinct feed-forwards side by side, one counter neuron and the L + 2
    ReLUs [l - j]_+ (j = 0..L+1) of the hat-function layer selector: R d_FF + L + 3, the
    theorem's R d_FF + O(L) made explicit. The sizes are named ``looped_*``, apart from the
    simulated model's (the inputs); d_ATTN is unchanged.
    """
    r = distinct_layers
    if r > layers:
        raise InputError(f"distinct layers R = {r} cannot exceed layers L = {layers}")
    return {
        "loops": layers,
        "block_layers": 1,
        "looped_model_dim": model_dim + r + 2,
        "looped_mlp_width": r * mlp_width + layers + 3,
        "looped_heads": r * heads,
    }


def phop_layers(hops: int) -> int:
    """floor(log2 p) + 2, exactly (p >= 1)."""
    return hops.bit_length() + 1


def stretch_selector(loop: int, boundaries: tuple[int, ...]) -> tuple[list[int], int]:
    """The one-hot e_r(l) of a schedule whose distinct layers run in contiguous stretches
    (stretch r starts at loop ``boundaries[r - 1]``, stretch 0 at loop 1), computed from the
    counter l with 2 ReLUs per boundary, 1[l >= b] = [l - b + 1]_+ - [l - b]_+; returns the
    indicators and the neurons used (the counter and the ReLUs)."""
    relu = lambda x: max(x, 0)  # noqa: E731
    steps = [relu(loop - b + 1) - relu(loop - b) for b in boundaries]
    ones = [1, *steps, 0]
    return [ones[r] - ones[r + 1] for r in range(len(boundaries) + 1)], 1 + 2 * len(boundaries)


def cor2_3_sizes(hops: int, **widths: int) -> dict[str, int]:
    """Cor. 2.3 as Thm 2.2 gives it: R = 3 distinct layers, H = 1 head, L = floor(lg p) + 2.

    Thm 2.2's generic layer selector (a counter neuron and L + 2 hat ReLUs,
    :func:`thm2_2_sizes`) adds L + 3 MLP neurons, which grow with p: ``mlp_width_extra``. That
    log p term belongs to the generic selector, not to the corollary: when the distinct layers
    run in contiguous stretches (a schedule r(l) that changes value R - 1 times), the stretch
    indicators are differences of steps 1[l >= b] = [l - b + 1]_+ - [l - b]_+ of the counter,
    2 ReLUs per boundary, so the selector needs 1 + 2 (R - 1) = 5 neurons whatever p:
    ``mlp_width_extra_contiguous``, and the corollary's O(1) widths hold. With the widths d,
    d_FF of Thm B.6's transformer given (``model_dim``, ``mlp_width``) the looped layer's
    widths are d + 5 and 3 d_FF + L + 3 (``looped_model_dim``, ``looped_mlp_width``), or
    3 d_FF + 5 with the contiguous selector (``looped_mlp_width_contiguous``).
    """
    loops = phop_layers(hops)
    contiguous = 1 + 2 * (3 - 1)
    out = {"loops": loops, "block_layers": 1, "heads": 3, "distinct_layers": 3,
           "model_dim_extra": 3 + 2, "mlp_width_extra": loops + 3,
           "mlp_width_extra_contiguous": contiguous}  # fmt: skip
    if "model_dim" in widths:
        out["looped_model_dim"] = widths["model_dim"] + 5
    if "mlp_width" in widths:
        out["looped_mlp_width"] = 3 * widths["mlp_width"] + loops + 3
        out["looped_mlp_width_contiguous"] = 3 * widths["mlp_width"] + contiguous
    return out


# -- Lemmas B.2-B.5 (the pieces of Thm B.1) ------------------------------------------------------


def affine_parameters(*widths: int) -> int:
    """Weights and biases of dense affine maps widths[0] -> widths[1] -> ... -> widths[-1]."""
    return sum(a * b + b for a, b in zip(widths, widths[1:], strict=False))


def lemma_b2_sizes(dim: int, precision: int) -> dict[str, object]:
    """Lemma B.2: argmax of x in R^d as a ReLU network, s_i = 2^p relu(2^-p - sum_{j != i}
    relu(x_j - x_i)). Three affine maps: d -> d(d - 1) (the ReLUs relu(x_j - x_i), one per
    ordered pair j != i), -> d (relu(2^-p - sum)), -> d (times 2^p). The lemma's width d^2
    bounds the d(d - 1) used; each pair neuron reads two inputs, each s_i d - 1 pair neurons."""
    d = dim
    return {
        "layers": 3,
        "width": d * d,
        "width_used": d * (d - 1),
        "hidden_widths": [d * (d - 1), d],
        "output_dim": d,
        "parameter_count": affine_parameters(d, d * (d - 1), d, d),
        "nonzero_parameters": 2 * d * (d - 1) + d * (d - 1) + d + d,
        "margin_log2": -precision,
        "input_bound": f"||x||_inf = O(2^{precision})",
    }


def lemma_b3_sizes(alphabet: int, model_dim: int, precision: int) -> dict[str, object]:
    """Lemma B.3: x in R^d -> theta_TE(argmax_o x^T theta_OUTPUT(o)) as a ReLU network.

    Lemma B.2 on the |Sigma| logits, with the readout folded into its first map (relu(z_j -
    z_i) = relu((theta_j - theta_i)^T x)) and the embedding into its last (theta_TE 2^p s):
    three affine maps d -> |Sigma|(|Sigma| - 1) -> |Sigma| -> d, within the lemma's five and
    its width |Sigma|^2. Needs a unique argmax of the logits by a margin >= 2^-p."""
    a, d = alphabet, model_dim
    return {
        "layers": 5,
        "layers_used": 3,
        "width": a * a,
        "width_used": a * (a - 1),
        "hidden_widths": [a * (a - 1), a],
        "output_dim": d,
        "parameter_count": affine_parameters(d, a * (a - 1), a, d),
        "margin_log2": -precision,
    }


def lemma_b4_sizes(precision: int, model_dim: int = 1) -> dict[str, object]:
    """Lemma B.4: F(x, y, M) = M x + (1 - M) y = relu(x - 2^p(1 - M)) - relu(-x - 2^p(1 - M)) +
    relu(y - 2^p M) - relu(-y - 2^p M) for x, y in [-2^p, 2^p] and M in {0, 1}: two affine
    maps, four hidden ReLUs per gated coordinate (``model_dim`` of them), each reading one of
    x, y and M (the two on x with bias -2^p, the two on y with none), each written out once:
    14 nonzero parameters per coordinate."""
    d = model_dim
    return {
        "layers": 2,
        "width": 4 * d,
        "width_per_coordinate": 4,
        "input_dim": 2 * d + 1,
        "output_dim": d,
        "parameter_count": affine_parameters(2 * d + 1, 4 * d, d),
        "nonzero_parameters": 14 * d,
        "input_range": f"[-2^{precision}, 2^{precision}]",
    }


def lemma_b5_sizes(model_dim: int) -> dict[str, object]:
    """Lemma B.5: SHIFT((x_1, 1), ..., (x_n, n)) = ((x_1, 1), (x_1, 2), ..., (x_{n-1}, n)) by
    one attention layer with two heads and the residual, no MLP.

    A head cannot fetch j = i - 1 with scores linear in one position coordinate (they are
    monotone in j), so keys carry (j, j^2) and queries beta (2t, -1): the score beta (t^2 -
    (j - t)^2) peaks at j = t with a gap beta. Head 1 (t = i - 1) copies x_{i-1}, head 2
    (t = i) copies -x_i; the residual keeps i. Positional features (1, i, i^2): one more than
    Def. B.5's i; query/key dimension 2, value dimension d - 1 per head; nonzero weights: W_Q
    3 + 2, W_K 2 + 2, W_O W_V (d - 1) + (d - 1)."""
    d = model_dim
    if d < 2:
        raise InputError(f"SHIFT acts on (x_i, i) with x_i in R^(d-1): d must be >= 2, got {d}")
    return {
        "attention_layers": 1,
        "heads": 2,
        "mlp_width": 0,
        "key_dim": 2,
        "value_dim": d - 1,
        "positional_features": 3,
        "nonzero_parameters": 2 * (d - 1) + 9,
    }


ADDITION_OPERANDS = (2, 4, 8, 16, 32)
"""App. A.1's training mixture of operand counts, 3 digits each."""


def addition_inputs(operands: int = 32) -> dict[str, object]:
    """Distinct inputs of App. A.1's addition data: sum over n in {2, 4, 8, 16, 32} (those <=
    ``operands``) of 1000^n (operands 000..999); about 10^96 for the whole mixture, not the
    "> 10^320" of the text."""
    if operands < ADDITION_OPERANDS[0]:
        raise InputError(f"App. A.1's mixture has 2 to 32 operands; operands={operands} has none")
    total = sum(1000**n for n in ADDITION_OPERANDS if n <= operands)
    return {
        "operand_counts": [n for n in ADDITION_OPERANDS if n <= operands],
        "distinct_inputs": total,
        "log10_inputs": round(math.log10(total), 6),
        "training_examples": 200_000 * 1024,
    }


def gap_percent(looped_score: float, base_score: float, deep_score: float) -> float:
    """Eq. 3: 100 (Avg(k ⊗ 24/k) - Avg(k ⊗ 1)) / (Avg(24 ⊗ 1) - Avg(k ⊗ 1))."""
    if deep_score == base_score:
        raise InputError("%Gap is undefined when deep_score equals base_score")
    return 100 * (looped_score - base_score) / (deep_score - base_score)


BOUNDS: tuple[Bound, ...] = (
    Bound(
        id="looped.thm2_1",
        name="Theorem 2.1 (group composition by a looped 1-layer transformer)",
        statement=(
            "For any finite group G and n >= 1 a constant-precision looped transformer with a "
            "1-layer block, T = ceil(lg n) loops, vocabulary G ∪ {#}, embedding "
            "d = 3(ceil(lg|G|) + ceil(lg n + 1)), MLP width |G|^2 + 6 ceil(lg|G|), "
            "d_ATTN = ceil(lg n) and 2 heads maps (#, g_1..g_n) to g_1 ∘ ... ∘ g_n."
        ),
        citation="Sec. 2.2.2, Theorem 2.1; App. B.2.2, Algorithm 2",
        formula=(
            "loops = ceil(lg n); d = 3(ceil(lg|G|) + ceil(lg n) + 1) [needed: ceil(lg(n+1))]; "
            "d_FF = |G|^2 + 6 ceil(lg|G|); d_ATTN = ceil(lg n) "
            "[needed: max(ceil(lg(n+1)), ceil(lg|G|))]; H = 2"
        ),
        kind="upper",
        architecture="looped-transformer",
        task="group-composition",
        quantity="loops T",
        value_params=("group", "length"),
        _value=lambda group, length: ceil_log2(length),
        _outputs=thm2_1_sizes,
        errata=(
            "the embedding repeats bin([2i-n-1]_+); the second pointer is bin([2i-n]_+)",
            "+-1 codes of the positions 0..n need ceil(lg(n+1)) coordinates: d_ATTN = ceil(lg n) "
            "is one short when n is a power of two (key_dim_needed, model_dim_needed)",
            "the heads' values carry the ceil(lg|G|)-bit group code, so d_ATTN must be at least "
            "max(ceil(lg(n+1)), ceil(lg|G|)) (attention_dim_needed; S5 at n = 8: 7, not 3)",
            "ceil(lg n + 1) read literally is ceil(lg n) + 1, one more than needed unless n is a "
            "power of two (n = 24: 39 against 36)",
            "the position codes depend on n, so the construction is not length-uniform",
            "'depth log n is necessary' holds only under TC^0 != NC^1 and only against "
            "constant depth; it is not a proved Omega(log n)",
        ),
    ),
    Bound(
        id="looped.thm2_2",
        name="Theorem 2.2 (a looped layer simulates a model with R distinct layers)",
        statement=(
            "Any transformer with L layers, width d, MLP width d_FF, H heads of dimension "
            "d_ATTN and at most R distinct layers is simulated on (#, v_1..v_n) by one layer "
            "looped L times with width d + R + 2, MLP width R d_FF + O(L) and R H heads."
        ),
        citation="Sec. 2.2.3, Theorem 2.2; App. B.2.1",
        formula="loops = L; d' = d + R + 2; d_FF' = R d_FF + L + 3; heads' = R H",
        kind="upper",
        architecture="looped-transformer",
        task="simulate a model with R distinct layers",
        quantity="loops",
        value_params=("model_dim", "mlp_width", "heads", "distinct_layers", "layers"),
        optional_params=("head_dim",),
        _value=lambda layers, **_: layers,
        _outputs=thm2_2_sizes,
        derived=True,
        errata=(
            "'R h_FF' means R d_FF",
            "the hat function has no factor 0.5 (with it hat(0) = 0.5, not 1)",
            "the attention gates as written do not silence inactive heads; query extra +1 for "
            "inactive and -1 for the active head with key extra +B 1[j = 0] does",
        ),
        notes="O(L) made explicit: one counter neuron and L + 2 selector ReLUs.",
    ),
    Bound(
        id="looped.thmB_6",
        name="Theorem B.6 (p-hop by a non-looped transformer, Sanford et al. Thm 4.2)",
        statement=(
            "hop_p is computed by a floor(lg p) + 2 layer transformer with log n bits of "
            "precision, at most 3 distinct layers, d = d_FF = d_ATTN = O(1) and 1 head."
        ),
        citation="App. B, Theorem B.6 (restating Sanford et al. 2024b, Thm 4.2)",
        formula="layers = floor(lg p) + 2",
        kind="upper",
        architecture="transformer",
        task="p-hop",
        quantity="layers",
        value_params=("hops",),
        _value=phop_layers,
        _outputs=lambda hops: {"layers": phop_layers(hops), "distinct_layers": 3, "heads": 1},
        notes=(
            "ccomplexity.rounds.pointer_doubling realises floor(lg p) + 2 rounds for every p "
            "(round 1 finds the pointer by content, tokens trail pointers by one round)."
        ),
    ),
    Bound(
        id="looped.cor2_3",
        name="Corollary 2.3 (p-hop by a looped 1-layer transformer)",
        statement=(
            "hop_p is computed by looping a one-layer transformer floor(lg p) + 2 times, with "
            "log n bits of precision, O(1) widths and 3 heads (Thm 2.2 with R = 3, H = 1)."
        ),
        citation="Sec. 2.2.3, Corollary 2.3",
        formula=(
            "loops = floor(lg p) + 2; heads = 3; d' = d + 5; d_FF' = 3 d_FF + floor(lg p) + 5 "
            "(generic selector) or 3 d_FF + 5 (contiguous stretches)"
        ),
        kind="upper",
        architecture="looped-transformer",
        task="p-hop",
        quantity="loops",
        value_params=("hops",),
        optional_params=("model_dim", "mlp_width"),
        _value=lambda hops, **_: phop_layers(hops),
        _outputs=cor2_3_sizes,
        errata=(
            "the spec's straightforward schedule needs 2 + ceil(lg p) rounds, one more for p "
            "not a power of two; the schedule of ccomplexity.rounds needs floor(lg p) + 2",
        ),
        notes=(
            "widths: Thm 2.2 as stated (its generic hat-function layer selector, L + 2 ReLUs "
            "and a counter) gives MLP width 3 d_FF + floor(lg p) + 5 (mlp_width_extra), a "
            "log p term of that generic selector, not of the corollary; when the 3 distinct "
            "layers run in contiguous stretches, steps of the counter select them with "
            "1 + 2 (R - 1) = 5 neurons whatever p (mlp_width_extra_contiguous), and the "
            "corollary's O(1) widths hold; the seed does not restate the order of Thm B.6's "
            "layers. The claim that this matches a lower bound for non-looped models is "
            "cited, not re-derived here."
        ),
    ),
    Bound(
        id="looped.thmB_1",
        name="Theorem B.1 (looping simulates chain of thought)",
        statement=(
            "For any L-layer transformer there is a looped transformer with L + O(1) layers "
            "per block and O(1) extra width and heads such that m steps of chain of thought "
            "equal m loops over the input followed by m dummy tokens #^m."
        ),
        citation="App. B.3, Theorem B.1",
        formula="loops = m (block: L + O(1) layers)",
        kind="upper",
        architecture="looped-transformer",
        task="chain of thought",
        quantity="loops",
        value_params=("cot_steps",),
        _value=lambda cot_steps: cot_steps,
        _outputs=lambda cot_steps: {"loops": cot_steps, "dummy_tokens": cot_steps},
    ),
    Bound(
        id="looped.lemmaB_2",
        name="Lemma B.2 (argmax by a ReLU MLP)",
        statement=(
            "For every d a 3-layer ReLU network of width d^2 and precision p maps every "
            "x in R^d with ||x||_inf <= O(2^p) whose largest coordinate x_k leads the others by "
            "at least 2^-p to e_k."
        ),
        citation="App. B.3, Lemma B.2",
        formula=(
            "layers = 3; width = d^2 (used: d(d-1)); "
            "s_i = 2^p relu(2^-p - sum_{j != i} relu(x_j - x_i))"
        ),
        kind="upper",
        architecture="relu-mlp",
        task="argmax",
        quantity="width",
        value_params=("dim", "precision"),
        _value=lambda dim, precision: dim * dim,
        _outputs=lemma_b2_sizes,
        notes="the realisation uses the d(d-1) pair neurons relu(x_j - x_i), j != i.",
    ),
    Bound(
        id="looped.lemmaB_3",
        name="Lemma B.3 (decode and re-embed by a ReLU MLP)",
        statement=(
            "For p-precision theta_TE in R^(d x Sigma) and theta_OUTPUT a 5-layer ReLU network "
            "of width max(|Sigma|^2) maps every p-precision x with a unique argmax "
            "v = argmax_o (x^T theta_OUTPUT)(o) to theta_TE(v)."
        ),
        citation="App. B.3, Lemma B.3",
        formula="layers = 5 (used: 3); width = |Sigma|^2 (used: |Sigma|(|Sigma|-1))",
        kind="upper",
        architecture="relu-mlp",
        task="decode and re-embed",
        quantity="width",
        value_params=("alphabet", "model_dim", "precision"),
        _value=lambda alphabet, model_dim, precision: alphabet * alphabet,
        _outputs=lemma_b3_sizes,
        errata=(
            "'max(|Sigma|^2)' is a maximum of one term: the width is |Sigma|^2; the argmax "
            "needs the logits to lead by 2^-p (Lemma B.2), which 'unique' alone does not give",
        ),
    ),
    Bound(
        id="looped.lemmaB_4",
        name="Lemma B.4 (control gate)",
        statement=(
            "A 2-layer ReLU network with precision p computes F(x, y, M) = M x + (1 - M) y for "
            "x, y in [-2^p, 2^p] and M in {0, 1}."
        ),
        citation="App. B.3, Lemma B.4",
        formula=(
            "F = relu(x - 2^p(1-M)) - relu(-x - 2^p(1-M)) + relu(y - 2^p M) - relu(-y - 2^p M); "
            "layers = 2; width = 4 per coordinate"
        ),
        kind="upper",
        architecture="relu-mlp",
        task="masked update",
        quantity="width",
        value_params=("precision",),
        optional_params=("model_dim",),
        _value=lambda precision, model_dim=1: 4 * model_dim,
        _outputs=lemma_b4_sizes,
    ),
    Bound(
        id="looped.lemmaB_5",
        name="Lemma B.5 (shift by one attention layer with two heads)",
        statement=(
            "SHIFT((x_1, 1), ..., (x_n, n)) = ((x_1, 1), (x_1, 2), ..., (x_{n-1}, n)) is one "
            "fixed attention layer with two heads."
        ),
        citation="App. B.3, Definition B.5 and Lemma B.5",
        formula="attention layers = 1; heads = 2; key dim 2, value dim d - 1",
        kind="upper",
        architecture="transformer",
        task="shift",
        quantity="heads",
        value_params=("model_dim",),
        _value=lambda model_dim: 2,
        _outputs=lemma_b5_sizes,
        derived=True,
        errata=(
            "with scores linear in the position i alone no head attends to j = i - 1 (a score "
            "a_i j + b_i is monotone in j): the keys need a second positional feature, here j^2",
        ),
        notes="sizes of one realisation (head 1 fetches x_{i-1}, head 2 cancels x_i); the "
        "lemma states only the layer and the heads.",
    ),
    Bound(
        id="looped.appA1_examples",
        name="App. A.1 (distinct inputs of the addition data)",
        statement=(
            "Training on 200k steps of 1024 examples (200M) is insignificant next to the "
            "number of possible inputs, n in {2, 4, 8, 16, 32} operands of 3 digits."
        ),
        citation="App. A.1 (addition)",
        formula="inputs = sum_{n in {2,4,8,16,32}, n <= operands} 1000^n ≈ 10^96 (all five)",
        kind="fact",
        architecture="data",
        task="addition",
        quantity="distinct inputs",
        value_params=(),
        optional_params=("operands",),
        _value=lambda operands=32: addition_inputs(operands)["distinct_inputs"],
        _outputs=addition_inputs,
        errata=(
            "the text says > 10^320 possible examples; sum_n 1000^n over n in "
            "{2, 4, 8, 16, 32} is 10^96 + 10^48 + ... ≈ 10^96 (log10 = 96.000000); the "
            "conclusion (no memorisation from 2 x 10^8 examples) stands",
        ),
    ),
    Bound(
        id="looped.eq3",
        name="Eq. 3 (%Gap closed by looping)",
        statement=(
            "For a task group and k layers: %Gap = (Avg(k ⊗ 24/k) - Avg(k ⊗ 1)) / "
            "(Avg(24 ⊗ 1) - Avg(k ⊗ 1)); 100% closes the gap between the iso-param and the "
            "iso-FLOP model, above 100% beats the iso-FLOP model."
        ),
        citation="Sec. 3.1, Eq. 3",
        formula="%Gap = 100 (looped - base) / (deep - base)",
        kind="fact",
        architecture="looped-transformer",
        task="language-model evaluations",
        quantity="%Gap (percent)",
        value_params=("looped_score", "base_score", "deep_score"),
        _value=gap_percent,
    ),
    Bound(
        id="looped.word_problem",
        name="Word problem of G across a cut (toolkit derivation)",
        statement=(
            "Deciding g_1 ∘ ... ∘ g_n = e with Alice holding a prefix and Bob the suffix needs "
            "ceil(lg |G|) bits for every n >= 2: {(g e..e, g^-1 e..e)} is a fooling set of size "
            "|G|, and the minimal DFA of the word problem has |G| states. A recurrent model "
            "therefore needs m p >= ceil(lg |G|) state bits, however long the input."
        ),
        citation="not in the paper: Def. 1 / Fact 4 of the separations paper applied to G",
        formula="bits >= ceil(lg |G|); minimal DFA states = |G|",
        kind="lower",
        architecture="protocol",
        task="group-composition",
        quantity="bits",
        value_params=("group",),
        _value=lambda group: ceil_log2(group_order(group)),
        _outputs=lambda group: {"states": group_order(group), "fooling_set": group_order(group)},
        derived=True,
    ),
    Bound(
        id="looped.carry",
        name="Carry automaton of n-ary addition (toolkit derivation)",
        statement=(
            "Checking a claimed sum of n numbers column by column, least significant first, "
            "needs the carry, which lies in 0..n-1: the minimal automaton has n live states "
            "and a dead sink, so ceil(lg n) state bits per column."
        ),
        citation="not in the paper: the automaton of ccomplexity.languages.arithmetic",
        formula="states = n + 1 (n live); state bits = ceil(lg n)",
        kind="fact",
        architecture="automaton",
        task="addition",
        quantity="live states",
        value_params=("operands",),
        _value=lambda operands: operands,
        _outputs=lambda operands: {
            "states": operands + 1,
            "live_states": operands,
            "state_bits": ceil_log2(operands),
        },
        derived=True,
    ),
)
