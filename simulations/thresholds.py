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

import functools
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import models
from ccomplexity import budget, claims, plugins
from ccomplexity.errors import InputError
from simulations.store import check_plugin_sources, runs

METRICS = ("best_accuracy", "accuracy")


def claim_for(task: str, arch: str, layers: int, held: bool = False) -> claims.Claim | None:
    """The lower-bound claim a (task, arch, layers) model is drawn against (``held``: one
    trained at p bits), or None (also for a plugin's model whose plugin is not loaded: its
    family is unknown)."""
    family = _family(arch)
    return None if family is None else claims.lower_bound_for(task, family, layers, held)


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


def model_shape(run: dict[str, Any]) -> dict[str, Any]:
    """What makes a run's model another model beside its task, architecture, width and layers:
    its heads where the architecture has heads, and the mixture options (experts, top_k, gate,
    balance, mlp_width, expert) away from their defaults. A threshold is a best over learning
    rates and seeds of one model, never over models of other shapes."""
    from simulations.run_config import MODEL_OPTIONS

    config = run["config"]
    shape = {"heads": config["heads"]} if _has_heads(run["arch"]) and "heads" in config else {}
    shape.update({k: config[k] for k, v in MODEL_OPTIONS.items() if config.get(k, v) != v})
    return shape


def _has_heads(arch: str) -> bool:
    """Whether ``arch``'s model config has heads (an architecture not registered here, a
    plugin's that is not loaded: counted as having them, so its heads still tell models apart)."""
    from simulations.run_config import config_fields

    try:
        return "heads" in config_fields(arch)
    except InputError:
        return True


def _shape(shape: str) -> dict[str, Any]:
    """A threshold row's ``shape`` entry (:func:`model_shape`), left out when empty."""
    return {"shape": json.loads(shape)} if shape != "{}" else {}


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
        points.append(
            {
                "length": n,
                metric: max(run[metric] for run in at_n),
                "verdict": combine(verdicts),
                "runs": len(at_n),
            }
        )
    return points


