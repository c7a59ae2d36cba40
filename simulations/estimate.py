"""What a sweep will cost on this machine, before it runs: ``ccx sweep --dry-run``.

A documented cost model, calibrated by a short probe measured here and now:

* work of one training step of a run, in multiply-adds: :func:`simulations.stacks.work`
  (``batch * T * (layers * per-token + w * classes)``, per token ``12 w^2 + 2 T w`` for the
  models whose float forward scores all pairs of positions, ``w^2 + 32 w`` for the others);
* seconds of one step of one run: ``a + c * T + b * work``, with ``a`` (fixed cost: data,
  launches, Python), ``c`` (a cost per token: a model that steps token by token, as every model
  trained at p bits does, pays it at any width) and ``b`` fitted per architecture from steps
  timed at three probe shapes (two lengths at one width, a wider and longer one);
* an ensemble of g members: ``g * efficiency * (a + b * work)``, ``efficiency`` measured per
  architecture as (ensemble of 4 steps) / (4 single steps) at the larger probe shape;
* evaluations: ``ceil(eval_samples / batch)`` forward passes every ``eval_every`` steps, each a
  third of a step (forward only);
* every run trains all its ``steps`` (early stopping only shortens a sweep; a capacity search is
  priced as if every model grew to ``grow_to``). This is no upper bound: the cost model errs per
  architecture (the `bite` profile's runs took 0.8 to 2.1 times their estimate, 1.17 times in
  all, on a machine shared with other work; the whole profile, on the idle machine, 38 minutes
  against 39 estimated), so a long sweep's progress lines, paced by the runs it finished, are the
  better clock;
* the units of work (ensembles, or single runs) are spread over the workers longest first; on a
  GPU they are summed (the device runs one kernel stream at a time).

The probe trains on the real task samplers and models, with the threads each pool worker would
get, and takes a few seconds per architecture.
"""

from __future__ import annotations

import heapq
import math
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from simulations.ensemble import train_ensemble
from simulations.stacks import work
from simulations.store import Store
from simulations.training import TrainConfig, train
from simulations.units import plan_units

PROBES = (
    {"width": 16, "length": 16, "batch": 8},
    {"width": 16, "length": 64, "batch": 8},
    {"width": 64, "length": 64, "batch": 32},
)
PROBE_STEPS = 3
PROBE_MEMBERS = 4
EVAL_COST = 1 / 3  # a forward pass against a training step (forward, backward, Adam)


def _step_seconds(configs: list[TrainConfig], device: str) -> float:
    """Seconds per step of ``configs`` trained together (one config: alone), from the difference
    between runs of PROBE_STEPS + 1 and 1 steps, so that set-up and the final evaluation cancel."""

    def run(steps: int) -> float:
        short = [c.replace(steps=steps, eval_every=steps, eval_samples=1) for c in configs]
        start = time.perf_counter()
        if len(short) == 1:
            train(short[0], progress=False, device=device)
        else:
            train_ensemble(short, device=device)
        return time.perf_counter() - start

    run(1)  # warm-up
    return max(1e-6, (run(PROBE_STEPS + 1) - run(1)) / PROBE_STEPS)


HELD_PROBE_BITS = 4
"""The precision of the probe of models trained at p bits (their cost hardly depends on p)."""


def cost_key(config: TrainConfig) -> str:
    """Which probe prices a run: its architecture, trained in float or at p bits (a model that
    holds its messages steps token by token or scores pairs of positions: another cost)."""
    return config.model.arch + (" at p bits" if config.model.precision is not None else "")


def probe(arch: str, task: str, device: str, held: bool = False) -> dict[str, float]:
    """Measured cost-model coefficients of ``arch`` on this machine (``held``: trained at p
    bits, which trains alone: no ensemble is probed)."""
    rows, seconds, big = [], [], None
    for shape in PROBES:
        config = TrainConfig.of(
            task=task,
            arch=arch,
            layers=1,
            heads=2,
            **shape,
            precision=HELD_PROBE_BITS if held else None,
        )
        rows.append([1.0, float(_tokens(config)), work(config)])
        seconds.append(_step_seconds([config], device))
        big = config
    a, c, b = _nonnegative_fit(rows, seconds)
    efficiency = 1.0
    if not held:
        members = [big.replace(seed=s, lr=1e-3 * (s + 1)) for s in range(PROBE_MEMBERS)]
        efficiency = _step_seconds(members, device) / (PROBE_MEMBERS * seconds[-1])
    return {
        "a_seconds": a,
        "c_seconds_per_token": c,
        "b_seconds_per_madd": b,
        "ensemble_efficiency": efficiency,
    }


def _tokens(config: TrainConfig) -> int:
    from simulations.tasks import get_task

    return get_task(config.task.name, config.task.length).max_tokens


