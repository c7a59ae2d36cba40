"""Mamba: a selective state-space language model (Gu & Dao 2023, "Mamba: Linear-Time Sequence
Modeling with Selective State Spaces", Sec. 3 and Alg. 2).

    embedding -> layers x [h + mixer(LayerNorm(h))] -> LayerNorm -> linear readout

(LayerNorm where Mamba has RMSNorm, so that finite-precision mode rounds it like every model.)

The mixer of one block, for an input u_t (width) at time t:

    x_t, z_t = in_proj(u_t)                                     each (d_inner)
    x_t      = SiLU(causal depthwise conv of width d_conv over x_<=t)
    delta_t  = softplus(dt_proj(low-rank part of x_proj(x_t)))  (d_inner)
    B_t, C_t = the other two parts of x_proj(x_t)               each (d_state)
    h_t      = exp(delta_t A) h_{t-1} + delta_t B_t x_t         (d_state, d_inner)
    y_t      = C_t . h_t + D x_t;   output = out_proj(y_t * SiLU(z_t))

with A = -exp(A_log) (d_state, d_inner): a diagonal SSM discretised by zero-order hold, with the
simplified B-bar = delta B.

State of one sequence, per layer: the convolution buffer (the last d_conv - 1 inputs x, d_inner
each) and the SSM state h (d_state x d_inner):
``{"conv": (batch, layers, d_conv - 1, d_inner), "ssm": (batch, layers, d_state, d_inner)}``.

Float mode runs the recurrence with a chunked selective scan and a hand-written backward
(:class:`SelectiveScan`) on the CPU, and with fused Triton kernels on a GPU
(:mod:`models.scan_triton`, where Triton is installed); finite-precision mode runs ``step`` token by
token with every intermediate value on the grid (listed in :class:`Mamba`). Internally sequences are
time-major (length, batch, ...) so that one time step is a contiguous slice.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from ccomplexity.errors import InputError
from models.base import ModelConfig, RecurrentModel, sigmoid

SCAN_CHUNK = 8  # time steps per chunk: (chunk, batch, d_state, d_inner) buffers stay in cache


@dataclasses.dataclass(frozen=True)
class MambaConfig(ModelConfig):
    """Sizes of a Mamba model; ``dt_rank`` defaults to ceil(width / 16) as in the paper."""

    d_state: int = 16
    d_conv: int = 4
    expand: int = 2
    dt_rank: int | None = None

    def __post_init__(self) -> None:
        if self.dt_rank is None:
            object.__setattr__(self, "dt_rank", math.ceil(self.width / 16))
        super().__post_init__()

    @property
    def d_inner(self) -> int:
        return self.expand * self.width


class SelectiveScan(torch.autograd.Function):
    """y_t = C_t . h_t with h_t = exp(delta_t A) h_{t-1} + B_t (delta_t x_t), h_0 = 0.

    Shapes: delta, x (N, B, D); A (DS, D); Bm, Cm (N, B, DS) -> y (N, B, D), D = d_inner,
    DS = d_state. A may also be (G, DS, D), one A per group of B / G consecutive sequences: the
    members of an ensemble trained as one batch, each with its own A.

    The (N, B, DS, D) states are never stored: the scan runs in chunks of ``chunk`` steps in reused,
    cache-sized buffers, keeps only the state entering each chunk, and the backward pass recomputes
    one chunk at a time. Within a chunk the recurrence stays sequential, as in ``step``: exact, and
    stable (no exp of cumulative sums). An SSD-style (chunk x chunk) contraction would cost
    ``chunk`` times more work here, as the decay differs per (DS, D) entry. Letting autograd record
    the loop instead would keep one graph node per step and write a full-size gradient for every
    time slice.
    """

    @staticmethod
    def forward(
        ctx: Any,
        delta: torch.Tensor,
        A: torch.Tensor,
        Bm: torch.Tensor,
        Cm: torch.Tensor,
        x: torch.Tensor,
        chunk: int,
    ) -> torch.Tensor:
        N, B, D = x.shape
        DS = A.shape[-2]
        dx = delta * x  # (N, B, D)
        A2 = A * math.log2(math.e)  # exp(delta A) = 2^(delta A2): torch's exp2 is ~5x faster on CPU
        starts = x.new_empty(math.ceil(N / chunk), B, DS, D)  # state entering each chunk
        starts[0] = 0
        dA = x.new_empty(chunk, B, DS, D)
        H = x.new_empty(chunk, B, DS, D)
        y = x.new_empty(N, B, 1, D)
        for c, t0 in enumerate(range(0, N, chunk)):
            t = slice(t0, min(t0 + chunk, N))
            n = t.stop - t0
            _chunk_states(delta[t], A2, Bm[t], dx[t], starts[c], dA[:n], H[:n])
            if c + 1 < len(starts):
                starts[c + 1] = H[n - 1]
            torch.matmul(Cm[t, :, None, :], H[:n], out=y[t])  # (n, B, 1, DS) @ (n, B, DS, D)
        ctx.save_for_backward(delta, A, Bm, Cm, x, dx, starts)
        ctx.chunk = chunk
        return y.squeeze(2)

    @staticmethod
    def backward(ctx: Any, gy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        delta, A, Bm, Cm, x, dx, starts = ctx.saved_tensors
        chunk = ctx.chunk
        N, B, D = x.shape
        DS = A.shape[-2]
        groups = A.numel() // (DS * D)  # of B / groups sequences sharing one A
        gy = gy.contiguous()
        A2 = A * math.log2(math.e)
        dA, H, G, W = (x.new_empty(chunk, B, DS, D) for _ in range(4))  # W: scratch
        g_delta = torch.empty_like(delta)
        g_dx = x.new_empty(N, B, 1, D)
        g_Bm = torch.empty_like(Bm)
        g_Cm = torch.empty_like(Cm)
        g_A = A.new_zeros((groups, DS, D))
        A_g = A.view(groups, 1, DS, D)
        g_carry = None  # dL/dh at the end of this chunk through the next chunk: exp(delta A) g
        for c in reversed(range(len(starts))):
            t0 = c * chunk
            t = slice(t0, min(t0 + chunk, N))
            n = t.stop - t0
            a, h, g, w = dA[:n], H[:n], G[:n], W[:n]
            _chunk_states(delta[t], A2, Bm[t], dx[t], starts[c], a, h)
            # g_s = dL/dh_s = C_s gy_s + exp(delta_{s+1} A) g_{s+1}, accumulated backwards in time
            torch.mul(Cm[t, :, :, None], gy[t, :, None, :], out=g)  # (n, B, DS, D)
            if g_carry is not None:
                g[n - 1] += g_carry
            for s in range(n - 2, -1, -1):
                g[s].addcmul_(a[s + 1], g[s + 1])
            g_carry = a[0] * g[0]
            torch.sum(torch.mul(h, gy[t, :, None, :], out=w), -1, out=g_Cm[t])  # (n, B, DS)
            torch.sum(torch.mul(g, dx[t, :, None, :], out=w), -1, out=g_Bm[t])  # (n, B, DS)
            torch.matmul(Bm[t, :, None, :], g, out=g_dx[t])  # (n, B, 1, D)
            # w = dL/d(delta A) = g_s * h_{s-1} * exp(delta_s A)
            torch.mul(g[1:], h[:-1], out=w[1:])
            torch.mul(g[0], starts[c], out=w[0])
            w.mul_(a)
            g_A += torch.mul(w, delta[t, :, None, :], out=g).unflatten(1, (groups, -1)).sum((0, 2))
            by_group = (groups, -1)
            torch.sum(w.unflatten(1, by_group).mul_(A_g), 3, out=g_delta[t].unflatten(1, by_group))
        g_dx = g_dx.squeeze(2)
        g_delta.addcmul_(g_dx, x)
        g_x = g_dx.mul_(delta)
        return g_delta, g_A.view_as(A), g_Bm, g_Cm, g_x, None


def _chunk_states(
    delta: torch.Tensor,
    A2: torch.Tensor,
    Bm: torch.Tensor,
    dx: torch.Tensor,
    h0: torch.Tensor,
    dA: torch.Tensor,
    H: torch.Tensor,
) -> None:
    """Fill dA = exp(delta A) = 2^(delta A2) and H = the states h_1..h_n of one chunk from h0.

    delta, dx (n, B, D); A2 (DS, D) or (G, DS, D); Bm (n, B, DS); h0 (B, DS, D); dA, H (n, B, DS, D)
    written.
    """
    DS, D = A2.shape[-2:]
    A2 = A2.view(-1, 1, DS, D)  # (G, 1, DS, D) against the batch split as (G, B / G)
    torch.mul(
        delta.unflatten(1, (len(A2), -1))[..., None, :], A2, out=dA.unflatten(1, (len(A2), -1))
    )
    torch.exp2(dA, out=dA)
    torch.mul(Bm[:, :, :, None], dx[:, :, None, :], out=H)  # B_s delta_s x_s
    H[0].addcmul_(dA[0], h0)
    for s in range(1, len(H)):
        H[s].addcmul_(dA[s], H[s - 1])


def selective_scan(
    delta: torch.Tensor,
    A: torch.Tensor,
    Bm: torch.Tensor,
    Cm: torch.Tensor,
    x: torch.Tensor,
    chunk: int = SCAN_CHUNK,
) -> torch.Tensor:
    """The SSM outputs C_t . h_t of a whole sequence, time-major (see :class:`SelectiveScan`).

    On a GPU with Triton installed, float32 inputs go through the fused kernels of
    :mod:`models.scan_triton`; everywhere else through the chunked scan above."""
    triton_scan = _triton_scan() if x.is_cuda and x.dtype == torch.float32 else None
    if triton_scan is not None:
        return triton_scan(delta, A, Bm, Cm, x)
    return SelectiveScan.apply(
        delta.contiguous(), A.contiguous(), Bm.contiguous(), Cm.contiguous(), x.contiguous(), chunk
    )


@functools.cache
def _triton_scan() -> Callable[..., torch.Tensor] | None:
    """The fused GPU scan, or None where Triton is not installed."""
    try:
        from models.scan_triton import selective_scan_triton
    except ImportError:
        return None
    return selective_scan_triton


def silu(x: float) -> float:
    """Scalar twin of ``torch.nn.functional.silu`` for :meth:`SequenceModel.qmap`."""
    return x * sigmoid(x)


def softplus(x: float) -> float:
    """Scalar twin of ``torch.nn.functional.softplus``: log(1 + e^x) without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


