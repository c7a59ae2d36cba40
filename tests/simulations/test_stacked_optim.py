"""Stacked Adafactor: torch's Adafactor member by member, with each member's own statistics."""

from __future__ import annotations

import pytest
import torch

from simulations.recipes import Recipe, make_optimizer, set_lr
from simulations.stacked_optim import (
    StackedAdafactor,
    StackedAdam,
    clip_members,
    stacked_optimiser,
)

SHAPES = [(5, 4), (7,), (2, 3, 4), (1, 6)]
"""Member shapes: a matrix, a vector (unfactored), a 3-d tensor (factored over its last two
dimensions) and a one-row matrix."""


@pytest.fixture(autouse=True)
def _one_thread(one_thread):
    """Every test here on one torch thread."""


def start(members: int, gen: torch.Generator) -> list[torch.Tensor]:
    # members of very different scales, so that a statistic shared between them would show
    return [
        torch.randn(members, *s, generator=gen)
        * torch.logspace(-3, 1, members).view(-1, *[1] * len(s))
        for s in SHAPES
    ]


def torch_runs(initial, lrs, recipe, grads_per_step):
    """Each member alone with torch's optimiser, clip_grad_norm_ and the schedule's rate."""
    own = [[p[i].clone().requires_grad_() for p in initial] for i in range(len(lrs))]
    optimisers = [
        make_optimizer(recipe.optimizer, o, lr, recipe.weight_decay)
        for o, lr in zip(own, lrs, strict=True)
    ]
    for step, grads in enumerate(grads_per_step, 1):
        for i, optimiser in enumerate(optimisers):
            for p, g in zip(own[i], grads, strict=True):
                p.grad = g[i].clone()
            if recipe.clip > 0:
                torch.nn.utils.clip_grad_norm_(own[i], recipe.clip)
            set_lr(optimiser, lrs[i] * recipe.factor(step))
            optimiser.step()
    return own


@pytest.mark.parametrize(
    "recipe",
    [
        Recipe(optimizer="adafactor", steps=8),
        Recipe(
            optimizer="adafactor",
            weight_decay=0.1,
            schedule="warmup-cosine",
            warmup=3,
            clip=0.5,
            steps=8,
        ),
        Recipe(
            optimizer="adafactor",
            weight_decay=0.0,
            schedule="warmup-linear",
            warmup=2,
            clip=0.0,
            steps=8,
        ),
    ],
)
def test_stacked_adafactor_is_torch_adafactor_member_by_member(recipe):
    gen = torch.Generator().manual_seed(0)
    lrs = [1e-2, 3e-3, 1e-4]
    initial = start(3, gen)
    grads_per_step = [
        [3 * torch.randn(p.shape, generator=gen) for p in initial] for _ in range(recipe.steps)
    ]
    own = torch_runs(initial, lrs, recipe, grads_per_step)
    stacked = StackedAdafactor([p.clone().requires_grad_() for p in initial], lrs, recipe)
    for grads in grads_per_step:
        for p, g in zip(stacked.params, grads, strict=True):
            p.grad = g.clone()
        stacked.step()
    for i in range(3):
        for k in range(len(SHAPES)):
            moved = initial[k][i] - own[i][k]
            assert moved.abs().max() > 0  # every member moved
            torch.testing.assert_close(stacked.params[k][i], own[i][k], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    ("form", "recipe"),
    [
        (
            StackedAdam,
            Recipe(
                optimizer="adamw",
                weight_decay=0.1,
                schedule="warmup-cosine",
                warmup=2,
                clip=0.5,
                steps=5,
            ),
        ),
        (
            StackedAdafactor,
            Recipe(
                optimizer="adafactor",
                weight_decay=0.1,
                schedule="warmup-cosine",
                warmup=2,
                clip=0.5,
                steps=5,
            ),
        ),
    ],
)
def test_the_graph_step_with_device_scalars_is_the_eager_one(form, recipe):
    """What a CUDA graph replays: the step's scalars read from tensors, not Python floats."""
    gen = torch.Generator().manual_seed(1)
    initial = start(2, gen)
    eager = form([p.clone() for p in initial], [1e-2, 1e-3], recipe)
    graphable = form([p.clone() for p in initial], [1e-2, 1e-3], recipe)
    for _ in range(5):
        grads = [torch.randn(p.shape, generator=gen) for p in initial]
        for opt in (eager, graphable):
            for p, g in zip(opt.params, grads, strict=True):
                p.grad = g.clone()
        eager.step()
        scalars = graphable.advance()
        assert all(t.device.type == "cpu" for t in scalars)
        graphable.update(*(t.clone() for t in scalars))
    for a, b in zip(eager.params, graphable.params, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-7)


def test_members_dropped_keep_their_own_statistics():
    """After keep(), the members left step on as they would have with the others beside."""
    recipe = Recipe(optimizer="adafactor", steps=6)
    gen = torch.Generator().manual_seed(2)
    lrs = [1e-2, 3e-3, 1e-3]
    initial = start(3, gen)
    grads_per_step = [[torch.randn(p.shape, generator=gen) for p in initial] for _ in range(6)]
    full = StackedAdafactor([p.clone() for p in initial], lrs, recipe)
    part = StackedAdafactor([p.clone() for p in initial], lrs, recipe)
    index = torch.tensor([0, 2])
    for step, grads in enumerate(grads_per_step, 1):
        if step == 4:
            part.keep(index, [p[index].clone() for p in part.params])
        for opt in (full, part):
            rows = index if (opt is part and step >= 4) else slice(None)
            for p, g in zip(opt.params, grads, strict=True):
                p.grad = g[rows].clone()
            opt.step()
    assert part.lrs == [1e-2, 1e-3]
    for a, b in zip(full.params, part.params, strict=True):
        torch.testing.assert_close(a[index], b, rtol=0, atol=0)


def test_clipping_scales_each_member_by_its_own_norm():
    gen = torch.Generator().manual_seed(3)
    grads = [torch.randn(2, 4, 3, generator=gen), torch.randn(2, 5, generator=gen)]
    grads[0][1] *= 1e-3  # member 1 below the clip: untouched
    grads[1][1] *= 1e-3
    before = [g.clone() for g in grads]
    clip_members(grads, 0.5)
    norm0 = torch.cat([g[0].flatten() for g in grads]).norm()
    torch.testing.assert_close(norm0, torch.tensor(0.5), rtol=1e-5, atol=0)
    assert all(torch.equal(g[1], b[1]) for g, b in zip(grads, before, strict=True))


def test_the_recipe_picks_the_stacked_optimiser():
    params, lrs = [torch.zeros(2, 3)], [1e-3, 1e-3]
    assert isinstance(
        stacked_optimiser(params, lrs, Recipe(optimizer="adafactor")), StackedAdafactor
    )
    assert isinstance(stacked_optimiser(params, lrs, Recipe(optimizer="adamw")), StackedAdam)
    with pytest.raises(ValueError, match="Adafactor"):
        StackedAdafactor(params, [1e-3, 1e-3], Recipe(optimizer="adam"))
    with pytest.raises(ValueError, match="Adam and AdamW"):
        StackedAdam(params, [1e-3, 1e-3], Recipe(optimizer="adafactor"))
