"""Training one model on one task, as in the experimental protocol of Sec. 6 and App. H.

App. H (spec section 4.1): Adam, cross-entropy, a fresh batch of 64 examples every step,
evaluation on fresh examples at exactly length N, early stop once validation accuracy is (almost)
perfect. Accuracy is sequence-level: an example counts only if every masked position is right.

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
import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch.nn import functional as F

import models
from ccomplexity import limits, typed
from ccomplexity.errors import InputError, check_int
from ccomplexity.files import check_output_folder
from models.base import SequenceModel
from models.looped import block_cosine, block_cosine_penalty, layer_similarity
from simulations.tasks import TASKS, Task, get_task

EVAL_BATCH = 500
"""Evaluation examples per forward pass."""
EVAL_SEED_OFFSET = 0x5EED_0001
"""Evaluation data come from ``Generator().manual_seed(seed + EVAL_SEED_OFFSET)``."""
TASK_OPTIONS = (
    "hops", "alphabet", "group", "reverse", "digits", "entities", "relations", "graph_seed"
)  # fmt: skip
"""TrainConfig fields passed to the task's builder when set."""
OPTIONAL_FIELDS = ("loops", *TASK_OPTIONS, "reg_lambda", "reg_block")
"""TrainConfig fields left out of ``to_dict`` (and the hash) while None."""


def _model_fields(arch: str) -> set[str]:
    return {f.name for f in dataclasses.fields(models.config_class(models.model_class(arch)))}


