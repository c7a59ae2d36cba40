"""The capacity search of the layer-looping paper (Sec. 6.1, Figure 2; spec looping-kg-moe 3.1).

For each model, the graph grows by ``grow_by`` relations (E triples each) while the best test
accuracy over the learning rates (and seeds) reaches the target (0.97); the largest T = E R it
passed is the model's capacity. A spec becomes a search by three ``[sweep]`` keys (see
:mod:`simulations.sweeps`)::

    [sweep]
    target = 0.97
    grow = "relations"     # the integer config field that grows
    grow_by = 4            # relations added per round
    grow_to = 64           # the search stops there (the capacity is then at least that)

Every (model, R, learning rate, seed) training is an ordinary stored run keyed by its config
hash, trained one round at a time by the grid runner that :func:`simulations.sweeps.run_sweep`
hands to :func:`run_search` (all models still growing, all their learning rates, in one pool).
This module sits below :mod:`simulations.sweeps`: it never imports it. A killed search resumes
by running it again: the rounds are replayed from the store, whose runs are skipped.
:func:`capacities` reads the capacities back from the store alone (what the figure and ``ccx kg
capacity`` show): per model, the largest value whose best run reached its target with every
smaller stored value passing. Where the first value missed is undecided (no run there reached
the target and one was still improving when its budget ran out, :mod:`simulations.verdicts`),
the capacity is "undecided", at least the largest value passed: an undecided run is never
counted as a failure.

Decisions where the paper is silent or differs (recorded in docs/kg-looping.md):

* the paper continues training the same model on the grown graph; here each (model, R) trains
  from scratch, so that each run is one stored, resumable, reproducible unit (a model that
  learns the larger graph from scratch would also have learned it continued, so capacities are
  if anything lower than the paper's procedure gives);
* training draws fresh uniform q-hop queries every step instead of a fixed set of 128 R E
  queries, and the test is ``eval_samples`` fresh queries (the paper: R E of them); with early
  stopping at the target, "> 97%" is read as ">= target";
* "grow by R relations" is read as a fixed step (``grow_by``), not doubling.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Iterable
from fractions import Fraction
from pathlib import Path
from typing import Any

from ccomplexity.errors import InputError
from simulations.store import Store, runs

MEMBER_FIELDS = ("lr", "seed")
"""Config fields a model's best is taken over; every other field (but the grown one) names it."""

PAPER_SLOPES: dict[tuple[str, int], float] = {
    ("standard", 1): 0.061,
    ("standard", 3): 0.002,
    ("looped-moe", 1): 0.053,
    ("looped-moe", 3): 0.015,
}
"""Triples per parameter read off Figure 2 by the paper (Sec. 6.1). Standard at q = 3 is printed
as 0.0002 next to "a 30.5x decrease"; 0.061 / 0.002 = 30.5, so 0.002 (spec erratum 1)."""
PAPER_RATIO_Q4 = 9.0
"""Looped-MoE answers 4-hop queries over graphs up to 9x larger than parameter-matched standard
models (abstract, Sec. 6.1)."""


def family(config: dict[str, Any]) -> str:
    """The paper's name of a model: ``standard`` (the zoo transformer, q layers), ``looped``
    (one block looped) or ``looped-moe`` (looped with a mixture-of-experts feed-forward)."""
    if config["arch"] != "looped":
        return "standard" if config["arch"] == "transformer" else config["arch"]
    return "looped-moe" if config.get("experts", 1) > 1 else "looped"


def model_key(config: dict[str, Any], field: str) -> tuple:
    """What names a model across the search: its config less the grown field, lr and seed."""
    return tuple(sorted((k, v) for k, v in config.items() if k not in (field, *MEMBER_FIELDS)))


def _models(configs: Iterable[Any], field: str) -> dict[tuple, list[Any]]:
    out: dict[tuple, list[Any]] = {}
    for config in configs:
        out.setdefault(model_key(config.to_dict(), field), []).append(config)
    return out


