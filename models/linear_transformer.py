"""Causal linear Transformer: a recurrent model of Bhattamishra et al. (Sec. 2).

Katharopoulos et al., "Transformers are RNNs: Fast Autoregressive Transformers with Linear
Attention" (2020), Eq. 16-20: with the feature map φ(x) = elu(x) + 1 > 0, causal attention is

    out_i = φ(q_i)^T S_i / (φ(q_i)^T z_i),   S_i = Σ_{j<=i} φ(k_j) v_j^T,   z_i = Σ_{j<=i} φ(k_j)

per head: an RNN whose state is S (dh x dh) and z (dh) of every head and layer. The float forward
takes the cumulative sums over all positions at once; ``step`` adds one term. There are no
position embeddings (the state would need a clock). A layer is pre-LayerNorm as in GPT-2:
x + W_O attention(LN(x)), then x + MLP(LN(x)).

State: S (B, layers, heads, dh, dh) and z (B, layers, heads, dh):
state_numel = layers * (width * dh + width), dh = width / heads.

Finite-precision mode rounds onto the grid: the embedding; each LayerNorm's statistics and output;
q, k, v; φ(q) and φ(k); S and z after each step (exact sum, one rounding); the numerator and the
denominator; their quotient; every linear layer's output, the residual sums and the GELU input and
output. ``forward`` then runs the step recurrence.
``set_precision`` requires ``(max(width, mlp_width) + 1) * (2^(bits-1) - 1)^2 <= 2^53``.
"""

from __future__ import annotations

import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

from models.base import HeadedRecurrentModel, HeadsConfig, gelu

EPS = 1e-6  # keeps the denominator positive when every φ(q) rounds to 0


@dataclasses.dataclass(frozen=True)
class LinearTransformerConfig(HeadsConfig):
    """Linear Transformer: ``heads`` must divide ``width``; any length (no positions)."""


def phi(x: torch.Tensor) -> torch.Tensor:
    return F.elu(x) + 1


def phi_scalar(x: float) -> float:
    return x + 1.0 if x > 0 else math.exp(x)


class Block(nn.Module):
    """Weights of one layer."""

    def __init__(self, config: LinearTransformerConfig) -> None:
        super().__init__()
        d = config.width
        self.ln_attn = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln_mlp = nn.LayerNorm(d)
        self.fc = nn.Linear(d, config.hidden)
        self.proj = nn.Linear(config.hidden, d)


class LinearTransformer(HeadedRecurrentModel):
    """Linear-attention Transformer (elu + 1 features), run in parallel or as an RNN."""

    name = "linear-transformer"

    def __init__(self, config: LinearTransformerConfig) -> None:
        super().__init__(config, Block)

    def exact_sum_terms(self) -> int:
        return self.linear_terms()  # φ(q)^T S and φ(q)^T z have dh terms

    def features(self, x: torch.Tensor, layer: int) -> tuple[torch.Tensor, ...]:
        """φ(q), φ(k), v of x (..., d): each (..., heads, dh)."""
        block = self.blocks[layer]
        qkv = self.linear(block.qkv, self.norm(block.ln_attn, x))
        q, k, v = (t.unflatten(-1, (self.heads, self.head_dim)) for t in qkv.chunk(3, dim=-1))
        q, k = self.qmap(torch.stack((q, k)), phi, phi_scalar)
        return q, k, v

    def after_attention(self, x: torch.Tensor, att: torch.Tensor, layer: int) -> torch.Tensor:
        """x (..., d) + W_O att (..., heads, dh), then the MLP with its residual."""
        block = self.blocks[layer]
        x = self.q(x + self.linear(block.out, att.flatten(-2)))
        h = self.qmap(self.linear(block.fc, self.norm(block.ln_mlp, x)), F.gelu, gelu)
        return self.q(x + self.linear(block.proj, h))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out); the parallel form in float mode."""
        if self.quant is not None:
            return self.run_steps(tokens)[0]
        x = self.embedding(tokens)  # (B, N, d)
        n = tokens.shape[1]
        causal = torch.ones(n, n, dtype=torch.bool, device=tokens.device).tril()
        for layer in range(len(self.blocks)):
            q, k, v = self.features(x, layer)  # (B, N, H, dh)
            # phi(q_n) . phi(k_m) for m <= n: the same sums as the recurrence's S and z, without
            # materialising a (dh x dh) state per position (that costs B N H dh^2 memory).
            scores = torch.einsum("bnhd,bmhd->bhnm", q, k).masked_fill(~causal, 0.0)
            num = torch.einsum("bhnm,bmhe->bnhe", scores, v)  # (B, N, H, dh)
            den = scores.sum(-1).transpose(1, 2)[..., None].clamp_min(EPS)  # (B, N, H, 1)
            x = self.after_attention(x, num / den, layer)
        return self.readout(x)

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        L, H, dh = len(self.blocks), self.heads, self.head_dim
        S = self.head.weight.new_zeros(batch, L, H, dh, dh)
        return {"S": S, "z": S.new_zeros(batch, L, H, dh)}

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        x = self.q(self.embedding.weight)[tokens]  # (B, d)
        Ss, zs = [], []
        for layer in range(len(self.blocks)):
            q, k, v = self.features(x, layer)  # (B, H, dh)
            S = self.q(state["S"][:, layer] + k[..., :, None] * v[..., None, :])  # (B, H, dh, dh)
            z = self.q(state["z"][:, layer] + k)  # (B, H, dh)
            num = self.q(torch.einsum("bhd,bhde->bhe", q, S))
            den = self.q((q * z).sum(-1, keepdim=True)).clamp_min(EPS)
            x = self.after_attention(x, self.q(num / den), layer)
            Ss.append(S)
            zs.append(z)
        return {"S": torch.stack(Ss, dim=1), "z": torch.stack(zs, dim=1)}, self.readout(x)
