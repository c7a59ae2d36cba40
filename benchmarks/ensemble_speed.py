"""Ensembles against one model per process: training throughput in model-steps per second.

For every architecture of the zoo, 16 runs of one shape (4 learning rates x 4 seeds, index lookup)
are trained by ``run_sweep`` as a user would, side by side in one run of this script:

* ``pool``: one model per process, ``--ensemble 1``, a pool of ``--workers`` processes (today's
  way to fill a machine);
* ``ensembles``: ``--ensemble 16`` with the same pool: the sweep splits the 16 runs into one
  ensemble per worker (:func:`simulations.ensemble.plan_units`); on a GPU (``--workers 1``) all 16
  are one ensemble in one process.

Throughput = 16 x steps / wall seconds of the whole sweep (process start-up, data, evaluation at the
end and checkpoints included, the same for every mode). With ``--baseline-steps S0`` (the default
on a GPU: 1) each mode is also swept at S0 steps, and the steady throughput 16 x (steps - S0) /
(wall - wall at S0) leaves out what does not grow with the steps (a pool's 16 process start-ups,
CUDA contexts and kernel compilation, the ensemble's graph capture, the final evaluation); then
``speed-up`` is the ratio of steady throughputs and ``whole-sweep speed-up`` that of whole sweeps.

Two shapes: ``tiny`` (width 16, N = 16, batch 32), where the CPU batches the members, and ``small``
(width 64, N = 64, batch 32), where it runs them one after the other
(``simulations.stacks.batched_form``).

    python benchmarks/ensemble_speed.py                       # the CPU, all architectures
    python benchmarks/ensemble_speed.py --device cuda --workers 16   # 16 processes vs 1 ensemble
    python benchmarks/ensemble_speed.py --device cuda --workers 16 --shapes small --steps 60 200

Writes benchmarks/results/ensemble_speed.{json,md} (``--device cuda``: ensemble_speed_cuda.*).
"""

from __future__ import annotations

import argparse
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
    base = TrainConfig.of(
        task="index-lookup",
        arch=arch,
        layers=1,
        heads=4,
        steps=steps,
        eval_every=steps,
        eval_samples=100,
        target=1.0,
        **shape,
    )
    configs = tuple(base.replace(lr=lr, seed=s) for lr in LRS for s in SEEDS)
    return SweepSpec(f"{arch}-bench", "", None, "benchmark", configs)


