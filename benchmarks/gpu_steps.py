"""Where a training step's time goes on a GPU: kernels per step, GPU-busy time and launch gaps.

For every architecture of the zoo, in the ``small`` shape of ``ensemble_speed.py`` (width 64,
N = 64, batch 32, index lookup, 1 layer):

* ``ensemble``: one 16-member ensemble as :func:`simulations.ensemble.train_ensemble` steps it
  (its batched form, the fixed buffers and, on a GPU, the captured CUDA graph), split into the
  host's data (16 members' batches, pinned and copied) and the step itself;
* ``single``: one model's eager step as :func:`simulations.training.train` takes it (what each
  process of a pool does).

Each is timed over ``--steps`` steps after warm-up (synchronised), then profiled over 10 steps
with ``torch.profiler``: GPU kernels per step, their summed time (busy), and wall - busy (the
launch gaps and host work the GPU waits for). Also our Mamba against ``mambapy`` at width 64,
N = 1000, batch 64 (one training step each), when ``mambapy`` is installed.

    python benchmarks/gpu_steps.py                 # on the GPU
    python benchmarks/gpu_steps.py --device cpu --archs transformer --steps 3   # a dry run

Writes benchmarks/results/gpu_steps{,_cpu}.{json,md} (``--name``: another name).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ensemble_speed import SHAPES, spec  # noqa: E402

import models  # noqa: E402
from simulations.ensemble import StaticStep, _batches  # noqa: E402
from simulations.stacks import batched_form, make_stack  # noqa: E402
from simulations.training import build_model, deterministic_on, masked_loss  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
PROFILED = 10
TOP = 8


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def seconds_per_call(fn: Callable[[], object], calls: int, device: torch.device) -> float:
    sync(device)
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    sync(device)
    return (time.perf_counter() - start) / calls


def profiled(fn: Callable[[], object], device: torch.device) -> dict:
    """Kernels, GPU-busy ms and wall ms per call of ``fn`` over :data:`PROFILED` calls."""
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    sync(device)
    with profile(activities=activities) as prof:
        start = time.perf_counter()
        for _ in range(PROFILED):
            fn()
        sync(device)
        wall = time.perf_counter() - start
    events = prof.key_averages()
    on_gpu = [  # kernels and copies; not the GPU-side spans of annotations (Optimizer.step#...)
        e
        for e in events
        if e.device_type == torch.autograd.DeviceType.CUDA
        and not getattr(e, "is_user_annotation", False)
        and "#" not in e.key
    ]
    busy_us = sum(e.self_device_time_total for e in on_gpu)
    launches = {
        name: sum(e.count for e in events if e.key == name)
        for name in ("cudaLaunchKernel", "cudaGraphLaunch", "cuLaunchKernel", "cudaMemcpyAsync")
    }
    top = sorted(on_gpu, key=lambda e: -e.self_device_time_total)[:TOP]
    return {
        "top kernels (name, calls/step, ms/step)": [
            (e.key[:80], e.count / PROFILED, round(e.self_device_time_total / 1e3 / PROFILED, 4))
            for e in top
        ],
        "kernels/step": round(sum(e.count for e in on_gpu) / PROFILED, 1),
        "busy ms/step": round(busy_us / 1e3 / PROFILED, 3),
        "profiled wall ms/step": round(wall * 1e3 / PROFILED, 3),
        "launch calls/step": {k: v / PROFILED for k, v in launches.items() if v},
    }


def ensemble_row(arch: str, steps: int, device: torch.device) -> dict:
    configs = list(spec(arch, SHAPES["small"], steps).configs)
    first = configs[0]
    built = [build_model(c) for c in configs]
    task = built[0][1]
    gens = [torch.Generator().manual_seed(c.seed) for c in configs]

    def data():
        return _batches(task, first, first.recipe.batch, gens, device, train=True)

    batch = data()
    stack = make_stack(
        batched_form(first, device),
        [m for m, _ in built],
        [c.recipe.lr for c in configs],
        device,
        batch[0],
    )
    static = StaticStep(stack, batch, device)
    for _ in range(6):  # eager warm-up, graph capture, a replay
        static.run(*batch)

    def both():
        static.run(*data())

    row = {
        "arch": arch,
        "form": stack.strategy,
        "graphed": static.graph is not None,
        "data ms/step": round(seconds_per_call(data, steps, device) * 1e3, 3),
        "step ms (fixed batch)": round(
            seconds_per_call(lambda: static.run(*batch), steps, device) * 1e3, 3
        ),
        "data + step ms": round(seconds_per_call(both, steps, device) * 1e3, 3),
    }
    row["model-steps/s"] = round(len(configs) * 1e3 / row["data + step ms"], 1)
    row["profile"] = profiled(both, device)
    return row


def single_row(arch: str, steps: int, device: torch.device) -> dict:
    config = spec(arch, SHAPES["small"], steps).configs[0]
    model, task = build_model(config)
    model.to(device).train()
    optimiser = torch.optim.Adam(model.parameters(), lr=config.recipe.lr)
    gen = torch.Generator().manual_seed(config.seed)

    def step():
        tokens, targets, mask = task.sample(
            config.recipe.batch, config.task.length, gen, train=True
        )
        tokens, targets, mask = tokens.to(device), targets.to(device), mask.to(device)
        loss = masked_loss(model(tokens), targets, mask)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()

    for _ in range(3):
        step()
    ms = seconds_per_call(step, steps, device) * 1e3
    return {"arch": arch, "step ms": round(ms, 3), "profile": profiled(step, device)}


def mamba_rows(device: torch.device) -> list[dict]:
    from mamba_speed import MODELS

    tokens = torch.randint(8, (64, 1000), device=device)
    targets = torch.randint(8, (64, 1000), device=device)
    rows = []
    for name, build in MODELS.items():
        try:
            model = build(8, 64, 2).to(device)
        except ImportError as e:
            rows.append({"model": name, "skipped": str(e)})
            continue
        optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)

        def step(model=model, optimiser=optimiser):
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()

        for _ in range(2):
            step()
        ms = seconds_per_call(step, 5, device) * 1e3
        rows.append({"model": name, "step ms": round(ms, 3), "profile": profiled(step, device)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=["cpu", "cuda"])
    parser.add_argument("--archs", nargs="+", default=list(models.REGISTRY))
    parser.add_argument("--steps", type=int, default=50, help="timed steps per measurement")
    parser.add_argument("--no-mamba", action="store_true", help="leave out ours vs mambapy")
    parser.add_argument("--name", help="results file name (default gpu_steps, on the CPU _cpu)")
    args = parser.parse_args()
    device = torch.device(args.device)
    report = {
        "command": " ".join(["python", *sys.argv]),
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "ensemble": [],
        "single": [],
        "mamba": [],
    }
    name = args.name or ("gpu_steps" if device.type == "cuda" else "gpu_steps_cpu")
    for arch in args.archs:
        for key, fn in (("ensemble", ensemble_row), ("single", single_row)):
            try:
                with deterministic_on(device):  # as train_ensemble and train run
                    row = fn(arch, args.steps, device)
            except Exception as exc:  # noqa: BLE001 - record it and go on to the next one
                row = {"arch": arch, "error": f"{type(exc).__name__}: {exc}"[:500]}
            report[key].append(row)
            print(key, json.dumps(row), flush=True)
            write(report, name)
    if not args.no_mamba:
        report["mamba"] = mamba_rows(device)
        for row in report["mamba"]:
            print("mamba", json.dumps(row), flush=True)
    write(report, name)


def write(report: dict, name: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=1) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown(report))


def _prof(row: dict) -> str:
    p = row.get("profile", {})
    gap = p.get("profiled wall ms/step", 0) - p.get("busy ms/step", 0)
    return f"{p.get('kernels/step', '')} | {p.get('busy ms/step', '')} | {gap:.3f}"


def markdown(report: dict) -> str:
    lines = [
        f"# Where a training step's time goes ({report['device']})",
        "",
        f"Command: `{report['command']}`; torch {report['torch']}, CUDA {report['cuda']}. "
        "Small shape (width 64, N = 64, batch 32, index lookup, 1 layer). Kernels, busy (summed "
        f"kernel time) and gap (wall - busy) per step, from torch.profiler over {PROFILED} "
        "steps (profiling slows the host: compare the timed columns for speed).",
        "",
        "## A 16-member ensemble",
        "",
        "| arch | form | graphed | data ms | step ms (fixed batch) | data + step ms "
        "| model-steps/s | kernels | busy ms | gap ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["ensemble"]:
        if "error" in r:
            lines.append(f"| {r['arch']} | error: {r['error']} |||||||||")
            continue
        lines.append(
            f"| {r['arch']} | {r['form']} | {r['graphed']} | {r['data ms/step']} | "
            f"{r['step ms (fixed batch)']} | {r['data + step ms']} | {r['model-steps/s']} | "
            f"{_prof(r)} |"
        )
    lines += [
        "",
        "## One model (a pool process's step)",
        "",
        "| arch | step ms | kernels | busy ms | gap ms |",
        "|---|---|---|---|---|",
    ]
    for r in report["single"]:
        if "error" in r:
            lines.append(f"| {r['arch']} | error: {r['error']} ||||")
            continue
        lines.append(f"| {r['arch']} | {r['step ms']} | {_prof(r)} |")
    if report["mamba"]:
        lines += [
            "",
            "## Mamba, width 64, N = 1000, batch 64, 2 layers",
            "",
            "| model | step ms | kernels | busy ms | gap ms |",
            "|---|---|---|---|---|",
        ]
        for r in report["mamba"]:
            if "skipped" in r:
                lines.append(f"| {r['model']} | skipped: {r['skipped']} ||||")
            else:
                lines.append(f"| {r['model']} | {r['step ms']} | {_prof(r)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
