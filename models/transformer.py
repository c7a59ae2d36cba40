"""GPT-2 style causal Transformer whose attention can be split across two parties.

The model of Bhattamishra et al., "Separations in the Representational Capabilities of
Transformers and Recurrent Architectures", Sec. 2: ``M-Att_H(X) = [Att_1(X), ..., Att_H(X)] W_O``
followed by a feed-forward network, here in GPT-2's pre-LayerNorm residual form with learned
absolute positions. The softmax subtracts the maximum logit as in App. D, so every exponential
lies in [0, 1].

Theorem 4 (App. D) simulates the last position of a one-layer model by two parties, each holding
some positions. The pieces are public so that a protocol can do exactly that:

    x = embed(tokens_S, positions_S)            # each party, its own positions     (B, n, d)
    q, k, v = qkv(x)                            # per head                          (B, H, n, dh)
    logits = attention_logits(q_last, k)        # q_last (B, H, 1, dh)              (B, H, 1, n)
    M = max of both parties' logits.amax(-1, keepdim=True)                       #  (B, H, 1, 1)
    e = softmax_numerators(logits, M)           # exp(logit - M) on the grid        (B, H, 1, n)
    Z = q(Z_A + Z_B), Z_S = e.sum(-1, keepdim=True)  # partial softmax sums, exact  (B, H, 1, 1)
    U = value_sums(e_A, Z, v_A) + value_sums(e_B, Z, v_B)  # exact                  (B, H, 1, dh)
    finish(x_last, U[:, :, 0])                  # W_O, residual, MLP, readout       (B, n_out)

and this equals ``forward(tokens)[:, -1]`` bit for bit in finite-precision mode, for any split:
the partial sums are exact (see models/base.py) and everything else is per position.

Finite-precision mode rounds onto the grid: the token and position embeddings and their sum; each
LayerNorm's mean, variance, normalised value and output; q, k and v; each logit (after scaling);
logit - max; exp of that; the sum Z; each weight exp / Z; the weighted value sum; the output
projection; the residual sums; the MLP's hidden layer before and after GELU (ReLU keeps the grid)
and its output; the final logits. Parameters are read through the grid. ``set_precision`` requires
``(max(width, mlp_width) + 1) * (2^(bits-1) - 1)^2 <= 2^53`` (e.g. bits <= 23 for width 64 and
mlp_width 256); the attention's sums over positions stay below that for lengths up to
width * 2^(bits-1).
"""

from __future__ import annotations

import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

from ccomplexity.errors import InputError
from models.base import HeadsConfig, SequenceModel, gelu
from models.moe import MixtureOfExperts, check_moe

FUSED_ATTENTION: set[str] = {"cuda"}
"""Devices on which float attention runs as one fused kernel (:meth:`Transformer.attend`), through
:class:`CausalAttention`, which folds an ensemble's members into the batch. Not the CPU, where
runs stay bit for bit as they were trained."""


class CausalAttention(torch.autograd.Function):
    """Causal ``F.scaled_dot_product_attention`` of (B, H, N, dh) queries, keys and values whose
    ``torch.vmap`` rule folds the mapped dimension into the batch and calls the kernel once on
    contiguous (M * B, H, N, dh) tensors, whose own backward autograd then records. Torch's own
    batching rule for the fused kernels failed in the backward on an H200 (torch 2.11: "LSE is
    not correctly aligned (strideH)", ``benchmarks/results/gpu_forms.md``) and on the CPU runs
    the members one after the other. Outside ``vmap`` the backward recomputes the forward."""

    @staticmethod
    def forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)

    @staticmethod
    def setup_context(ctx, inputs, output) -> None:  # type: ignore[override]
        q, k, v, scale = inputs
        ctx.save_for_backward(q, k, v)
        ctx.scale = scale

    @staticmethod
    def backward(ctx, grad: torch.Tensor):  # type: ignore[override]
        with torch.enable_grad():
            leaves = [t.detach().requires_grad_() for t in ctx.saved_tensors]
            out = F.scaled_dot_product_attention(*leaves, is_causal=True, scale=ctx.scale)
            return (*torch.autograd.grad(out, leaves, grad), None)

    @staticmethod
    def vmap(info, in_dims, q, k, v, scale):  # type: ignore[override]
        members = info.batch_size
        flat = []
        for t, dim in zip((q, k, v), in_dims[:3], strict=True):
            t = t.expand(members, *t.shape) if dim is None else t.movedim(dim, 0)
            flat.append(t.reshape(members * t.shape[1], *t.shape[2:]).contiguous())
        out = F.scaled_dot_product_attention(*flat, is_causal=True, scale=scale)
        return out.reshape(members, -1, *out.shape[1:]), 0


