"""A sweep's progress lines: one per finished run, naming what tells the runs apart.

Each line names the run by the fields every line names (:data:`LABEL_FIELDS`) and the others in
which the sweep's runs differ (:func:`varying_fields`), then its outcome, the time since the
sweep started and the time left at the pace of the runs finished so far, counted in token-steps
(:func:`token_steps`: a sweep trains its costliest runs first, so a pace per run would promise
hours for a sweep of minutes):
``[3/8] dyck lstm width=16 layers=1 N=4 lr=0.01 seed=0: best acc 1.000 (9s; about 12s left)``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

from simulations.run_config import FLAT

LABEL_FIELDS = ("task", "arch", "width", "layers", "length", "lr", "seed")
"""The fields every progress line names; :func:`varying_fields` adds the others that vary."""


def varying_fields(configs: Sequence[Any]) -> tuple[str, ...]:
    """The config fields besides :data:`LABEL_FIELDS` in which the runs ``configs`` differ, in
    the config's field order (e.g. ``loops`` and ``hops`` of a looped sweep)."""
    if not configs:
        return ()
    flats = [c.to_dict() for c in configs]
    names = [key for key in FLAT if key not in LABEL_FIELDS]
    return tuple(n for n in names if len({repr(f.get(n)) for f in flats}) > 1)


TASK_LABELS: dict[str, tuple[str, tuple[str, ...]]] = {"kg-path": ("q", ("entities", "relations"))}
"""Task -> (the letter its ``length`` is written with, the fields every line names): a kg-path
run's length is its number of hops q (``simulations.tasks.kg``), and its graph, E entities and R
relations, tells the rounds of a capacity search apart."""


def run_label(config: Any, fields: Sequence[str] = ()) -> str:
    """``task arch width= layers= N=``, then each of ``fields`` that the run sets, then
    ``lr= seed=``: ``p-hop looped width=32 layers=1 N=8 loops=2 hops=3 lr=0.003 seed=0`` (a task of
    :data:`TASK_LABELS` writes its length with its own letter and names its own fields)."""

    def shown(value: Any) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    letter, always = TASK_LABELS.get(config.task.name, ("N", ()))
    names = [*always, *(f for f in fields if f not in always)]
    flat = config.to_dict()
    extra = "".join(f" {name}={shown(flat[name])}" for name in names if flat.get(name) is not None)
    model = config.model
    return (
        f"{config.task.name} {model.arch} width={model.width} layers={model.layers} "
        f"{letter}={config.task.length}{extra} lr={config.recipe.lr:g} seed={config.seed}"
    )


def token_steps(config: Any) -> int:
    """The work of one run as the pace of a sweep counts it: its steps times its length."""
    return config.recipe.steps * max(1, config.task.length)


class ProgressLines:
    """One line per finished run on stderr when ``progress`` is on, naming every field in which
    the sweep's runs differ, with the time since the sweep started and the time left at the pace
    (seconds per token-step) of the runs finished so far. ``pending``: the configs still to
    train (the rest are in the store already); the work left is theirs, counted one by one, so a
    sweep resumed after its costliest runs does not price the rest as the grid's mean."""

    def __init__(self, configs: Sequence[Any], pending: Sequence[Any], enabled: bool) -> None:
        skipped = len(configs) - len(pending)
        self.total, self.done, self.skipped, self.enabled = len(configs), skipped, skipped, enabled
        self.fields = varying_fields(configs)
        self.start = time.perf_counter()
        self.work_left = float(sum(token_steps(c) for c in pending))
        self.work_done = 0.0

    def __call__(self, config: Any, result: dict | None, error: str | None = None) -> None:
        self.done += 1
        if not self.enabled:
            return
        outcome = error or f"best acc {result['best_accuracy']:.3f}"  # type: ignore[index]
        elapsed = time.perf_counter() - self.start
        weight = token_steps(config)
        self.work_done += weight  # finished in this sweep: the pace of the rest
        self.work_left = max(0.0, self.work_left - weight)
        left = elapsed / self.work_done * self.work_left
        print(
            f"[{self.done}/{self.total}] {run_label(config, self.fields)}: "
            f"{outcome} ({elapsed:.0f}s; about {left:.0f}s left)",
            file=sys.stderr,
            flush=True,
        )


__all__ = [
    "LABEL_FIELDS",
    "TASK_LABELS",
    "ProgressLines",
    "run_label",
    "token_steps",
    "varying_fields",
]