def measure(sweep: SweepSpec, workers: int, ensemble: int) -> float:
    """Wall seconds of the whole sweep into a fresh store."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        summary = run_sweep(
            sweep, Path(folder) / "s.db", workers=workers, ensemble=ensemble, progress=False
        )
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
    parser.add_argument(
        "--steps",
        type=int,
        nargs=2,
        default=[60, 15],
        help="training steps per run for the tiny and the small shape",
    )
    parser.add_argument(
        "--baseline-steps",
        type=int,
        default=None,
        help="also sweep at this many steps, for the steady throughput "
        "(default: 1 on a GPU, none on the CPU)",
    )
    parser.add_argument(
        "--update", action="store_true", help="keep the earlier rows of archs not measured now"
    )
    args = parser.parse_args()
    device = resolve_device(args.device)
    baseline = args.baseline_steps
    if baseline is None and device.type == "cuda":
        baseline = 1
    if device.type == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = ""  # the sweeps' "auto" device must be the CPU
    report = {
        "command": " ".join(["python", *sys.argv]),
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "cuda": torch.version.cuda if device.type == "cuda" else None,
        "cpu_cores": os.cpu_count(),
        "torch": torch.__version__,
        "baseline_steps": baseline,
        "workers": args.workers,
        "members": len(LRS) * len(SEEDS),
        "load_start": [round(x, 2) for x in os.getloadavg()],
        "rows": [],
    }
    if args.update and results_path(device).exists():
        kept = json.loads(results_path(device).read_text())
        remeasured = {(a, shape) for a in args.archs for shape in args.shapes}
        report["earlier"] = [kept["command"], *kept.get("earlier", [])]
        report["rows"] = [r for r in kept["rows"] if (r["arch"], r["shape"]) not in remeasured]
    pool_workers = args.workers
    ensemble_workers = args.workers if device.type == "cpu" else 1
    modes = {"pool": (pool_workers, 1), "ensembles": (ensemble_workers, 16)}
    for shape_name in args.shapes:
        steps = args.steps[list(SHAPES).index(shape_name)]
        for arch in args.archs:
            sweep = spec(arch, SHAPES[shape_name], steps)
            row = {"arch": arch, "shape": shape_name, **SHAPES[shape_name], "steps": steps,
                   "measured": time.strftime("%Y-%m-%d %H:%M:%S"),
                   "form": batched_form(sweep.configs[0], device).strategy}  # fmt: skip
            for mode, (workers, ensemble) in modes.items():
                if workers == 1 and baseline is not None:  # in this process: compile, warm up
                    measure(spec(arch, SHAPES[shape_name], baseline), workers, ensemble)
                row[f"load {mode}"] = round(os.getloadavg()[0], 2)
                wall = measure(sweep, workers, ensemble)
                row[f"{mode} s"] = round(wall, 2)
                row[f"{mode} steps/s"] = round(len(sweep.configs) * steps / wall, 1)
                if baseline is not None and baseline < steps:
                    short = measure(spec(arch, SHAPES[shape_name], baseline), workers, ensemble)
                    row[f"{mode} s at {baseline}"] = round(short, 2)
                    row[f"{mode} steady steps/s"] = round(
                        len(sweep.configs) * (steps - baseline) / max(wall - short, 1e-9), 1
                    )
            whole = row["ensembles steps/s"] / row["pool steps/s"]
            row["whole-sweep speed-up"] = round(whole, 2)
            steady = "ensembles steady steps/s" in row and "pool steady steps/s" in row
            row["speed-up"] = (
                round(row["ensembles steady steps/s"] / row["pool steady steps/s"], 2)
                if steady
                else round(whole, 2)
            )
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
            write(report, device)  # after every row: an interrupted run keeps what it measured
    write(report, device)


def results_path(device: torch.device) -> Path:
    return RESULTS / ("ensemble_speed.json" if device.type == "cpu" else "ensemble_speed_cuda.json")


def write(report: dict, device: torch.device) -> None:
    report["load_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.mkdir(exist_ok=True)
    order = {a: i for i, a in enumerate(models.REGISTRY)}
    report["rows"].sort(key=lambda r: (list(SHAPES).index(r["shape"]), order.get(r["arch"], 99)))
    path = results_path(device)
    path.write_text(json.dumps(report, indent=1) + "\n")
    path.with_suffix(".md").write_text(markdown(report))


def markdown(report: dict) -> str:
    steady = report.get("baseline_steps") is not None
    where = f"CUDA {report['cuda']}, " if report.get("cuda") else ""
    lines = [
        f"# Ensembles against one model per process ({report['device']})",
        "",
        f"Command: `{report['command']}`; torch {report['torch']}, {where}{report['cpu_cores']} "
        f"CPU cores, pools of {report['workers']} worker processes, {report['members']} runs "
        "per row (4 learning rates x 4 seeds, index lookup, 1 layer). Load average "
        f"{report['load_start']} at the start and {report['load_end']} at the end (the "
        "1-minute load before each mode is in the JSON). Model-steps per second of the whole "
        "sweep (start-up, data, the final evaluation and checkpoints included).",
    ]
    if report.get("earlier"):
        lines += [
            "",
            "Rows kept from earlier runs (`--update`; each row's pool and ensembles were "
            "measured together; the JSON has the time of each row measured since): "
            + "; ".join(f"`{c}`" for c in report["earlier"]),
        ]
    if steady:
        lines += [
            "",
            f"Steady: each mode swept again at {report['baseline_steps']} step(s); "
            "16 x (steps - that) / (wall - its wall), which leaves out what does not grow with "
            "the steps (process start-ups, CUDA contexts, compilation, graph capture, the final "
            "evaluation). `speed-up` is the ratio of steady throughputs.",
        ]
    head = "| arch | shape | steps | form | pool steps/s | ensembles steps/s | whole sweep |"
    rule = "|---|---|---|---|---|---|---|"
    if steady:
        head += " pool steady | ensembles steady | speed-up (steady) |"
        rule += "---|---|---|"
    lines += ["", head, rule]
    for r in report["rows"]:
        line = (
            f"| {r['arch']} | {r['shape']} (w {r['width']}, N {r['length']}) | {r['steps']} | "
            f"{r['form']} | {r['pool steps/s']} | {r['ensembles steps/s']} | "
            f"{r.get('whole-sweep speed-up', r['speed-up'])}x |"
        )
        if steady:
            line += (
                f" {r.get('pool steady steps/s', '')} | {r.get('ensembles steady steps/s', '')} "
                f"| {r['speed-up']}x |"
            )
        lines.append(line)
    if report["device"] == "cpu":
        lines += [
            "",
            "## GPU",
            "",
            "The same table on one GPU, 16 worker processes against one ensemble of 16 "
            f"(`{GPU_COMMAND}`): `ensemble_speed_cuda.md`. The target there is 8x for every "
            "architecture; what is still short of it: `gpu_pending.md`.",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
