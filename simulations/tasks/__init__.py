"""Seeded torch data generators for the experiments, one module per paper.

:mod:`~simulations.tasks.base` holds the :class:`Task` interface; each paper module
(``separations``, ``kg``, ...; the looped paper's i-GSM in ``igsm``) defines its tasks and a
``BUILDERS`` dict, name -> builder(name, max_length, options), merged here. Labels are computed
in torch from the construction; the tests check them against the exact oracles of
``ccomplexity.languages``. A task no paper module defines may come from a loaded plugin
(:mod:`ccomplexity.plugins`): its torch side is :mod:`~simulations.tasks.plugin`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ccomplexity import limits, plugins
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
plugins.declare("task", TASKS)


def check_task(name: str) -> str:
    """``name`` if it is a built-in task or one a loaded plugin defines
    (:mod:`ccomplexity.plugins`); else InputError naming it."""
    if name in BUILDERS:
        return name
    if plugins.task_definition(name) is None:
        raise InputError(plugins.not_loaded("task", name, [*TASKS, *plugins.task_names()]))
    return name


def get_task(name: str, max_length: int, **options: Any) -> Task:
    """The task ``name`` for lengths up to ``max_length``; InputError for unknown names/options
    (each paper module's ``BUILDERS`` documents its options). A plugin task has no options."""
    check_task(name)
    return build_task(name, limits.LENGTH.check(max_length, "max_length"), options)


def build_task(name: str, n: int, options: dict[str, Any]) -> Task:
    """:func:`get_task` for a name and a length its caller checked (a run's
    :class:`simulations.run_config.TaskSpec`)."""
    if name not in BUILDERS:
        if options:
            raise InputError(f"plugin task {name!r} takes no options, got {', '.join(options)}")
        from simulations.tasks.plugin import plugin_task

        return plugin_task(plugins.require_task(name), n)
    task = BUILDERS[name](name, n, options)
    task.check_length(n)
    return task


def default_length(name: str, **options: Any) -> int:
    """The length of task ``name`` when none is given; InputError for tasks without one."""
    check_task(name)
    if name not in igsm.DEFAULT_LENGTHS:
        raise InputError(f"task {name!r} needs --length")
    return igsm.DEFAULT_LENGTHS[name](options)


def describe_task(task: Task) -> dict[str, Any]:
    """The task's fields as plain values (for reports)."""
    return dataclasses.asdict(task)


__all__ = [
    "BUILDERS",
    "TASKS",
    "Batch",
    "Task",
    "check_task",
    "build_task",
    "default_length",
    "describe_task",
    "get_task",
]
