"""Re-training a stored run from its stored config, in the form it was trained, and comparing
(``ccx rerun --store S --run ID``).

A run is trained again as it was: alone, or as the same ensemble (the member configs the store
recorded for it, in their order, read back from the store), with the same number of torch
threads, on the CPU (or CUDA, for a run stored from a GPU when one is present). Nothing is
written: no checkpoint, no row.

The report (:func:`compare`): ``identical`` when the best and final accuracy, the steps, the
curve and the verdict are all the same; else ``max_difference``, the largest absolute difference
of an accuracy (best, final, or at a step both curves evaluated), and ``verdict_changed``. Beside
it, ``environment``: what trained the stored run and what trains the re-run, and the fields
that decide identity in which they differ (:data:`simulations.environment.IDENTITY`). Training is
deterministic on the CPU for one torch version, one vector instruction set and one thread
count (:mod:`simulations.training`): a re-run that shares them is identical, one that does not
may differ in the last bits of a sum and, over hundreds of steps, in its accuracies.

A run whose ensemble cannot be rebuilt (a member is no longer in the store, or the store predates
the record of ensembles) is trained alone, and the report says so: on the CPU an ensemble member's
curve and steps equal its single run's (:mod:`simulations.ensemble`), its weights only to float
tolerance.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ccomplexity import budget, limits
from ccomplexity.budget import duration_text
from ccomplexity.errors import InputError, one_line
from simulations.store import Store

ROW_ID = re.compile(r"[0-9]{1,18}")
"""A row id: ASCII digits within SQLite's 64-bit integers."""
RUN_NAME = re.compile(r"[0-9A-Za-z_-]{1,64}")
"""What a run may be named by: a row id or a config hash."""

COMPARED = ("best_accuracy", "accuracy", "steps", "curve", "verdict")
"""What a re-run must reproduce to count as identical."""


def check_run_name(run: str) -> None:
    """InputError unless ``run`` can name a run (:data:`RUN_NAME`)."""
    if not RUN_NAME.fullmatch(run):
        raise InputError(f"--run must be a row id or a config hash, got {run[:64]!r}")


def find_run(store_path: str | Path, run: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The stored run ``run`` (its row id, or its config hash) and the stored runs of its
    ensemble in their recorded order (empty when it trained alone or they are not all stored)."""
    check_run_name(run)
    with Store(store_path, readonly=True) as store:
        by_id = ROW_ID.fullmatch(run)
        found = store.runs(id=int(run)) if by_id else store.runs(config_hash=run)
        if not found:
            raise InputError(f"no run {run!r} in {str(store_path)!r} (give a row id or hash)")
        row = found[0]
        group = (row.get("ensemble") or {}).get("configs")
        if not isinstance(group, list) or len(group) < 2:
            return _priced(row, []), []
        members = {r["config_hash"]: r for r in store.runs(config_hash=group)}
    if set(group) - set(members):
        return _priced(row, []), []
    return _priced(row, [members[h] for h in group]), [members[h] for h in group]


def _priced(row: dict[str, Any], group: list[dict[str, Any]]) -> dict[str, Any]:
    """``row``, refused before torch is loaded when even a lower bound of its training cost is
    over the budgets: the stored config's own numbers (its length for the task's tokens, no
    parameters) in :func:`ccomplexity.budget.training`. Values that are not integers are left
    to the config's own checks."""
    config = row["config"]
    keys = ("steps", "batch", "width", "layers", "length")
    numbers = {k: config.get(k) for k in (*keys, "heads", "eval_samples", "eval_every")}
    if not all(type(numbers[k]) is int and numbers[k] > 0 for k in keys):
        return row
    heads = numbers["heads"] if type(numbers["heads"]) is int else 0
    rows = numbers["eval_samples"] if type(numbers["eval_samples"]) is int else 1
    device = "cuda" if str(row.get("device") or "").startswith("cuda") else "cpu"
    memory, seconds = budget.training(
        steps=numbers["steps"],
        batch=numbers["batch"],
        tokens=numbers["length"],
        width=numbers["width"],
        layers=numbers["layers"],
        heads=max(0, heads),
        classes=1,
        parameters=0,
        pairs=heads > 0,
        eval_rows=max(1, min(rows, 500)),
        evaluations=0,
        members=max(1, len(group)),
        device=device,
    )
    what = f"run {row['id']} ({numbers['steps']} steps at N = {numbers['length']})"
    budget.check_training(what, memory, seconds, None if device == "cpu" else 1 << 62)
    return row


GPU_ON_CPU_SECONDS = 600
"""A run trained on a GPU is re-trained on the CPU without being asked only when it is estimated
to take at most this long there (10 minutes)."""