def thresholds(
    store_path: str | Path,
    target: float = 0.99,
    precision: int = 32,
    metric: str = "best_accuracy",
) -> list[dict[str, Any]]:
    """Per model in the store (task, arch, width, layers, its options and :func:`model_shape`):
    the threshold length and the bound.

    Each row: task, arch, width, layers, options and shape (each when not empty),
    threshold_length, bound_length, bound_id,
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

    groups: dict[tuple[str, str, int, int, str, str], list[dict[str, Any]]] = defaultdict(list)
    found = current(runs(store_path))
    check_plugin_sources(found)  # no plugin's bound beside another plugin's runs
    for run in found:
        options = {k: run["config"][k] for k in OPTIONAL_FIELDS if k in run["config"]}
        shape = json.dumps(model_shape(run))
        key = (run["task"], run["arch"], run["width"], run["layers"], json.dumps(options), shape)
        groups[key].append(run)

    rows = []
    for (task, arch, width, layers, options, shape), members in sorted(groups.items()):
        points = length_points(members, metric, target)
        best = {p["length"]: p[metric] for p in points}
        threshold, at_least = decided_threshold(points)
        decided = {"threshold_length": threshold, "threshold_at_least": at_least,
                   "points": points}  # fmt: skip
        held = json.loads(options).get("precision")  # trained at p bits: its own p
        p = precision if held is None else held
        if is_plugin_task(task):
            row = _plugin_row(task, arch, width, layers, members, best, target, p)
            rows.append({**row, **_shape(shape), **decided, "held": held is not None})
            continue
        claim = claim_for(task, arch, layers, held is not None)
        bound_id = claim.bound_id if claim is not None else None
        bound_length, bound_params = None, None
        if claim is not None and claim.bound.bounds_length:
            for run in members:
                params = run_bound_params(claim, run, p)
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
                **_shape(shape),
                **decided,
                "bound_length": bound_length,
                "bound_id": bound_id,
                "bound_params": bound_params,
                "held": held is not None,
                "runs": len(members),
                "lengths": dict(sorted(best.items())),
            }
        )
    return rows


def run_bound_params(claim: claims.Claim, run: dict[str, Any], precision: int) -> dict[str, Any]:
    """m, p, H of a stored run as ``claim`` reads them, at ``precision`` p."""
    try:
        return claim.model_params(_run_model(run), precision)
    except InputError as err:
        raise InputError(f"run {run['config_hash']}: {err}") from None


def beyond_bounds(store_path: str | Path, target: float = 0.99) -> list[dict[str, Any]]:
    """The runs trained at p bits that reached ``target`` at a length N their own bound rules
    out at their own p (``ccx threshold --check``). Float runs are not checked: their precision
    is not theirs to state.

    Such a model is its protocol, and its bound is worst-case: every protocol of its bits errs
    on *some* input of length N. A run here reached the target on sampled inputs, so either it
    errs on inputs its evaluation did not draw, or the model, the protocol or the bound's
    implementation is wrong (``why`` says which it can be). Where the inputs are uniform (index
    lookup), ``accuracy_ceiling`` is the most any message of the run's bits can score on them
    (:mod:`ccomplexity.fano`); a run above it is wrong for certain."""
    from simulations.verdicts import current

    found = []
    for run in current(runs(store_path)):
        p = run["config"].get("precision")
        if p is None or run["best_accuracy"] < target or is_plugin_task(run["task"]):
            continue
        claim = claim_for(run["task"], run["arch"], run["layers"], held=True)
        if claim is None or not claim.bound.bounds_length:
            continue
        params = run_bound_params(claim, run, p)
        if not claim.bound.allows(run["length"], params["m"], params["p"], params["H"]):
            found.append(
                {
                    "id": run["id"],
                    "config_hash": run["config_hash"],
                    "task": run["task"],
                    "arch": run["arch"],
                    "width": run["width"],
                    "precision": p,
                    "length": run["length"],
                    "best_accuracy": run["best_accuracy"],
                    "bound_id": claim.bound_id,
                    "bound_params": params,
                    "bound_length": claim.bound.max_length(params["m"], params["p"], params["H"]),
                    **_ceiling(run, p),
                }
            )
    return found


def _ceiling(run: dict[str, Any], precision: int) -> dict[str, Any]:
    """``accuracy_ceiling`` and ``why`` of a run beyond its wall (see :func:`beyond_bounds`)."""
    from ccomplexity.fano import index_lookup_ceiling

    ceiling = None
    if run["task"] == "index-lookup" and _family(run["arch"]) == "recurrent":
        bits = precision * int(run["state_numel"])
        from simulations.tasks.separations import IndexLookupTask  # torch: a flagged run only

        symbols = run["config"].get("symbols") or IndexLookupTask.symbols
        ceiling = index_lookup_ceiling(bits, run["length"], symbols)
    if ceiling is not None and run["best_accuracy"] > ceiling:
        why = (
            f"above {ceiling:.4f}, the most any message of its bits scores on uniform inputs "
            "(Fano): the model, the protocol or the bound's implementation is wrong"
        )
    else:
        why = (
            "beyond the worst-case wall: every protocol of its bits errs on some input, so the "
            "model errs on inputs its evaluation did not draw, or the model, the protocol or "
            "the bound's implementation is wrong; evaluate it on more inputs"
        )
    return {"accuracy_ceiling": ceiling, "why": why}


__all__ = [
    "beyond_bounds", "claim_for", "decided_threshold", "length_points", "plugin_bound",
    "plugin_claim", "run_bound_params", "threshold_length", "thresholds",
]  # fmt: skip


def plugin_claim(arch: str, layers: int) -> dict[str, str] | None:
    """The general claim (``ccomplexity.plugin_problems.GENERAL_CLAIMS``) a model of ``arch``
    with ``layers`` layers on a plugin task is drawn against, or None."""
    from ccomplexity.plugin_problems import GENERAL_CLAIMS

    family = _family(arch)
    for claim in GENERAL_CLAIMS:
        if claim["family"] == family and claim["layers"] in ("any", str(layers)):
            return claim
    return None


def plugin_bound(task: str, kind: str, lengths: tuple[int, ...]) -> dict[int, dict[str, Any]]:
    """:func:`ccomplexity.plugin_bounds.bound_profile` of the loaded plugin task at ``lengths``,
    computed once per task source (a figure and its thresholds ask twice); progress on stderr."""
    found = plugins.require_task(task)
    budgets = (budget.memory_budget(), budget.work_budget())  # what was refused depends on them
    return _bound_cached(task, found.sha256, kind, lengths, budgets)


@functools.lru_cache(maxsize=64)
def _bound_cached(
    task: str, sha256: str, kind: str, lengths: tuple[int, ...], budgets: tuple[int, int]
) -> dict[int, dict[str, Any]]:
    from ccomplexity.plugin_bounds import bound_profile

    return bound_profile(task, kind, list(lengths), lambda line: print(line, file=sys.stderr))


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
    """A plugin task's row: its bound is computed at the stored lengths, as the general claims
    say (:func:`plugin_claim`). A recurrent model (Thm 2, ``separations.thm2``): solving the task
    at N needs m p >= the most one-way bits over the cuts. A one-layer transformer (Thm 4,
    ``separations.thm4``, with Fact 4): the bits of the single-output protocol that ``ccx
    protocol attention`` runs (m = width / heads per head, H heads) must reach the fooling-set
    bits under prefix:N/2. ``computed_bits``: {N: bits} (None while the plugin is not loaded),
    ``not_computed``: {N: why} where the price was over the budget, ``model_bits``: {N: the
    model's side}; ``bound_length`` is the largest stored N before the first one ruled out
    (None when none is). Other models: no bound (``ccx claims --task`` says which apply)."""
    from ccomplexity.bounds.separations import single_output_bits

    row: dict[str, Any] = {
        "task": task, "arch": arch, "width": width, "layers": layers,
        "threshold_length": threshold_length(best, target), "bound_length": None,
        "bound_id": None, "bound_params": None, "runs": len(members),
        "lengths": dict(sorted(best.items())),
    }  # fmt: skip
    claim = plugin_claim(arch, layers)
    if claim is None:
        return row
    row["bound_id"], row["bound_kind"] = claim["bound_id"], claim["bound"]
    if claim["bound"] == "one-way":
        m = max((run["state_numel"] or run["width"]) for run in members)
        row["bound_params"] = {"m": m, "p": precision, "H": 1, "m_is": "state_numel"}
        model_bits = {n: m * precision for n in best}
    else:  # the loosest of the runs' (m, H): the threshold is a best over them
        task_def = plugins.task_definition(task)
        alphabet = task_def.alphabet if task_def is not None else 2
        shapes = {(width // (h or 1), h or 1) for h in (_run_model(r)["heads"] for r in members)}
        m, heads = max(shapes, key=lambda s: single_output_bits(*s, precision, max(best), 2))
        row["bound_params"] = {"m": m, "p": precision, "H": heads, "m_is": "width / heads"}
        model_bits = {
            n: max(single_output_bits(mm, hh, precision, n, alphabet) for mm, hh in shapes)
            for n in best
        }
    row["model_bits"] = dict(sorted(model_bits.items()))
    if plugins.task_definition(task) is None:
        row["computed_bits"] = None
        return row
    computed = plugin_bound(task, claim["bound"], tuple(sorted(best)))
    row["computed_bits"] = {n: c["bits"] for n, c in computed.items() if "bits" in c}
    row["not_computed"] = {n: c["refused"] for n, c in computed.items() if "refused" in c}
    passed = None
    for n in sorted(row["computed_bits"]):
        if row["computed_bits"][n] > model_bits[n]:
            row["bound_length"] = passed
            break
        passed = n
    return row
