"""Training-step time of every architecture in the registry (width 64, N = 200, batch 64).

    python benchmarks/train_step_all.py [--threads 1] [--layers 2]

Writes benchmarks/results/train_step_all.{json,md}. One step = forward + cross-entropy +
backward + Adam; the median of a few timed steps after a warm-up step.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mamba_speed import machine, time_train_step  # noqa: E402

import models  # noqa: E402

RESULTS = Path(__file__).parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    vocab = 8
    tokens = torch.randint(0, vocab, (args.batch, args.length))
    targets = torch.randint(0, vocab, (args.batch, args.length))
    load_before = os.getloadavg()
    rows = []
    for name in models.REGISTRY:
        extra = {"max_length": args.length} if name == "transformer" else {}
        model = models.build(name, vocab_size=vocab, width=args.width, layers=args.layers, **extra)
        times = time_train_step(model, tokens, targets, args.steps)
        rows.append(
            {
                "arch": name,
                "parameters": model.param_count(),
                "state_numel": model.state_numel(),
                "median_seconds": statistics.median(times),
                "times": times,
            }
        )
        print(f"{name}: {statistics.median(times):.3f} s/step", flush=True)
    report = {"machine": machine(), "threads": args.threads, "load_before": load_before,
              "load_after": os.getloadavg(), "settings": vars(args), "rows": rows}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "train_step_all.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [
        "# Training-step time of every architecture",
        "",
        f"Command: `python benchmarks/train_step_all.py --threads {args.threads}`; width "
        f"{args.width}, {args.layers} layers, N = {args.length}, batch {args.batch}, vocabulary "
        f"{vocab}; median of {args.steps} steps after 1 warm-up. torch threads: {args.threads}. "
        f"Load average {load_before[0]:.2f} before, {report['load_after'][0]:.2f} after (the "
        "machine was shared while this ran).",
        "",
        "| arch | parameters | state numbers | median s/step |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['arch']} | {r['parameters']} | {r['state_numel']} | {r['median_seconds']:.3f} |"
        for r in rows
    ]
    (RESULTS / "train_step_all.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
