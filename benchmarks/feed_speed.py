"""Ensembles drawing their batches in their own process against worker processes (the feed),
and the embedding's gradient through ``F.embedding`` against an advanced-indexing gather.

For each architecture, in the ``small`` shape of ``ensemble_speed.py`` (16 members, width 64,
N = 64, batch 32, index lookup, 1 layer), :func:`simulations.ensemble.train_ensemble` is timed at
1 and at ``--steps`` steps with ``--feed`` worker processes (0: its own process); the steady rate
is 16 x (steps - 1) / (difference of the two walls). Also timed: the feed's start (worker
processes forked and the first batch in), one fixed-batch ensemble step with each embedding.

    python benchmarks/feed_speed.py --device cuda
    python benchmarks/feed_speed.py --archs transformer --steps 20   # a dry run on the CPU

Writes benchmarks/results/feed_speed{,_cpu}.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ensemble_speed import SHAPES, spec  # noqa: E402

import models.transformer  # noqa: E402
from simulations import ensemble  # noqa: E402
from simulations.feed import BatchFeed  # noqa: E402
from simulations.stacks import batched_form, make_stack  # noqa: E402
from simulations.training import build_model, deterministic_on, resolve_device  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def wall(configs: list, device: torch.device) -> float:
    sync(device)
    start = time.perf_counter()
    ensemble.train_ensemble(configs, device=device.type)
    sync(device)
    return time.perf_counter() - start


def steady(arch: str, steps: int, workers: int, device: torch.device) -> dict:
    ensemble.feed_workers = lambda dev, members, n: workers if n > 1 else 0  # type: ignore[assignment]
    long, short = spec(arch, SHAPES["small"], steps).configs, spec(arch, SHAPES["small"], 1).configs
    wall(list(short), device)  # warm-up: compilation, graphs
    at_one, at_steps = wall(list(short), device), wall(list(long), device)
    return {
        "s at 1": round(at_one, 3),
        f"s at {steps}": round(at_steps, 3),
        "steady steps/s": round(len(long) * (steps - 1) / max(at_steps - at_one, 1e-9), 1),
    }


def feed_start(arch: str, workers: int, device: torch.device) -> float:
    config = spec(arch, SHAPES["small"], 100).configs[0]
    task = build_model(config)[1]
    gens = [torch.Generator().manual_seed(s) for s in range(16)]
    start = time.perf_counter()
    source = BatchFeed(task, config.batch, config.length, gens, workers, device)
    source.next()
    elapsed = time.perf_counter() - start
    source.close()
    return round(elapsed, 3)


def gather_embed(self, tokens, positions=None):  # the embedding before F.embedding
    if positions is None:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
    return self.q(self.q(self.tok.weight)[tokens] + self.q(self.pos.weight)[positions])


def step_ms(arch: str, device: torch.device, steps: int = 30) -> float:
    from simulations.ensemble import StaticStep, _batches

    configs = list(spec(arch, SHAPES["small"], 100).configs)
    built = [build_model(c) for c in configs]
    task = built[0][1]
    gens = [torch.Generator().manual_seed(c.seed) for c in configs]
    batch = _batches(task, configs[0], configs[0].batch, gens, device, True)
    stack = make_stack(batched_form(configs[0], device), [m for m, _ in built],
                       [c.lr for c in configs], device, batch[0])  # fmt: skip
    static = StaticStep(stack, batch[0].shape, device)
    for _ in range(5):
        static.run(*batch)
    sync(device)
    start = time.perf_counter()
    for _ in range(steps):
        static.run(*batch)
    sync(device)
    return round((time.perf_counter() - start) / steps * 1e3, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--archs", nargs="+", default=["transformer", "dss", "retnet"])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--feed", type=int, nargs="+", default=[0, 4])
    args = parser.parse_args()
    device = resolve_device(args.device)
    report = {
        "command": " ".join(["python", *sys.argv]),
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "torch": torch.__version__,
        "rows": [],
    }
    name = "feed_speed" + ("_cpu" if device.type == "cpu" else "")
    with deterministic_on(device):
        for arch in args.archs:
            row: dict = {"arch": arch, "steps": args.steps}
            for workers in args.feed:
                row[f"feed {workers}"] = steady(arch, args.steps, workers, device)
                if workers:
                    row[f"feed {workers} start s"] = feed_start(arch, workers, device)
            if arch == "transformer":
                row["step ms (F.embedding)"] = step_ms(arch, device)
                current = models.transformer.Transformer.embed
                models.transformer.Transformer.embed = gather_embed  # type: ignore[method-assign]
                try:
                    row["step ms (W[tokens])"] = step_ms(arch, device)
                finally:
                    models.transformer.Transformer.embed = current  # type: ignore[method-assign]
            report["rows"].append(row)
            print(json.dumps(row), flush=True)
            (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
