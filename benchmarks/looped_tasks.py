"""Data generation of the looped paper's tasks against a looped model's training step.

    python benchmarks/looped_tasks.py

Every p-hop sample is planted and then checked by the exact oracle, and group composition is
labelled by composing with the group's table: this measures whether that ever binds training.
Side by side in one run: each sampler at the paper's sizes (batch 256 for p-hop, as App. A.1),
the uniform p-hop generator (no planting, oracle labels) as the reference, and Adam steps of
the paper's p-hop model (width 128, 8 heads, a 1-layer block looped 6 times, n = 256) on
batches of 32 (a batch of 256 holds several GB of attention weights for the backward pass),
scaled to 256 samples. Writes benchmarks/results/looped_tasks.{json,md}; one torch thread,
median of repeated calls.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

import models
from simulations.tasks import get_task

RESULTS = Path(__file__).parent / "results"
CASES = [  # (label, task, length, options, batch)
    ("p-hop planted p=16", "p-hop", 256, {"hops": 16}, 256),
    ("p-hop planted p=32", "p-hop", 256, {"hops": 32}, 256),
    ("p-hop uniform p=32 (reference)", "p-hop", 256, {"hops": 32, "generator": "uniform"}, 256),
    ("group-composition S5", "group-composition", 256, {"group": "S5"}, 256),
    ("addition N=32 (train mixture)", "addition", 32, {}, 1024),
    ("var-assign depth 2", "var-assign", 20, {"depth": 2}, 256),
]


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


STEP_BATCH = 32


def training_step_seconds() -> float:
    """One Adam step of (1 ⊗ 6) at width 128 on a p-hop batch of ``STEP_BATCH`` at n = 256."""
    torch.manual_seed(0)
    model = models.build(
        "looped", vocab_size=4, width=128, heads=8, layers=1, loops=6, max_length=256
    )
    task = get_task("p-hop", 256, hops=16)
    tokens, targets, mask = task.sample(STEP_BATCH, 256, torch.Generator().manual_seed(0))
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> None:
        loss = torch.nn.functional.cross_entropy(model(tokens)[mask], targets[mask])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()

    return median_seconds(step, 3)


def main() -> None:
    torch.set_num_threads(1)
    load = os.getloadavg()
    rows = []
    for label, name, length, options, batch in CASES:
        task = get_task(name, length, **options)
        generator = torch.Generator().manual_seed(0)
        s = median_seconds(lambda: task.sample(batch, length, generator, train=True), 10)  # noqa: B023
        rows.append({"case": label, "length": length, "batch": batch, "ms_per_batch": 1000 * s})
        print(f"{label}: {1000 * s:.1f} ms per batch of {batch}", flush=True)
    step = training_step_seconds() * 256 / STEP_BATCH
    print(f"training (1 x 6), width 128, n = 256: {1000 * step:.0f} ms per 256 samples")
    RESULTS.mkdir(exist_ok=True)
    report = {"torch_threads": 1, "load_before": load, "rows": rows,
              "train_ms_per_256_samples": 1000 * step}  # fmt: skip
    (RESULTS / "looped_tasks.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        "# Looped-paper tasks: data generation against a training step",
        "",
        "Command: `python benchmarks/looped_tasks.py`; one torch thread, median of 10 calls; load "
        f"average {load[0]:.2f} at start on a shared 2-core machine (re-measure on an idle one). "
        f"Training the (1 x 6) looped model at width 128 on p-hop at n = 256, measured in the same "
        f"run: {1000 * step:.0f} ms per 256 samples (Adam steps on batches of {STEP_BATCH}).",
        "",
        "| sampler | N | batch | ms per batch |",
        "|---|---|---|---|",
        *(
            f"| {r['case']} | {r['length']} | {r['batch']} | {r['ms_per_batch']:.1f} |"
            for r in rows
        ),
    ]
    (RESULTS / "looped_tasks.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
