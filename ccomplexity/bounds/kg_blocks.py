"""The layer-looping paper's primitives (App. B.4, Props B.6-B.12) as stacks of its ``Layer``s.

A :class:`Block` is the sequence of Layers (Eq. 15-16: attention Q, K, V in R^{W x W}, then a
GLU with W^in, W^gate in R^{W x h}, W^out in R^{h x W}, b^1, b^2 in R^h) that a proof writes,
each with its hidden width h; W is the model width of the block. Depths compose: a block's
depth is its number of Layers, so the depths the paper states come out of the composition:

* KeepNegatives (Prop B.6, Cor B.7): the same Layers, each GLU of doubled hidden width (units
  u and -u, since u = ReLU(u) - ReLU(-u)); wrapping a block that is already wrapped changes only
  which units keep their negatives (the mask of W^out'), not the width, so a Layer is doubled
  once however deep the wrapping.
* NoResidual (Prop B.8): depth 2 at model width 2d (a spare half): one Layer computes the GLU
  into the spare half (hidden 2d', as W^in_1 in R^{2d x 2d'}), one moves it back and cancels
  the residual; the proof wraps both in KeepNegatives.
* InvertColumn (Prop B.9): two NoResiduals in KeepNegatives, depth 4.
* lookup (Prop B.10): NoResidual with the T detectors and 4 copy blocks (d' = 4b + T), then
  NoResidual masking block 4 (d' = d): depth 4.
* substitute (Prop B.12): an attention Layer, a NoResidual, an InvertColumn, a NoResidual:
  depth 1 + 2 + 4 + 2 = 9.

The paper's row is 5 blocks of b = ceil(log2 c) and a flag, d = 5b + 1; where a proof leaves d'
free (a zero GLU, a copy of the row), d' = d. Parameters are every entry of those matrices at
those shapes (the attention bias B is fixed, not a parameter; Sec. B.2): what a model of these
shapes holds. It is the paper's O(T log c + log^2 c) with its constants: the T detector units
give the T log c term, Q, K, V (3W^2 per Layer) and the copy blocks the log^2 c terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ccomplexity.errors import check_int


@dataclass(frozen=True)
class Block:
    """Layers of one model width, each (hidden width as the proof writes it, doubled by
    KeepNegatives or not); the realised hidden width is twice the written one when doubled."""

    width: int
    layers: tuple[tuple[int, bool], ...]

    @property
    def depth(self) -> int:
        return len(self.layers)

    def hidden(self) -> list[int]:
        """Realised hidden width of each Layer."""
        return [2 * h if doubled else h for h, doubled in self.layers]

    def then(self, other: Block) -> Block:
        """This block followed by ``other``, at the wider model width of the two."""
        return Block(max(self.width, other.width), self.layers + other.layers)

    def counts(self) -> dict[str, int]:
        """Parameters of the Layers: Q, K, V (3W^2 each) and the GLUs (3Wh + 2h each)."""
        w = self.width
        attention = 3 * w * w * self.depth
        glu = sum(3 * w * h + 2 * h for h in self.hidden())
        return {
            "depth": self.depth,
            "model_width": w,
            "hidden_width": max(self.hidden()),
            "attention_parameters": attention,
            "glu_parameters": glu,
            "parameters": attention + glu,
        }


def layer(width: int, hidden: int) -> Block:
    """One Layer of model width d and hidden width d'."""
    return Block(check_int(width, "width d"), ((check_int(hidden, "hidden width d'"), False),))


def keep_negatives(block: Block) -> Block:
    """Prop B.6 / Cor B.7: the same Layers, each hidden width doubled (once)."""
    return Block(block.width, tuple((h, True) for h, _ in block.layers))


def no_residual(width: int, hidden: int) -> Block:
    """Prop B.8: NoResidual of a GLU of model width d, hidden d': 2 Layers at width 2d, hidden
    2d' (W^in_1 in R^{2d x 2d'}, W^gate_2 = I^{2d x 2d'}), each in KeepNegatives(., 0, 0)."""
    d, h = check_int(width, "width d"), check_int(hidden, "hidden width d'")
    return keep_negatives(Block(2 * d, ((2 * h, False), (2 * h, False))))


def invert_column(width: int, hidden: int) -> Block:
    """Prop B.9: KeepNegatives(NoResidual) twice (square the column, then 1 - it): depth 4."""
    step = keep_negatives(no_residual(width, hidden))
    return step.then(step)


def row_width(bits: int) -> int:
    """d = 5b + 1: the five column blocks of App. B.3 and the match flag."""
    return 5 * check_int(bits, "code bits b") + 1


def lookup_block(bits: int, triples: int) -> Block:
    """Prop B.10: detectors and copies (d' = 4b + T), then the mask of block 4 (d' = d)."""
    d = row_width(bits)
    first = keep_negatives(no_residual(d, 4 * bits + check_int(triples, "triples T")))
    return first.then(keep_negatives(no_residual(d, d)))


def substitute_block(bits: int) -> Block:
    """Prop B.12: attention (query block 1, key block 4, value block 5), the match bit, its
    inversion, the masked move into block 1: 1 + 2 + 4 + 2 Layers."""
    d = row_width(bits)
    return (
        keep_negatives(layer(d, d))
        .then(keep_negatives(no_residual(d, d)))
        .then(keep_negatives(invert_column(d, d)))
        .then(keep_negatives(no_residual(d, d)))
    )


def moe_lookup_counts(bits: int, expert_sizes: list[int]) -> dict[str, int]:
    """Prop B.11: every Layer of the lookup block an MoE layer; expert i is Prop B.10's GLUs for
    its T_i triples, attention is shared, and each MoE Layer has a router W^switch in R^{W x K}.
    ``active`` counts the attention, the routers and the largest expert."""
    per_expert = [lookup_block(bits, t).counts() for t in expert_sizes]
    first = per_expert[0]
    routers = first["depth"] * first["model_width"] * len(expert_sizes)
    glu = [c["glu_parameters"] for c in per_expert]
    attention = first["attention_parameters"]
    return {
        "depth": first["depth"],
        "model_width": first["model_width"],
        "attention_parameters": attention,
        "router_parameters": routers,
        "glu_parameters": sum(glu),
        "parameters": attention + routers + sum(glu),
        "active_parameters": attention + routers + max(glu),
    }


def paper_counts(
    composition: str, bits: int, triples: int, hops: int, expert_sizes: list[int] | None = None
) -> dict[str, Any]:
    """The paper's count of a q-hop model (Thm 5.1: q stacked (lookup, substitute) blocks;
    Prop B.13: one block looped; Thm 5.3: one block with the MoE lookup), as ``paper_*`` keys."""
    sub = substitute_block(bits).counts()
    if composition == "looped-moe":
        look = moe_lookup_counts(bits, expert_sizes or [triples])
    else:
        look = lookup_block(bits, triples).counts()
    copies = hops if composition == "standard" else 1
    out = {
        "paper_block_depth": look["depth"] + sub["depth"],
        "paper_model_width": max(look["model_width"], sub["model_width"]),
        "paper_parameters": copies * (look["parameters"] + sub["parameters"]),
        "paper_attention_parameters": copies
        * (look["attention_parameters"] + sub["attention_parameters"]),
        "paper_lookup_parameters": copies * look["parameters"],
        "paper_substitute_parameters": copies * sub["parameters"],
    }
    if composition == "looped-moe":
        out["paper_active_lookup_parameters"] = look["active_parameters"]
    return out