def _nonnegative_fit(rows: list[list[float]], seconds: list[float]) -> tuple[float, ...]:
    """The coefficients >= 0 that fit ``seconds`` best (timings are noisy: a negative cost per
    token or per multiply-add would make long runs look free)."""
    from scipy.optimize import nnls

    scale = [max(abs(r[j]) for r in rows) or 1.0 for j in range(len(rows[0]))]
    scaled = [[r[j] / scale[j] for j in range(len(r))] for r in rows]
    solution, _ = nnls(np.array(scaled), np.array(seconds))
    return tuple(float(x / s) for x, s in zip(solution, scale, strict=True))


def unit_seconds(unit: list[TrainConfig], coefficients: dict[str, float]) -> float:
    """Estimated seconds of one unit of work (a single run or an ensemble)."""
    c = unit[0]
    step = (
        coefficients["a_seconds"]
        + coefficients.get("c_seconds_per_token", 0.0) * _tokens(c)
        + coefficients["b_seconds_per_madd"] * work(c)
    )
    if len(unit) > 1:
        step *= len(unit) * coefficients["ensemble_efficiency"]
    evaluations = c.recipe.steps / c.evaluation.eval_every
    return step * (
        c.recipe.steps
        + evaluations * math.ceil(c.evaluation.eval_samples / c.recipe.batch) * EVAL_COST
    )


def makespan(durations: list[float], workers: int) -> float:
    """Wall time of ``durations`` on ``workers`` machines, longest first to the least loaded."""
    loads = [0.0] * workers
    for d in sorted(durations, reverse=True):
        heapq.heappush(loads, heapq.heappop(loads) + d)
    return max(loads)


def pending_runs(spec: Any, store_path: str | Path, allow_large_grid: bool = False) -> int:
    """How many runs of ``spec`` the store does not hold yet (a capacity search: its first
    round), read without training or probing anything."""
    from simulations import sweeps

    done: set[str] = set()
    if Path(store_path).is_file():
        with Store(store_path, readonly=True) as store:
            done = store.done_hashes()
    sweep = spec if isinstance(spec, sweeps.SweepSpec) else sweeps.load_spec(spec, allow_large_grid)
    return sum(1 for h in sweep.hashes() if h not in done)


def dry_run(
    spec: Any,
    store_path: str | Path,
    workers: int | None = None,
    ensemble: int | None = None,
    allow_large_grid: bool = False,
) -> dict[str, Any]:
    """The runs of ``spec`` (those not yet in the store) and their estimated wall time here.

    Writes nothing: the options and the spec are checked as :func:`simulations.sweeps.run_sweep`
    checks them, and an existing store is read read-only (it must be a results store)."""
    from ccomplexity import limits
    from simulations import sweeps
    from simulations.training import resolve_device

    if workers is not None:
        limits.WORKERS.check(workers, "workers")
    if ensemble is not None:
        limits.ENSEMBLE.check(ensemble, "ensemble")
    done: set[str] = set()
    if Path(store_path).exists() or Path(store_path).is_symlink():
        with Store(store_path, readonly=True) as store:  # one of ours, or a one-line refusal
            done = store.done_hashes()
    sweep = spec if isinstance(spec, sweeps.SweepSpec) else sweeps.load_spec(spec, allow_large_grid)
    if sweep.grow is not None:  # a capacity search: every round it could train, an upper bound
        from simulations.capacity import every_round

        sweep = every_round(sweep)
    pending = [(h, c) for h, c in zip(sweep.hashes(), sweep.configs, strict=True) if h not in done]
    cap = sweeps.DEFAULT_ENSEMBLE if ensemble is None else ensemble
    processes = max(1, min(workers or sweeps.default_workers(), len(pending) or 1))
    units = plan_units(pending, cap, processes) if pending else []
    device = resolve_device("auto")
    threads = torch.get_num_threads()
    start = time.perf_counter()
    coefficients: dict[str, dict[str, float]] = {}
    torch.set_num_threads(max(1, sweeps.default_workers() // processes))
    try:
        for key, c in sorted({cost_key(c): c for _, c in pending}.items()):
            held = c.model.precision is not None
            coefficients[key] = probe(c.model.arch, "index-lookup", str(device), held)
    finally:
        torch.set_num_threads(threads)
    durations = [unit_seconds([c for _, c in u], coefficients[cost_key(u[0][1])]) for u in units]
    wall = sum(durations) if device.type == "cuda" else makespan(durations, processes)
    return {
        "sweep": sweep.name,
        "source": sweep.source,
        "runs": len(sweep.configs),
        "pending": len(pending),
        "units": len(units),
        "largest_ensemble": max(map(len, units), default=0),
        "ensemble": cap,
        "workers": processes,
        "device": str(device),
        "estimated_seconds": round(wall, 1),
        "estimate": "every run at all its steps (early stopping only shortens it), by the cost "
        "model of simulations/estimate.py, calibrated by the probe measured now on this machine",
        "probe_seconds": round(time.perf_counter() - start, 1),
        "probe": {a: {k: float(f"{v:.4g}") for k, v in c.items()} for a, c in coefficients.items()},
        "median_unit_seconds": round(statistics.median(durations), 1) if durations else 0.0,
    }
