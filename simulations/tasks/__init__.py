"""Seeded torch data generators for the experiments, one module per paper.

:mod:`~simulations.tasks.base` holds the :class:`Task` interface; each paper module
(``separations``, ``kg``, ...; the looped paper's i-GSM in ``igsm``) defines its tasks and a
``BUILDERS`` dict, name -> builder(name, max_length, options), merged here. Labels are computed
in torch from the construction; the tests check them against the exact oracles of
``ccomplexity.languages``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ccomplexity import limits
from ccomplexity.errors import InputError
from simulations.tasks import igsm, kg, looped, parrots, separations
from simulations.tasks.base import Batch, Task

BUILDERS = {
    **separations.BUILDERS,
    **parrots.BUILDERS,
    **looped.BUILDERS,
    **igsm.BUILDERS,
    **kg.BUILDERS,
}
TASKS: tuple[str, ...] = tuple(BUILDERS)


def get_task(name: str, max_length: int, **options: Any) -> Task:
    """The task ``name`` for lengths up to ``max_length``; InputError for unknown names/options
    (each paper module's ``BUILDERS`` documents its options)."""
    if name not in BUILDERS:
        raise InputError(f"unknown task {name!r}; known: {', '.join(TASKS)}")
    n = limits.LENGTH.check(max_length, "max_length")
    task = BUILDERS[name](name, n, options)
    task.check_length(n)
    return task


def default_length(name: str, **options: Any) -> int:
    """The length of task ``name`` when none is given; InputError for tasks without one."""
    if name not in BUILDERS:
        raise InputError(f"unknown task {name!r}; known: {', '.join(TASKS)}")
    if name not in igsm.DEFAULT_LENGTHS:
        raise InputError(f"task {name!r} needs --length")
    return igsm.DEFAULT_LENGTHS[name](options)


def describe_task(task: Task) -> dict[str, Any]:
    """The task's fields as plain values (for reports)."""
    return dataclasses.asdict(task)


__all__ = ["BUILDERS", "TASKS", "Batch", "Task", "default_length", "describe_task", "get_task"]
