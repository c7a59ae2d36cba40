"""The one-layer class of the mixture-of-parrots paper, Transformer^N_{m,H,1,K} (Sec. 3):

    f(x_1..x_N) = psi( [ softmax( phi(x_N)^T Q_h K_h^T phi(X) ) phi(X) V_h ]_{h in [H]} )

H heads of full width m (Q_h, K_h, V_h in R^{m x m}, no biases) whose outputs are
*concatenated* (Y in R^{mH}; the paper's psi: R^m -> R should read R^{mH} -> R), no residual,
no positions, and a scalar output read at the last token. psi is a ReLU MLP
u^T relu(W Y + b) (dense, K = 1) or K such experts behind a router,
psi(Y) = psi_i(Y) with i = argmax_j r_j^T Y (Thm A.4's top-1 routing; other gates in
``models.moe``). Inputs are tokens with a learned embedding phi, or vectors in R^m with phi the
identity (``input_dim`` = m, the memorisation task of Sec. 3.2 / Thm A.11). The output at
position t is f of the prefix x_1..x_t; as logits (0, f) for two classes (class 1 iff f > 0),
or (0, f_1, ..., f_{c-1}) for c classes.

Pieces a protocol splits (Lemma A.3; ``simulations.protocols.parrots``):

    x = embed(inputs_S)                         # each party, its own positions    (B, n, m)
    q = queries(x_N)                            # public: the query token          (B, H, 1, m)
    z, l = partial_sums(q, x_S)                 # Z_{h,S}, L_{h,S}, exact          (B, H, 1, 1+m)
    y = combine(z_A + z_B + z_F, l_A + l_B + l_F)  # per head L / Z, concatenated  (B, mH)
    logits = psi(y)                             # route, apply the chosen expert   (B, c)

**Finite precision** (``set_precision``) is chosen so that the partial sums are exact: every
exponential is taken against a fixed public offset c (``softmax_offset``), not against the
maximum logit, which no party knows alone. With Q the rounding onto the grid:
phi, q, k, v and each logit a_t = Q(scale q.k_t) are on the grid; e_t = Q(exp(Q(a_t - c)))
(saturating at the grid's largest value, 0 once below its step); Z = sum_t e_t and
L = sum_t Q(e_t v_t) are sums of grid values, exact in float64 and so the same in any order and
over any split of the positions; each head outputs Q(L / Z) (0 when every e_t is 0); psi then
rounds as ``models.moe`` says. A protocol that sends Z_A and L_A exactly reproduces the
model's own output bit for bit. In float mode the softmax is the usual one (the offset cancels).
"""

from __future__ import annotations

import dataclasses
import math

import torch
from torch import nn
from torch.nn import functional as F

from ccomplexity.errors import InputError
from models.base import ModelConfig, SequenceModel
from models.moe import MixtureOfExperts, check_moe


@dataclasses.dataclass(frozen=True)
class ConcatTransformerConfig(ModelConfig):
    """Width m, ``heads`` H of width m each, psi of width ``mlp_width`` m' (default mH) with
    ``experts`` K (1: dense), ``top_k`` and ``gate`` (``models.moe``). ``layers`` must be 1."""

    heads: int = 1
    mlp_width: int | None = None
    experts: int = 1
    top_k: int = 1
    gate: str = "argmax"
    balance: float = 0.0  # coefficient of the load-balancing loss (models.moe)
    input_dim: int | None = None  # vector inputs (B, N, m), phi the identity: must equal width
    attn_scale: float | None = None  # logit = attn_scale * <q, k>; None: 1/sqrt(m); paper: 1
    softmax_offset: float = 0.0  # c of e_t = exp(a_t - c) in finite precision

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.layers != 1:
            raise InputError(f"the concat-transformer has one layer (Sec. 3), got {self.layers}")
        if self.outputs < 2:
            raise InputError(f"the concat-transformer needs at least 2 classes, got {self.outputs}")
        if self.input_dim is not None and self.input_dim != self.width:
            raise InputError(
                f"vector inputs use phi = identity: input_dim {self.input_dim} must equal "
                f"the width {self.width}"
            )
        check_moe(self.experts, self.top_k, "relu", self.gate)
        if self.balance < 0:
            raise InputError(f"balance must be >= 0, got {self.balance}")

    @property
    def hidden(self) -> int:
        return self.mlp_width if self.mlp_width is not None else self.width * self.heads