@dataclasses.dataclass(frozen=True)
class TransformerConfig(HeadsConfig):
    """GPT-2 style decoder: ``heads`` must divide ``width``; lengths are at most ``max_length``."""

    max_length: int = 64  # number of learned positions
    layer_norm: bool = True
    attn_scale: float | None = None  # logit = attn_scale * <q, k>; None: 1/sqrt(dh); the paper: 1
    activation: str = "gelu"  # MLP nonlinearity: "gelu" (GPT-2) or "relu" (hand-wired weights)
    # Mixture-of-experts feed-forward (models/moe.py) in every block when experts > 1 or
    # expert == "glu": K experts of width mlp_width, top-k routing, gate rule, balance loss.
    experts: int = 1
    top_k: int = 1
    expert: str | None = None  # "relu", "gelu" or "glu"; None: the activation's MLP
    gate: str = "softmax-topk"  # "argmax", "softmax-topk" or "softmax" (models.moe)
    balance: float = 0.0  # coefficient of the load-balancing loss

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.activation not in ("gelu", "relu"):
            raise InputError(f"activation must be 'gelu' or 'relu', got {self.activation!r}")
        check_moe(self.experts, self.top_k, self.expert_kind, self.gate)
        if self.balance < 0:
            raise InputError(f"balance must be >= 0, got {self.balance}")

    @property
    def expert_kind(self) -> str:
        return self.activation if self.expert is None else self.expert

    @property
    def routed(self) -> bool:
        """Whether the feed-forward is a models.moe layer (else GPT-2's fc / proj)."""
        return self.experts > 1 or self.expert_kind != self.activation


