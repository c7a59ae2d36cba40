"""Looped transformer ``(k ⊗ L)``: one embedding, a k-layer block applied L times, one readout.

"Understanding Reasoning with Looped Models", Def. 2.2: p_{θ,T} = OUTPUT ∘ (TB_θ)^T ∘ EMBED.
The block is the zoo transformer's (:mod:`models.transformer`): its config is taken as is
(``LoopedConfig`` extends ``TransformerConfig`` with ``loops`` and ``reinject``), so every block
option of the zoo transformer works inside the loop, and ``layers`` is the block's k::

    x = embed(tokens)                                   # (B, N, d)   one embedding
    for t in range(L):                                  # loops, changeable per call
        x = x + e if reinject and t > 0 else x          # optional input re-injection (off)
        for i in range(k):                              # the shared k-layer block
            x = after_attention(x, attend(x, i), i)     # (B, N, d)
    logits = readout(x)                                 # (B, N, n_out)  one output layer

``(k ⊗ L)`` has the parameters of the iso-param baseline ``(k ⊗ 1)`` (this model with
``loops=1``) and the depth and FLOPs of the iso-FLOP baseline ``(kL ⊗ 1)``, the zoo
transformer with kL layers (:func:`forward_flops` counts both the same way).

The paper's looped model has no input re-injection, adaptive halting or per-loop embeddings;
``reinject`` (default off) adds the embedding back before every loop after the first, the
common variant of later work. Also here: the block-cosine regulariser of Sec. 4 (Eq. 4-5) for
non-looped models, with ``1 - cos`` (the paper's ``+ λ cos`` would push layers apart), and the
layer-similarity diagnostic of its Figs. 2-3.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import torch
from torch.nn import functional as F

from ccomplexity.errors import InputError, check_int
from models.transformer import Transformer, TransformerConfig


@dataclasses.dataclass(frozen=True)
class LoopedConfig(TransformerConfig):
    """The zoo transformer's config with ``layers`` = k (the block) and ``loops`` = L."""

    loops: int = 1
    reinject: bool = False

    may_be_zero: ClassVar[frozenset[str]] = frozenset({"loops"})  # (k ⊗ 0): embed, then read out