def check_growth(spec: Any) -> None:
    """InputError unless every run sets the grown field, each model starts from one value at
    most ``grow_to``, and each model's run at ``grow_to`` is a valid config (its limits, its
    model's size and its batch's memory, checked now, before anything is trained)."""
    grow = spec.grow
    for members in _models(spec.configs, grow.field).values():
        starts = {c.value(grow.field) for c in members}
        if None in starts:
            raise InputError(f"{spec.source}: grow = {grow.field!r} but a run does not set it")
        if len(starts) > 1:
            raise InputError(
                f"{spec.source}: one model starts from several {grow.field} values "
                f"{sorted(starts)}; give one start per model"
            )
        (start,) = starts
        if start > grow.to:
            raise InputError(f"{spec.source}: grow_to {grow.to} is below the start {start}")
        try:
            members[0].replace(**{grow.field: grow.to})
        except InputError as err:
            raise InputError(f"{spec.source}: at {grow.field} = {grow.to}: {err}") from None


def grown(config: Any, field: str, value: int) -> Any:
    """``config`` with ``field`` = ``value``, between its start and ``grow_to`` (made anew: its
    task and model config grow with the field)."""
    return config.replace(**{field: value})


def every_round(spec: Any) -> Any:
    """The spec with every run the search could train (each model grown to ``grow_to``) and no
    growth: what :func:`simulations.estimate.dry_run` prices, an upper bound."""
    grow, configs = spec.grow, []
    for config in spec.configs:
        value = config.value(grow.field)
        while value <= grow.to:
            configs.append(grown(config, grow.field, value))
            value += grow.by
    return dataclasses.replace(spec, configs=tuple(configs), grow=None)


def run_search(
    spec: Any,
    store_path: str | Path,
    run_grid: Callable[..., dict[str, Any]],
    progress: bool = True,
    **sweep_options: Any,
) -> dict[str, Any]:
    """Run (or resume) the capacity search ``spec`` into ``store_path``, one round at a time
    through ``run_grid(part, store_path, progress=..., **sweep_options)``, the sweep runner that
    :func:`simulations.sweeps.run_sweep` passes in (``sweep_options``: its workers, backend,
    train_fn, checkpoint_dir, ensemble, ensemble_fn). A model stops at its first value whose
    best run misses its target, at ``grow_to``, or when one of its runs fails (reported in
    ``failed``; running the search again retries it). Returns a JSON-ready summary with the
    capacities of the spec's models."""
    grow, start = spec.grow, time.perf_counter()
    extend_rounds = sweep_options.pop("extend_undecided", 0)
    extended: list[dict[str, Any]] = []
    models = _models(spec.configs, grow.field)
    value = {key: members[0].value(grow.field) for key, members in models.items()}
    growing, stops = list(models), {}
    totals = {"runs": 0, "skipped": 0, "ran": 0, "shared": 0}
    failed: list[dict[str, Any]] = []
    summary: dict[str, Any] = {}
    rounds = 0
    while growing:
        rounds += 1
        batch = {key: [grown(c, grow.field, value[key]) for c in models[key]] for key in growing}
        configs = tuple(c for members in batch.values() for c in members)
        part = dataclasses.replace(spec, configs=configs, grow=None)
        if progress:
            print(
                f"round {rounds}: {len(growing)} models, {len(configs)} runs",
                file=sys.stderr,
                flush=True,
            )
        summary = run_grid(part, store_path, progress=progress, **sweep_options)
        for name in totals:
            totals[name] += summary[name]
        failed += summary["failed"]
        best = _best_by_hash(store_path, [c.config_hash() for c in configs])
        missed = [c for members in batch.values() if _missed(best, members) for c in members]
        if extend_rounds and missed:  # only a miss can be undecided in a way that matters
            from simulations.extend import extend_undecided

            extended += extend_undecided(
                dataclasses.replace(part, configs=tuple(missed)),
                store_path,
                extend_rounds,
                run_grid,
                progress=progress,
                **sweep_options,
            )
            best = _best_by_hash(store_path, [c.config_hash() for c in configs])
        _grow_or_stop(batch, best, grow, value, stops)
        growing = [key for key in growing if key not in stops]
    stored = capacities(store_path, grow.field) if Path(store_path).is_file() else []
    table = [row for row in stored if model_key(row["config"], grow.field) in models]
    return {
        "sweep": spec.name,
        "source": spec.source,
        "store": str(store_path),
        "checkpoints": summary.get("checkpoints"),
        "backend": summary.get("backend"),
        "grow": dataclasses.asdict(grow),
        "rounds": rounds,
        "stopped": {why: list(stops.values()).count(why) for why in sorted(set(stops.values()))},
        **totals,
        "failed": failed,
        "stored_total": summary.get("stored_total"),
        **({"extended": extended} if extend_rounds else {}),
        "capacities": [_public(row) for row in table],
        "wall_seconds": round(time.perf_counter() - start, 3),
    }


