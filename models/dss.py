"""Diagonal state space model (DSS / S4D): a recurrent model of Bhattamishra et al. (Sec. 2).

Gupta et al., "Diagonal State Spaces are as Effective as Structured State Spaces" (2022); Gu et al.,
"On the Parameterization and Initialization of Diagonal State Space Models" (S4D, 2022). Every
channel c of a layer runs its own linear recurrence with a diagonal A of ``state_size`` entries,
discretised by zero-order hold with a learned step Δ_c (B = 1 is absorbed into C, as in S4D):

    Ā = exp(Δ A),  B̄ = (Ā - 1) / A                                        (width, n) each
    s_t = Ā ⊙ s_{t-1} + B̄ u_t,   y_t = Re(Σ_n C_n s_t,n) + D u_t           per channel

A is complex (S4D-Lin: A_n = -1/2 + iπn) or real (S4D-Real: A_n = -(n+1)). Unrolled, y is a
causal convolution of u with the kernel K_l = Re(Σ_n C_n B̄_n Ā_n^l), which the float forward
computes by FFT. A layer is x + W_out GELU(SSM(LayerNorm(x))).

State: s of every layer, (B, layers, width, state_size, parts) with parts = 2 (real, imaginary)
for complex A and 1 for real A: state_numel = layers * width * state_size * parts.

Finite-precision mode rounds onto the grid: the embedding; each LayerNorm's statistics and output;
Ā, B̄, C and D (computed from the parameters in float64 by torch, so identical on one device); every
component of s after each step (Ā s + B̄ u summed exactly, then one rounding); y; the GELU input and
output; every linear layer's output. ``forward`` then runs the step recurrence.
``set_precision`` requires ``(max(width, 2 * state_size) + 1) * (2^(bits-1) - 1)^2 <= 2^53``.
"""

from __future__ import annotations

import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

from ccomplexity.errors import InputError
from models.base import ModelConfig, RecurrentModel, gelu


@dataclasses.dataclass(frozen=True)
class DSSConfig(ModelConfig):
    """DSS / S4D: ``state_size`` diagonal modes per channel, real or complex."""

    state_size: int = 16  # n, per channel
    complex_a: bool = True  # complex diagonal A (S4D-Lin) or real (S4D-Real)
    dt_min: float = 1e-3  # initial steps Δ are log-uniform in [dt_min, dt_max]
    dt_max: float = 1e-1

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0 < self.dt_min <= self.dt_max:
            raise InputError(f"need 0 < dt_min <= dt_max, got {self.dt_min}, {self.dt_max}")


def cmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Complex product of numbers stored as (..., 2) real pairs; plain product for (..., 1)."""
    if a.shape[-1] == 1:
        return a * b
    (ar, ai), (br, bi) = a.unbind(-1), b.unbind(-1)
    return torch.stack((ar * br - ai * bi, ar * bi + ai * br), dim=-1)


class DSS(RecurrentModel):
    """Stack of diagonal SSM layers (DSS / S4D) with a convolution forward and a step recurrence."""

    name = "dss"

    def __init__(self, config: DSSConfig) -> None:
        super().__init__(config)
        L, W, n = config.layers, config.width, config.state_size
        self.parts = 2 if config.complex_a else 1
        self.embedding = nn.Embedding(config.vocab_size, W)
        log_dt = torch.empty(L, W).uniform_(math.log(config.dt_min), math.log(config.dt_max))
        self.log_dt = nn.Parameter(log_dt)
        # S4D-Lin: A_n = -1/2 + iπn; S4D-Real: A_n = -(n + 1)
        index = torch.arange(float(n)).repeat(L, W, 1)  # (L, W, n)
        neg_re = torch.full_like(index, 0.5) if config.complex_a else index + 1
        self.log_neg_re_a = nn.Parameter(neg_re.log())  # Re A = -exp(.) < 0: a stable recurrence
        self.im_a = nn.Parameter(math.pi * index) if config.complex_a else None
        self.c = nn.Parameter(0.5 * torch.randn(L, W, n, self.parts))
        self.d = nn.Parameter(torch.randn(L, W))
        self.norms = nn.ModuleList(nn.LayerNorm(W) for _ in range(L))
        self.outs = nn.ModuleList(nn.Linear(W, W) for _ in range(L))
        self.head = nn.Linear(W, config.outputs)

    def exact_sum_terms(self) -> int:
        return max(self.linear_terms(), 2 * self.config.state_size + 1)  # y: Re(C s) + D u

    def discretise(self, layer: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Zero-order hold: Ā = exp(Δ A), B̄ = (Ā - 1) / A as complex (width, n) tensors."""
        re = -self.log_neg_re_a[layer].exp()
        a = torch.complex(re, self.im_a[layer] if self.im_a is not None else torch.zeros_like(re))
        a_bar = torch.exp(self.log_dt[layer].exp()[:, None] * a)
        return a_bar, (a_bar - 1) / a

    def parts_of(self, z: torch.Tensor) -> torch.Tensor:
        """Complex (...) -> real (..., parts) on the grid: (Re, Im), or Re alone for real A."""
        return self.q(torch.view_as_real(z)[..., : self.parts])

    def kernel(self, layer: int, length: int) -> torch.Tensor:
        """K_l = Re(Σ_n C_n B̄_n Ā_n^l) for l < length: (width, length)."""
        a_bar, b_bar = self.discretise(layer)
        c = self.c[layer]
        c = torch.complex(c[..., 0], c[..., 1]) if self.parts == 2 else c[..., 0]
        # Ā^l = exp(l log Ā) for any branch of the logarithm
        powers = torch.exp(torch.log(a_bar)[..., None] * torch.arange(length, device=c.device))
        return torch.einsum("wn,wnl->wl", c * b_bar, powers).real

    def ssm(self, u: torch.Tensor, layer: int) -> torch.Tensor:
        """Convolution form: u (B, N, width) -> y (B, N, width), by FFT of length 2N."""
        N = u.shape[1]
        k = torch.fft.rfft(self.kernel(layer, N), n=2 * N)  # (width, N + 1)
        y = torch.fft.irfft(torch.fft.rfft(u.transpose(1, 2), n=2 * N) * k, n=2 * N)[..., :N]
        return y.transpose(1, 2) + self.d[layer] * u

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out)."""
        if self.quant is not None:
            return self.run_steps(tokens)[0]
        x = self.embedding(tokens)  # (B, N, width)
        for layer in range(self.config.layers):
            y = self.ssm(self.norms[layer](x), layer)
            x = x + self.outs[layer](F.gelu(y))
        return self.head(x)

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        c = self.config
        shape = (batch, c.layers, c.width, c.state_size, self.parts)
        return {"s": self.head.weight.new_zeros(shape)}

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        x = self.q(self.embedding.weight)[tokens]  # (B, width)
        states = []
        for layer in range(self.config.layers):
            a_bar, b_bar = (self.parts_of(z) for z in self.discretise(layer))  # (width, n, parts)
            u = self.norm(self.norms[layer], x)  # (B, width)
            s = self.q(cmul(a_bar, state["s"][:, layer]) + b_bar * u[..., None, None])
            cs = cmul(self.q(self.c[layer]), s)[..., 0]  # Re(C_n s_n): (B, width, n)
            y = self.q(cs.sum(-1) + self.q(self.d[layer]) * u)  # (B, width)
            x = self.q(x + self.linear(self.outs[layer], self.qmap(y, F.gelu, gelu)))
            states.append(s)
        return {"s": torch.stack(states, dim=1)}, self.linear(self.head, x)