class Block(nn.Module):
    """Weights of one layer; the computation lives in :class:`Transformer` (it needs ``q``)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        d = config.width
        norm = nn.LayerNorm if config.layer_norm else nn.Identity
        self.ln_attn = norm(d)
        self.qkv = nn.Linear(d, 3 * d)  # W_Q, W_K, W_V stacked
        self.out = nn.Linear(d, d)  # W_O
        self.ln_mlp = norm(d)
        if config.routed:
            self.moe = MixtureOfExperts(
                d,
                config.hidden,
                d,
                config.experts,
                config.top_k,
                config.expert_kind,
                config.gate,
                balance=config.balance,
            )
        else:
            self.fc = nn.Linear(d, config.hidden)
            self.proj = nn.Linear(config.hidden, d)


class Transformer(SequenceModel):
    """GPT-2 style causal decoder with learned positions and per-head q/k/v exposed (Sec. 2)."""

    name = "transformer"
    least_message_bits = 2  # a softmax numerator needs a positive grid value

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__(config)
        self.heads = config.heads
        self.head_dim = config.width // config.heads
        self.scale = config.attn_scale if config.attn_scale is not None else self.head_dim**-0.5
        self.tok = nn.Embedding(config.vocab_size, config.width)
        self.pos = nn.Embedding(config.max_length, config.width)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.ln_f = nn.LayerNorm(config.width) if config.layer_norm else nn.Identity()
        self.head = nn.Linear(config.width, config.outputs)

    def exact_sum_terms(self) -> int:
        moe = [b.moe.longest_sum() for b in self.blocks if hasattr(b, "moe")]
        return max([self.linear_terms(), *moe])  # q.k (dh terms) and LayerNorm are shorter

    def embed(self, tokens: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        """Token + position embeddings (B, n, d); ``positions`` (n,) default to 0..n-1."""
        if positions is None:  # checked from the shape: no device sync (a CUDA graph captures it)
            last = tokens.shape[1] - 1
            positions = torch.arange(tokens.shape[1], device=tokens.device)
        else:
            last = int(positions.max()) if positions.numel() else -1
        if last >= self.config.max_length:
            raise InputError(f"position {last} is beyond max_length {self.config.max_length}")
        # F.embedding, not weight[tokens]: on a GPU its gradient is a segmented sum, where an
        # advanced-indexing gather's serialises the many repeats of a small vocabulary
        tok, pos = F.embedding(tokens, self.q(self.tok.weight)), self.q(self.pos.weight)
        return self.q(tok + F.embedding(positions, pos))

    def qkv(self, x: torch.Tensor, layer: int = 0) -> tuple[torch.Tensor, ...]:
        """Per-head queries, keys, values of the residual stream x (B, n, d): each (B, H, n, dh)."""
        block = self.blocks[layer]
        B, n, _ = x.shape
        qkv = self.linear(block.qkv, self.norm(block.ln_attn, x))  # (B, n, 3d)
        return tuple(
            t.reshape(B, n, self.heads, self.head_dim).transpose(1, 2)
            for t in qkv.split(self.config.width, dim=-1)
        )

    def attention_logits(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """A_ij = scale * <q_i, k_j>: (B, H, nq, dh), (B, H, nk, dh) -> (B, H, nq, nk)."""
        return self.q(self.scale * (q @ k.transpose(-1, -2)))

    def softmax_numerators(self, logits: torch.Tensor, max_logit: torch.Tensor) -> torch.Tensor:
        """exp(A_ij - M_i) in [0, 1] (App. D); ``max_logit`` (B, H, nq, 1) is M_i = max_j A_ij."""
        return self.qmap(self.q(logits - max_logit), torch.exp, math.exp)

    def value_sums(
        self, numerators: torch.Tensor, z: torch.Tensor, v: torch.Tensor
    ) -> torch.Tensor:
        """sum_j Q(e_ij / Z_i) v_j over the given positions, exact (not rounded): (B, H, nq, dh).

        numerators (B, H, nq, nk); z (B, H, nq, 1), the full softmax sum; v (B, H, nk, dh).
        """
        return self.q(numerators / z) @ v

    def held_logits(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """Logits held on the message grid (Thm 4's numbers, :meth:`held_attention`):
        (B, H, nq, dh), (B, H, nk, dh) -> (B, H, nq, nk)."""
        return self.held_scores(q, k, self.scale)

    def held_sums(
        self, logits: torch.Tensor, max_logit: torch.Tensor, v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Thm 4's partial sums over the given key positions: Z = sum_j e_j and U = sum_j t_j,
        e_j = G(exp(a_j - M)) and t_j = G(e_j v_j) on the grid G; exact sums of grid values
        (float32 holds them while N 2^(p-1) < 2^24), the same over any split of the positions.
        logits (B, H, nq, nk) with -inf where masked, max_logit (B, H, nq, 1), v (B, H, nk, dh)
        -> Z (B, H, nq, 1), U (B, H, nq, dh)."""
        assert self.messages is not None
        e = self.messages(torch.exp(logits - max_logit))  # 0 where masked
        terms = self.messages(e.unsqueeze(-1) * v.unsqueeze(-3))  # (B, H, nq, nk, dh)
        return e.sum(-1, keepdim=True), terms.sum(-2)

    def held_attention(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Causal attention with Thm 4's numbers held at p bits: per head and query position i,
        the logits a_ij, their maximum M_i, the numerators e_ij and the value terms t_ij are grid
        values, and the output U_i / Z_i (:meth:`held_sums`). Z_i >= the held exp(0) > 0."""
        N = q.shape[2]
        future = torch.ones(N, N, dtype=torch.bool, device=q.device).triu(1)
        logits = self.held_logits(q, k).masked_fill(future, -math.inf)
        z, u = self.held_sums(logits, logits.amax(-1, keepdim=True), v)
        return u / z

    def attend(self, x: torch.Tensor, layer: int) -> torch.Tensor:
        """Causal attention of every position: value sums (B, H, N, dh) of x (B, N, d).

        In float mode on a device of :data:`FUSED_ATTENTION` the same causal softmax runs as one
        fused kernel (:class:`CausalAttention`: on a GPU in float32, the memory-efficient one),
        which never writes the (B, H, N, N) weights to memory; equal to the explicit form below up
        to float rounding. Finite-precision mode, and the CPU, keep the
        explicit form."""
        q, k, v = self.qkv(x, layer)
        if self.messages is not None:
            return self.held_attention(q, k, v)
        if self.quant is None and x.device.type in FUSED_ATTENTION and self._plain_softmax():
            return CausalAttention.apply(q, k, v, self.scale)
        N = x.shape[1]
        future = torch.ones(N, N, dtype=torch.bool, device=x.device).triu(1)
        logits = self.attention_logits(q, k).masked_fill(future, -math.inf)
        e = self.softmax_numerators(logits, logits.amax(-1, keepdim=True)).masked_fill(future, 0)
        return self.value_sums(e, self.q(e.sum(-1, keepdim=True)), v)

    def _plain_softmax(self) -> bool:
        """Whether this model's attention is the class's own (a subclass may change a piece)."""
        own = (Transformer.attention_logits, Transformer.softmax_numerators, Transformer.value_sums)
        mine = (type(self).attention_logits, type(self).softmax_numerators, type(self).value_sums)
        return own == mine

    def after_attention(self, x: torch.Tensor, u: torch.Tensor, layer: int) -> torch.Tensor:
        """Rest of a layer: x (B, n, d) residual stream, u (B, H, n, dh) value sums -> (B, n, d)."""
        block = self.blocks[layer]
        B, H, n, dh = u.shape
        heads = self.q(u).transpose(1, 2).reshape(B, n, H * dh)  # concatenated heads
        x = self.q(x + self.linear(block.out, heads))
        if hasattr(block, "moe"):
            return self.q(x + block.moe(self.norm(block.ln_mlp, x), self.q, self.qmap))
        h = self.linear(block.fc, self.norm(block.ln_mlp, x))
        # In place: h is this layer's fresh output, and the widest activation of the model.
        h = torch.relu_(h) if self.config.activation == "relu" else self.qmap(h, F.gelu, gelu)
        return self.q(x + self.linear(block.proj, h))

    def readout(self, x: torch.Tensor) -> torch.Tensor:
        """Final LayerNorm and linear readout: (..., d) -> (..., n_out)."""
        return self.linear(self.head, self.norm(self.ln_f, x))

    def finish(self, x_last: torch.Tensor, u_last: torch.Tensor) -> torch.Tensor:
        """Logits (B, n_out) of the last layer at one position, from its residual stream x_last
        (B, d) and its value sums u_last (B, H, dh). For one layer: the input x is ``embed``'s."""
        out = self.after_attention(x_last[:, None], u_last[:, :, None], len(self.blocks) - 1)
        return self.readout(out)[:, 0]

    def attention_inputs(self, tokens: torch.Tensor, layer: int = 0) -> dict[str, torch.Tensor]:
        """Per-head queries, keys, values of ``layer``: dict(q, k, v) each (B, H, N, dh)."""
        x = self.embed(tokens)
        for i in range(layer):
            x = self.after_attention(x, self.attend(x, i), i)
        q, k, v = self.qkv(x, layer)
        return {"q": q, "k": k, "v": v}

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out)."""
        x = self.embed(tokens)  # (B, N, d)
        for i in range(len(self.blocks)):
            x = self.after_attention(x, self.attend(x, i), i)
        return self.readout(x)
