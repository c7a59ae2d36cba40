"""A sweep's cost against its runs trained alone, on a machine under the load it has.

A two-run sweep of LSTM-64 on index lookup (two learning rates: one ensemble of two members,
``ccx sweep --workers 1``) against the same two runs trained one after the other by
:func:`simulations.training.train`, each on the threads :func:`simulations.workers.worker_threads`
gives (the cores the load leaves free); repeated, alternating, so that both see the same load.
Beside it, what load does to torch's threads: the sweep once more on every core (the rule before
``worker_threads``: cores // workers), and one of the runs trained on 1 thread and on every
core. Cost is CPU seconds (user and system, this process) and wall seconds; the one-minute load
average is read before each measurement.

    python benchmarks/sweep_load.py                  # 300 steps, 2 repeats

Writes benchmarks/results/sweep_load.{json,md}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import torch

from simulations import workers
from simulations.sweeps import run_sweep
from simulations.training import TrainConfig, train
from simulations.workers import default_workers, worker_threads

RESULTS = Path(__file__).resolve().parent / "results"
SPEC = """
[sweep]
name = "load"
[baseline]
task = "index-lookup"
arch = "lstm"
width = 64
layers = 1
length = 20
steps = {steps}
batch = 32
eval_every = 100
eval_samples = 500
[grid]
lr = [1e-3, 3e-3]
"""


def measured(work) -> dict[str, float]:  # noqa: ANN001 - a callable of no arguments
    """CPU and wall seconds of ``work()``, with the load average before it."""
    load = os.getloadavg()[0]
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    work()
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"cpu": cpu, "wall": time.perf_counter() - start, "load": load}


def configs(steps: int) -> list[TrainConfig]:
    return [
        TrainConfig.of(
            task="index-lookup",
            arch="lstm",
            width=64,
            layers=1,
            length=20,
            steps=steps,
            batch=32,
            eval_every=100,
            eval_samples=500,
            lr=lr,
        )
        for lr in (1e-3, 3e-3)
    ]


def alone(steps: int) -> None:
    for config in configs(steps):
        train(config, progress=False, device="cpu", threads=worker_threads(1))


def sweep(steps: int, folder: Path) -> None:
    spec = folder / "load.toml"
    spec.write_text(SPEC.format(steps=steps))
    store = folder / f"load-{time.monotonic_ns()}.db"
    summary = run_sweep(spec, store, workers=1, progress=False)
    assert summary["ran"] == 2 and not summary["failed"], summary


@contextlib.contextmanager
def patched_threads(threads: int) -> Iterator[None]:
    """Sweeps on ``threads`` torch threads whatever the load."""
    before = workers.worker_threads
    workers.worker_threads = lambda processes: threads
    try:
        yield
    finally:
        workers.worker_threads = before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    cores = default_workers()
    rows: dict[str, list[dict[str, float]]] = {
        "alone": [], "sweep": [], f"sweep on {cores} threads (the rule before)": [],
        "1 thread": [], f"{cores} threads": [],
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeats):
            rows["alone"].append(measured(lambda: alone(args.steps)))
            rows["sweep"].append(measured(lambda: sweep(args.steps, Path(tmp))))
        with patched_threads(cores):
            rows[f"sweep on {cores} threads (the rule before)"].append(
                measured(lambda: sweep(args.steps, Path(tmp)))
            )
        one = configs(args.steps)[0]
        for threads, key in ((1, "1 thread"), (cores, f"{cores} threads")):
            rows[key].append(
                measured(lambda t=threads: train(one, progress=False, device="cpu", threads=t))
            )
    median = {
        k: {m: statistics.median(r[m] for r in v) for m in ("cpu", "wall", "load")}
        for k, v in rows.items()
    }
    out = {
        "command": "python benchmarks/sweep_load.py",
        "steps": args.steps,
        "repeats": args.repeats,
        "cores": cores,
        "torch": torch.__version__,
        "worker_threads_now": worker_threads(1),
        "measurements": rows,
        "median": median,
        "sweep_over_alone_cpu": median["sweep"]["cpu"] / median["alone"]["cpu"],
        "sweep_over_alone_wall": median["sweep"]["wall"] / median["alone"]["wall"],
        "old_over_alone_wall": median[f"sweep on {cores} threads (the rule before)"]["wall"]
        / median["alone"]["wall"],
        "threads_slowdown_wall": median[f"{cores} threads"]["wall"] / median["1 thread"]["wall"],
        "threads_slowdown_cpu": median[f"{cores} threads"]["cpu"] / median["1 thread"]["cpu"],
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sweep_load.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        "# A sweep's cost against its runs alone, under the machine's load",
        "",
        f"Command: `{out['command']}`; torch {torch.__version__}, {cores} cores shared with other "
        f"jobs; LSTM-64 on index lookup at N = 20, {args.steps} steps of batch 32, two learning "
        f"rates; medians of {args.repeats} alternating repeats. Load: the one-minute load average "
        "before each measurement.",
        "",
        "| measurement | CPU s | wall s | load |",
        "|---|---|---|---|",
        *(f"| {k} | {v['cpu']:.1f} | {v['wall']:.1f} | {v['load']:.1f} |"
          for k, v in median.items()),
        "",
        f"Sweep (one ensemble of 2, `--workers 1`) over its runs alone: "
        f"{out['sweep_over_alone_cpu']:.2f}x the CPU, {out['sweep_over_alone_wall']:.2f}x the "
        f"wall time; on {cores} threads whatever the load (the rule before): "
        f"{out['old_over_alone_wall']:.1f}x the wall time. One run on {cores} threads against 1 "
        "thread: "
        f"{out['threads_slowdown_wall']:.1f}x the wall time, {out['threads_slowdown_cpu']:.1f}x "
        "the CPU.",
    ]  # fmt: skip
    (RESULTS / "sweep_load.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
