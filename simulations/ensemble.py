"""Ensembles: many small models of one shape trained together, each exactly as if alone.

ARCHITECTURE.md, "Ensembles". Sweep cells whose training configs differ only in ``lr``, ``seed`` and
``target`` (:func:`simulations.units.shape_key`, which also plans the units) train in one process
as one batched model (:mod:`simulations.stacks`: stacked parameters, one batched forward per
architecture, a checked fallback). Each member follows
the App. H protocol of :func:`simulations.training.train` on its own: weights initialised from
``torch.manual_seed(seed)``, its own training and evaluation generators (so the same batches as a
single run), its own learning rate (under the group's one recipe), its own evaluations and early
stop, its own checkpoint and result dict. A member that stops leaves the batch at once (its rows
are dropped from every stacked tensor), so the others do not pay for it.

Equality with single runs (tested for every architecture): on the CPU each member's accuracy curve
and steps are its single run's, its weights equal to float tolerance (batched matmuls and
reductions may round differently in the last bit; :class:`simulations.stacked_optim.StackedAdam`
is torch's Adam bit for bit, ``StackedAdafactor`` torch's Adafactor to float rounding); the
fallback is exact.

On a GPU a step has no host synchronisation: the batch is copied from pinned memory into fixed
buffers and forward, backward and the optimiser's update replay as one CUDA graph
(:class:`StaticStep`; re-captured when members leave, eager if capture fails). Only evaluations
synchronise. The data stay generated on the CPU from each member's own generator, as in a single
run, so a run's data are the same on every device.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F

from ccomplexity import limits
from ccomplexity.errors import InputError
from ccomplexity.files import check_output_folder
from models.base import SequenceModel
from simulations.pricing import check_training
from simulations.stacks import LoopStack, Stack, batched_form, make_stack
from simulations.training import (
    EVAL_BATCH,
    EVAL_SEED_OFFSET,
    TrainConfig,
    build_model,
    deterministic_on,
    extra_results,
    resolve_device,
    run_result,
)
from simulations.units import MEMBER_FIELDS, shape_key, trains_alone

OnResult = Callable[[dict], None]


def member_losses(logits: Tensor, targets: Tensor, mask: Tensor) -> Tensor:
    """Each member's mean cross-entropy over its counted positions: logits (M, B, T, C),
    targets and mask (M, B, T) -> (M,). The gradient of each member's loss is that of
    :func:`simulations.training.masked_loss` on its own batch."""
    ce = F.cross_entropy(logits.flatten(0, 2), targets.flatten(), reduction="none")
    counted = mask.flatten(1)
    return (ce.view_as(counted) * counted).sum(1) / counted.sum(1)


@torch.no_grad()
def evaluate_members(
    stack: Stack,
    task: Any,
    config: TrainConfig,
    generators: list[torch.Generator],
    device: torch.device,
) -> list[float]:
    """Each member's sequence-level accuracy on ``eval_samples`` fresh examples of exactly
    length N from its own generator, or on the whole training set of a task that has a fixed one
    (the generators untouched then), in the chunks :func:`simulations.training.evaluate` uses."""
    stack.set_training(False)
    fixed = task.training_set(config.task.length)
    total = config.evaluation.eval_samples if fixed is None else len(fixed[0])
    correct = torch.zeros(len(generators), dtype=torch.long)
    done = 0
    while done < total:
        size = min(EVAL_BATCH, total - done)
        if fixed is None:
            tokens, targets, mask = _batches(task, config, size, generators, device, train=False)
        else:  # every member scores the same examples
            chunks = (t[done : done + size].to(device) for t in fixed)
            tokens, targets, mask = (c.expand(len(generators), *c.shape) for c in chunks)
        right = (stack.forward(tokens).argmax(-1) == targets) | ~mask  # (M, size, T)
        correct += right.all(dim=2).sum(dim=1).cpu()
        done += size
    stack.set_training(True)
    return [int(c) / total for c in correct]


GRAPH_WARMUP = 3
"""Eager steps (on a side stream) before a CUDA graph is captured, as torch's documentation asks."""


