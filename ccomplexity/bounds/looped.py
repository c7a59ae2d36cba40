"""Bounds of "Understanding Reasoning with Looped Models" (spec ``looped-reasoning``, Sec. 3-4).

A ``(k ⊗ L)`` model loops a k-layer block L times: the parameters of ``(k ⊗ 1)``, the depth
and FLOPs of ``(kL ⊗ 1)``. The statements here give loops and widths: Thm 2.1 (group
composition in ceil(log2 n) loops of one layer), Thm 2.2 (a looped layer simulating a model
with R distinct layers), Thm B.6 and Cor. 2.3 (p-hop in floor(log2 p) + 2 layers or loops),
Thm B.1 (m chain-of-thought steps as m loops), Eq. 3 (the %Gap of Sec. 3). Two more are the
toolkit's own link to communication complexity, not the paper's: the word problem of G needs
ceil(log2 |G|) bits across any prefix/suffix cut (its minimal DFA has |G| states), and the
carry automaton of n-ary addition has n live states.

The loop counts are realised by the round-counting simulators of :mod:`ccomplexity.rounds`;
Thm 2.1 is also built as weights (``ccx construct --task group-composition``).
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
        "head_dim_needed": pos_bits,
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
            "d_FF = |G|^2 + 6 ceil(lg|G|); d_ATTN = ceil(lg n) [needed: ceil(lg(n+1))]; H = 2"
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
            "is one short when n is a power of two (head_dim_needed, model_dim_needed)",
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
        formula="loops = floor(lg p) + 2; heads = 3",
        kind="upper",
        architecture="looped-transformer",
        task="p-hop",
        quantity="loops",
        value_params=("hops",),
        _value=phop_layers,
        _outputs=lambda hops: {
            "loops": phop_layers(hops),
            "block_layers": 1,
            "heads": 3,
            "distinct_layers": 3,
        },  # fmt: skip
        errata=(
            "the spec's straightforward schedule needs 2 + ceil(lg p) rounds, one more for p "
            "not a power of two; the schedule of ccomplexity.rounds needs floor(lg p) + 2",
        ),
        notes="the claim that this matches a lower bound for non-looped models is cited, "
        "not re-derived here.",
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
        },  # fmt: skip
        derived=True,
    ),
)
