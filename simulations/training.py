"""Training one model on one task, as in the experimental protocol of Sec. 6 and App. H.

App. H (spec section 4.1): Adam (or the recipe a config names, :mod:`simulations.recipes`),
cross-entropy, a fresh batch of 64 examples every step, evaluation on fresh examples at exactly
length N, early stop once validation accuracy is (almost) perfect. Every run ends with a verdict
(:mod:`simulations.verdicts`): reached, plateaued or undecided. Accuracy is sequence-level: an
example counts only if every masked position is right.

Determinism: the model is initialised on the CPU from ``torch.manual_seed(seed)``; training data
come from ``torch.Generator().manual_seed(seed)`` and evaluation data from a second generator
seeded from ``seed`` as well, so a run on the CPU is repeatable bit for bit (with
``torch.use_deterministic_algorithms`` switched on for its duration). On CUDA the data are the
same but kernels may differ in the last bits.

A run with a checkpoint folder saves its model there as ``{config_hash}.pt``
(:mod:`simulations.checkpoints`).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch
from torch.nn import functional as F

from ccomplexity import bounds, limits
from ccomplexity.errors import InputError
from ccomplexity.files import check_output_folder
from models.base import SequenceModel
from models.looped import block_cosine, block_cosine_penalty, layer_similarity
from simulations.environment import run_environment
from simulations.pricing import check_training
from simulations.recipes import Recipe, make_optimizer, set_lr
from simulations.run_config import EVAL_BATCH, EVAL_SEED_OFFSET, TrainConfig
from simulations.tasks import Task
from simulations.verdicts import judge

# --- models -------------------------------------------------------------------------------------


def build_model(config: TrainConfig) -> tuple[SequenceModel, Task]:
    """A freshly initialised model (from ``torch.manual_seed(config.seed)``) and its task."""
    task = config.make_task()
    torch.manual_seed(config.seed)
    return config.build_model(), task


def resolve_device(device: str) -> torch.device:
    """ "auto" is CUDA when present, else the CPU; otherwise a torch device name."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        out = torch.device(device)
    except (RuntimeError, TypeError):
        raise InputError(f"unknown device {device!r}; use auto, cpu or cuda") from None
    if out.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r} requested but CUDA is not available")
    if out.type not in ("cpu", "cuda"):
        raise InputError(f"unsupported device {device!r}; use auto, cpu or cuda")
    return out


# --- training -----------------------------------------------------------------------------------