class StaticStep:
    """One training step of a stack (forward, member losses, backward, optimiser) reading fixed
    input buffers and the optimiser's step scalars kept on the device
    (:mod:`simulations.stacked_optim`): the body a CUDA graph captures once and replays every
    step.

    On the CPU (and for :class:`simulations.stacks.LoopStack`, whose torch optimisers keep Python
    step counts) it runs eagerly, with the optimiser's own step.
    """

    def __init__(self, stack: Stack, batch: Sequence[Tensor], device: torch.device) -> None:
        """``batch``: an example (tokens, targets, mask), each (M, B, ...): the buffers take
        their shapes and dtypes (token ids or, for memorisation, vectors; their targets)."""
        self.stack, self.device = stack, device
        self.tokens, self.targets, self.mask = (
            torch.zeros(t.shape, dtype=t.dtype, device=device) for t in batch
        )
        self.graphed = device.type == "cuda" and not isinstance(stack, LoopStack)
        self.eager_steps = 0
        self.graph: Any = None
        self.scalars: list[Tensor] = []  # the optimiser's step scalars, read by the graph

    def body(self) -> None:
        logits = self.stack.forward(self.tokens)
        member_losses(logits, self.targets, self.mask).sum().backward()
        if self.graphed:
            self.stack.optimiser.update(*self.scalars)
        else:
            self.stack.step()

    def run(self, tokens: Tensor, targets: Tensor, mask: Tensor) -> None:
        """One step on this batch (each (M, B, T), already on the device)."""
        for static, given in ((self.tokens, tokens), (self.targets, targets), (self.mask, mask)):
            static.copy_(given, non_blocking=True)
        if not self.graphed:
            self.stack.zero_grad()
            self.body()
            return
        scalars = self.stack.optimiser.advance()
        if not self.scalars:
            self.scalars = [torch.empty_like(t, device=self.device) for t in scalars]
        for buffer, value in zip(self.scalars, scalars, strict=True):
            buffer.copy_(value.pin_memory(), non_blocking=True)
        if self.graph is not None:
            self.graph.replay()
        elif self.eager_steps < GRAPH_WARMUP:
            self._warm_up()
        else:
            self._capture()

    def _warm_up(self) -> None:
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            self.stack.zero_grad()
            self.body()
        torch.cuda.current_stream(self.device).wait_stream(side)
        self.eager_steps += 1

    def _capture(self) -> None:
        self.stack.zero_grad()
        graph = torch.cuda.CUDAGraph()
        try:
            with torch.cuda.graph(graph):
                self.body()
        except Exception as exc:  # noqa: BLE001 - an op that cannot be captured: stay eager
            warnings.warn(
                f"CUDA graph capture failed ({type(exc).__name__}); this ensemble steps eagerly",
                RuntimeWarning,
                stacklevel=2,
            )
            torch.cuda.synchronize(self.device)
            self.eager_steps = -(10**9)  # never try again for these shapes
            self.stack.zero_grad()
            self.body()
            return
        self.graph = graph
        graph.replay()


