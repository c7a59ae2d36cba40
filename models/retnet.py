"""Retentive network (RetNet): a recurrent model of Bhattamishra et al. (Sec. 2).

Sun et al., "Retentive Network: A Successor to Transformer for Large Language Models" (2023),
Eq. 1-6: each head h decays its memory by a fixed γ_h = 1 - 2^(-5-h), so

    parallel:   out = (Q K^T ⊙ D) V,   D_nm = γ^(n-m) for n >= m, else 0
    recurrent:  S_n = γ S_{n-1} + k_n^T v_n,   out_n = q_n S_n                (S: dh x dh)

with k scaled by dh^-1/2. Multi-scale retention gates the heads, swish(x W_G) ⊙ out, before W_O.
A layer is pre-LayerNorm: x + MSR(LN(x)), then x + MLP(LN(x)). Omitted from the paper: the
per-head GroupNorm and the xPos rotation of q and k (the decay alone orders positions).

State: S (B, layers, heads, dh, dh): state_numel = layers * width * dh, dh = width / heads.

Finite-precision mode rounds onto the grid: the embedding; each LayerNorm's statistics and output;
q, k (after scaling), v; γ; S after each step (γ S + k^T v summed exactly, one rounding); q S; the
swish gate and the gated heads; every linear layer's output, the residual sums and the GELU input
and output. ``forward`` then runs the step recurrence.
``set_precision`` requires ``(max(width, mlp_width) + 1) * (2^(bits-1) - 1)^2 <= 2^53``.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn
from torch.nn import functional as F

from models.base import HeadedRecurrentModel, HeadsConfig, gelu, sigmoid


@dataclasses.dataclass(frozen=True)
class RetNetConfig(HeadsConfig):
    """RetNet: ``heads`` must divide ``width``; head h decays by 1 - 2^(-5-h)."""


def swish(x: float) -> float:
    return x * sigmoid(x)


class Block(nn.Module):
    """Weights of one layer."""

    def __init__(self, config: RetNetConfig) -> None:
        super().__init__()
        d = config.width
        self.ln_ret = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.gate = nn.Linear(d, d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.ln_mlp = nn.LayerNorm(d)
        self.fc = nn.Linear(d, config.hidden)
        self.proj = nn.Linear(config.hidden, d)


class RetNet(HeadedRecurrentModel):
    """RetNet with multi-scale retention, run in parallel or as an RNN."""

    name = "retnet"

    def __init__(self, config: RetNetConfig) -> None:
        super().__init__(config, Block)
        self.register_buffer(
            "gamma", 1 - 2.0 ** (-5 - torch.arange(float(config.heads))), persistent=False
        )

    def exact_sum_terms(self) -> int:
        return self.linear_terms()  # q S has dh terms, γ S + k^T v two

    def qkv(self, x: torch.Tensor, layer: int) -> tuple[torch.Tensor, ...]:
        """q, k / sqrt(dh), v of the normalised x (..., d): each (..., heads, dh)."""
        qkv = self.linear(self.blocks[layer].qkv, x)
        q, k, v = (t.unflatten(-1, (self.heads, self.head_dim)) for t in qkv.chunk(3, dim=-1))
        return q, self.q(k * self.head_dim**-0.5), v

    def after_retention(
        self, x: torch.Tensor, xn: torch.Tensor, ret: torch.Tensor, layer: int
    ) -> torch.Tensor:
        """x (..., d) + W_O(swish(W_G LN(x)) ⊙ ret), ret (..., heads, dh); then the MLP."""
        block = self.blocks[layer]
        gated = self.q(self.qmap(self.linear(block.gate, xn), F.silu, swish) * ret.flatten(-2))
        x = self.q(x + self.linear(block.out, gated))
        h = self.qmap(self.linear(block.fc, self.norm(block.ln_mlp, x)), F.gelu, gelu)
        return self.q(x + self.linear(block.proj, h))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out); the parallel form in float mode."""
        if self.quant is not None:
            return self.run_steps(tokens)[0]
        x = self.embedding(tokens)  # (B, N, d)
        N = x.shape[1]
        n = torch.arange(N, device=x.device)
        gap = (n[:, None] - n[None, :]).float()  # n - m
        decay = torch.where(gap >= 0, self.gamma[:, None, None] ** gap, 0)  # D: (H, N, N)
        for layer, block in enumerate(self.blocks):
            xn = self.norm(block.ln_ret, x)
            q, k, v = self.qkv(xn, layer)  # (B, N, H, dh)
            scores = torch.einsum("bnhd,bmhd->bhnm", q, k) * decay
            ret = torch.einsum("bhnm,bmhd->bnhd", scores, v)
            x = self.after_retention(x, xn, ret, layer)
        return self.readout(x)

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        shape = (batch, len(self.blocks), self.heads, self.head_dim, self.head_dim)
        return {"S": self.head.weight.new_zeros(shape)}

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        x = self.q(self.embedding.weight)[tokens]  # (B, d)
        gamma = self.q(self.gamma)[:, None, None]  # (H, 1, 1)
        states = []
        for layer, block in enumerate(self.blocks):
            xn = self.norm(block.ln_ret, x)
            q, k, v = self.qkv(xn, layer)  # (B, H, dh)
            S = self.q(gamma * state["S"][:, layer] + k[..., :, None] * v[..., None, :])
            ret = self.q(torch.einsum("bhd,bhde->bhe", q, S))  # (B, H, dh)
            x = self.after_retention(x, xn, ret, layer)
            states.append(S)
        return {"S": torch.stack(states, dim=1)}, self.readout(x)
