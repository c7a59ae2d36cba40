"""Bounds of Eyuboglu et al., "Towards smaller language models via layer looping" (spec
``looping-kg-moe``, Sec. 2): q-hop path queries over a matching knowledge graph of T = E R triples.

Lower bounds (counting): Lemma B.18, the bits to store m distinct permutations of E entities
and the parameters they need at log2 E bits each; Thm B.19 (= Thm 5.2), the exact integer
minimum E min{sum m_l : prod m_l >= R^q} over L layers of a relation product model and its
continuous form E L R^(q/L). Both are for a restricted class (relation product models,
Def. B.16) and Thm B.19 also rests on Assumption B.17; the general Omega(qT) is a conjecture.

Upper bounds (constructions): Prop B.10-B.13, Thm 5.1 (= B.15) and Thm 5.3 (= B.14) state
O(T log c + log^2 c)-style counts. Here they are evaluated with the exact parameter and FLOP
counts of the hand-wired construction of ``models/constructions/kg.py`` (``ccx construct --task
kg-path``), which reports each measured count next to these formulas; its tests check that they
agree. The construction's layout: tokens carry the +-1 codes of b = ceil(log2 c) bits, c the
query vocabulary of :class:`~ccomplexity.languages.kg.QueryVocabulary`; lookup is one ReLU
detector per triple (2b key weights, b tail weights, 1 flag weight: T(3b + 1)) with one shared
threshold; substitute is hard attention with one sink logit; a mixture-of-experts lookup adds a
router of K(b + 1) numbers. FLOPs are those of the matrix products (2 per multiply-add), as
``torch.utils.flop_counter`` counts them; block selections and elementwise steps are not counted.
Those counts are of the toolkit's simplified program (hard-argmax attention, assignment instead
of the residual); each evaluation says so (``parameters_counted``) and gives the paper's count of
the Layers its proofs write beside it (``paper_*``, :mod:`ccomplexity.bounds.kg_blocks`), whose
primitives are statements here too: Prop B.6, Cor B.7, Props B.8 and B.9, with their depths.

Longer than most modules by design, like every paper's bounds module: the paper's statements
are data entries (statement, citation, formula, errata) beside the exact counts they evaluate.

The module is the paper's one registry of statements and stays whole (over 500 lines): the
primitives' compositions live in :mod:`ccomplexity.bounds.kg_blocks`; what remains is one
``Bound`` entry per statement with its formula, errata and inversions.
"""

from __future__ import annotations

import math
from typing import Any

from ccomplexity.bounds import kg_blocks
from ccomplexity.bounds.base import Bound, define_param, positive_int
from ccomplexity.errors import InputError, check_int, shown
from ccomplexity.languages.kg import QueryVocabulary

define_param(
    "products",
    positive_int("products"),
    "distinct relation products of length q a model must represent (Thm B.19; default R^q)",
)

COMPOSITIONS = ("standard", "looped", "looped-moe")
SHARED_PARAMETERS = 2
"""Per block of the construction: the detectors' shared threshold and the substitute's sink."""
COUNTED = (
    "the toolkit's simplified program: detector keys, tails and flags, one shared threshold, "
    "the sink logit and the router; attention is a hard argmax with a sink and lookup assigns "
    "instead of adding a residual, so no Q, K, V matrices, copy blocks or residual-cancelling "
    "Layers are stored (block selections are wiring). paper_parameters: every entry of the "
    "Layers the proofs write (kg_blocks)"
)
"""What ``parameters`` counts, next to the paper's count (``paper_parameters``)."""

EXACT_BITS_LIMIT = 1 << 20
"""Lemma B.18 decides near-ties with integers of at most this many bits (C(E!, m) exactly)."""
LAYER_LIMIT = 1 << 20
"""Most layers L that Thm B.19's integer minimum is evaluated for."""
TARGET_BITS_LIMIT = 1 << 16
"""Most bits of the number of products R^q that Thm B.19 is evaluated for."""


# -- the construction's exact counts ------------------------------------------------------------


