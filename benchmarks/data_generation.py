"""Data generation speed of every task sampler, against a training step (it must never bind).

    python benchmarks/data_generation.py

Writes benchmarks/results/data_generation.{json,md}: samples per second at batch 64 for
training batches (App. H length distribution) and evaluation batches (exactly N), one torch
thread, median of repeated calls.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

import torch

from simulations.tasks import get_task

RESULTS = Path(__file__).parent / "results"
LENGTHS = {"index-lookup": [20, 100, 400], "dyck": [20, 100, 400], "eq-random": [20, 100, 400],
           "eq-one": [20, 100, 400], "eq-ncp": [20, 100, 400], "mqar": [20, 64]}  # fmt: skip
BATCH = 64


def seconds_per_batch(task, length: int, train: bool, repeats: int = 20) -> float:
    generator = torch.Generator().manual_seed(0)
    task.sample(BATCH, length, generator, train=train)  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        task.sample(BATCH, length, generator, train=train)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    torch.set_num_threads(1)
    load = os.getloadavg()
    rows = []
    for name, lengths in LENGTHS.items():
        for n in lengths:
            task = get_task(name, n)
            for train in (True, False):
                s = seconds_per_batch(task, n, train)
                rows.append(
                    {
                        "task": name,
                        "length": n,
                        "train": train,
                        "ms_per_batch": 1000 * s,
                        "samples_per_s": BATCH / s,
                    }
                )
                print(f"{name} N={n} {'train' if train else 'eval'}: {1000 * s:.2f} ms/batch")
    RESULTS.mkdir(exist_ok=True)
    report = {"batch": BATCH, "torch_threads": 1, "load_before": load, "rows": rows}
    (RESULTS / "data_generation.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        "# Data generation speed",
        "",
        f"Command: `python benchmarks/data_generation.py`; batch {BATCH}, one torch thread, median "
        f"of 20 calls; load average {load[0]:.2f} at start (shared machine). Compare with a "
        "training step of 50-420 ms at N = 200 (`train_step_all.md`).",
        "",
        "| task | N | batch | ms per batch | samples/s |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['task']} | {r['length']} | {'train' if r['train'] else 'eval'} | "
        f"{r['ms_per_batch']:.2f} | {r['samples_per_s']:.0f} |"
        for r in rows
    ]
    (RESULTS / "data_generation.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