def masked_loss(logits: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the counted positions."""
    return F.cross_entropy(logits[mask], targets[mask])


@torch.no_grad()
def evaluate(
    model: SequenceModel,
    task: Task,
    length: int,
    samples: int,
    generator: torch.Generator,
    device: torch.device,
) -> float:
    """Sequence-level accuracy on ``samples`` fresh examples of exactly ``length``, or on the
    whole training set of a task that has a fixed one (``samples`` is then ignored)."""
    was_training = model.training
    model.eval()
    fixed = task.training_set(length)
    total = samples if fixed is None else len(fixed[0])
    correct = 0
    done = 0
    while done < total:
        size = min(EVAL_BATCH, total - done)
        if fixed is None:
            tokens, targets, mask = task.sample(size, length, generator, train=False)
        else:
            tokens, targets, mask = (t[done : done + size] for t in fixed)
        tokens, targets, mask = tokens.to(device), targets.to(device), mask.to(device)
        right = (model(tokens).argmax(-1) == targets) | ~mask
        correct += int(right.all(dim=1).sum())
        done += size
    model.train(was_training)
    return correct / total


def train(
    config: TrainConfig,
    checkpoint_dir: str | Path | None = None,
    progress: bool = True,
    device: str = "auto",
    threads: int | None = None,
) -> dict:
    """Train ``config.model.arch`` on ``config.task.name`` (App. H protocol) and report the run.

    Every step draws a fresh training batch; every ``eval_every`` steps and after the last step
    the model is evaluated on ``eval_samples`` fresh examples of exactly length N, and training
    stops as soon as that accuracy reaches ``target``. With ``checkpoint_dir`` the final model is
    saved there as ``{config_hash}.pt`` (the folder is checked before training starts and made
    only when the model is saved). ``progress`` shows a rich progress bar on stderr.

    ``threads``: torch's CPU threads for the run (default: as set). CPU kernels split sums
    across threads, so the same config trained with another thread count can end in other
    weights (e.g. 16 of 18 tensors of a small transformer, by up to 4e-5 after 30 steps); the
    count used is reported as ``threads`` and stored with the run, and training again with that
    count reproduces the checkpoint bit for bit.
    """
    if not isinstance(config, TrainConfig):
        raise InputError(f"train needs a TrainConfig, got {type(config).__name__}")
    dev = resolve_device(device)
    if threads is not None:
        limits.THREADS.check(threads, "threads")
    if checkpoint_dir is not None:
        check_output_folder(checkpoint_dir, "checkpoint folder")
    check_training([config], str(dev), checkpoint_dir)  # its memory and time, before any step
    with deterministic_on(dev, threads):
        return _train(config, checkpoint_dir, progress, dev)


@contextlib.contextmanager
def deterministic_on(dev: torch.device, threads: int | None = None) -> Iterator[None]:
    """``torch.use_deterministic_algorithms`` on the CPU, full float32 in cuDNN on a GPU (no
    TF32, which torch allows there by default: an LSTM's or a convolution's logits would differ
    from the CPU's by ~1e-4), and ``threads`` torch CPU threads (None: as set) for the duration;
    all as they were after."""
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    before = torch.get_num_threads()
    cudnn_tf32 = torch.backends.cudnn.allow_tf32
    if dev.type == "cpu":
        torch.use_deterministic_algorithms(True, warn_only=True)
    else:
        torch.backends.cudnn.allow_tf32 = False
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.backends.cudnn.allow_tf32 = cudnn_tf32
        torch.set_num_threads(before)


def _train(
    config: TrainConfig, checkpoint_dir: str | Path | None, progress: bool, dev: torch.device
) -> dict:
    start = time.perf_counter()
    recipe, evaluation, length = config.recipe, config.evaluation, config.task.length
    model, task = build_model(config)
    model.to(dev).train()
    optimiser = make_optimizer(recipe.optimizer, model.parameters(), recipe.lr, recipe.weight_decay)
    data = torch.Generator().manual_seed(config.seed)
    held_out = torch.Generator().manual_seed(config.seed + EVAL_SEED_OFFSET)
    curve: list[list[float]] = []
    accuracy = best = 0.0
    step = 0
    with _ProgressBar(config, enabled=progress) as bar:
        for step in range(1, recipe.steps + 1):
            batch = [t.to(dev) for t in task.sample(recipe.batch, length, data, train=True)]
            loss = training_loss(model, recipe, *batch)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            if recipe.clip > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), recipe.clip)
            set_lr(optimiser, recipe.lr * recipe.factor(step))
            optimiser.step()
            evaluated = step % evaluation.eval_every == 0 or step == recipe.steps
            if evaluated:
                accuracy = evaluate(model, task, length, evaluation.eval_samples, held_out, dev)
                best = max(best, accuracy)
                curve.append([step, accuracy])
            if progress and (evaluated or step % 10 == 0):  # .item() syncs a GPU: not every step
                bar.update(step, loss.item(), accuracy if curve else None)
            if evaluated and accuracy >= evaluation.target:
                break
    model.eval()
    extra = extra_results(model, config, task, held_out, dev, curve[-1][1])
    return run_result(model, config, curve, best, step, start, checkpoint_dir, dev, extra)


def training_loss(
    model: SequenceModel,
    recipe: Recipe,
    tokens: torch.Tensor,
    targets: torch.Tensor,
    mask: torch.Tensor,
) -> torch.Tensor:
    """The loss one step minimises: the task's cross-entropy, the mixture-of-experts load
    balancing when asked for, and the recipe's block-cosine regulariser when it has one."""
    loss = masked_loss(model(tokens), targets, mask)
    aux = model.aux_loss()
    if aux is not None:
        loss = loss + aux
    if recipe.reg_lambda is not None:
        loss = loss + recipe.reg_lambda * block_cosine_penalty(model, recipe.reg_block)
    return loss


def run_result(
    model: SequenceModel,
    config: TrainConfig,
    curve: list[list[float]],
    best: float,
    steps: int,
    start: float,
    checkpoint_dir: str | Path | None,
    dev: torch.device,
    extra: dict[str, Any] | None = None,
) -> dict:
    """The report of a finished run (its last evaluation is ``curve[-1]``; ``extra``: what
    some runs report beyond the rest), after saving its model into ``checkpoint_dir`` when one
    is given."""
    model.eval()
    checkpoint = None
    if checkpoint_dir is not None:
        from simulations.checkpoints import save_checkpoint

        checkpoint = str(save_checkpoint(model, config, checkpoint_dir))
    extra = dict(extra or {})
    evaluated = extra.pop("evaluated", config.evaluation.eval_samples)
    return {
        **extra,
        **held_bits(model, config),
        "accuracy": curve[-1][1],
        "best_accuracy": best,
        **judge(config.to_dict(), curve, curve[-1][1], evaluated, best, extra.get("chance")),
        "evaluated": evaluated,
        "lr_final": config.recipe.lr * config.recipe.factor(steps),
        "steps": steps,
        "wall_seconds": time.perf_counter() - start,
        "checkpoint": checkpoint,
        "curve": curve,
        "parameters": model.param_count(),
        "active_parameters": model.active_param_count(),
        "state_numel": model.state_numel(),
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
        "device": str(dev),
        "threads": torch.get_num_threads(),
        "environment": run_environment(config.task.name, config.model.arch, dev),
    }


def held_bits(model: SequenceModel, config: TrainConfig) -> dict[str, Any]:
    """For a run trained at p bits: its grid (``precision`` p, ``frac``) and the bits its
    protocol sends at its N: a recurrent model's state, m p (``state_bits``, Thm 2), a one-layer
    attention model's two-way Thm 4 protocol (``protocol_bits``,
    :func:`ccomplexity.bounds.thm4_held_bits`); nothing for a float run."""
    grid = config.model.grid()
    if grid is None:
        return {}
    out: dict[str, Any] = {"precision": grid.bits, "frac": grid.frac}
    if model.recurrent:
        out["state_bits"] = out["protocol_bits"] = model.state_bits(grid.bits)
    elif config.model.arch == "transformer" and config.model.layers == 1:
        cfg = model.config
        out["protocol_bits"] = bounds.thm4_held_bits(
            cfg.width // cfg.heads,
            cfg.heads,
            grid.bits,
            config.task.length,
            alphabet=cfg.vocab_size,
        )["total"]
    return out


def extra_results(
    model: SequenceModel,
    config: TrainConfig,
    task: Task,
    held_out: torch.Generator,
    dev: torch.device,
    accuracy: float,
) -> dict[str, Any]:
    """How many examples each evaluation measured (``evaluated``: the training set of a task
    that has a fixed one), the task's chance level at N (``chance``, :func:`task_chance`), and
    what some runs report beyond the rest: the final accuracy at the task's further
    evaluation lengths (``accuracy_by_length``), the regulariser's R_G(k) per group
    (``block_cosine``) and, for a transformer of two or more layers, the cosine between every
    pair of its layers per parameter group (``layer_similarity``, the paper's Figs. 2-3)."""
    fixed = task.training_set(config.task.length)
    extra: dict[str, Any] = {
        "evaluated": config.evaluation.eval_samples if fixed is None else len(fixed[0]),
        "chance": task_chance(config, task),
    }
    lengths = task.eval_lengths(config.task.length)
    if lengths:
        by_length = {
            n: evaluate(model, task, n, config.evaluation.eval_samples, held_out, dev)
            for n in lengths
        }
        extra["accuracy_by_length"] = {**by_length, config.task.length: accuracy}
    if config.recipe.reg_block is not None:
        with torch.no_grad():
            cosines = block_cosine(model, config.recipe.reg_block)
        extra["block_cosine"] = {group: float(v) for group, v in cosines.items()}
    if config.model.arch == "transformer" and config.model.layers >= 2:
        extra["layer_similarity"] = layer_similarity(model)
    return extra


_CHANCES: dict[str, dict[str, Any]] = {}
"""Chance levels measured in this process, by task, options and length."""


def task_chance(config: TrainConfig, task: Task) -> dict[str, Any]:
    """The chance level of the run's task at its N (:meth:`simulations.tasks.Task.chance`),
    measured once per task, options and length in a process (a sweep trains many runs of one
    task: chance is the task's, not a run's)."""
    key = json.dumps([config.task.name, config.task.options(), config.task.length], sort_keys=True)
    if key not in _CHANCES:
        _CHANCES[key] = task.chance(config.task.length)
    return dict(_CHANCES[key])


class _ProgressBar:
    """A rich progress bar on stderr (stdout stays free for ``--json``); a no-op when disabled."""

    def __init__(self, config: TrainConfig, enabled: bool) -> None:
        self.enabled = enabled
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.progress = Progress(
            TextColumn(f"{config.model.arch} on {config.task.name} N={config.task.length}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=Console(stderr=True),
        )
        self.task_id = self.progress.add_task("train", total=config.recipe.steps, status="")

    def __enter__(self) -> _ProgressBar:
        if self.enabled:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.progress.stop()

    def update(self, step: int, loss: float, accuracy: float | None) -> None:
        if not self.enabled:
            return
        status = f"loss {loss:.3f}" + ("" if accuracy is None else f"  acc {accuracy:.3f}")
        self.progress.update(self.task_id, completed=step, status=status)
