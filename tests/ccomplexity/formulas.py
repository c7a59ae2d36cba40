"""The papers' small formulas and brute-force references written out independently of
``ccomplexity``, in exact arithmetic, for the tests that pin the bounds and the exact methods
against them."""

from __future__ import annotations

import functools
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np


def ceil_ln(scale: Fraction, arg: int) -> int:
    """ceil(scale ln(arg)) with a 50-digit logarithm (never a tie: ln of an integer > 1 is
    transcendental)."""
    with localcontext() as ctx:
        ctx.prec = 50
        x = Decimal(scale.numerator) * Decimal(arg).ln() / Decimal(scale.denominator)
        return int(x.to_integral_value(rounding="ROUND_CEILING"))


def lemma2_k(n: int, gamma: Fraction) -> int:
    """Lemma 2 (App. B.3, as printed; spec erratum 9 keeps the constant): ceil(8 ln(2N)/g^2)."""
    return ceil_ln(8 / gamma**2, 2 * n)


def cor81_k(n: int) -> int:
    """Corollary 8.1: Lemma 2 at gamma = 1/4, k = ceil(128 ln(2N))."""
    return ceil_ln(Fraction(128), 2 * n)


def clog2(n: int) -> int:
    """ceil(log2 n) by doubling (0 for n = 1)."""
    bits = 0
    while 2**bits < n:
        bits += 1
    return bits


def naive_d(m: np.ndarray) -> int:
    """D(M) straight from the recursion over all splits, without reduction or pruning."""
    cells = m.tolist()

    @functools.cache
    def d(rows: tuple[int, ...], cols: tuple[int, ...]) -> int:
        if len({cells[r][c] for r in rows for c in cols}) == 1:
            return 0
        best = 99
        for items, alice in ((rows, True), (cols, False)):
            for mask in range(1, 2 ** (len(items) - 1)):
                a = tuple(x for i, x in enumerate(items) if mask >> i & 1)
                b = tuple(x for i, x in enumerate(items) if not mask >> i & 1)
                cost = max(d(a, cols), d(b, cols)) if alice else max(d(rows, a), d(rows, b))
                best = min(best, 1 + cost)
        return best

    return d(tuple(range(m.shape[0])), tuple(range(m.shape[1])))


def gf2_rank(rows: list[list[int]]) -> int:
    """Rank over GF(2) by row reduction on lists of bits."""
    m = [list(r) for r in rows]
    rank = 0
    for col in range(len(m[0]) if m else 0):
        piv = next((i for i in range(rank, len(m)) if m[i][col]), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][col]:
                m[i] = [a ^ b for a, b in zip(m[i], m[rank], strict=True)]
        rank += 1
    return rank


def dyck_height_count(types: int, depth: int, length: int, start: int = 0) -> int:
    """Dyck-(types, depth) words of ``length`` (from a stack of height ``start``, the ways to
    close it): paths of stack heights start -> 0 within 0..depth, an open bracket of any of
    ``types`` kinds, a close of the one on top."""
    ways = {start: 1}
    for _ in range(length):
        nxt: dict[int, int] = {}
        for h, c in ways.items():
            if h < depth:
                nxt[h + 1] = nxt.get(h + 1, 0) + types * c
            if h > 0:
                nxt[h - 1] = nxt.get(h - 1, 0) + c
        ways = nxt
    return ways.get(0, 0)


def layer_counts(w: int, hidden: list[int]) -> dict[str, int]:
    """App. B.4 (Eq. 15-16): the counts of Layers of model width w and the given realised
    hidden widths (Q, K, V of w x w each, a GLU of 3 w h + 2 h)."""
    glu = sum(3 * w * h + 2 * h for h in hidden)
    return {
        "depth": len(hidden),
        "model_width": w,
        "hidden_width": max(hidden),
        "attention_parameters": 3 * w * w * len(hidden),
        "glu_parameters": glu,
        "parameters": 3 * w * w * len(hidden) + glu,
    }


def kg_lookup(b: int, t: int) -> dict[str, int]:
    """Prop B.10: NoResidual (d' = 4b + T) then NoResidual (d' = d), d = 5b + 1, W = 2d."""
    d = 5 * b + 1
    return layer_counts(2 * d, [4 * (4 * b + t)] * 2 + [4 * d] * 2)


def kg_substitute(b: int) -> dict[str, int]:
    """Prop B.12: attention Layer (hidden 2d) + NoResidual + InvertColumn + NoResidual (8
    Layers of hidden 4d), all at the block's width W = 2d."""
    d = 5 * b + 1
    return layer_counts(2 * d, [2 * d] + [4 * d] * 8)


def kg_moe(b: int, sizes: list[int]) -> dict[str, int]:
    """Prop B.11: shared attention, a router W x K in each of the 4 Layers, expert i B.10's GLUs
    on its T_i triples."""
    w = 2 * (5 * b + 1)
    glu = [kg_lookup(b, t)["glu_parameters"] for t in sizes]
    routers = 4 * w * len(sizes)
    attention = 4 * 3 * w * w
    return {
        "depth": 4,
        "model_width": w,
        "attention_parameters": attention,
        "router_parameters": routers,
        "glu_parameters": sum(glu),
        "parameters": attention + routers + sum(glu),
        "active_parameters": attention + routers + max(glu),
    }


def kg_paper_counts(
    comp: str, b: int, t: int, q: int, sizes: list[int] | None = None
) -> dict[str, int]:
    """Thm 5.1: q copies of (lookup, substitute); Prop B.13: one; Thm 5.3: one, MoE lookup."""
    sub = kg_substitute(b)
    look = kg_moe(b, sizes or [t]) if comp == "looped-moe" else kg_lookup(b, t)
    copies = q if comp == "standard" else 1
    out = {
        "paper_block_depth": 4 + 9,
        "paper_model_width": 2 * (5 * b + 1),
        "paper_parameters": copies * (look["parameters"] + sub["parameters"]),
        "paper_attention_parameters": copies
        * (look["attention_parameters"] + sub["attention_parameters"]),
        "paper_lookup_parameters": copies * look["parameters"],
        "paper_substitute_parameters": copies * sub["parameters"],
    }
    if comp == "looped-moe":
        out["paper_active_lookup_parameters"] = look["active_parameters"]
    return out
