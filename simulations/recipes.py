"""Training recipes: the optimiser, its weight decay, the learning-rate schedule with its
warm-up, and gradient clipping, as the papers state them.

* separations (App. H) and knowledge-graph looping: Adam at a constant learning rate, over a
  grid of learning rates;
* mixture of parrots: AdamW with weight decay 0.1;
* looped reasoning: Adafactor with linear warm-up and cosine decay (lr 0.005).

One rule serves a single run (:func:`simulations.training.train`, torch's own optimisers) and an
ensemble (:mod:`simulations.stacked_optim`: Adam and AdamW stacked; Adafactor stacked, its
statistics per member, on a GPU only, and member by member with torch's own elsewhere,
:data:`simulations.stacks.STACKED_ADAFACTOR_DEVICES`), so a member of an ensemble follows its
single run's recipe step for step.

The schedule is a factor of the configured ``lr`` at step t = 1 .. T (T = ``steps``, W =
``warmup``): t / W during the warm-up (t <= W), then 1 (``constant``), the cosine
(1 + cos(pi s)) / 2 (``warmup-cosine``) or 1 - s (``warmup-linear``) of s = (t - W - 1) / (T - W),
so the first step after the warm-up runs at ``lr`` and the last at a small positive rate. The
factor depends on T: a run with a schedule other than ``constant`` is not a prefix of the same
run with more steps.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ccomplexity import limits, typed
from ccomplexity.errors import InputError

if TYPE_CHECKING:  # torch loads only when an optimiser is made: checks stay fast
    import torch

OPTIMIZERS = ("adam", "adamw", "adafactor")
SCHEDULES = ("constant", "warmup-cosine", "warmup-linear")
RECIPE_DEFAULTS: dict[str, object] = {
    "optimizer": "adam",
    "weight_decay": 0.0,
    "schedule": "constant",
    "warmup": 0,
    "clip": 0.0,
}
"""The recipe fields added after the first runs were stored, and their defaults (App. H: Adam,
constant rate, no decay, no clipping); at these values they are left out of the config hash, so
runs stored before recipes existed keep their hashes."""
STACKED_OPTIMIZERS = ("adam", "adamw", "adafactor")
"""Optimisers an ensemble's batched forms can step for all members at once
(:mod:`simulations.stacked_optim`; Adafactor with its tensor statistics taken per member, and
only on the devices of :data:`simulations.stacks.STACKED_ADAFACTOR_DEVICES`)."""


def lr_factor(schedule: str, warmup: int, steps: int, step: int) -> float:
    """The factor of the configured learning rate at step ``step`` (1-based) of ``steps``."""
    if step <= warmup:
        return step / warmup
    if schedule == "constant":
        return 1.0
    s = (step - warmup - 1) / (steps - warmup)
    if schedule == "warmup-cosine":
        return 0.5 * (1.0 + math.cos(math.pi * s))
    return 1.0 - s


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """How a run is trained: ``steps`` steps of a fresh ``batch`` each, at learning rate ``lr``
    (the schedule's peak), with the optimiser, its weight decay, the schedule with its ``warmup``
    steps and gradient ``clip`` (0: none), and optionally the block-cosine regulariser of the
    looped-reasoning paper (Eq. 5: ``reg_lambda``, pulling layers ``reg_block`` apart together).
    Checked when made (:data:`ccomplexity.limits.FIELDS` and the rules of a recipe: known
    names, a warm-up shorter than the run, both regulariser fields or neither)."""

    steps: int = 1000
    lr: float = 1e-3
    batch: int = 64
    optimizer: str = "adam"  # adam | adamw | adafactor (torch's own)
    weight_decay: float = 0.0
    schedule: str = "constant"  # constant | warmup-cosine | warmup-linear
    warmup: int = 0  # steps of linear warm-up
    clip: float = 0.0  # max gradient norm; 0: no clipping
    reg_lambda: float | None = None  # transformer: lambda of the block-cosine regulariser
    reg_block: int | None = None  # its block size k (layers k i + j and k (i + 1) + j are pulled)

    def __post_init__(self) -> None:
        typed.check_fields(self)
        limits.check_fields(self, "Recipe.")
        if self.optimizer not in OPTIMIZERS:
            raise InputError(
                f"optimizer must be one of {', '.join(OPTIMIZERS)}, got {self.optimizer!r}"
            )
        if self.schedule not in SCHEDULES:
            raise InputError(
                f"schedule must be one of {', '.join(SCHEDULES)}, got {self.schedule!r}"
            )
        if not self.warmup < self.steps:
            raise InputError(
                f"warmup must be 0 .. steps - 1 = {self.steps - 1} steps, got {self.warmup}"
            )
        if (self.reg_lambda is None) != (self.reg_block is None):
            raise InputError("the block-cosine regulariser needs both reg_lambda and reg_block")

    def factor(self, step: int) -> float:
        """:func:`lr_factor` of this schedule at ``step`` (1-based)."""
        return lr_factor(self.schedule, self.warmup, self.steps, step)


ADAM = Recipe()
"""App. H's recipe: Adam at a constant rate, no weight decay, no clipping."""


def make_optimizer(
    optimizer: str, params: Iterable[torch.nn.Parameter], lr: float, weight_decay: float
) -> torch.optim.Optimizer:
    """Torch's own optimiser of that name (defaults otherwise). Adam's weight decay is the L2
    term added to the gradient; AdamW's and Adafactor's are decoupled."""
    import torch

    if optimizer == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    if optimizer == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    return torch.optim.Adafactor(params, lr=lr, weight_decay=weight_decay)


def set_lr(optimizer: torch.optim.Optimizer, lr: float) -> None:
    """Every parameter group of ``optimizer`` at learning rate ``lr`` for its next step."""
    for group in optimizer.param_groups:
        group["lr"] = lr


__all__ = [
    "ADAM",
    "OPTIMIZERS",
    "RECIPE_DEFAULTS",
    "Recipe",
    "SCHEDULES",
    "STACKED_OPTIMIZERS",
    "lr_factor",
    "make_optimizer",
    "set_lr",
]