def check_stored(row: dict[str, Any], configs: list[Any], device: str, allow_cpu: bool) -> None:
    """Price a stored run before it trains again: its config (or its ensemble's) against the
    memory and training budgets of ``train`` (:func:`simulations.pricing.check_training`), and a
    run trained on a GPU refused on the CPU with its estimate there when that is more than
    :data:`GPU_ON_CPU_SECONDS`, unless ``allow_cpu``."""
    from simulations.pricing import check_training, cost, describe

    stored = str(row.get("device") or "cpu")
    seconds = cost(configs, "cpu")[1] if stored.startswith("cuda") and device == "cpu" else 0
    if seconds > GPU_ON_CPU_SECONDS and not allow_cpu:
        raise InputError(
            f"run {row['id']} was trained on a GPU ({one_line(stored)}), and there is none here: "
            f"{describe(configs)} would take about {duration_text(seconds)} on this CPU "
            "(estimated); pass --allow-cpu to train it here anyway"
        )
    check_training(configs, device)


def _device(stored: str | None) -> str:
    import torch

    if stored and stored.startswith("cuda") and torch.cuda.is_available():
        return "cuda"
    return "cpu"


def rerun(store_path: str | Path, run: str, allow_cpu: bool = False) -> dict[str, Any]:
    """Train stored run ``run`` again in its form and compare: ``{"run", "config_hash",
    "form", "stored", "rerun", "identical", "differences", "max_difference",
    "verdict_changed", "environment"}`` (:func:`compare`); ``stored`` and ``rerun`` hold
    best_accuracy, accuracy, steps, verdict and the curve. Priced first, as ``train`` prices a
    run (:func:`check_stored`)."""
    import torch

    from simulations.ensemble import train_ensemble
    from simulations.environment import identity_differences
    from simulations.training import TrainConfig, deterministic_on, resolve_device, train

    row, group = find_run(store_path, run)
    config = TrainConfig.from_dict(row["config"])
    if config.config_hash() != row["config_hash"]:
        raise InputError(f"run {row['id']}: its stored config does not give its hash")
    device = _device(row.get("device"))
    members = [TrainConfig.from_dict(member["config"]) for member in group] or [config]
    check_stored(row, members, device, allow_cpu)
    threads = row.get("threads")
    threads = threads if isinstance(threads, int) and 0 < threads <= limits.THREADS.most else None
    form: dict[str, Any] = {"device": device, "threads": threads}
    if group:
        configs = [TrainConfig.from_dict(member["config"]) for member in group]
        with deterministic_on(resolve_device(device), threads):
            results = train_ensemble(configs, device=device)
        again = next(r for r in results if r["config_hash"] == row["config_hash"])
        form["trained"] = f"ensemble of {len(configs)} ({again['ensemble']['strategy']})"
    else:
        again = train(config, progress=False, device=device, threads=threads)
        recorded = row.get("ensemble")
        form["trained"] = "alone" + (
            " (its ensemble's members are not all in the store)" if recorded else ""
        )
    form["torch"] = torch.__version__
    report = compare({k: row[k] for k in COMPARED}, {k: again[k] for k in COMPARED})
    # the threads column predates the environment record: an older run still says its threads
    recorded = {"threads": row["threads"]} if isinstance(row.get("threads"), int) else {}
    stored_environment = {**recorded, **(row.get("environment") or {})}
    now = again.get("environment") or {}
    return {
        "run": row["id"],
        "config_hash": row["config_hash"],
        "form": form,
        **report,
        "environment": {
            "stored": stored_environment,
            "rerun": now,
            "differs_in": identity_differences(stored_environment, now),
        },
    }


def compare(stored: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """Stored run against re-run, each {best_accuracy, accuracy, steps, curve, verdict}:
    ``{"stored", "rerun", "identical", "differences", "max_difference", "verdict_changed"}``.
    ``differences`` names the fields that differ; ``max_difference`` is the largest absolute
    difference of the best accuracy, the final accuracy and the accuracies at the steps both
    curves evaluated (0.0 when identical)."""
    differences = [k for k in COMPARED if _plain(stored[k]) != _plain(fresh[k])]
    again = {int(step): float(a) for step, a in fresh["curve"]}
    pairs = [(float(a), again[int(step)]) for step, a in stored["curve"] if int(step) in again]
    pairs += [(float(stored[k]), float(fresh[k])) for k in ("best_accuracy", "accuracy")]
    return {
        "stored": stored,
        "rerun": fresh,
        "identical": not differences,
        "differences": differences,
        "max_difference": max(abs(a - b) for a, b in pairs),
        "verdict_changed": stored["verdict"] != fresh["verdict"],
    }


def _plain(value: Any) -> Any:
    """Curves compare as lists of [step, accuracy] whatever sequence type holds them."""
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["COMPARED", "ROW_ID", "RUN_NAME", "check_run_name", "compare", "find_run", "rerun"]