def _grow_or_stop(
    batch: dict[Any, list[Any]],
    best: dict[str, float],
    grow: Any,
    value: dict[Any, int],
    stops: dict[Any, str],
) -> None:
    """After a round: each model of ``batch`` grows by ``grow.by`` (in ``value``) or stops, with
    the reason in ``stops`` (a run failed, its best run missed the target, or ``grow_to``)."""
    for key, members in batch.items():
        scores = [best.get(c.config_hash()) for c in members]
        if None in scores:
            stops[key] = "a run failed"
        elif max(scores) < members[0].evaluation.target:
            stops[key] = "missed the target"
        elif value[key] + grow.by > grow.to:
            stops[key] = f"reached grow_to = {grow.to}"
        else:
            value[key] += grow.by


def _missed(best: dict[str, float], members: list[Any]) -> bool:
    """Whether a model's runs of one round all stored and their best missed the target."""
    scores = [best.get(c.config_hash()) for c in members]
    return None not in scores and max(scores) < members[0].evaluation.target


def _best_by_hash(store_path: str | Path, hashes: list[str]) -> dict[str, float]:
    """The best accuracy of each stored run, read from its extension with the most steps where
    ``--extend-undecided`` extended it (:func:`simulations.verdicts.current`)."""
    from simulations.verdicts import current, extension_key

    with Store(store_path, readonly=True) as store:
        found = store.runs(config_hash=hashes)
        if not found:
            return {}
        latest = {extension_key(r["config"]): r for r in current(store.runs(task=found[0]["task"]))}
    out = {}
    for run in found:
        now = latest.get(extension_key(run["config"]), run)
        out[run["config_hash"]] = now["best_accuracy"]
    return out


def capacities(
    store_path: str | Path, field: str = "relations", task: str = "kg-path"
) -> list[dict[str, Any]]:
    """Each model's capacity in the store: the largest ``field`` value whose best run (over lr
    and seed) reached its config's target with every smaller stored value passing too.

    One row per model (its config without field, lr, seed, under ``config``): ``family``,
    ``hops`` (the task's length q), the ``largest`` passing value (0 when the first failed),
    ``triples`` = entities x largest, the value ``tried`` last, ``passed_all`` (every stored
    value passed: the capacity is at least this), ``verdict`` (:mod:`simulations.verdicts`:
    ``reached`` when every value passed, else the verdict of the best over the runs of the
    first value missed). When that miss is ``undecided`` (no run reached the target and one was
    still improving when its budget ran out), the capacity is not a number: ``largest``,
    ``triples`` and ``field`` are "undecided", and ``largest_at_least`` / ``triples_at_least``
    give the one-sided bound (they equal ``largest`` / ``triples`` otherwise); and the
    ``parameters``, ``active_parameters`` and ``flops_per_query`` of the model at its capacity
    (at its first value if none passed), with the learning rate of that run. Rows are sorted
    by family, q and parameters.
    """
    from simulations.verdicts import combine, current, extension_key

    found = runs(store_path, task=task)
    first: dict[str, int] = {}  # the steps a run had before any extension doubled them
    for run in found:
        ext = extension_key(run["config"])
        steps = int(run["config"].get("steps", 0))
        first[ext] = min(first.get(ext, steps), steps)
    grouped: dict[tuple, dict[int, list[dict[str, Any]]]] = {}
    for run in current(found):  # an extension stands in for the run it extends
        config = run["config"]
        if config.get(field) is None:
            continue
        key = model_key(
            {**config, "steps": first[extension_key(config)]} if "steps" in config else config,
            field,
        )
        grouped.setdefault(key, {}).setdefault(config[field], []).append(run)
    rows = []
    for key, by_value in grouped.items():
        largest, shown, tried, verdict = 0, None, None, "reached"
        for v in sorted(by_value):
            best = max(by_value[v], key=lambda r: r["best_accuracy"])
            tried, shown = v, shown or best
            if best["best_accuracy"] < best["config"]["target"]:
                # best below the target: a stored "reached" means the final accuracy fell back
                verdict = combine(
                    [
                        r["verdict"] if r["verdict"] != "reached" else "plateaued"
                        for r in by_value[v]
                    ]
                )
                break
            largest, shown = v, best
        rows.append(_capacity_row(dict(key), field, by_value, largest, tried, verdict, shown))
    rows.sort(key=lambda r: (r["family"], r["hops"], r["parameters"]))
    return rows


