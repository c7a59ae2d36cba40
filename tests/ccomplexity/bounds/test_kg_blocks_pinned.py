"""The layer-looping paper's primitives (``kg_blocks``) pinned exactly: every count of every
block at two or more points against the Layers the proofs of App. B.4 write, in closed form here.

Source: the paper (``seeds/looping-kg-moe.txt``, Eq. 15-16: a Layer of model width W and hidden
width h holds Q, K, V (3 W^2) and a GLU W^in, W^gate (W x h), W^out (h x W), b^1, b^2 (h):
3 W^2 + 3 W h + 2 h; Props B.6-B.12) with the spec's errata (``spec/looping-kg-moe.md``: Prop
B.6 doubles only the hidden width, not the model width). Depths: KeepNegatives 1 per Layer,
NoResidual 2, InvertColumn 4, lookup 4, substitute 9.
"""

from __future__ import annotations

import pytest

from ccomplexity.bounds import kg_blocks
from ccomplexity.bounds.kg_blocks import Block
from ccomplexity.errors import InputError
from tests.ccomplexity.formulas import kg_lookup as lookup
from tests.ccomplexity.formulas import kg_moe as moe
from tests.ccomplexity.formulas import kg_paper_counts as paper
from tests.ccomplexity.formulas import kg_substitute as substitute
from tests.ccomplexity.formulas import layer_counts as counts


def layer_entries(w: int, h: int) -> int:
    """Eq. 15-16: Q, K, V and the GLU of one Layer."""
    return 3 * w * w + 3 * w * h + 2 * h


# -- Block ---------------------------------------------------------------------------------------


def test_block_counts_hidden_and_then() -> None:
    a = Block(5, ((3, False), (4, True)))
    assert a.depth == 2
    assert a.hidden() == [3, 8]
    assert a.counts() == counts(5, [3, 8])
    assert a.counts()["parameters"] == layer_entries(5, 3) + layer_entries(5, 8) == 337
    b = Block(7, ((2, True),))
    ab = a.then(b)
    assert ab == Block(7, ((3, False), (4, True), (2, True)))
    assert b.then(a) == Block(7, ((2, True), (3, False), (4, True)))  # the wider width wins
    assert ab.counts() == counts(7, [3, 8, 4])
    assert Block(4, ((6, False), (1, False))).counts()["hidden_width"] == 6  # the widest Layer


def test_layer_and_keep_negatives() -> None:
    one = kg_blocks.layer(8, 16)
    assert one == Block(8, ((16, False),))
    assert one.counts() == counts(8, [16])
    kept = kg_blocks.keep_negatives(one)
    assert kept == Block(8, ((16, True),))  # Prop B.6: hidden 2d', model width d
    assert kept.counts() == counts(8, [32])
    assert kg_blocks.keep_negatives(kept) == kept  # doubled once, however deep the wrapping
    mixed = Block(3, ((2, False), (5, True)))
    assert kg_blocks.keep_negatives(mixed) == Block(3, ((2, True), (5, True)))


@pytest.mark.parametrize(("d", "h"), [(8, 16), (3, 5), (1, 1)])
def test_no_residual_and_invert_column(d: int, h: int) -> None:
    # Prop B.8: 2 Layers at width 2d, hidden 2d' each doubled by KeepNegatives
    nr = kg_blocks.no_residual(d, h)
    assert nr == Block(2 * d, ((2 * h, True), (2 * h, True)))
    assert nr.counts() == counts(2 * d, [4 * h, 4 * h])
    assert nr.counts()["parameters"] == 2 * (3 * (2 * d) ** 2 + 3 * (2 * d) * (4 * h) + 2 * (4 * h))
    # Prop B.9: two NoResiduals in KeepNegatives, depth 4, the width doubled only once
    inv = kg_blocks.invert_column(d, h)
    assert inv.depth == 4
    assert inv.counts() == counts(2 * d, [4 * h] * 4)


def test_row_width() -> None:
    assert kg_blocks.row_width(1) == 6
    assert kg_blocks.row_width(6) == 31  # five blocks of b and the flag


# -- lookup (Prop B.10), substitute (Prop B.12) --------------------------------------------------


