"""Budgets that decide: undecided runs trained again with twice the steps, a bounded number of
times (``ccx sweep ... --extend-undecided K``).

After a sweep's grid has run, every run of it whose verdict is ``undecided`` (still improving when
its steps ran out, :mod:`simulations.verdicts`) is extended: its config with ``steps`` doubled is
trained and stored as a run of its own, and the extension replaces the run it extends wherever a
threshold, a capacity or a figure is read (:func:`simulations.verdicts.current`). Runs still
undecided are extended again, at most ``K`` rounds; every architecture of the grid gets the same
rule (double the steps of an undecided run), so compared models keep comparable budgets.

An extension is trained from the start, not resumed from the shorter run's checkpoint: its result
then depends on its config alone (``ccx rerun`` reproduces it), and a schedule other than
``constant`` (whose rates depend on the total steps) is followed exactly. For a constant schedule
that costs the shorter run's steps once more (an extension round trains 2x, not 1x, the steps of
the runs it extends). A resumed sweep skips the extensions already stored.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ccomplexity import limits
from simulations.store import Store


def undecided(store_path: str | Path, configs: list[Any]) -> list[Any]:
    """The configs whose stored run is undecided, in order."""
    if not configs or not Path(store_path).is_file():
        return []
    with Store(store_path, readonly=True) as store:
        stored = store.runs(config_hash=[c.config_hash() for c in configs])
    verdicts = {r["config_hash"]: r["verdict"] for r in stored}
    return [c for c in configs if verdicts.get(c.config_hash()) == "undecided"]


def extend_undecided(
    sweep: Any,
    store_path: str | Path,
    rounds: int,
    run_grid: Callable[..., dict[str, Any]],
    progress: bool = True,
    **options: Any,
) -> list[dict[str, Any]]:
    """Up to ``rounds`` rounds: the undecided runs of ``sweep``'s configs (then of the previous
    round's extensions) with doubled steps, through ``run_grid(part, store_path, ...)`` (the
    sweep runner). One summary per round that ran: its round, how many runs it extended, their
    new step counts, how many it trained, how many failed (``failures``: the sweep's records of
    them) and how many stayed undecided. Runs
    whose doubled steps would pass ``limits.STEPS`` are left as they are."""
    limits.EXTEND_ROUNDS.check(rounds, "extend-undecided")
    configs, out = list(sweep.configs), []
    for round_ in range(1, rounds + 1):
        todo = [
            c for c in undecided(store_path, configs) if 2 * c.recipe.steps <= limits.STEPS.most
        ]
        if not todo:
            break
        extended = [c.replace(steps=2 * c.recipe.steps) for c in todo]
        if progress:
            print(
                f"extension round {round_}: {len(extended)} undecided runs, steps doubled",
                file=sys.stderr,
            )
        part = dataclasses.replace(sweep, configs=tuple(extended), grow=None)
        summary = run_grid(part, store_path, progress=progress, **options)
        out.append(
            {
                "round": round_,
                "extended": len(extended),
                "steps": sorted({c.recipe.steps for c in extended}),
                "ran": summary["ran"],
                "failed": len(summary["failed"]),
                "failures": summary["failed"],
                "still_undecided": len(undecided(store_path, extended)),
            }
        )
        configs = extended
    return out


__all__ = ["extend_undecided", "undecided"]