def _batches(
    task: Any,
    config: TrainConfig,
    size: int,
    generators: list[torch.Generator],
    device: torch.device,
    train: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """One batch per member from its own generator, stacked: each (M, size, T) on ``device``."""
    parts = [task.sample(size, config.task.length, g, train=train) for g in generators]
    stacked = (torch.stack(t) for t in zip(*parts, strict=True))
    if device.type == "cuda":  # pinned: the copy does not wait for the host
        return tuple(t.pin_memory().to(device, non_blocking=True) for t in stacked)
    return tuple(stacked)


# --- training -----------------------------------------------------------------------------------


def train_ensemble(
    configs: Sequence[TrainConfig],
    checkpoint_dir: str | Path | None = None,
    device: str = "auto",
    on_result: OnResult | None = None,
) -> list[dict]:
    """Train ``configs`` (one shape, :func:`simulations.units.shape_key`) together; one result
    per member, in order.

    Each result is the dict :func:`simulations.training.train` returns for that config (same keys,
    plus ``ensemble``: the group size, the batched form used and the members' config hashes in
    order, so that the run can be trained again in the same form); ``wall_seconds`` is the time
    from the group's start to the member's stop. ``on_result`` is called with each result as soon
    as its member stops, so that a caller can store it before the others finish.
    """
    configs = list(configs)
    if not configs or not all(isinstance(c, TrainConfig) for c in configs):
        raise InputError("train_ensemble needs a non-empty list of TrainConfig")
    if len({shape_key(c) for c in configs}) != 1:
        raise InputError(f"an ensemble's configs may differ only in {', '.join(MEMBER_FIELDS)}")
    if len(configs) > 1 and any(trains_alone(c) for c in configs):
        raise InputError(
            "a run with a regulariser or balance loss trains alone, not in an ensemble"
        )
    if len({c.config_hash() for c in configs}) != len(configs):
        raise InputError("an ensemble lists the same config twice")
    limits.check_numbers(
        len(configs) * configs[0].activations(), f"an ensemble of {len(configs)} members"
    )
    dev = resolve_device(device)
    if checkpoint_dir is not None:
        check_output_folder(checkpoint_dir, "checkpoint folder")
    check_training(configs, str(dev), checkpoint_dir)  # its memory and time, before any step
    with deterministic_on(dev):
        return _train_ensemble(configs, checkpoint_dir, dev, on_result)


def _train_ensemble(
    configs: list[TrainConfig],
    checkpoint_dir: str | Path | None,
    dev: torch.device,
    on_result: OnResult | None,
) -> list[dict]:
    start = time.perf_counter()
    built = [build_model(c) for c in configs]
    members = [model for model, _ in built]
    task, first = built[0][1], configs[0]
    data = [torch.Generator().manual_seed(c.seed) for c in configs]
    held_out = [torch.Generator().manual_seed(c.seed + EVAL_SEED_OFFSET) for c in configs]
    batch = _batches(task, first, first.recipe.batch, data, dev, train=True)
    form = batched_form(first, dev)
    lrs = [c.recipe.lr for c in configs]
    stack = make_stack(form, members, lrs, dev, batch[0], first.recipe)
    stack.set_training(True)
    clock = Clock(setup_seconds=time.perf_counter() - start)
    active = list(range(len(configs)))  # members still training, in stack order
    curves: list[list[list[float]]] = [[] for _ in configs]
    best = [0.0] * len(configs)
    results: list[dict | None] = [None] * len(configs)
    static: StaticStep | None = None
    for step in range(1, first.recipe.steps + 1):
        if step > 1:
            batch = _batches(task, first, first.recipe.batch, [data[i] for i in active], dev, True)
        if static is None:
            static = StaticStep(stack, batch, dev)
            clock.graphs += static.graphed
        static.run(*batch)
        clock.member_steps += len(active)
        if step % first.evaluation.eval_every and step != first.recipe.steps:
            continue
        with clock.timing("eval_seconds", dev):
            accuracies = evaluate_members(stack, task, first, [held_out[i] for i in active], dev)
        staying = []
        for j, (i, accuracy) in enumerate(zip(active, accuracies, strict=True)):
            best[i] = max(best[i], accuracy)
            curves[i].append([step, accuracy])
            if accuracy < configs[i].evaluation.target and step < first.recipe.steps:
                staying.append(j)
                continue
            with clock.timing("result_seconds", dev):
                results[i] = _member_result(
                    configs[i],
                    members[i],
                    stack,
                    j,
                    step,
                    curves[i],
                    best[i],
                    start,
                    checkpoint_dir,
                    dev,
                    [c.config_hash() for c in configs],
                    (task, held_out[i]),
                )
            results[i]["ensemble"]["timing"] = clock.snapshot(start, step)
            if on_result is not None:
                on_result(results[i])
        if len(staying) < len(active):
            active = [active[j] for j in staying]
            if not active:
                break
            stack.keep(torch.tensor(staying, dtype=torch.long))
            static = None  # new shapes: new buffers, a new graph
    return [r for r in results if r is not None]


@dataclasses.dataclass
class Clock:
    """Where an ensemble's wall time went, up to a member's stop (``ensemble.timing`` of its
    result): set-up (models, batched form and its check), evaluations and the stopped members'
    results (each timed between device synchronisations), the training steps (the rest);
    ``member_steps`` over ``members * steps`` is how full the ensemble stayed, ``graphs`` the
    CUDA graphs captured (one per set of members)."""

    setup_seconds: float
    eval_seconds: float = 0.0
    result_seconds: float = 0.0
    member_steps: int = 0
    graphs: int = 0

    @contextlib.contextmanager
    def timing(self, name: str, device: torch.device) -> Iterator[None]:
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        begin = time.perf_counter()
        try:
            yield
        finally:
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            setattr(self, name, getattr(self, name) + time.perf_counter() - begin)

    def snapshot(self, start: float, steps: int) -> dict[str, float | int]:
        spent = dataclasses.asdict(self)
        rest = time.perf_counter() - start - self.setup_seconds - self.eval_seconds
        spent["train_seconds"] = rest - self.result_seconds
        spent["steps"] = steps
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in spent.items()}


def _member_result(
    config: TrainConfig,
    model: SequenceModel,
    stack: Stack,
    position: int,
    step: int,
    curve: list[list[float]],
    best: float,
    start: float,
    checkpoint_dir: str | Path | None,
    dev: torch.device,
    group: list[str],
    evaluation: tuple[Any, torch.Generator],
) -> dict:
    """The result of a member that stops now (its weights: row ``position`` of the stack; the
    ensemble's member config hashes, in order, are ``group``), with
    what a single run reports beyond the curve (:func:`simulations.training.extra_results`,
    evaluated on the member's own held-out generator, as a single run does)."""
    state = model.state_dict()
    state.update(stack.member_state(position))
    model.load_state_dict(state)
    model = model.cpu().eval()
    task, held_out = evaluation
    extra = extra_results(model, config, task, held_out, torch.device("cpu"), curve[-1][1])
    result = run_result(model, config, curve, best, step, start, checkpoint_dir, dev, extra)
    ensemble = {"members": len(group), "strategy": stack.strategy, "configs": group}
    return {**result, "ensemble": ensemble}
