"""What a training run costs, priced before its first forward pass (``ccx train``, each unit of a
sweep, ``ccx rerun`` of a stored config): the estimates of :func:`ccomplexity.budget.training`
from the run's config, its task's token length and its model's size, checked against the memory
budget (a GPU's memory on a GPU) and the training budget.

A stored config is data like a spec: its steps, lengths and batch are in range one by one and
still may ask for days of training or for an attention matrix that no memory holds; this is
where their product is priced, before the run allocates anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import models
from ccomplexity import budget
from ccomplexity.files import check_folder_files
from simulations.run_config import EVAL_BATCH, TrainConfig


def cost(configs: Sequence[TrainConfig], device: str = "cpu") -> tuple[int, float]:
    """(bytes, seconds) of training ``configs`` (one run, or an ensemble of one shape) on
    ``device`` (``"cpu"`` or ``"cuda"``): :func:`ccomplexity.budget.training`."""
    config = configs[0]
    task, model, evaluation = config.make_task(), config.model, config.evaluation
    steps = max(c.recipe.steps for c in configs)
    heads = getattr(config.model_config, "heads", 0)  # a model with heads scores position pairs
    chunks = math.ceil(evaluation.eval_samples / config.recipe.batch)
    return budget.training(
        steps=steps,
        batch=config.recipe.batch,
        tokens=task.max_tokens,
        width=model.width,
        layers=model.layers * (model.loops or 1),
        heads=heads,
        classes=task.n_out,
        parameters=models.check_size(model.arch, config.model_config),
        pairs=heads > 0,
        eval_rows=min(EVAL_BATCH, evaluation.eval_samples),
        evaluations=(steps // evaluation.eval_every + 1) * chunks,
        members=len(configs),
        device=device,
    )


def describe(configs: Sequence[TrainConfig]) -> str:
    """The run (or ensemble) in a few words, for a refusal."""
    c, model = configs[0], configs[0].model
    what = f"training {model.arch} (width {model.width}, {model.layers} layer(s)) on "
    what += f"{c.task.name} at N = {c.task.length}, batch {c.recipe.batch}, "
    what += f"{max(x.recipe.steps for x in configs)} steps"
    return what + (f", an ensemble of {len(configs)}" if len(configs) > 1 else "")


def check_training(
    configs: Sequence[TrainConfig], device: str, checkpoint_dir: str | Path | None = None
) -> None:
    """Before ``configs`` (one run, or an ensemble) train on ``device``: the checkpoint files
    they will write are not in the way of a link or an input (:mod:`ccomplexity.files`), and
    their memory and time are within the budgets (one line naming both otherwise)."""
    if checkpoint_dir is not None:
        names = [f"{c.config_hash()}.pt" for c in configs]
        check_folder_files(checkpoint_dir, names, "checkpoint")
    memory, seconds = cost(configs, device)
    limit = None
    if device.startswith("cuda"):
        import torch

        limit = torch.cuda.get_device_properties(torch.device(device)).total_memory
    budget.check_training(describe(configs), memory, seconds, limit)


__all__ = ["check_training", "cost", "describe"]