class LoopedTransformer(Transformer):
    """``(k ⊗ L)`` looped transformer: the zoo transformer's k-layer block applied L times."""

    name = "looped"

    def __init__(self, config: LoopedConfig) -> None:  # the annotation names the config class
        super().__init__(config)

    def _loops(self, loops: int | None) -> int:
        return self.config.loops if loops is None else check_int(loops, "loops", 0)

    def stream(self, tokens: torch.Tensor, loops: int | None = None) -> list[torch.Tensor]:
        """The residual stream after the embedding and after every loop: L + 1 tensors (B, N, d)."""
        x = self.embed(tokens)
        e, out = x, [x]
        for t in range(self._loops(loops)):
            if self.config.reinject and t:
                x = self.q(x + e)
            for i in range(len(self.blocks)):
                x = self.after_attention(x, self.attend(x, i), i)
            out.append(x)
        return out

    def forward(self, tokens: torch.Tensor, loops: int | None = None) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out), with ``loops`` (default the config's) loops."""
        return self.readout(self.stream(tokens, loops)[-1])

    def attention_inputs(self, tokens: torch.Tensor, layer: int = 0) -> dict[str, torch.Tensor]:
        """Queries, keys, values of effective layer ``layer`` = t k + i (loop t, block layer i)."""
        k = len(self.blocks)
        depth = self.config.loops * k
        if not 0 <= layer < depth:
            raise InputError(f"layer must lie in 0..{depth - 1} (k = {k}, L = {depth // k})")
        loop, i = divmod(layer, k)
        x = self.stream(tokens, loop)[-1]
        if self.config.reinject and loop:
            x = self.q(x + self.embed(tokens))
        for j in range(i):
            x = self.after_attention(x, self.attend(x, j), j)
        q, key, v = self.qkv(x, i)
        return {"q": q, "k": key, "v": v}

    def describe(self) -> dict[str, object]:
        out = super().describe()
        out.update(loops=self.config.loops, effective_layers=self.config.loops * len(self.blocks))
        return out


# -- cost per query -----------------------------------------------------------------------------


@torch.no_grad()
def forward_flops(model: Transformer, length: int) -> int:
    """FLOPs of one forward pass over one sequence (one query) of ``length`` tokens, counted by
    ``torch.utils.flop_counter`` on what actually runs (matrix products, 2 per multiply-add;
    the causal attention is computed as a full N x N product and masked)."""
    from torch.utils.flop_counter import FlopCounterMode

    n = check_int(length, "length")
    if n > model.config.max_length:
        raise InputError(f"length {n} exceeds the model's max_length {model.config.max_length}")
    tokens = torch.zeros(1, n, dtype=torch.long, device=model.tok.weight.device)
    counter = FlopCounterMode(display=False)
    with counter:
        model(tokens)
    return int(counter.get_total_flops())


def cost(model: Transformer, length: int) -> dict[str, int]:
    """Parameters, FLOPs per query of ``length`` tokens and effective depth of a (looped) model."""
    loops = getattr(model.config, "loops", 1)
    return {
        "parameters": model.param_count(),
        "flops_per_query": forward_flops(model, length),
        "effective_layers": loops * len(model.blocks),
    }


# -- the block-cosine regulariser (Sec. 4, Eq. 4-5) -----------------------------------------------

_GROUP_NAMES = {"out.weight": "attn_o", "fc.weight": "ff_w1", "proj.weight": "ff_w2"}


def parameter_groups(model: Transformer) -> dict[str, list[torch.Tensor]]:
    """θ_G^(0..L-1) for every parameter group G of the layers: attn_q, attn_k, attn_v (the rows
    of the stacked qkv matrix), attn_o, ff_w1, ff_w2, and any further weight matrix the block
    has (by its parameter name). Biases and LayerNorm gains are not groups (the paper's groups
    are the weight matrices)."""
    groups: dict[str, list[torch.Tensor]] = {}
    for block in model.blocks:
        for name, weight in block.named_parameters():
            if weight.dim() < 2:
                continue
            if name == "qkv.weight":
                for label, part in zip(
                    ("attn_q", "attn_k", "attn_v"), weight.chunk(3), strict=True
                ):
                    groups.setdefault(label, []).append(part)
            else:
                groups.setdefault(_GROUP_NAMES.get(name, name), []).append(weight)
    return groups


def _cos(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.cosine_similarity(a.flatten(), b.flatten(), dim=0)


def block_cosine(model: Transformer, block: int) -> dict[str, torch.Tensor]:
    """R_G(k) of Eq. 4 for every group G: the mean cosine between layer ik + j and layer
    (i + 1)k + j, over the L - k pairs of corresponding layers of consecutive k-layer blocks.
    Differentiable (the regulariser trains through it)."""
    k = check_int(block, "block size k")
    layers = len(model.blocks)
    if layers % k or layers // k < 2:
        raise InputError(f"block size k = {k} must divide the {layers} layers into >= 2 blocks")
    return {
        group: torch.stack([_cos(ws[i], ws[i + k]) for i in range(layers - k)]).mean()
        for group, ws in parameter_groups(model).items()
    }


def block_cosine_penalty(model: Transformer, block: int) -> torch.Tensor:
    """|G|^-1 Σ_G (1 - R_G(k)): Eq. 5's regulariser with the sign that pulls blocks together
    (λ times this is added to the cross-entropy; λ -> ∞ gives a looped model)."""
    values = list(block_cosine(model, block).values())
    return 1 - torch.stack(values).mean()


@torch.no_grad()
def layer_similarity(model: Transformer) -> dict[str, list[list[float]]]:
    """The cosine between every pair of layers, per group: {G: L x L matrix} (Figs. 2-3)."""
    out = {}
    for group, ws in parameter_groups(model).items():
        flat = torch.stack([w.flatten() for w in ws])
        flat = flat / flat.norm(dim=1, keepdim=True).clamp_min(1e-12)
        out[group] = (flat @ flat.T).tolist()
    return out