@dataclass(frozen=True)
class TrainConfig:
    """One training run. ``length`` is the task's N (evaluation length, training maximum);
    ``heads`` applies to architectures with attention heads; ``target`` is the early-stopping
    accuracy; ``eval_samples`` fresh examples at exactly N every ``eval_every`` steps.

    The model options after ``eval_samples`` (:data:`MODEL_OPTIONS`: mixture-of-experts
    ``experts``, ``top_k``, ``gate`` and ``balance``, the feed-forward width ``mlp_width`` and
    its kind ``expert``, e.g. the GLU of the layer-looping paper)
    go to architectures that have them; at their defaults they are left out of the config hash,
    so runs stored before they existed keep their hash."""

    task: str
    arch: str
    width: int
    layers: int
    length: int
    steps: int = 1000
    lr: float = 1e-3
    seed: int = 0
    batch: int = 64
    heads: int = 4
    target: float = 0.99
    eval_every: int = 100
    eval_samples: int = 1000
    experts: int = 1
    top_k: int = 1
    gate: str = ""  # "": the architecture's default gate rule
    balance: float = 0.0
    mlp_width: int | None = None
    expert: str = ""  # "": the architecture's default feed-forward; "relu", "gelu" or "glu"
    # Settings of some architectures and tasks only. None means unused: such a field is then
    # left out of to_dict() and so of the config hash, and runs stored before it existed keep
    # their hashes.
    loops: int | None = None  # looped architectures: loops L of the block (default 1)
    hops: int | None = None  # task option: p of p-hop
    alphabet: int | None = None  # task option: |Sigma| of p-hop
    group: str | None = None  # task option: G of group-composition
    reverse: bool | None = None  # task option: addition's sum least significant digit first
    digits: int | None = None  # task option: addition's digits per operand (3)
    entities: int | None = None  # task option: E of kg-path
    relations: int | None = None  # task option: R of kg-path (the capacity search grows it)
    graph_seed: int | None = None  # task option: the seed of kg-path's graph
    reg_lambda: float | None = None  # transformer: lambda of the block-cosine regulariser (Eq. 5)
    reg_block: int | None = None  # its block size k (layers k i + j and k (i + 1) + j are pulled)

    def __post_init__(self) -> None:
        typed.check_fields(self)
        for name, limit in _LIMITS.items():
            if getattr(self, name) is not None:  # None: a setting this run does not use
                limit.check(getattr(self, name), f"TrainConfig.{name}")
        if self.task not in TASKS:
            raise InputError(f"unknown task {self.task!r}; known: {', '.join(TASKS)}")
        if self.arch not in models.REGISTRY:
            raise InputError(f"unknown model {self.arch!r}; known: {', '.join(models.REGISTRY)}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise InputError(f"TrainConfig.lr must be a positive number, got {self.lr}")
        if not 0 < self.target <= 1:
            raise InputError(f"TrainConfig.target must lie in (0, 1], got {self.target}")
        if self.mlp_width is not None:
            most, instead = limits.MODEL_FIELD.most, limits.MODEL_FIELD.instead
            check_int(self.mlp_width, "TrainConfig.mlp_width", 1, most, instead)
        if not (math.isfinite(self.balance) and self.balance >= 0):
            raise InputError(f"TrainConfig.balance must be >= 0, got {self.balance}")
        self._check_architecture_fields()
        # The model this run builds, and its largest activation, within their limits: checked
        # here, before a sweep touches its store or a model is allocated.
        self.activations()

    def activations(self) -> int:
        """Numbers in the largest activation of this run's forward passes (a training batch, or
        an evaluation chunk of up to ``EVAL_BATCH``: :func:`ccomplexity.limits.forward_numbers`,
        pairs of positions counted per head where the model has heads); InputError if the task
        cannot have this length, the model exceeds its size limit or the activation
        ``limits.FORWARD_NUMBERS``."""
        task = self.make_task()
        cfg = models.config_class(models.model_class(self.arch)).from_dict(model_config(self, task))
        models.check_size(self.arch, cfg)
        heads = getattr(cfg, "heads", 0)  # every model with heads scores pairs of positions
        rows = max(self.batch, min(EVAL_BATCH, self.eval_samples))
        depth = self.layers * (self.loops or 1)  # a looped block runs its layers once per loop
        numbers = limits.forward_numbers(rows, task.max_tokens, self.width, heads, depth)
        limits.check_numbers(numbers, f"a {self.arch} batch of {rows} x {task.max_tokens} tokens")
        return numbers

    def _check_architecture_fields(self) -> None:
        fields = _model_fields(self.arch)
        if "loops" in fields:
            object.__setattr__(self, "loops", 1 if self.loops is None else self.loops)
        elif self.loops is not None:
            raise InputError(f"loops applies to looped architectures, not {self.arch!r}")
        if (self.reg_lambda is None) != (self.reg_block is None):
            raise InputError("the block-cosine regulariser needs both reg_lambda and reg_block")
        if self.reg_block is not None:
            if self.arch != "transformer":
                raise InputError(
                    f"the block-cosine regulariser is for 'transformer', not {self.arch!r}"
                )
            if self.layers % self.reg_block or self.layers // self.reg_block < 2:
                raise InputError(
                    f"reg_block {self.reg_block} must split the {self.layers} layers into "
                    ">= 2 blocks"
                )

    def task_options(self) -> dict[str, Any]:
        """The task options this run sets (:data:`TASK_OPTIONS`)."""
        return {k: getattr(self, k) for k in TASK_OPTIONS if getattr(self, k) is not None}

    def make_task(self) -> Task:
        """The run's task at its length N with its options."""
        return get_task(self.task, self.length, **self.task_options())

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain values; unused optional fields (None) are left out."""
        values = dataclasses.asdict(self)
        return {k: v for k, v in values.items() if not (k in OPTIONAL_FIELDS and v is None)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        """From plain values; unknown or missing keys and wrong types raise InputError."""
        return typed.from_plain(cls, d)

    def config_hash(self) -> str:
        """First 16 hex digits of the sha256 of the canonical JSON of :meth:`to_dict`, less the
        model options at their defaults."""
        fields = {
            k: v
            for k, v in self.to_dict().items()
            if not (k in MODEL_OPTIONS and v == MODEL_OPTIONS[k])
        }
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


MODEL_OPTIONS: dict[str, Any] = {
    "experts": 1,
    "top_k": 1,
    "gate": "",
    "balance": 0.0,
    "mlp_width": None,
    "expert": "",
}
"""TrainConfig fields passed to the model config when not at these defaults."""

_LIMITS = {
    "width": limits.WIDTH,
    "layers": limits.LAYERS,
    "length": limits.LENGTH,
    "steps": limits.STEPS,
    "seed": limits.SEED,
    "batch": limits.BATCH,
    "heads": limits.HEADS,
    "eval_every": limits.STEPS,
    "eval_samples": limits.SAMPLES,
    "experts": limits.EXPERTS,
    "top_k": limits.EXPERTS,
    "loops": limits.LOOPS,
    "hops": limits.HOPS,
    "digits": limits.DIGITS,
    "alphabet": limits.ALPHABET,
    "entities": limits.ENTITIES,
    "relations": limits.RELATIONS,
    "graph_seed": limits.SEED,
    "reg_block": limits.LAYERS,
}
"""The limit of each integer field of :class:`TrainConfig`, shared with the ``ccx`` options."""

# --- models -------------------------------------------------------------------------------------


def model_config(config: TrainConfig, task: Task) -> dict[str, Any]:
    """The ``models.build`` arguments of a run: sizes from the config, vocabulary and classes
    from the task, ``heads`` where the architecture has heads and ``max_length`` (the task's
    longest token sequence) where it has learned positions."""
    fields = _model_fields(config.arch)
    out: dict[str, Any] = {
        "vocab_size": task.vocab_size,
        "n_out": task.n_out,
        "width": config.width,
        "layers": config.layers,
    }
    if "heads" in fields:
        out["heads"] = config.heads
    if "max_length" in fields:
        out["max_length"] = task.max_tokens
    for name, default in MODEL_OPTIONS.items():
        value = getattr(config, name)
        if value != default:
            if name not in fields:
                raise InputError(f"{config.arch} has no option {name} (got {value!r})")
            out[name] = value
    if task.input_dim() is not None:
        if "input_dim" not in fields:
            raise InputError(f"{config.task} has vector inputs; {config.arch} reads tokens")
        out["input_dim"] = task.input_dim()
    if "loops" in fields:
        out["loops"] = config.loops
    return out


def build_model(config: TrainConfig) -> tuple[SequenceModel, Task]:
    """A freshly initialised model (from ``torch.manual_seed(config.seed)``) and its task."""
    task = config.make_task()
    torch.manual_seed(config.seed)
    return models.build(config.arch, **model_config(config, task)), task


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
    """Train ``config.arch`` on ``config.task`` (App. H protocol) and report the run.

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
    with deterministic_on(dev, threads):
        return _train(config, checkpoint_dir, progress, dev)


@contextlib.contextmanager
def deterministic_on(dev: torch.device, threads: int | None = None) -> Iterator[None]:
    """``torch.use_deterministic_algorithms`` on the CPU and ``threads`` torch CPU threads
    (None: as set) for the duration; both as they were after."""
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    before = torch.get_num_threads()
    if dev.type == "cpu":
        torch.use_deterministic_algorithms(True, warn_only=True)
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.set_num_threads(before)


def _train(
    config: TrainConfig, checkpoint_dir: str | Path | None, progress: bool, dev: torch.device
) -> dict:
    start = time.perf_counter()
    model, task = build_model(config)
    model.to(dev).train()
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr)
    data = torch.Generator().manual_seed(config.seed)
    held_out = torch.Generator().manual_seed(config.seed + EVAL_SEED_OFFSET)
    curve: list[list[float]] = []
    accuracy = best = 0.0
    step = 0
    bar = _ProgressBar(config, enabled=progress)
    with bar:
        for step in range(1, config.steps + 1):
            tokens, targets, mask = task.sample(config.batch, config.length, data, train=True)
            tokens, targets, mask = tokens.to(dev), targets.to(dev), mask.to(dev)
            loss = masked_loss(model(tokens), targets, mask)
            aux = model.aux_loss()  # mixture-of-experts load balancing, when asked for
            if aux is not None:
                loss = loss + aux
            if config.reg_lambda is not None:
                loss = loss + config.reg_lambda * block_cosine_penalty(model, config.reg_block)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            evaluated = step % config.eval_every == 0 or step == config.steps
            if evaluated:
                accuracy = evaluate(model, task, config.length, config.eval_samples, held_out, dev)
                best = max(best, accuracy)
                curve.append([step, accuracy])
            if progress and (evaluated or step % 10 == 0):  # .item() syncs a GPU: not every step
                bar.update(step, loss.item(), accuracy if curve else None)
            if evaluated and accuracy >= config.target:
                break
    model.eval()
    extra = extra_results(model, config, task, held_out, dev, curve[-1][1])
    return run_result(model, config, curve, best, step, start, checkpoint_dir, dev, extra)


