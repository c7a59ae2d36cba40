"""A mixture-of-experts feed-forward layer: K experts, top-k routing, load statistics.

    logits = x R^T                                  # router, R (K, d_in)          (T, K)
    chosen = top-k of logits (first index on ties)  #                              (T, k)
    y(x)   = sum_{j in chosen} g_j(x) E_j(x)        #                              (T, d_out)

Experts (``expert``): ``relu`` / ``gelu`` MLPs E(x) = act(x W_in + b_in) W_out (+ b_out), the
mixture-of-parrots paper's psi_i(x) = u_i^T relu(W_i x + b_i); or ``glu``,
E(x) = (relu(x W_in + b_in) * (x W_gate + b_gate)) W_out (+ b_out), the knowledge-graph paper's.

Gates (``gate``), the combination rule:

* ``argmax``: g_j = 1 for each chosen expert; with top-1 this is Thm A.4's
  psi(x) = psi_i(x), i = argmax_j r_j^T x. The router receives no gradient (it stays as drawn,
  like Thm A.12's random router).
* ``softmax-topk``: softmax of the router logits renormalised over the top k (OLMoE with
  normalised top-k probabilities, Mixtral, the knowledge-graph paper). With top-1 the weight
  is 1, as ``argmax``.
* ``softmax``: g_j = softmax over all K logits, at the chosen experts (Switch, GShard); this
  trains the router at top-1 too.

With K = 1 there is no router: one dense MLP. ``balance`` > 0 adds Switch's load-balancing loss
balance * K * sum_j f_j P_j (f_j the fraction of assignments to j, P_j its mean router
probability) to :attr:`last_aux` in training mode. :attr:`last_load` holds the assignments per
expert of the last forward.

Finite precision: the caller passes its rounding ``q`` and nonlinearity ``qmap``
(``SequenceModel.q`` / ``qmap``); then the router logits, each expert's pre-activation,
activation and output, each gate and the combined output are rounded onto the grid, and every
sum of products is exact (models/base.py), so a token's output does not depend on the batch.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional as F

from ccomplexity.errors import InputError
from models.base import gelu

EXPERTS = ("relu", "gelu", "glu")
GATES = ("argmax", "softmax-topk", "softmax")

Round = Callable[[torch.Tensor], torch.Tensor]
Map = Callable[
    [torch.Tensor, Callable[[torch.Tensor], torch.Tensor], Callable[[float], float]], torch.Tensor
]


def _identity(x: torch.Tensor) -> torch.Tensor:
    return x


def _float_map(
    x: torch.Tensor,
    torch_fn: Callable[[torch.Tensor], torch.Tensor],
    math_fn: Callable[[float], float],
) -> torch.Tensor:
    return torch_fn(x)


def check_moe(experts: int, top_k: int, expert: str, gate: str) -> None:
    """InputError unless K >= 1, 1 <= top_k <= K and the expert and gate are known."""
    if top_k > experts:
        raise InputError(f"top_k {top_k} exceeds the {experts} experts")
    if expert not in EXPERTS:
        raise InputError(f"expert must be one of {', '.join(EXPERTS)}, got {expert!r}")
    if gate not in GATES:
        raise InputError(f"gate must be one of {', '.join(GATES)}, got {gate!r}")


def top_k_indices(logits: torch.Tensor, k: int) -> torch.Tensor:
    """Indices (T, k) of the k largest logits per row, the lowest index first among equals
    (``argmax`` returns the first maximum), so that routing is a fixed function of the logits."""
    chosen = []
    masked = logits
    for _ in range(k):
        j = masked.argmax(-1)
        chosen.append(j)
        masked = masked.scatter(-1, j[:, None], -math.inf)
    return torch.stack(chosen, dim=1)


class MixtureOfExperts(nn.Module):
    """K experts ``d_in -> hidden -> d_out`` behind a linear router; see the module docstring."""

    def __init__(
        self,
        d_in: int,
        hidden: int,
        d_out: int,
        experts: int = 1,
        top_k: int = 1,
        expert: str = "gelu",
        gate: str = "softmax-topk",
        out_bias: bool = True,
        balance: float = 0.0,
    ) -> None:
        super().__init__()
        check_moe(experts, top_k, expert, gate)
        self.experts, self.top_k, self.expert, self.gate = experts, top_k, expert, gate
        self.balance = balance
        self.router = nn.Parameter(torch.empty(experts, d_in)) if experts > 1 else None
        self.w_in = nn.Parameter(torch.empty(experts, d_in, hidden))
        self.b_in = nn.Parameter(torch.empty(experts, hidden))
        self.w_gate = nn.Parameter(torch.empty(experts, d_in, hidden)) if expert == "glu" else None
        self.b_gate = nn.Parameter(torch.empty(experts, hidden)) if expert == "glu" else None
        self.w_out = nn.Parameter(torch.empty(experts, hidden, d_out))
        self.b_out = nn.Parameter(torch.empty(experts, d_out)) if out_bias else None
        for p, fan_in in (
            (self.router, d_in),
            (self.w_in, d_in),
            (self.b_in, d_in),
            (self.w_gate, d_in),
            (self.b_gate, d_in),
            (self.w_out, hidden),
            (self.b_out, hidden),
        ):
            if p is not None:  # nn.Linear's initialisation
                nn.init.uniform_(p, -(fan_in**-0.5), fan_in**-0.5)
        self.last_load = torch.zeros(experts, dtype=torch.long)
        self.last_aux: torch.Tensor | None = None
        self.dense = False  # the routing form of :meth:`_dense` (set by an ensemble's stack)

    def expert_parameters(self) -> int:
        """Parameters of one expert."""
        own = (self.w_in, self.b_in, self.w_gate, self.b_gate, self.w_out, self.b_out)
        return sum(p[0].numel() for p in own if p is not None)

    def inactive_parameters(self) -> int:
        """Parameters a token does not use: the K - k experts it is not routed to."""
        return (self.experts - self.top_k) * self.expert_parameters()

    def longest_sum(self) -> int:
        """Terms of the longest sum of products here (an input row or a hidden row, + bias)."""
        return max(self.w_in.shape[1], self.w_in.shape[2]) + 1

    def run_expert(
        self, j: int, x: torch.Tensor, q: Round = _identity, qmap: Map = _float_map
    ) -> torch.Tensor:
        """Expert j on rows x (T, d_in) -> (T, d_out)."""
        h = q(x @ q(self.w_in[j]) + q(self.b_in[j]))
        h = qmap(h, F.gelu, gelu) if self.expert == "gelu" else F.relu(h)  # ReLU keeps the grid
        if self.w_gate is not None and self.b_gate is not None:
            h = q(h * q(x @ q(self.w_gate[j]) + q(self.b_gate[j])))
        out = x.new_zeros(()) if self.b_out is None else q(self.b_out[j])
        return q(h @ q(self.w_out[j]) + out)

    def gates(
        self, logits: torch.Tensor, chosen: torch.Tensor, q: Round, qmap: Map
    ) -> torch.Tensor:
        """Weights (T, k) of the chosen experts under this layer's gate rule."""
        if self.gate == "argmax":
            return torch.ones(chosen.shape, dtype=logits.dtype, device=logits.device)
        pool = logits.gather(1, chosen) if self.gate == "softmax-topk" else logits
        e = qmap(q(pool - pool.amax(-1, keepdim=True)), torch.exp, math.exp)
        weights = q(e / e.sum(-1, keepdim=True))
        return weights if self.gate == "softmax-topk" else weights.gather(1, chosen)

    def forward(
        self, x: torch.Tensor, q: Round = _identity, qmap: Map = _float_map
    ) -> torch.Tensor:
        """x (..., d_in) -> (..., d_out); ``q``/``qmap`` round in finite-precision mode."""
        shape = x.shape[:-1]
        flat = x.reshape(-1, x.shape[-1])  # (T, d_in)
        if self.router is None:
            self.last_load = torch.tensor([flat.shape[0]])
            return self.run_expert(0, flat, q, qmap).reshape(*shape, -1)
        logits = q(flat @ q(self.router).T)  # (T, K)
        chosen = top_k_indices(logits, self.top_k)  # (T, k)
        weights = self.gates(logits, chosen, q, qmap)  # (T, k)
        if self.dense:
            return self._dense(flat, chosen, weights).reshape(*shape, -1)
        y = flat.new_zeros(flat.shape[0], self.w_out.shape[2])
        for j in range(self.experts):
            rows, slots = (chosen == j).nonzero(as_tuple=True)
            if rows.numel():
                out = self.run_expert(j, flat[rows], q, qmap)
                y = y.index_add(0, rows, weights[rows, slots, None] * out)
        self.last_load = torch.bincount(chosen.flatten().cpu(), minlength=self.experts)
        self.last_aux = None
        if self.training and self.balance > 0:
            f = self.last_load.to(flat.dtype).to(flat.device) / chosen.numel()
            p = torch.softmax(logits, -1).mean(0)
            self.last_aux = self.balance * self.experts * (f * p).sum()
        return q(y).reshape(*shape, -1)

    def _dense(
        self, flat: torch.Tensor, chosen: torch.Tensor, weights: torch.Tensor
    ) -> torch.Tensor:
        """The float forward with every expert on every row, each row's output the gated sum
        over its chosen experts (the others weighted by exact zeros): no rows are selected, so
        ``torch.vmap`` and CUDA graphs can run it, as an ensemble's batched form
        (:class:`simulations.stacks.VmapStack`) does, for K times the sparse form's multiply-adds.
        Float mode only; :attr:`last_load` and :attr:`last_aux` are left as they were (an
        ensemble holds no model that trains with a balance loss)."""
        picked = chosen[..., None] == torch.arange(self.experts, device=chosen.device)  # (T, k, K)
        coef = (picked.to(weights.dtype) * weights[..., None]).sum(1)  # (T, K)
        h = torch.einsum("td,edh->eth", flat, self.w_in) + self.b_in[:, None]
        h = F.gelu(h) if self.expert == "gelu" else F.relu(h)
        if self.w_gate is not None and self.b_gate is not None:
            h = h * (torch.einsum("td,edh->eth", flat, self.w_gate) + self.b_gate[:, None])
        out = torch.einsum("eth,eho->eto", h, self.w_out)  # (K, T, d_out)
        if self.b_out is not None:
            out = out + self.b_out[:, None]
        return torch.einsum("te,eto->to", coef, out)