class MambaBlock(nn.Module):
    """Parameters of one residual block h + mixer(LayerNorm(h)), and its float forward pass."""

    def __init__(self, config: MambaConfig) -> None:
        super().__init__()
        width, d_inner, d_state = config.width, config.d_inner, config.d_state
        self.split = [config.dt_rank, d_state, d_state]
        self.norm = nn.LayerNorm(width)
        self.in_proj = nn.Linear(width, 2 * d_inner, bias=False)
        # depthwise causal convolution: weight[k] multiplies the input d_conv - 1 - k steps ago
        bound = 1 / math.sqrt(config.d_conv)
        self.conv_weight = nn.Parameter(torch.empty(config.d_conv, d_inner).uniform_(-bound, bound))
        self.conv_bias = nn.Parameter(torch.empty(d_inner).uniform_(-bound, bound))
        self.x_proj = nn.Linear(d_inner, config.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(config.dt_rank, d_inner)
        # initial step sizes log-uniform in [1e-3, 1e-1] (Sec. 3.6): bias = softplus^-1(dt)
        dt = torch.exp(torch.empty(d_inner).uniform_(math.log(1e-3), math.log(1e-1)))
        with torch.no_grad():
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        # S4D-real initialisation A = -(1, 2, ..., d_state) in every channel
        A = torch.arange(1, d_state + 1, dtype=torch.float32)[:, None].repeat(1, d_inner)
        self.A_log = nn.Parameter(torch.log(A))  # (DS, D)
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, width, bias=False)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """Float mode, one time-major sequence: h (N, B, width) -> block output (N, B, width)."""
        N = h.shape[0]
        x, z = self.in_proj(self.norm(h)).chunk(2, dim=-1)  # (N, B, D) each
        xp = F.pad(x, (0, 0, 0, 0, len(self.conv_weight) - 1, 0))  # zeros before t = 0
        conv = self.conv_bias
        for k, w in enumerate(self.conv_weight):
            conv = conv + w * xp[k : k + N]
        x = F.silu(conv)
        dt, Bm, Cm = self.x_proj(x).split(self.split, dim=-1)  # (N, B, R), (N, B, DS), (N, B, DS)
        delta = F.softplus(self.dt_proj(dt))  # (N, B, D)
        y = selective_scan(delta, -torch.exp(self.A_log), Bm, Cm, x) + self.D * x
        return h + self.out_proj(y * F.silu(z))


