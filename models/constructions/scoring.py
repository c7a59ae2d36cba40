"""Scoring shared by the constructions: an answer counts only if its logit is strictly largest."""

from __future__ import annotations

import math

import torch


def strictly_correct(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Whether the target's logit beats every other logit (a tie counts as wrong): (B,) bool.

    logits (B, classes), target (B,) int64.
    """
    best = logits.gather(1, target[:, None])[:, 0]
    rivals = logits.scatter(1, target[:, None], -math.inf)
    return (best > rivals.amax(1)).cpu()