def code_bits(entities: int, relations: int, hops: int) -> int:
    """b = ceil(log2 c), c = E + 1 + q + R tokens (entities, [and], variables, relations)."""
    return QueryVocabulary(entities, relations, hops).code_bits


def default_experts(entities: int, relations: int) -> int:
    """sqrt(T) rounded to the nearest integer (Prop B.11), at most E (experts own head ranges)."""
    t = check_int(entities, "entities") * check_int(relations, "relations")
    k = math.isqrt(t)
    return min(k + (t > k * k + k), entities)  # sqrt(t) > k + 1/2 iff t >= k^2 + k + 1


def expert_bounds(entities: int, experts: int) -> list[int]:
    """Head ranges of the experts: expert i owns entities B_i <= e < B_{i+1}, B_i = floor(iE/K).

    Sizes are floor(E/K) or ceil(E/K), so the loads (R per entity) differ by at most R. For K a
    power of two dividing E, the ranges are exactly the prefixes of the heads' codes (the
    paper's router); any K <= E works.
    """
    e = check_int(entities, "entities")
    k = check_int(experts, "experts")
    if k > e:
        raise InputError(f"experts route by head entity: at most E = {e} experts, got {k}")
    return [i * e // k for i in range(k + 1)]


def expert_triples(entities: int, relations: int, experts: int) -> list[int]:
    """Triples each expert stores: R times the size of its head range."""
    b = expert_bounds(entities, experts)
    return [relations * (b[i + 1] - b[i]) for i in range(experts)]


def _detect_flops(rows: int, triples: int, bits: int) -> int:
    """Keys (rows, 2b) @ (2b, T), then (rows, T) @ (T, b + 1): 2 rows T (3b + 1)."""
    return 2 * rows * triples * (3 * bits + 1)


def substitute_flops(hops: int, bits: int) -> int:
    """Scores (q, b) @ (b, q) and hard weights (q, q + 1) @ (q + 1, b + 1) per iteration."""
    return 2 * hops * hops * bits + 2 * hops * (hops + 1) * (bits + 1)


def construction_counts(
    composition: str, entities: int, relations: int, hops: int, experts: int | None = None
) -> dict[str, Any]:
    """Exact parameters and worst-case FLOPs per query of the construction.

    ``standard``: q blocks (substitute, lookup), each storing every triple (Thm 5.1);
    ``looped``: one block looped q times (Prop B.13); ``looped-moe``: the same with the lookup
    split over K experts by head range (Thm 5.3). FLOPs: q iterations over q rows, plus the
    readout of the last row against the E entity codes; for experts, every row at the largest.
    """
    if composition not in COMPOSITIONS:
        raise InputError(f"composition must be one of {', '.join(COMPOSITIONS)}")
    e, r, q = (check_int(entities, "entities", 2), check_int(relations, "relations"),
               check_int(hops, "hops"))  # fmt: skip
    b, t = code_bits(e, r, q), e * r
    detectors = t * (3 * b + 1)
    out: dict[str, Any] = {"composition": composition, "code_bits": b, "triples": t}
    per_iteration = substitute_flops(q, b)
    if composition == "looped-moe":
        k = default_experts(e, r) if experts is None else check_int(experts, "experts")
        sizes = expert_triples(e, r, k)
        largest = max(sizes)
        router = k * (b + 1)
        out.update(
            experts=k,
            parameters=detectors + router + SHARED_PARAMETERS,
            lookup_parameters=detectors,
            active_lookup_parameters=router + largest * (3 * b + 1),
            largest_expert_triples=largest,
        )
        per_iteration += 2 * q * b * k + _detect_flops(q, largest, b)
    else:
        if experts is not None:
            raise InputError(f"the {composition} composition has no experts")
        sizes = None
        copies = q if composition == "standard" else 1
        out.update(
            parameters=copies * (detectors + SHARED_PARAMETERS),
            lookup_parameters=copies * detectors,
        )
        per_iteration += _detect_flops(q, t, b)
    out["flops"] = q * per_iteration + 2 * b * e
    out["parameters_counted"] = COUNTED
    out.update(kg_blocks.paper_counts(composition, b, t, q, sizes))
    return out


# -- Lemma B.18 ---------------------------------------------------------------------------------


def _log2_int(n: int) -> float:
    """log2 of a positive integer of any size, to float precision."""
    shift = max(0, n.bit_length() - 60)
    return math.log2(n >> shift) + shift


M_BITS_LIMIT = 1000
"""Lemma B.18's m (permutations) has fewer bits: m log2 E! and log2 m! stay floats."""


def permutation_storage(entities: int, permutations: int) -> dict[str, Any]:
    """Lemma B.18: the bits log2 C(E!, m) to tell apart every choice of m distinct permutations,
    and the fewest parameters of log2 E bits each, P = min{P : E^P >= C(E!, m)}.

    Floats give log2 C(E!, m) = m log2 E! - log2 m! - sum_{i<m} -log2(1 - i/E!) (the sum to
    first order, m(m - 1) / (2 E! ln 2), which needs m^2 <= E! / 2^20); P is decided by that
    float unless it lies within 1e-9 of an integer, where C(E!, m) and E^P are compared as
    integers (when C has at most EXACT_BITS_LIMIT bits). ``exact`` says P is certain.
    ``bits_paper`` is the proof's m (log2 E! - log2 m) (with its binomial bound turned the right
    way round, C(n, k) >= (n/k)^k), a lower estimate of ``bits``.
    """
    e = check_int(entities, "entities", 2)
    m = check_int(permutations, "permutations")
    log2_fact = math.lgamma(e + 1) / math.log(2)
    fact = math.factorial(e) if e <= 200 else None  # beyond, E! > 10^375 exceeds any m here
    if fact is not None and m > fact:
        raise InputError(f"there are only E! = {fact} permutations of {e} entities, not m = {m}")
    if m.bit_length() > M_BITS_LIMIT:  # m log2 E! must stay a float
        raise InputError(
            f"Lemma B.18 is evaluated for m below 2^{M_BITS_LIMIT}; m has {m.bit_length()} bits"
        )
    small = m * log2_fact <= EXACT_BITS_LIMIT
    exact_count = math.comb(fact, m) if small and fact is not None else None
    if exact_count is not None:
        bits = _log2_int(exact_count)
    elif fact is None or (m * m) << 20 <= fact:
        first_order = 0.0 if fact is None else m * (m - 1) / (2 * fact) / math.log(2)  # E! > 1e308
        bits = m * log2_fact - math.lgamma(m + 1) / math.log(2) - first_order
    else:
        raise InputError(
            f"Lemma B.18 is evaluated for m^2 <= E!/2^20 or m log2 E! <= {EXACT_BITS_LIMIT}; "
            f"m = {shown(m)} with E = {e} is outside both"
        )
    per = math.log2(e)
    x = bits / per
    params, exact = math.ceil(x), True
    if abs(x - round(x)) <= 1e-9 * max(1.0, x):
        if exact_count is None:
            exact = False
        else:  # settle the near-tie with integers: the least P with E^P >= C(E!, m)
            params = max(0, round(x) - 1)
            while e**params < exact_count:
                params += 1
    return {
        "bits": bits,
        "bits_paper": m * (log2_fact - math.log2(m)),
        "log2_factorial": log2_fact,
        "bits_per_parameter": per,
        "min_parameters": params,
        "min_parameters_exact": exact,
        "mE": m * e,
    }


# -- Theorem B.19 -------------------------------------------------------------------------------


def balanced_product(total: int, layers: int) -> int:
    """The largest prod m_l over L positive integers with sum m_l = total (total >= L): the
    balanced split (moving 1 from x to y when x >= y + 2 multiplies by (x-1)(y+1)/(xy) > 1)."""
    a, r = divmod(total, layers)
    return a ** (layers - r) * (a + 1) ** r


def min_monomials(target: int, layers: int) -> tuple[int, list[list[int]]]:
    """min{sum m_l : m_l >= 1 integers, prod m_l >= target} over L layers, and the optimal split
    as [[monomials, layers with that many], ...] (Eq. 27 with the fewest monomials in all).

    The balanced product grows with the sum, so the least sum is found by doubling and bisection.
    """
    n, big_l = check_int(target, "target"), check_int(layers, "layers")
    lo, hi = big_l - 1, big_l  # invariant: balanced_product(lo) < n <= balanced_product(hi)
    if n == 1:
        return big_l, [[1, big_l]]
    while balanced_product(hi, big_l) < n:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if balanced_product(mid, big_l) >= n:
            hi = mid
        else:
            lo = mid
    a, r = divmod(hi, big_l)
    split = [[a, big_l - r]] + ([[a + 1, r]] if r else [])
    return hi, split


def _thm_b19_outputs(
    entities: int, relations: int, hops: int, layers: int, products: int | None = None
) -> dict[str, Any]:
    if hops * math.log2(relations) > TARGET_BITS_LIMIT or layers > LAYER_LIMIT:
        raise InputError(
            f"Thm B.19 is evaluated for R^q below 2^{TARGET_BITS_LIMIT} and L <= {LAYER_LIMIT}"
        )
    words = relations**hops
    if products is not None and products > words:
        raise InputError(f"there are only R^q = {words} relation words, not {products} products")
    target = words if products is None else products
    total, split = min_monomials(target, layers)
    try:  # None where a layer's m_l exceeds E! or Lemma B.18's evaluated range
        b18 = sum(permutation_storage(entities, m)["min_parameters"] * n for m, n in split)
    except InputError:
        b18 = None
    exponent = math.log(target) / layers
    # L R^(q/L) as a float; None where it (or E times it) leaves float range (R^q > ~2^1000 at
    # small L): the exact counts above still hold there
    fits = exponent + math.log(layers * entities) < 709
    continuous = layers * math.exp(exponent) if fits else None
    return {
        "target_products": target,
        "min_monomials": total,
        "monomials_per_layer": split,
        "min_parameters": entities * total,
        "min_parameters_lemma_b18": b18,
        "continuous_monomials": continuous,
        "continuous_parameters": None if continuous is None else entities * continuous,
        "qER": hops * entities * relations,
        "theorem_applies": relations >= 3 and layers <= hops,
    }


# -- the statements -----------------------------------------------------------------------------

_KG = ("entities", "relations", "hops")
_CLASS_NOTE = (
    "A restricted class: relation product models (Def. B.16), each layer e^T sum_i g_i(x) P_i "
    "with P_i monomials in the relation matrices, and Assumption B.17 (a layer with m monomials "
    "costs Omega(mE) parameters). Thm 5.2 in the main text drops the restriction; Omega(qT) for "
    "every standard model is the paper's conjecture, not proved."
)
_LAYOUT = "b = ceil(log2(E + 1 + q + R)), T = E R"


def _counts(composition: str) -> Any:
    def outputs(entities: int, relations: int, hops: int, experts: int | None = None):
        out = construction_counts(composition, entities, relations, hops, experts)
        if "experts" in out:  # an output apart from the input of that name
            out["experts_used"] = out.pop("experts")
        return out

    return outputs


def _paper_block(block: kg_blocks.Block) -> dict[str, Any]:
    return {f"paper_{k}": v for k, v in block.counts().items()}


def _lookup_outputs(entities: int, relations: int, hops: int) -> dict[str, Any]:
    b, t = code_bits(entities, relations, hops), entities * relations
    return {  # the paper's block first, the toolkit's program beside it
        **_paper_block(kg_blocks.lookup_block(b, t)),
        "code_bits": b,
        "triples": t,
        "lookup_parameters": t * (3 * b + 1),
        "parameters": t * (3 * b + 1) + 1,
        "flops_per_row": _detect_flops(1, t, b),
        "parameters_counted": COUNTED,
    }


def _moe_lookup_outputs(
    entities: int, relations: int, hops: int, experts: int | None = None
) -> dict[str, Any]:
    b, t = code_bits(entities, relations, hops), entities * relations
    k = default_experts(entities, relations) if experts is None else experts
    loads = expert_triples(entities, relations, k)
    return {
        "code_bits": b,
        "triples": t,
        "experts_used": k,
        "expert_triples_min": min(loads),
        "expert_triples_max": max(loads),
        "lookup_parameters": t * (3 * b + 1),
        "parameters": t * (3 * b + 1) + k * (b + 1) + 1,
        "active_lookup_parameters": k * (b + 1) + max(loads) * (3 * b + 1),
        "flops_per_row": 2 * b * k + _detect_flops(1, max(loads), b),
        "parameters_counted": COUNTED,
        **{f"paper_{key}": v for key, v in kg_blocks.moe_lookup_counts(b, loads).items()},
    }


def _substitute_outputs(entities: int, relations: int, hops: int) -> dict[str, Any]:
    b = code_bits(entities, relations, hops)
    return {
        **_paper_block(kg_blocks.substitute_block(b)),  # the paper's block first
        "code_bits": b,
        "parameters": 1,
        "flops_per_iteration": substitute_flops(hops, b),
        "parameters_counted": COUNTED,
    }


def _wrapped(model_dim: int, mlp_width: int, layers: int = 1) -> dict[str, int]:
    """Prop B.6 (one Layer) / Cor B.7 (L Layers): KeepNegatives over Layers (d, d'), each
    doubled alike, so the stack's counts are L times one wrapped Layer's."""
    one = kg_blocks.keep_negatives(kg_blocks.layer(model_dim, mlp_width)).counts()
    total = ("depth", "attention_parameters", "glu_parameters", "parameters")
    return {k: v * layers if k in total else v for k, v in one.items()}


_FLOPS_NOTE = (
    "Attention over the q rows costs O(q^2 log c) per iteration, O(q^3 log c) in all: inside "
    "O(q^2 T log c) since q <= T (Prop B.12's O(q log^2 c) counts per-row projections only)."
)

BOUNDS: tuple[Bound, ...] = (
    Bound(
        id="kg.lemma_b18",
        name="Lemma B.18 (storing m permutations)",
        statement=(
            "Representing m arbitrary distinct permutations of E entities needs Omega(mE) "
            "parameters: there are C(E!, m) choices, log2 C(E!, m) = Omega(m E log E) bits for "
            "m = poly(E), and a parameter holds log2 E bits."
        ),
        citation="App. B.6, Lemma B.18",
        formula="bits = log2 C(E!, m); min_parameters = min{P : E^P >= C(E!, m)}",
        kind="lower",
        architecture="any model storing permutations",
        task="m permutations of E entities",
        quantity="parameters at log2 E bits each",
        value_params=("entities", "permutations"),
        _value=lambda entities, permutations: permutation_storage(entities, permutations)[
            "min_parameters"
        ],
        _outputs=permutation_storage,
        errata=(
            "The proof states the binomial bound backwards (C(a, b) >= (b/a)^a for a <= b) and "
            "drops the binomial in several lines; the bound used is C(n, k) >= (n/k)^k, giving "
            "bits_paper = m (log2 E! - log2 m). bits is the exact log2 C(E!, m).",
        ),
    ),
    Bound(
        id="kg.thm_b19",
        name="Theorem B.19 (= Thm 5.2, relation product models)",
        statement=(
            "To answer all q-hop path queries over a matching graph with R >= e, a relation "
            "product model of the standard architecture with L <= q layers needs Omega(qER) "
            "parameters: it needs prod_l m_l >= R^q monomials (Eq. 27), and by Assumption B.17 "
            "alpha E sum_l m_l parameters."
        ),
        citation="App. B.6, Theorem B.19; Sec. 5, Theorem 5.2",
        formula=(
            "min_parameters = E min{sum m_l : prod_{l<=L} m_l >= R^q} (alpha = 1); "
            "continuous E L R^(q/L); = qER at L = q"
        ),
        kind="lower",
        architecture="relation product model (standard architecture, L layers)",
        task="kg-path",
        quantity="parameters (Assumption B.17 with alpha = 1)",
        value_params=(*_KG, "layers"),
        optional_params=("products",),
        _value=lambda **p: _thm_b19_outputs(**p)["min_parameters"],
        _outputs=_thm_b19_outputs,
        aliases=("kg.thm5_2",),
        derived=True,
        notes=(
            _CLASS_NOTE + " Eq. 27 assumes the R^q products pairwise distinct (count them with "
            "ccx kg products; --products replaces R^q). min_parameters_lemma_b18 gives each "
            "layer Lemma B.18's count for its m_l permutations instead of alpha E m_l. The "
            "counting step holds for every L and R; theorem_applies says whether L <= q and "
            "R >= 3, where the minimum is at least qER (= qT) and reaches it at L = q."
        ),
        errata=(
            "Thm 5.2 in the main text omits 'relation product model'; the appendix states it.",
        ),
    ),
    Bound(
        id="kg.prop_b6",
        name="Proposition B.6 (KeepNegatives)",
        statement=(
            "For any x there is a constant-depth block of Layers that computes KeepNegatives: a "
            "Layer whose GLU keeps its negative values outside a range of units; one Layer "
            "whose GLU has the units u and -u (u = ReLU(u) - ReLU(-u))."
        ),
        citation="App. B.4, Definition B.1 and Proposition B.6",
        formula=(
            "depth 1; hidden width 2d'; parameters 3d^2 (Q, K, V) + 3d (2d') + 2 (2d') "
            "(W^in, W^gate, W^out, b^1, b^2)"
        ),
        kind="upper",
        architecture="Layer (attention and GLU, Eq. 15-16)",
        task="KeepNegatives primitive",
        quantity="depth (Layers)",
        value_params=("model_dim", "mlp_width"),
        _value=lambda **p: _wrapped(**p)["depth"],
        _outputs=_wrapped,
        errata=(
            "the proof pads the input to x-bar = (x, 0) in R^{N x 2d} while W-bar^in is in "
            "R^{d x 2d'}: only the hidden width doubles, the model width stays d",
        ),
    ),
    Bound(
        id="kg.cor_b7",
        name="Corollary B.7 (KeepNegatives of any stack of Layers)",
        statement=(
            "Any f composed exclusively of Layers can be implemented through KeepNegatives with "
            "any subset of negatives kept: Prop B.6 applied to each of its L Layers."
        ),
        citation="App. B.4, Corollary B.7",
        formula="depth L; each Layer's hidden width 2d' (doubled once however deep the wrapping)",
        kind="upper",
        architecture="Layer (attention and GLU, Eq. 15-16)",
        task="KeepNegatives primitive",
        quantity="depth (Layers)",
        value_params=("model_dim", "mlp_width", "layers"),
        _value=lambda **p: _wrapped(**p)["depth"],
        _outputs=_wrapped,
    ),
    Bound(
        id="kg.prop_b8",
        name="Proposition B.8 (NoResidual)",
        statement=(
            "For any x in R^{N x d} a constant-depth (2) block of Layers computes "
            "NoResidual: a GLU without the residual. Layer 1 computes it into a spare half of "
            "the width, Layer 2 moves it back and cancels the residual."
        ),
        citation="App. B.4, Definition B.2 and Proposition B.8",
        formula=(
            "depth 2; model width 2d; hidden width 2 (2d') (W^in_1 in R^{2d x 2d'}, in "
            "KeepNegatives); parameters 2 (3 (2d)^2 + 3 (2d)(4d') + 2 (4d'))"
        ),
        kind="upper",
        architecture="Layer (attention and GLU, Eq. 15-16)",
        task="NoResidual primitive",
        quantity="depth (Layers)",
        value_params=("model_dim", "mlp_width"),
        _value=lambda **p: kg_blocks.no_residual(p["model_dim"], p["mlp_width"]).depth,
        _outputs=lambda **p: kg_blocks.no_residual(p["model_dim"], p["mlp_width"]).counts(),
        errata=(
            "W-bar^out_1 holds W^gate in its lower right block; it is W^out",
            "W-bar^out_2 is written with all-ones blocks 1^{d' x d}; moving the right half and "
            "cancelling the residual needs identity blocks [[-I, 0], [I, -I]]",
        ),
    ),
    Bound(
        id="kg.prop_b9",
        name="Proposition B.9 (InvertColumn)",
        statement=(
            "For x in R^{N x d} whose column i is in {-1, 0, 1}, a constant-depth (4) block of "
            "Layers computes InvertColumn(i, x) (0 -> 1, +-1 -> 0): NoResidual squares the "
            "column with the gate, a second NoResidual writes 1 minus it."
        ),
        citation="App. B.4, Definition B.3 and Proposition B.9",
        formula="depth 4 = 2 NoResidual (Prop B.8) in KeepNegatives; model width 2d",
        kind="upper",
        architecture="Layer (attention and GLU, Eq. 15-16)",
        task="InvertColumn primitive",
        quantity="depth (Layers)",
        value_params=("model_dim", "mlp_width"),
        _value=lambda **p: kg_blocks.invert_column(p["model_dim"], p["mlp_width"]).depth,
        _outputs=lambda **p: kg_blocks.invert_column(p["model_dim"], p["mlp_width"]).counts(),
    ),
    Bound(
        id="kg.prop_b10",
        name="Proposition B.10 (lookup, one detector per triple)",
        statement=(
            "A constant-depth block with O(T log c + log^2 c) parameters and O(qT log c + "
            "q log^2 c) FLOPs implements lookup for all T triples of a matching graph."
        ),
        citation="App. B.4, Proposition B.10",
        formula=(
            "the paper's block: depth 4 (two NoResiduals), paper_parameters (the value) every "
            "entry of its Layers at d = 5b + 1, d' = 4b + T; the toolkit's program: "
            f"T (3b + 1) + 1 parameters, 2 T (3b + 1) FLOPs per row; {_LAYOUT}"
        ),
        kind="upper",
        architecture="GLU layer (ReLU detectors)",
        task="kg lookup",
        quantity="parameters of the paper's lookup block (every entry of its 4 Layers)",
        value_params=_KG,
        _value=lambda **p: _lookup_outputs(**p)["paper_parameters"],
        _outputs=_lookup_outputs,
        errata=(
            "Step 1 sets the gate weights and gate bias to 0, which zeroes the GLU; the gate "
            "must be 1 (a ReLU MLP), as here.",
            "The KeepNegatives range (4 log c, 5 log c) does not match the T detector units: "
            "detectors are ReLU units, copies linear (here: a block assignment).",
        ),
        notes=(
            "value and paper_parameters count the Layers of the proof (Q, K, V and copy "
            "blocks: the O(log^2 c) terms), parameters the toolkit's program, beside it; see "
            "parameters_counted. The T detector thresholds 1 - 2b are one shared constant "
            "(counted once)."
        ),
    ),
    Bound(
        id="kg.prop_b11",
        name="Proposition B.11 (lookup by experts)",
        statement=(
            "A constant-depth block of mixture-of-experts layers with sqrt(T) experts, top-1, "
            "implements lookup with O(T log c) parameters and O(sqrt(T) log c) FLOPs per row."
        ),
        citation="App. B.4, Proposition B.11",
        formula=(
            f"T (3b + 1) + K (b + 1) + 1 parameters; per row 2bK + 2 T_max (3b + 1) FLOPs, "
            f"T_max = R ceil(E/K); K = round(sqrt T) by default; {_LAYOUT}"
        ),
        kind="upper",
        architecture="mixture-of-experts GLU layer",
        task="kg lookup",
        quantity="parameters of the construction's expert lookup",
        value_params=_KG,
        optional_params=("experts",),
        _value=lambda **p: _moe_lookup_outputs(**p)["parameters"],
        _outputs=_moe_lookup_outputs,
        notes=(
            "Experts own contiguous ranges of head codes (prefixes when K is a power of two "
            "dividing E), so any K <= E works; the router is K linear scores of the head code "
            "with increasing slopes, whose argmax is the range."
        ),
        errata=("The expert parameter sets are indexed 1..k in Eq. 7 and 19; they run 1..m.",),
    ),
    Bound(
        id="kg.prop_b12",
        name="Proposition B.12 (substitute)",
        statement=(
            "A constant-depth block with O(log^2 c) parameters and O(q log^2 c) FLOPs replaces "
            "each head that is a solved variable by its entity."
        ),
        citation="App. B.4, Proposition B.12",
        formula=(
            "the paper's block: depth 9 (1 + 2 + 4 + 2; the value), paper_parameters at "
            "d = d' = 5b + 1; the toolkit's program: 1 parameter (the sink logit b - 1), "
            "2q^2 b + 2q(q + 1)(b + 1) FLOPs"
        ),
        kind="upper",
        architecture="attention layer (hard, with a sink)",
        task="kg substitute",
        quantity="depth of the paper's substitute block (Layers)",
        value_params=_KG,
        _value=lambda **p: _substitute_outputs(**p)["paper_depth"],
        _outputs=_substitute_outputs,
        notes=(
            "value and paper_depth: the proof's block (paper_parameters its entries); "
            "parameters: the toolkit's program, beside it. "
            "Hard attention: query = head block, key = variable block, value = (answer, flag); "
            "a sink key scores b - 1, between a match (b) and a mismatch (<= b - 2), value 0. "
            "Block selections are wiring, not parameters. " + _FLOPS_NOTE
        ),
        errata=(
            "The weight listing writes V twice; the first is Q.",
            "Softmax at 1/sqrt(d) does not select exactly; hard attention (or a large inverse "
            "temperature) does, and rows with no match need the sink.",
        ),
    ),
    Bound(
        id="kg.prop_b13",
        name="Proposition B.13 (looped model)",
        statement=(
            "A looped model with O(T log c + log^2 c) parameters and O(q^2 T log c + q log^2 c) "
            "FLOPs answers every q-hop path query: one (lookup, substitute) block looped q times."
        ),
        citation="App. B.5, Proposition B.13",
        formula=f"T (3b + 1) + 2 parameters; FLOPs as counted per query; {_LAYOUT}",
        kind="upper",
        architecture="looped transformer (one block, q loops)",
        task="kg-path",
        quantity="parameters of the construction",
        value_params=_KG,
        _value=lambda **p: _counts("looped")(**p)["parameters"],
        _outputs=_counts("looped"),
        notes=_FLOPS_NOTE,
        errata=("The proof counts substitution as O(log^2 c) FLOPs; Prop B.12 says O(q log^2 c).",),
    ),
    Bound(
        id="kg.thm5_1",
        name="Theorem 5.1 (= B.15, standard model)",
        statement=(
            "A standard model with O(qT log c + log^2 c) parameters and O(q^2 T log c + "
            "q log^2 c) FLOPs answers every q-hop path query: q stacked copies of the block."
        ),
        citation="Sec. 5, Theorem 5.1; App. B.5, Theorem B.15",
        formula=f"q (T (3b + 1) + 2) parameters; FLOPs as counted per query; {_LAYOUT}",
        kind="upper",
        architecture="standard transformer (q blocks)",
        task="kg-path",
        quantity="parameters of the construction",
        value_params=_KG,
        _value=lambda **p: _counts("standard")(**p)["parameters"],
        _outputs=_counts("standard"),
        aliases=("kg.thm_b15",),
        notes=_FLOPS_NOTE,
    ),
    Bound(
        id="kg.thm5_3",
        name="Theorem 5.3 (= B.14, looped mixture of experts)",
        statement=(
            "A looped-MoE model with O(T log c + log^2 c) parameters and O(q^2 sqrt(T) log c + "
            "q log^2 c) FLOPs answers every q-hop path query: each triple stored once."
        ),
        citation="Sec. 5, Theorem 5.3; App. B.5, Theorem B.14",
        formula=(
            f"T (3b + 1) + K (b + 1) + 2 parameters; FLOPs per query with every row at the "
            f"largest expert; {_LAYOUT}"
        ),
        kind="upper",
        architecture="looped transformer with a mixture-of-experts lookup",
        task="kg-path",
        quantity="parameters of the construction",
        value_params=_KG,
        optional_params=("experts",),
        _value=lambda **p: _counts("looped-moe")(**p)["parameters"],
        _outputs=_counts("looped-moe"),
        aliases=("kg.thm_b14",),
        notes=(
            "The main text calls it a looped model but states the MoE FLOP count. " + _FLOPS_NOTE
        ),
    ),
)
