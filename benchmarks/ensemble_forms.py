"""Batched forms against running the members one after the other, in one process.

For every architecture and a few shapes: the median time of one ensemble training step (forward,
member losses, backward, optimiser) of M members as :class:`simulations.stacks.LoopStack` (each
member its own module and torch Adam) and as the architecture's batched form
(:data:`simulations.stacks.BATCHED`), on the same batch, one torch thread. This is the
measurement behind ``simulations.stacks.CPU_LOOP`` and ``CPU_BATCHED_WORK``.

    python benchmarks/ensemble_forms.py                 # the CPU, M = 8
    python benchmarks/ensemble_forms.py --device cuda --members 16

Writes benchmarks/results/ensemble_forms.{json,md} (``--device cuda``: ensemble_forms_cuda.*).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch

import models
from simulations.ensemble import member_losses
from simulations.stacks import BATCHED, LoopStack, work
from simulations.training import TrainConfig, build_model

RESULTS = Path(__file__).resolve().parent / "results"
SHAPES = [(16, 16), (32, 32), (16, 64), (64, 64)]  # (width, N), batch 32, one layer


def step_seconds(
    form: type, configs: list[TrainConfig], batch: list[torch.Tensor], device, repeats: int
) -> float:
    stack = form([build_model(c)[0] for c in configs], [c.recipe.lr for c in configs], device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    times = []
    for _ in range(repeats + 1):  # the first is a warm-up
        sync()
        start = time.perf_counter()
        stack.zero_grad()
        member_losses(stack.forward(batch[0]), batch[1], batch[2]).sum().backward()
        stack.step()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--members", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--archs", nargs="+", default=list(models.REGISTRY))
    args = parser.parse_args()
    device = torch.device(args.device)
    torch.set_num_threads(1)
    report = {
        "command": " ".join(["python", *sys.argv]),
        "device": str(device),
        "members": args.members,
        "torch": torch.__version__,
        "load_start": [round(x, 2) for x in os.getloadavg()],
        "rows": [],
    }
    for width, length in SHAPES:
        for arch in args.archs:
            configs = [
                TrainConfig.of(
                    task="index-lookup",
                    arch=arch,
                    width=width,
                    layers=1,
                    length=length,
                    heads=4,
                    batch=32,
                    seed=s,
                    lr=1e-3,
                )
                for s in range(args.members)
            ]
            task = build_model(configs[0])[1]
            gen = torch.Generator().manual_seed(0)
            parts = [task.sample(32, length, gen) for _ in configs]
            batch = [torch.stack(t).to(device) for t in zip(*parts, strict=True)]
            row = {"arch": arch, "width": width, "length": length, "work": work(configs[0]),
                   "load": round(os.getloadavg()[0], 2),
                   "form": BATCHED[arch].strategy}  # fmt: skip
            row["loop_s"] = step_seconds(LoopStack, configs, batch, device, args.repeats)
            row["batched_s"] = step_seconds(BATCHED[arch], configs, batch, device, args.repeats)
            row["speed-up"] = round(row["loop_s"] / row["batched_s"], 2)
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
    report["load_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.mkdir(exist_ok=True)
    name = "ensemble_forms" if device.type == "cpu" else "ensemble_forms_cuda"
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        f"# Batched forms against one member after the other ({report['device']})",
        "",
        f"Command: `{report['command']}`; torch {report['torch']}, one thread, "
        f"{report['members']} members, index lookup, one layer, batch 32; median of "
        f"{args.repeats} ensemble steps after a warm-up. Load average {report['load_start']} "
        f"at the start, {report['load_end']} at the end (a shared machine; timings taken under "
        "that load).",
        "",
        "| arch | width | N | multiply-adds per member step | one after the other ms "
        "| batched form | batched ms | speed-up |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['arch']} | {r['width']} | {r['length']} | {r['work']:.2e} | "
        f"{1e3 * r['loop_s']:.1f} | {r['form']} | {1e3 * r['batched_s']:.1f} | {r['speed-up']}x |"
        for r in report["rows"]
    ]
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