def _capacity_row(
    config: dict[str, Any],
    field: str,
    by_value: dict[int, list[dict[str, Any]]],
    largest: int,
    tried: Any,
    verdict: str,
    shown: dict[str, Any],
) -> dict[str, Any]:
    """One model's row of :func:`capacities`: its capacity (a number, or "undecided" with the
    one-sided bound), and the size and cost of the model of the run ``shown``."""
    from models.looped import forward_flops
    from simulations.training import TrainConfig, build_model

    entities = config.get("entities")
    # An undecided miss (still improving when its budget ran out) leaves the capacity open:
    # at least ``largest``, never a number.
    number: int | str = "undecided" if verdict == "undecided" else largest
    model, task_obj = build_model(TrainConfig.from_dict(shown["config"]))
    return {
        "family": family(config),
        "arch": config["arch"],
        "width": config["width"],
        "layers": config["layers"],
        "loops": config.get("loops"),
        "experts": config.get("experts", 1),
        "hops": config["length"],
        "entities": entities,
        field: number,
        "largest": number,
        "triples": (number if isinstance(number, str) else number * entities)
        if entities is not None
        else None,
        "largest_at_least": largest,
        "triples_at_least": largest * entities if entities is not None else None,
        "verdict": verdict,
        "tried": tried,
        "passed_all": largest == tried,
        "best_accuracy_at_next": None
        if largest == tried
        else max(r["best_accuracy"] for r in by_value[tried]),
        "parameters": model.param_count(),
        "active_parameters": model.active_param_count(),
        "flops_per_query": forward_flops(model, task_obj.max_tokens),
        "lr": shown["config"]["lr"],
        "config": config,
    }


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "config"}


def fitted_slope(points: list[tuple[int, int]]) -> float | None:
    """The least-squares slope of triples against parameters, computed exactly in rationals
    (so that equal triples give exactly 0, never a rounding error's sign); None with fewer than
    two distinct parameter counts."""

    xs = [Fraction(p) for p, _ in points]
    ys = [Fraction(t) for _, t in points]
    if len(set(xs)) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return float(num / sum((x - mx) ** 2 for x in xs))


def slopes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Least-squares slopes of the largest T against parameters per (family, q), over the models
    of different sizes (at least two) whose capacity is a number (undecided ones are left out),
    next to the paper's where it gives one; and, per q, the looped-MoE slope over the standard
    one, only when both slopes are positive (otherwise ``ratio`` is None and ``why`` says which
    slope is not). The slopes are fitted exactly (:func:`fitted_slope`): a flat fit is 0, never
    rounding noise of either sign."""
    cells: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for r in rows:
        if isinstance(r["triples"], int):  # undecided capacities are no numbers to fit
            cells.setdefault((r["family"], r["hops"]), []).append((r["parameters"], r["triples"]))
    out = []
    for (fam, q), points in sorted(cells.items()):
        out.append(
            {
                "family": fam,
                "hops": q,
                "models": len(points),
                "slope": fitted_slope(points),
                "paper_slope": PAPER_SLOPES.get((fam, q)),
            }
        )
    by = {(r["family"], r["hops"]): r["slope"] for r in out}
    for q in sorted({q for _, q in by}):
        moe, std = by.get(("looped-moe", q)), by.get(("standard", q))
        if moe is None or std is None:
            continue
        row: dict[str, Any] = {"family": "looped-moe / standard", "hops": q,
                               "paper_ratio": PAPER_RATIO_Q4 if q == 4 else None}  # fmt: skip
        bad = [
            f"the {name} slope is {slope:.4g}"
            for name, slope in (("looped-MoE", moe), ("standard", std))
            if slope <= 0
        ]
        if bad:
            row.update(ratio=None, why=" and ".join(bad) + ", not positive")
        else:
            row["ratio"] = moe / std
        out.append(row)
    return out