@pytest.mark.parametrize(("b", "t"), [(6, 128), (3, 5), (1, 1)])
def test_lookup_block(b: int, t: int) -> None:
    block = kg_blocks.lookup_block(b, t)
    assert block.counts() == lookup(b, t)
    assert block.depth == 4  # the paper's "depth (4)"


def test_lookup_block_hand_value() -> None:
    # b = 6, T = 128: W = 62, hidden 4 (24 + 128) = 608 twice, 4 * 31 = 124 twice
    want = 2 * layer_entries(62, 608) + 2 * layer_entries(62, 124)
    assert kg_blocks.lookup_block(6, 128).counts()["parameters"] == want == 321_360
    # each further triple: 2 Layers x (3 W 4 + 2 * 4)
    step = kg_blocks.lookup_block(6, 129).counts()["parameters"] - want
    assert step == 2 * (3 * 62 * 4 + 2 * 4)


@pytest.mark.parametrize("b", [6, 2, 1])
def test_substitute_block(b: int) -> None:
    block = kg_blocks.substitute_block(b)
    assert block.counts() == substitute(b)
    assert block.depth == 9  # the paper's "depth (9)": 1 + 2 + 4 + 2


def test_substitute_block_hand_value() -> None:
    assert kg_blocks.substitute_block(6).counts()["parameters"] == 301_940


# -- the MoE lookup (Prop B.11) and the compositions (Thm 5.1, Prop B.13, Thm 5.3) ---------------


@pytest.mark.parametrize(("b", "sizes"), [(6, [12] * 10 + [8]), (3, [4, 6, 2]), (2, [5])])
def test_moe_lookup_counts(b: int, sizes: list[int]) -> None:
    assert kg_blocks.moe_lookup_counts(b, sizes) == moe(b, sizes)


def test_moe_lookup_active_is_the_largest_expert_wherever_it_is() -> None:
    first = kg_blocks.moe_lookup_counts(3, [9, 1, 1])
    last = kg_blocks.moe_lookup_counts(3, [1, 1, 9])
    assert first == last
    assert first["active_parameters"] - first["router_parameters"] == (lookup(3, 9)["parameters"])


@pytest.mark.parametrize(("b", "t", "q"), [(6, 128, 4), (3, 10, 2), (2, 3, 1)])
def test_paper_counts_of_each_composition(b: int, t: int, q: int) -> None:
    for comp in ("standard", "looped"):
        assert kg_blocks.paper_counts(comp, b, t, q) == paper(comp, b, t, q)
    sizes = [t // 2, t - t // 2]
    assert kg_blocks.paper_counts("looped-moe", b, t, q, sizes) == paper(
        "looped-moe", b, t, q, sizes
    )
    # no expert sizes: one expert holding every triple
    assert kg_blocks.paper_counts("looped-moe", b, t, q) == paper("looped-moe", b, t, q, [t])
    looped = kg_blocks.paper_counts("looped", b, t, q)
    standard = kg_blocks.paper_counts("standard", b, t, q)
    assert standard["paper_parameters"] == q * looped["paper_parameters"]


# -- limits and messages -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kg_blocks.layer(0, 3), r"^width d must be an integer >= 1, got 0$"),
        (lambda: kg_blocks.layer(3, 0), r"^hidden width d' must be an integer >= 1, got 0$"),
        (lambda: kg_blocks.no_residual(0, 3), r"^width d must be an integer >= 1, got 0$"),
        (
            lambda: kg_blocks.no_residual(3, 0),
            r"^hidden width d' must be an integer >= 1, got 0$",
        ),
        (lambda: kg_blocks.row_width(0), r"^code bits b must be an integer >= 1, got 0$"),
        (lambda: kg_blocks.lookup_block(2, 0), r"^triples T must be an integer >= 1, got 0$"),
        (lambda: kg_blocks.lookup_block(0, 2), r"^code bits b must be an integer >= 1, got 0$"),
        (lambda: kg_blocks.substitute_block(0), r"^code bits b must be an integer >= 1, got 0$"),
    ],
)
def test_sizes_below_one_are_refused(call, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call()


def test_sizes_of_one_are_accepted() -> None:
    assert kg_blocks.layer(1, 1).counts() == counts(1, [1])
    assert kg_blocks.no_residual(1, 1).counts() == counts(2, [4, 4])
    assert kg_blocks.lookup_block(1, 1).counts() == lookup(1, 1)
