"""Empirical thresholds from the results store, each next to the bound it is drawn against.

For a model (task, arch, width, layers, and the settings only some runs have: loops, hops,
alphabet, group, regulariser; reported as ``options``) the empirical threshold is the largest
length N in the sweep such that the best accuracy over every stored run of that model at N
(over learning rates, seeds and any other setting, such as heads or steps) reaches the target,
and every shorter
length in the sweep passes too (ARCHITECTURE.md, "Thresholds").  It is None when the shortest
length fails.  A run's accuracy is its ``best_accuracy`` (the best validation accuracy during
training, the model the paper reports) unless ``metric="accuracy"`` (the final evaluation).

The bound is the largest length a lower bound does not rule out, at precision p bits (default
32), via ``Bound.max_length(m, p, H)``. Which bound, and how m and H are read from a run, comes
from the claims table (:mod:`ccomplexity.claims`): the row for the run's task, its architecture's
family (``models.FAMILIES``) and its layers. E.g. recurrent models on index lookup are drawn
against ``separations.thm3`` with m the whole state (``state_numel``), one-layer transformers on
Dyck-(2,2) against ``separations.thm5`` with m = width / heads and H = heads. No claim: no bound.

When a model's runs differ in m or H (e.g. heads 4 and 8), the bound is the largest of their
``max_length``s: the threshold is a best over those runs, so only the loosest bound covers it.
Where the store has no ``state_numel`` for a run, m falls back to its width (then flagged in
``bound_params``).  ``bound_params`` lists the m, p, H used.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import models
from ccomplexity import claims, plugins
from ccomplexity.errors import InputError
from simulations.store import check_plugin_sources, runs

METRICS = ("best_accuracy", "accuracy")


def claim_for(task: str, arch: str, layers: int) -> claims.Claim | None:
    """The lower-bound claim a (task, arch, layers) model is drawn against, or None (also for
    a plugin's model whose plugin is not loaded: its family is unknown)."""
    family = _family(arch)
    return None if family is None else claims.lower_bound_for(task, family, layers)


def _family(arch: str) -> str | None:
    if arch in models.FAMILIES:
        return models.FAMILIES[arch]
    found = plugins.model_definition(arch)
    return None if found is None else found.family


def is_plugin_task(task: str) -> bool:
    """Whether stored runs of ``task`` are of a plugin's task (neither built in nor a claims
    task), loaded or not."""
    from simulations.tasks import TASKS

    return task not in TASKS and task not in claims.tasks()


def _run_model(run: dict[str, Any]) -> dict[str, Any]:
    heads = run["heads"] if run["heads"] is not None else run["config"].get("heads")
    return {"width": run["width"], "heads": heads, "state_numel": run["state_numel"]}


def threshold_length(accuracy_by_length: dict[int, float], target: float) -> int | None:
    """Largest N with every length <= N (in the dict) at or above ``target``; None if the
    shortest fails."""
    passed = None
    for n in sorted(accuracy_by_length):
        if accuracy_by_length[n] < target:
            break
        passed = n
    return passed


def decided_threshold(points: list[dict[str, Any]]) -> tuple[int | str | None, int | None]:
    """The threshold of points (``length``, ``verdict``) read in order of length: the largest
    length before the first one not reached, when that one plateaued (None when the shortest
    did); "undecided" when it is undecided, with the largest length decided so far (a one-sided
    bound: the threshold is at least that) as the second value."""
    passed = None
    for point in sorted(points, key=lambda p: p["length"]):
        if point["verdict"] == "reached":
            passed = point["length"]
        elif point["verdict"] == "undecided":
            return "undecided", passed
        else:
            return passed, passed
    return passed, passed


def length_points(
    members: list[dict[str, Any]], metric: str, target: float
) -> list[dict[str, Any]]:
    """One point per length: the best ``metric`` over the runs there and its verdict at
    ``target`` (:func:`simulations.verdicts.combine` of the runs' verdicts, each judged at the
    target from its curve; a run whose metric is at the target has reached it)."""
    from simulations.verdicts import combine, run_verdict

    by_length: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for run in members:
        by_length[run["length"]].append(run)
    points = []
    for n, at_n in sorted(by_length.items()):
        verdicts = []
        for run in at_n:
            if run[metric] >= target:
                verdicts.append("reached")
            else:  # the best was at the target but the final accuracy is not: no longer there
                v = run_verdict(run, target)
                verdicts.append("plateaued" if v == "reached" else v)
        points.append({
            "length": n, metric: max(run[metric] for run in at_n),
            "verdict": combine(verdicts), "runs": len(at_n),
        })  # fmt: skip
    return points


def thresholds(
    store_path: str | Path,
    target: float = 0.99,
    precision: int = 32,
    metric: str = "best_accuracy",
) -> list[dict[str, Any]]:
    """Per (task, arch, width, layers) in the store: the threshold length and the bound.

    Each row: task, arch, width, layers, threshold_length, bound_length, bound_id,
    bound_params ({m, p, H, m_is} or None), runs (how many stored runs it summarises),
    lengths ({N: best accuracy over those runs}) and points (per length: the best accuracy, its
    verdict and the number of runs, :func:`length_points`). Only current runs count (an
    undecided run extended with more steps is replaced by its extension). Where the first
    length not reached is undecided, ``threshold_length`` is "undecided", never a length, and
    ``threshold_at_least`` the largest length reached before it (None if none).
    Rows are sorted by the first four keys.
    """
    if isinstance(target, bool) or not isinstance(target, int | float) or not 0 < target <= 1:
        raise InputError(f"target must be a number in (0, 1], got {target!r}")
    if isinstance(precision, bool) or not isinstance(precision, int) or precision < 1:
        raise InputError(f"precision must be an integer >= 1, got {precision!r}")
    if metric not in METRICS:
        raise InputError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")

    from simulations.run_config import OPTIONAL_FIELDS
    from simulations.verdicts import current

    groups: dict[tuple[str, str, int, int, str], list[dict[str, Any]]] = defaultdict(list)
    found = current(runs(store_path))
    check_plugin_sources(found)  # no plugin's bound beside another plugin's runs
    for run in found:
        options = {k: run["config"][k] for k in OPTIONAL_FIELDS if k in run["config"]}
        key = (run["task"], run["arch"], run["width"], run["layers"], json.dumps(options))
        groups[key].append(run)

    rows = []
    for (task, arch, width, layers, options), members in sorted(groups.items()):
        points = length_points(members, metric, target)
        best = {p["length"]: p[metric] for p in points}
        threshold, at_least = decided_threshold(points)
        decided = {"threshold_length": threshold, "threshold_at_least": at_least,
                   "points": points}  # fmt: skip
        if is_plugin_task(task):
            row = _plugin_row(task, arch, width, layers, members, best, target, precision)
            rows.append({**row, **decided})
            continue
        claim = claim_for(task, arch, layers)
        bound_id = claim.bound_id if claim is not None else None
        bound_length, bound_params = None, None
        if claim is not None and claim.bound.bounds_length:
            for run in members:
                try:
                    params = claim.model_params(_run_model(run), precision)
                except InputError as err:
                    raise InputError(f"run {run['config_hash']}: {err}") from None
                n = claim.bound.max_length(params["m"], params["p"], params["H"])
                if bound_length is None or n > bound_length:
                    bound_length, bound_params = n, params
        rows.append(
            {
                "task": task,
                "arch": arch,
                "width": width,
                "layers": layers,
                **({"options": json.loads(options)} if options != "{}" else {}),
                **decided,
                "bound_length": bound_length,
                "bound_id": bound_id,
                "bound_params": bound_params,
                "runs": len(members),
                "lengths": dict(sorted(best.items())),
            }
        )
    return rows


__all__ = ["claim_for", "decided_threshold", "length_points", "threshold_length", "thresholds"]


def _plugin_row(
    task: str,
    arch: str,
    width: int,
    layers: int,
    members: list[dict[str, Any]],
    best: dict[int, float],
    target: float,
    precision: int,
) -> dict[str, Any]:
    """A plugin task's row: its bound is computed, length by length. For a recurrent model,
    Thm 2 (``separations.thm2``): solving the task at N needs m p >= the one-way bits at every
    cut (``computed_bits``: {N: the most over the cuts}, at the swept lengths that can be
    computed; None while the plugin is not loaded); ``bound_length`` is the largest swept N
    before the first one it rules out, None when none is ruled out. Other families: no computed
    bound (``ccx claims`` says which)."""
    from ccomplexity.plugin_problems import one_way_profile

    row: dict[str, Any] = {
        "task": task, "arch": arch, "width": width, "layers": layers,
        "threshold_length": threshold_length(best, target), "bound_length": None,
        "bound_id": None, "bound_params": None, "runs": len(members),
        "lengths": dict(sorted(best.items())),
    }  # fmt: skip
    if _family(arch) != "recurrent":
        return row
    m = max((run["state_numel"] or run["width"]) for run in members)
    row["bound_params"] = {"m": m, "p": precision, "H": 1, "m_is": "state_numel"}
    row["bound_id"] = "separations.thm2"
    if plugins.task_definition(task) is None:
        row["computed_bits"] = None
        return row
    bits = row["computed_bits"] = one_way_profile(task, sorted(best))
    passed = None
    for n in sorted(bits):
        if bits[n] > m * precision:
            row["bound_length"] = passed
            break
        passed = n
    return row
