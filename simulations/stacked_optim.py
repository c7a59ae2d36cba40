"""Optimisers on stacked parameters (M, ...): one step for the M members of an ensemble, each
member at its own learning rate, as torch's own optimiser steps a single run.

* :class:`StackedAdam`: Adam and AdamW;
* :class:`StackedAdafactor`: Adafactor (torch's defaults), whose step scales by statistics of
  each tensor (its root mean square, its factored second moments), taken here per member.

Both follow a :class:`simulations.recipes.Recipe` (decay, schedule, each member's gradient
clipped to its own norm) and answer one interface: :meth:`step`, or :meth:`advance` (the step's
scalars as CPU tensors) then :meth:`update` with them as device tensors, which is what a CUDA
graph captures and replays (:class:`simulations.ensemble.StaticStep`); and :meth:`keep`, to drop
stopped members.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from simulations.recipes import ADAM, Recipe

ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


class StackedAdam:
    """Adam (torch defaults: betas (0.9, 0.999), eps 1e-8) on stacked parameters (M, ...) with
    one learning rate per member and one shared step count, under a :class:`Recipe` (Adam's L2
    weight decay or AdamW's decoupled one, the schedule's factor of every member's rate, each
    member's gradient clipped to its own norm).

    Element by element it is the arithmetic of ``torch.optim.Adam``'s (``AdamW``'s)
    single-tensor path: g += wd p (Adam) or p *= 1 - lr wd (AdamW); m.lerp_(g, 1 - b1);
    v.mul_(b2).addcmul_(g, g, 1 - b2); denom = sqrt(v) / sqrt(1 - b2^t) + eps;
    p += (-(lr / (1 - b1^t)) * m) / denom, the step size rounded to the parameter's dtype as
    ``addcdiv_`` rounds its scalar; clipping as ``torch.nn.utils.clip_grad_norm_`` (the norm of
    the member's per-tensor norms, scaled by min(1, clip / (norm + 1e-6))).
    """

    def __init__(self, params: list[Tensor], lrs: Sequence[float], recipe: Recipe = ADAM) -> None:
        if recipe.optimizer not in ("adam", "adamw"):
            raise ValueError(f"StackedAdam runs Adam and AdamW, not {recipe.optimizer}")
        self.params = params
        self.lrs = list(lrs)
        self.recipe = recipe
        self.exp_avg = [torch.zeros_like(p) for p in params]
        self.exp_avg_sq = [torch.zeros_like(p) for p in params]
        self.steps = 0

    @property
    def decoupled(self) -> bool:
        """Whether each step first shrinks the weights (AdamW's decoupled decay)."""
        return self.recipe.optimizer == "adamw" and self.recipe.weight_decay > 0

    def _scalars(self) -> tuple[Tensor, float, Tensor]:
        """Count one more step; its per-member -lr / (1 - b1^t) (M,), sqrt(1 - b2^t) and each
        member's weight factor 1 - lr wd (M,) (ones unless :attr:`decoupled`); lr is the
        member's rate times the schedule's factor."""
        self.steps += 1
        beta1, beta2 = ADAM_BETAS
        correction1 = 1 - beta1**self.steps
        rates = [lr * self.recipe.factor(self.steps) for lr in self.lrs]
        dtype = self.params[0].dtype
        neg_step = torch.tensor([-(lr / correction1) for lr in rates], dtype=dtype)
        wd = self.recipe.weight_decay if self.decoupled else 0.0
        shrink = torch.tensor([1 - lr * wd for lr in rates], dtype=dtype)
        return neg_step, (1 - beta2**self.steps) ** 0.5, shrink

    def advance(self) -> tuple[Tensor, ...]:
        """Count one more step; the arguments of :meth:`update` as tensors on the CPU (a caller
        on a GPU copies them from pinned memory into the buffers its graph reads)."""
        neg_step, correction2_sqrt, shrink = self._scalars()
        return neg_step, torch.tensor(correction2_sqrt, dtype=neg_step.dtype), shrink

    @torch.no_grad()
    def step(self) -> None:
        neg_step, correction2_sqrt, shrink = self._scalars()
        device = self.params[0].device
        self.update(neg_step.to(device), correction2_sqrt, shrink.to(device))

    @torch.no_grad()
    def update(
        self, neg_step: Tensor, correction2_sqrt: float | Tensor, shrink: Tensor | None = None
    ) -> None:
        """The update with the step's scalars; as device tensors it can be captured in a graph."""
        beta1, beta2 = ADAM_BETAS
        grads = [p.grad for p in self.params]
        if self.recipe.clip > 0:
            clip_members(grads, self.recipe.clip)
        if self.recipe.optimizer == "adam" and self.recipe.weight_decay > 0:
            grads = torch._foreach_add(grads, self.params, alpha=self.recipe.weight_decay)
        if self.decoupled and shrink is not None:
            for p in self.params:
                p.mul_(shrink.view(-1, *[1] * (p.dim() - 1)))
        torch._foreach_lerp_(self.exp_avg, grads, 1 - beta1)
        torch._foreach_mul_(self.exp_avg_sq, beta2)
        torch._foreach_addcmul_(self.exp_avg_sq, grads, grads, 1 - beta2)
        denom = torch._foreach_sqrt(self.exp_avg_sq)
        if isinstance(correction2_sqrt, Tensor):
            denom = [d / correction2_sqrt for d in denom]
        else:
            torch._foreach_div_(denom, correction2_sqrt)
        torch._foreach_add_(denom, ADAM_EPS)
        updates = [
            neg_step.view(-1, *[1] * (p.dim() - 1)) * m
            for p, m in zip(self.params, self.exp_avg, strict=True)
        ]
        torch._foreach_div_(updates, denom)
        torch._foreach_add_(self.params, updates)

    def keep(self, index: Tensor, params: list[Tensor]) -> None:
        """Keep the members ``index`` (their moments), now optimising ``params``."""
        self.params = params
        self.lrs = [self.lrs[i] for i in index.tolist()]
        self.exp_avg = [m[index] for m in self.exp_avg]
        self.exp_avg_sq = [v[index] for v in self.exp_avg_sq]


ADAFACTOR_BETA2_DECAY = -0.8
ADAFACTOR_EPS2 = 1e-3
ADAFACTOR_D = 1.0
"""torch.optim.Adafactor's defaults (beta2_decay, eps[1], d); eps[0] is the dtype's epsilon."""


class StackedAdafactor:
    """Adafactor (torch's defaults: beta2_decay -0.8, eps (dtype eps, 1e-3), d 1) on stacked
    parameters (M, ...) with one learning rate per member and one shared step count, under a
    :class:`Recipe` (decoupled weight decay, the schedule's factor, per-member clipping).

    Per member it is ``torch.optim.Adafactor``'s single-tensor step, with every statistic taken
    over that member's slice: at step t, rho = min(lr, 1 / sqrt(t)) and alpha = max(eps2,
    RMS(p)) rho; p *= 1 - lr wd; a tensor of two or more dimensions keeps row and column means
    of g^2 (lerped by t^beta2_decay) and estimates v = R C / mean(R), a vector keeps v itself;
    u = g / sqrt(max(v, eps1^2)); p -= alpha / max(1, RMS(u) / d) u. torch takes the two RMS as
    Python floats (a device synchronisation each); here they stay on the device, so the step can
    be captured in a CUDA graph. Values agree with torch's to float rounding (tests).
    """

    def __init__(self, params: list[Tensor], lrs: Sequence[float], recipe: Recipe) -> None:
        if recipe.optimizer != "adafactor":
            raise ValueError(f"StackedAdafactor runs Adafactor, not {recipe.optimizer}")
        self.params = params
        self.lrs = list(lrs)
        self.recipe = recipe
        self.steps = 0
        self.row_var: list[Tensor | None] = []
        self.col_var: list[Tensor | None] = []
        self.variance: list[Tensor | None] = []
        for p in params:
            if p.dim() > 2:  # the member's tensor has two or more dimensions: factored
                self.row_var.append(p.new_zeros((*p.shape[:-1], 1)))
                self.col_var.append(p.new_zeros((*p.shape[:-2], 1, p.shape[-1])))
                self.variance.append(None)
            else:
                self.row_var.append(None)
                self.col_var.append(None)
                self.variance.append(torch.zeros_like(p))

    def advance(self) -> tuple[Tensor, ...]:
        """Count one more step; per member rho = min(lr, 1 / sqrt(t)) (M,), the shared
        1 - beta2_t = t^beta2_decay, and each member's weight factor 1 - lr wd (M,), as CPU
        tensors; lr is the member's rate times the schedule's factor."""
        self.steps += 1
        t = self.steps
        rates = [lr * self.recipe.factor(t) for lr in self.lrs]
        dtype = self.params[0].dtype
        rho = torch.tensor([min(lr, 1 / t**0.5) for lr in rates], dtype=dtype)
        shrink = torch.tensor([1 - lr * self.recipe.weight_decay for lr in rates], dtype=dtype)
        return rho, torch.tensor(t**ADAFACTOR_BETA2_DECAY, dtype=dtype), shrink

    @torch.no_grad()
    def step(self) -> None:
        device = self.params[0].device
        self.update(*(t.to(device) for t in self.advance()))

    @torch.no_grad()
    def update(self, rho: Tensor, one_minus_beta2: Tensor, shrink: Tensor) -> None:
        """The update with the step's scalars (device tensors: it can be captured in a graph)."""
        grads = [p.grad for p in self.params]
        if self.recipe.clip > 0:
            clip_members(grads, self.recipe.clip)
        eps1 = torch.finfo(self.params[0].dtype).eps
        for k, (p, g) in enumerate(zip(self.params, grads, strict=True)):
            per_member = (-1, *[1] * (p.dim() - 1))
            size = p[0].numel() ** 0.5
            alpha = (p.reshape(len(p), -1).norm(dim=1) / size).clamp(min=ADAFACTOR_EPS2) * rho
            if self.recipe.weight_decay != 0:
                p.mul_(shrink.view(per_member))
            row_var, col_var, variance = self.row_var[k], self.col_var[k], self.variance[k]
            if row_var is not None and col_var is not None:
                row_var.lerp_(g.square().mean(dim=-1, keepdim=True), one_minus_beta2)
                col_var.lerp_(g.square().mean(dim=-2, keepdim=True), one_minus_beta2)
                estimate = (row_var @ col_var) / row_var.mean(dim=-2, keepdim=True).clamp(min=eps1)
            else:
                assert variance is not None
                variance.lerp_(g.square(), one_minus_beta2)
                estimate = variance.clone()
            u = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(g)
            denom = (u.reshape(len(u), -1).norm(dim=1) / (size * ADAFACTOR_D)).clamp(min=1.0)
            p.sub_(u.mul_((alpha / denom).view(per_member)))

    def keep(self, index: Tensor, params: list[Tensor]) -> None:
        """Keep the members ``index`` (their statistics), now optimising ``params``."""
        self.params = params
        self.lrs = [self.lrs[i] for i in index.tolist()]
        for state in (self.row_var, self.col_var, self.variance):
            state[:] = [None if s is None else s[index] for s in state]


def clip_members(grads: list[Tensor], clip: float) -> None:
    """Each member's gradients (stacked, (M, ...)) scaled as ``clip_grad_norm_`` scales a single
    run's: by min(1, clip / (norm + 1e-6)), the norm of the member's per-tensor norms."""
    norms = torch.stack([g.reshape(len(g), -1).norm(dim=1) for g in grads], dim=1)  # (M, tensors)
    coef = (clip / (norms.norm(dim=1) + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coef.view(-1, *[1] * (g.dim() - 1)))


def stacked_optimiser(
    params: list[Tensor], lrs: Sequence[float], recipe: Recipe = ADAM
) -> StackedAdam | StackedAdafactor:
    """The stacked form of the recipe's optimiser."""
    if recipe.optimizer == "adafactor":
        return StackedAdafactor(params, lrs, recipe)
    return StackedAdam(params, lrs, recipe)


__all__ = ["StackedAdafactor", "StackedAdam", "clip_members", "stacked_optimiser"]