class Mamba(RecurrentModel):
    """Mamba language model: logits (batch, length, n_out) for every prefix of the input.

    State: ``{"conv": (B, layers, d_conv - 1, d_inner), "ssm": (B, layers, d_state, d_inner)}``,
    so state_numel = layers * d_inner * (d_conv - 1 + d_state).

    Finite-precision mode rounds onto the grid: the token embedding; each LayerNorm's mean,
    variance, normalised value and output; the outputs of in_proj (hence every convolution input
    in the state), x_proj, dt_proj and out_proj; the convolution output; SiLU and softplus
    outputs; A = -exp(A_log); delta * A and its exp; delta * x; the SSM state; C . h + D x; the
    gated output; every block output; the logits. ``forward`` then runs the step recurrence.
    ``set_precision`` requires ``(max(width, d_inner, dt_rank, d_conv, d_state) + 1) *
    (2^(bits-1) - 1)^2 <= 2^53``, e.g. bits <= 23 for width 64 (d_inner 128).
    """

    name = "mamba"

    def __init__(self, config: MambaConfig) -> None:
        super().__init__(config)
        self.embedding = nn.Embedding(config.vocab_size, config.width)
        self.blocks = nn.ModuleList(MambaBlock(config) for _ in range(config.layers))
        self.ln_f = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, config.outputs)

    def exact_sum_terms(self) -> int:
        # besides the linear layers (and LayerNorm's width, shorter than in_proj's width + 1):
        # the convolution (d_conv products + bias) and C . h + D x (d_state + 1 products)
        c = self.config
        return max(self.linear_terms(), c.d_conv + 1, c.d_state + 1)

    def _check(self, tokens: torch.Tensor, ndim: int) -> None:
        if tokens.dim() != ndim or tokens.dtype != torch.long or not tokens.numel():
            raise InputError(
                f"tokens must be a non-empty {ndim}-d LongTensor, got {tokens.dtype} "
                f"{tuple(tokens.shape)}"
            )
        if tokens.min() < 0 or tokens.max() >= self.config.vocab_size:
            raise InputError(f"tokens must lie in 0..{self.config.vocab_size - 1}")

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, n_out)."""
        self._check(tokens, 2)
        if self.quant is not None:
            return self.run_steps(tokens)[0]
        h = self.embedding(tokens.T)  # (N, B, width)
        for block in self.blocks:
            h = block(h)
        return self.head(self.ln_f(h.transpose(0, 1)))

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        c = self.config
        zeros = self.head.weight.new_zeros
        return {
            "conv": zeros(batch, c.layers, c.d_conv - 1, c.d_inner),
            "ssm": zeros(batch, c.layers, c.d_state, c.d_inner),
        }

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        self._check(tokens, 1)
        h = self.q(self.q(self.embedding.weight)[tokens])  # (B, width)
        convs, ssms = [], []
        for i, block in enumerate(self.blocks):
            h, conv, ssm = self.block_step(block, h, state["conv"][:, i], state["ssm"][:, i])
            convs.append(conv)
            ssms.append(ssm)
        state = {"conv": torch.stack(convs, dim=1), "ssm": torch.stack(ssms, dim=1)}
        return state, self.linear(self.head, self.norm(self.ln_f, h))

    def block_step(
        self, block: MambaBlock, h: torch.Tensor, conv: torch.Tensor, ssm: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One token through one block: h (B, width), conv (B, d_conv - 1, D), ssm (B, DS, D) ->
        the block output and the block's new conv buffer and SSM state."""
        q = self.q
        x, z = self.linear(block.in_proj, self.norm(block.norm, h)).chunk(2, dim=-1)  # (B, D)
        window = torch.cat([conv, x[:, None]], dim=1)  # (B, d_conv, D), oldest first
        conv_out = q((window * q(block.conv_weight)).sum(1) + q(block.conv_bias))
        x = self.qmap(conv_out, F.silu, silu)
        dt, Bm, Cm = self.linear(block.x_proj, x).split(block.split, dim=-1)  # (B, R), (B, DS)
        delta = self.qmap(self.linear(block.dt_proj, dt), F.softplus, softplus)  # (B, D)
        A = -self.qmap(block.A_log, torch.exp, math.exp)  # (DS, D)
        dA = self.qmap(q(delta[:, None, :] * A), torch.exp, math.exp)  # (B, DS, D)
        ssm = q(dA * ssm + Bm[:, :, None] * q(delta * x)[:, None, :])
        y = q((Cm[:, None, :] @ ssm).squeeze(1) + q(block.D) * x)  # (B, D)
        out = self.linear(block.out_proj, q(y * self.qmap(z, F.silu, silu)))
        return q(h + out), window[:, 1:], ssm
