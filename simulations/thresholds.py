"""Empirical thresholds from the results store, each next to the bound it is drawn against.

For a model (task, arch, width, layers) the empirical threshold is the largest length N in the
sweep such that the best accuracy over every stored run of that model at N (over learning rates,
seeds and any other setting, such as heads or steps) reaches the target, and every shorter
length in the sweep passes too (ARCHITECTURE.md, "Thresholds").  It is None when the shortest
length fails.  A run's accuracy is its ``best_accuracy`` (the best validation accuracy during
training, the model the paper reports) unless ``metric="accuracy"`` (the final evaluation).

The bound is the largest length a lower bound of ``ccomplexity.bounds`` does not rule out, at
precision p bits (default 32), via ``Bound.max_length(m, p, H)``:

* index-lookup, recurrent architecture: ``separations.thm3`` (m p >= N), with m the number of
  values in the model's whole recurrent state, ``state_numel`` as the trainer reports it (the
  spec's RNN state is m units of p bits; Thm 2's message is exactly that state), H = 1.
* dyck, transformer with one layer: ``separations.thm5`` (m H >= (N - 1) / (3 (p + log2 N))),
  with H = heads and m = width / heads, the per-head dimension that Thm 4's protocol sends.
* eq-random, eq-one, eq-ncp, recurrent architecture: ``separations.thm11`` (m p >= N / 2), m as
  for thm3.
* anything else: no bound (None).

When a model's runs differ in m or H (e.g. heads 4 and 8), the bound is the largest of their
``max_length``s: the threshold is a best over those runs, so only the loosest bound covers it.
Where the store has no ``state_numel`` for a run, m falls back to its width (then flagged in
``bound_params``).  ``bound_params`` lists the m, p, H used.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from ccomplexity import bounds
from ccomplexity.errors import InputError
from simulations.store import runs

RECURRENT = frozenset({"lstm", "gru", "mamba", "dss", "linear-transformer", "retnet"})
"""Architectures of ``models.REGISTRY`` whose class is recurrent (kept here so that reading
thresholds never imports torch; a test checks it against the classes)."""

EQUALITY_TASKS = frozenset({"eq-random", "eq-one", "eq-ncp"})
METRICS = ("best_accuracy", "accuracy")


def bound_for(task: str, arch: str, layers: int) -> str | None:
    """The id of the lower bound a (task, arch, layers) model is drawn against, or None."""
    if arch in RECURRENT and task == "index-lookup":
        return "separations.thm3"
    if arch in RECURRENT and task in EQUALITY_TASKS:
        return "separations.thm11"
    if arch == "transformer" and layers == 1 and task == "dyck":
        return "separations.thm5"
    return None


def _bound_params(bound_id: str, run: dict[str, Any], precision: int) -> dict[str, Any]:
    """m, p, H (and where m came from) for one run under bound ``bound_id``."""
    if bound_id == "separations.thm5":
        heads = run["heads"] if run["heads"] is not None else run["config"].get("heads", 1)
        if run["width"] % heads:
            raise InputError(
                f"run {run['config_hash']}: width {run['width']} not a multiple of heads {heads}"
            )
        return {"m": run["width"] // heads, "p": precision, "H": heads, "m_is": "width / heads"}
    if run["state_numel"]:
        return {"m": run["state_numel"], "p": precision, "H": 1, "m_is": "state_numel"}
    return {"m": run["width"], "p": precision, "H": 1, "m_is": "width (no state_numel stored)"}


def threshold_length(accuracy_by_length: dict[int, float], target: float) -> int | None:
    """Largest N with every length <= N (in the dict) at or above ``target``; None if the
    shortest fails."""
    passed = None
    for n in sorted(accuracy_by_length):
        if accuracy_by_length[n] < target:
            break
        passed = n
    return passed


def thresholds(
    store_path: str | Path,
    target: float = 0.99,
    precision: int = 32,
    metric: str = "best_accuracy",
) -> list[dict[str, Any]]:
    """Per (task, arch, width, layers) in the store: the threshold length and the bound.

    Each row: task, arch, width, layers, threshold_length, bound_length, bound_id,
    bound_params ({m, p, H, m_is} or None), runs (how many stored runs it summarises) and
    lengths ({N: best accuracy over those runs}).  Rows are sorted by the first four keys.
    """
    if isinstance(target, bool) or not isinstance(target, int | float) or not 0 < target <= 1:
        raise InputError(f"target must be a number in (0, 1], got {target!r}")
    if isinstance(precision, bool) or not isinstance(precision, int) or precision < 1:
        raise InputError(f"precision must be an integer >= 1, got {precision!r}")
    if metric not in METRICS:
        raise InputError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")

    groups: dict[tuple[str, str, int, int], list[dict[str, Any]]] = defaultdict(list)
    for run in runs(store_path):
        groups[run["task"], run["arch"], run["width"], run["layers"]].append(run)

    rows = []
    for (task, arch, width, layers), members in sorted(groups.items()):
        best: dict[int, float] = {}
        for run in members:
            best[run["length"]] = max(best.get(run["length"], 0.0), run[metric])
        bound_id = bound_for(task, arch, layers)
        bound_length, bound_params = None, None
        if bound_id is not None:
            bound = bounds.get(bound_id)
            for run in members:
                params = _bound_params(bound_id, run, precision)
                n = bound.max_length(params["m"], params["p"], params["H"])
                if bound_length is None or n > bound_length:
                    bound_length, bound_params = n, params
        rows.append(
            {
                "task": task,
                "arch": arch,
                "width": width,
                "layers": layers,
                "threshold_length": threshold_length(best, target),
                "bound_length": bound_length,
                "bound_id": bound_id,
                "bound_params": bound_params,
                "runs": len(members),
                "lengths": dict(sorted(best.items())),
            }
        )
    return rows
