"""Ensembles against one model per process: training throughput in model-steps per second.

For every architecture of the zoo, 16 runs of one shape (4 learning rates x 4 seeds, index lookup)
are trained by ``run_sweep`` as a user would, side by side in one run of this script:

* ``pool``: one model per process, ``--ensemble 1``, a pool of ``--workers`` processes (today's
  way to fill a machine);
* ``ensembles``: ``--ensemble 16`` with the same pool: the sweep splits the 16 runs into one
  ensemble per worker (:func:`simulations.ensemble.plan_units`); on a GPU (``--workers 1``) all 16
  are one ensemble in one process.

Throughput = 16 x steps / wall seconds of the whole sweep (process start-up, data, evaluation at the
end and checkpoints included, the same for every mode). Two shapes: ``tiny`` (width 16, N = 16,
batch 32), where the CPU batches the members, and ``small`` (width 64, N = 64, batch 32), where it
runs them one after the other (``simulations.stacks.batched_form``).

    python benchmarks/ensemble_speed.py                       # the CPU, all architectures
    python benchmarks/ensemble_speed.py --device cuda --workers 16   # 16 processes vs 1 ensemble

Writes benchmarks/results/ensemble_speed.{json,md} (``--device cuda``: ensemble_speed_cuda.*).
Without a GPU the CUDA rows are recorded as still to be measured, with the command above.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

import models
from simulations.stacks import batched_form
from simulations.sweeps import SweepSpec, default_workers, run_sweep
from simulations.training import TrainConfig, resolve_device

RESULTS = Path(__file__).resolve().parent / "results"
LRS = (1e-2, 3e-3, 1e-3, 3e-4)
SEEDS = (0, 1, 2, 3)
SHAPES = {
    "tiny": {"width": 16, "length": 16, "batch": 32},
    "small": {"width": 64, "length": 64, "batch": 32},
}
GPU_COMMAND = "python benchmarks/ensemble_speed.py --device cuda --workers 16"


def spec(arch: str, shape: dict, steps: int) -> SweepSpec:
    base = TrainConfig(task="index-lookup", arch=arch, layers=1, heads=4, steps=steps,
                       eval_every=steps, eval_samples=100, target=1.0, **shape)  # fmt: skip
    configs = tuple(dataclasses.replace(base, lr=lr, seed=s) for lr in LRS for s in SEEDS)
    return SweepSpec(f"{arch}-bench", "", None, "benchmark", configs)


def measure(sweep: SweepSpec, workers: int, ensemble: int) -> float:
    """Wall seconds of the whole sweep into a fresh store."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        summary = run_sweep(sweep, Path(folder) / "s.db", workers=workers, ensemble=ensemble,
                            progress=False)  # fmt: skip
        wall = time.perf_counter() - start
    if summary["failed"]:
        raise RuntimeError(f"{sweep.name}: {summary['failed'][0]['error']}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--archs", nargs="+", default=list(models.REGISTRY))
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--steps", type=int, nargs=2, default=[60, 15],
                        help="training steps per run for the tiny and the small shape")  # fmt: skip
    args = parser.parse_args()
    device = resolve_device(args.device)
    if device.type == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = ""  # the sweeps' "auto" device must be the CPU
    report = {
        "command": " ".join(["python", *sys.argv]),
        "device": str(device),
        "cpu_cores": os.cpu_count(),
        "torch": torch.__version__,
        "workers": args.workers,
        "members": len(LRS) * len(SEEDS),
        "load_start": [round(x, 2) for x in os.getloadavg()],
        "rows": [],
    }
    pool_workers = args.workers
    ensemble_workers = args.workers if device.type == "cpu" else 1
    modes = {"pool": (pool_workers, 1), "ensembles": (ensemble_workers, 16)}
    for shape_name in args.shapes:
        steps = args.steps[list(SHAPES).index(shape_name)]
        for arch in args.archs:
            sweep = spec(arch, SHAPES[shape_name], steps)
            row = {"arch": arch, "shape": shape_name, **SHAPES[shape_name], "steps": steps,
                   "form": batched_form(sweep.configs[0], device).strategy}  # fmt: skip
            for mode, (workers, ensemble) in modes.items():
                row[f"load {mode}"] = round(os.getloadavg()[0], 2)
                wall = measure(sweep, workers, ensemble)
                row[f"{mode} s"] = round(wall, 2)
                row[f"{mode} steps/s"] = round(len(sweep.configs) * steps / wall, 1)
            row["speed-up"] = round(row["ensembles steps/s"] / row["pool steps/s"], 2)
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
    report["load_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.mkdir(exist_ok=True)
    name = "ensemble_speed" if device.type == "cpu" else "ensemble_speed_cuda"
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown(report))


def markdown(report: dict) -> str:
    lines = [
        f"# Ensembles against one model per process ({report['device']})",
        "",
        f"Command: `{report['command']}`; torch {report['torch']}, {report['cpu_cores']} CPU "
        f"cores, pools of {report['workers']} worker processes, {report['members']} runs per "
        "row (4 learning rates x 4 seeds, index lookup, 1 layer). Load average "
        f"{report['load_start']} at the start and {report['load_end']} at the end: a shared "
        "machine, timings taken under that load (the 1-minute load before each mode is in the "
        "JSON). Model-steps per second of the whole sweep (start-up, data, the final evaluation "
        "and checkpoints included).",
        "",
        "| arch | shape | steps | form | pool steps/s | ensembles steps/s | ensembles / pool |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['arch']} | {r['shape']} (w {r['width']}, N {r['length']}) | {r['steps']} | "
            f"{r['form']} | {r['pool steps/s']} | {r['ensembles steps/s']} | {r['speed-up']}x |"
        )
    if report["device"] == "cpu":
        lines += [
            "",
            "## GPU",
            "",
            "Still to be measured (no GPU was available): the same table on one GPU, 16 worker "
            f"processes against one ensemble of 16, with `{GPU_COMMAND}` (writes "
            "`ensemble_speed_cuda.{json,md}`). The target there is 8x for every architecture.",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