def run_result(
    model: SequenceModel, config: TrainConfig, curve: list[list[float]], best: float, steps: int,
    start: float, checkpoint_dir: str | Path | None, dev: torch.device,
    extra: dict[str, Any] | None = None,
) -> dict:  # fmt: skip
    """The report of a finished run (its last evaluation is ``curve[-1]``; ``extra``: what
    some runs report beyond the rest), after saving its model into ``checkpoint_dir`` when one
    is given."""
    model.eval()
    checkpoint = None
    if checkpoint_dir is not None:
        from simulations.checkpoints import save_checkpoint

        checkpoint = str(save_checkpoint(model, config, checkpoint_dir))
    return {
        **(extra or {}),
        "accuracy": curve[-1][1],
        "best_accuracy": best,
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
    }


def extra_results(
    model: SequenceModel,
    config: TrainConfig,
    task: Task,
    held_out: torch.Generator,
    dev: torch.device,
    accuracy: float,
) -> dict[str, Any]:
    """What some runs report beyond the rest: the final accuracy at the task's further
    evaluation lengths (``accuracy_by_length``), the regulariser's R_G(k) per group
    (``block_cosine``) and, for a transformer of two or more layers, the cosine between every
    pair of its layers per parameter group (``layer_similarity``, the paper's Figs. 2-3)."""
    extra: dict[str, Any] = {}
    lengths = task.eval_lengths(config.length)
    if lengths:
        by_length = {
            n: evaluate(model, task, n, config.eval_samples, held_out, dev) for n in lengths
        }
        extra["accuracy_by_length"] = {**by_length, config.length: accuracy}
    if config.reg_block is not None:
        with torch.no_grad():
            cosines = block_cosine(model, config.reg_block)
        extra["block_cosine"] = {group: float(v) for group, v in cosines.items()}
    if config.arch == "transformer" and config.layers >= 2:
        extra["layer_similarity"] = layer_similarity(model)
    return extra


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
            TextColumn(f"{config.arch} on {config.task} N={config.length}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=Console(stderr=True),
        )
        self.task_id = self.progress.add_task("train", total=config.steps, status="")

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
