"""Holding a model's messages at p bits: exact grid values forward, straight-through backward,
and a logit that does not depend on which other positions are computed with it."""

from __future__ import annotations

import torch

import models
from ccomplexity.message_grid import MessageGrid
from models.base import MessageHold


def test_the_forward_value_is_exactly_on_the_grid_and_the_gradient_passes():
    hold = MessageHold(MessageGrid(3, 1))
    x = torch.tensor([-1e6, -0.74, 0.25, 0.75, 1.49, 1e6], requires_grad=True)
    y = hold(x)
    assert y.tolist() == [-2.0, -0.5, 0.0, 1.0, 1.5, 1.5]  # ties to even, saturating
    assert hold.raw(y).tolist() == [-4, -1, 0, 2, 3, 3]
    (y * torch.arange(6.0)).sum().backward()
    assert x.grad.tolist() == list(range(6))  # straight through, also where saturated


def test_a_held_logit_is_the_same_over_any_subset_of_keys():
    torch.manual_seed(0)
    model = models.build("transformer", width=8, heads=2, vocab_size=5, max_length=12)
    model.hold_messages(MessageGrid(4, 2))
    x = model.embed(torch.randint(0, 5, (3, 12)))
    q, k, _ = model.qkv(x)
    full = model.held_logits(q, k)[:, :, -1]
    some = [0, 3, 4, 9]
    part = model.held_logits(q[:, :, -1:], k[:, :, some])[:, :, 0]
    assert torch.equal(full[..., some], part)


def test_holding_changes_the_output_and_none_restores_it():
    torch.manual_seed(1)
    model = models.build("gru", width=4, vocab_size=3)
    tokens = torch.randint(0, 3, (2, 5))
    before = model(tokens)
    model.hold_messages(MessageGrid(1, 0))
    assert not torch.equal(model(tokens), before)
    model.hold_messages(None)
    assert torch.equal(model(tokens), before)