class ConcatTransformer(SequenceModel):
    """One layer, concatenated heads, no residual, routed or dense psi (mixture of parrots)."""

    name = "concat-transformer"
    least_message_bits = 2  # a softmax numerator needs a positive grid value

    def __init__(self, config: ConcatTransformerConfig) -> None:
        super().__init__(config)
        m, H = config.width, config.heads
        self.width, self.heads = m, H
        self.scale = config.attn_scale if config.attn_scale is not None else m**-0.5
        self.tok = nn.Embedding(config.vocab_size, m) if config.input_dim is None else None
        self.qkv = nn.Linear(m, 3 * H * m, bias=False)  # Q_h, K_h, V_h stacked
        self.psi = MixtureOfExperts(
            m * H,
            config.hidden,
            config.outputs - 1,
            config.experts,
            config.top_k,
            "relu",
            config.gate,
            out_bias=False,
            balance=config.balance,
        )

    def exact_sum_terms(self) -> int:
        return max(self.width + 1, self.psi.longest_sum(), self.psi.w_in.shape[1] + 1)

    def embed(self, inputs: torch.Tensor) -> torch.Tensor:
        """phi: tokens (B, n) -> (B, n, m), or vectors (B, n, m) as they are (on the grid)."""
        if self.tok is None:
            if inputs.dim() != 3 or inputs.shape[-1] != self.width:
                raise InputError(f"this model reads vectors (B, N, {self.width})")
            return self.q(inputs.to(self.qkv.weight.dtype))
        if inputs.dim() != 2 or inputs.is_floating_point():
            raise InputError("this model reads token ids (B, N)")
        return self.q(F.embedding(inputs, self.q(self.tok.weight)))

    def _heads(self, x: torch.Tensor, which: int) -> torch.Tensor:
        """q (0), k (1) or v (2) of x (B, n, m): (B, H, n, m)."""
        B, n, m = x.shape
        w = self.qkv.weight[which * self.heads * m : (which + 1) * self.heads * m]
        return self.q(x @ self.q(w).T).reshape(B, n, self.heads, m).transpose(1, 2)

    def queries(self, x_last: torch.Tensor) -> torch.Tensor:
        """Per-head queries of the last token's embedding (B, 1, m): (B, H, 1, m)."""
        return self._heads(x_last, 0)

    def numerators(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """e_t = Q(exp(Q(a_t - c))), a_t = Q(scale q.k_t): q (B, H, 1, m), k (B, H, n, m) ->
        (B, H, 1, n). Held at p bits: e_t = G(exp(G(scale q.k_t) - c)) on the message grid G,
        each logit an elementwise product summed over m (the same whatever else is computed)."""
        if self.messages is not None:  # held at p bits: Lemma A.3's sums of these are exact
            logits = self.held_scores(q, k, self.scale)
            return self.messages(torch.exp(logits - self.config.softmax_offset))
        logits = self.q(self.scale * (q @ k.transpose(-1, -2)))
        return self.qmap(self.q(logits - self.config.softmax_offset), torch.exp, math.exp)

    def partial_sums(self, q: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Z_{h,S} (B, H, 1, 1) and L_{h,S} (B, H, 1, m) of the positions S whose embeddings are
        x (B, n, m): exact sums of grid values (finite-precision mode, or held at p bits)."""
        e = self.numerators(q, self._heads(x, 1))  # (B, H, 1, n)
        v = self._heads(x, 2)  # (B, H, n, m)
        hold = self.q if self.messages is None else self.messages
        terms = hold(e[..., None] * v[:, :, None])  # Q(e_t v_t): (B, H, 1, n, m)
        return e.sum(-1, keepdim=True), terms.sum(-2)

    def combine(self, z: torch.Tensor, l: torch.Tensor) -> torch.Tensor:  # noqa: E741
        """Y = [Q(L_h / Z_h)]_h concatenated: (B, H, 1, 1), (B, H, 1, m) -> (B, mH)."""
        if self.messages is not None:
            y = self.combine_all(z, l)
        elif self.quant is None:
            y = l / z
        else:
            y = torch.where(z > 0, self.q(l / z.clamp(min=self.quant.fmt.step)), 0.0)
        return y[:, :, 0].reshape(len(y), -1)

    def combine_all(self, z: torch.Tensor, l: torch.Tensor) -> torch.Tensor:  # noqa: E741
        """Per head L / Z at every position, held at p bits: (B, H, N, 1), (B, H, N, m) ->
        (B, H, N, m), each exactly as :meth:`combine` makes it for one position."""
        assert self.messages is not None
        return torch.where(z > 0, l / z.clamp(min=self.messages.grid.step), 0.0)

    def readout(self, y: torch.Tensor) -> torch.Tensor:
        """psi of the concatenated heads (..., mH) -> logits (..., c): (0, f_1, ..., f_{c-1})."""
        f = self.psi(y, self.q, self.qmap)
        return torch.cat([torch.zeros_like(f[..., :1]), f], dim=-1)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """inputs (B, N) tokens or (B, N, m) vectors -> logits (B, N, c), causal."""
        x = self.embed(inputs)  # (B, N, m)
        B, N, m = x.shape
        if self.quant is None and self.messages is None:
            q, k, v = (self._heads(x, i) for i in range(3))  # (B, H, N, m) each
            future = torch.ones(N, N, dtype=torch.bool, device=x.device).triu(1)
            a = (self.scale * (q @ k.transpose(-1, -2))).masked_fill(future, -math.inf)
            y = torch.softmax(a, -1) @ v  # (B, H, N, m)
            return self.readout(y.transpose(1, 2).reshape(B, N, self.heads * m))
        if self.messages is not None:  # every position at once, through the same pieces
            q, k, v = (self._heads(x, i) for i in range(3))  # (B, H, N, m) each
            future = torch.ones(N, N, dtype=torch.bool, device=x.device).triu(1)
            e = self.numerators(q, k).masked_fill(future, 0.0)  # (B, H, N, N)
            terms = self.messages(e[..., None] * v[:, :, None])  # (B, H, N, N, m)
            y = self.combine_all(e.sum(-1, keepdim=True), terms.sum(-2))  # (B, H, N, m)
            return self.readout(y.transpose(1, 2).reshape(B, N, self.heads * m))
        rows = []
        for t in range(N):  # position t attends to 0..t, through the protocol's own pieces
            z, l = self.partial_sums(self.queries(x[:, t : t + 1]), x[:, : t + 1])  # noqa: E741
            rows.append(self.readout(self.combine(z, l)))
        return torch.stack(rows, dim=1)
