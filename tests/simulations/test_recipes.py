"""The recipes: schedules' factors, the checks, the config hash they leave alone."""

from __future__ import annotations

import math

import pytest

from ccomplexity.errors import InputError
from simulations.recipes import RECIPE_DEFAULTS, Recipe, lr_factor
from simulations.training import TrainConfig, train

BASE = {"task": "dyck", "arch": "lstm", "width": 8, "layers": 1, "length": 8}


def test_warm_up_is_linear_from_the_first_step_to_the_rate():
    assert [lr_factor("constant", 4, 10, t) for t in range(1, 6)] == [0.25, 0.5, 0.75, 1.0, 1.0]


@pytest.mark.parametrize("schedule", ["warmup-cosine", "warmup-linear"])
def test_decay_starts_at_the_rate_and_ends_small_and_positive(schedule):
    factors = [lr_factor(schedule, 3, 13, t) for t in range(1, 14)]
    assert factors[3] == 1.0  # the first step after the warm-up
    assert all(a > b for a, b in zip(factors[3:], factors[4:], strict=False))
    assert 0 < factors[-1] < 0.1
    expected = 0.5 * (1 + math.cos(math.pi * 9 / 10)) if schedule == "warmup-cosine" else 0.1
    assert factors[-1] == pytest.approx(expected)


def test_recipe_reads_a_config():
    config = TrainConfig.of(
        **BASE,
        steps=50,
        optimizer="adamw",
        weight_decay=0.1,
        clip=1.0,
        schedule="warmup-linear",
        warmup=5,
    )
    assert config.recipe == Recipe(
        steps=50, optimizer="adamw", weight_decay=0.1, schedule="warmup-linear", warmup=5, clip=1.0
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"optimizer": "sgd"}, "optimizer must be one of"),
        ({"schedule": "step"}, "schedule must be one of"),
        ({"warmup": 50}, "warmup must be 0 .. steps - 1"),
        ({"weight_decay": 2.0}, "weight_decay must be a finite number in"),
        ({"clip": -1.0}, "clip must be"),
    ],
)
def test_bad_recipes_are_refused_naming_the_field(change, message):
    recipe = {"optimizer": "adam", "weight_decay": 0.0, "schedule": "constant", "warmup": 0,
              "clip": 0.0, "steps": 50, **change}  # fmt: skip
    with pytest.raises(InputError, match=message):
        Recipe(**recipe)
    fields = {k: v for k, v in recipe.items() if k != "steps"}
    with pytest.raises(InputError, match=message):
        TrainConfig.of(**BASE, steps=50, **fields)


def test_the_default_recipe_keeps_the_hash_and_another_changes_it():
    plain = TrainConfig.of(**BASE)
    assert plain.config_hash() == TrainConfig.of(**BASE, optimizer="adam", clip=0.0).config_hash()
    assert plain.config_hash() != TrainConfig.of(**BASE, optimizer="adamw").config_hash()
    assert {"optimizer", "weight_decay", "schedule", "warmup", "clip"} <= set(plain.to_dict())
    stored = {k: v for k, v in plain.to_dict().items() if k not in RECIPE_DEFAULTS}
    assert TrainConfig.from_dict(stored) == plain  # configs stored before recipes existed


def test_a_run_reports_its_last_rate_and_is_repeatable():
    config = TrainConfig.of(
        **BASE,
        steps=20,
        eval_every=10,
        eval_samples=50,
        optimizer="adafactor",
        schedule="warmup-cosine",
        warmup=4,
        clip=1.0,
        lr=0.005,
    )
    first = train(config, progress=False, device="cpu")
    assert first["lr_final"] == pytest.approx(0.005 * lr_factor("warmup-cosine", 4, 20, 20))
    again = train(config, progress=False, device="cpu")
    assert first["curve"] == again["curve"]
