"""How models trained at p bits train best: three ways to hold a number on its grid.

Training at p bits (``ccx train --precision``) rounds each number a model's protocol sends onto
a p-bit grid in the forward pass. The rounding has no useful gradient, so the trainer needs a
rule; this benchmark trains the same runs under three and compares what they reach:

* ``straight-through`` (the toolkit's, :class:`models.base.HeldOnGrid`): the gradient passes
  the rounding unchanged, also where the value saturated at the grid's ends;
* ``clipped``: as straight-through inside the grid's range, zero where the value saturated
  (the usual rule of quantisation-aware training);
* ``held at evaluation only``: the model trains in float and is held only when evaluated (so
  its accuracy is still that of its p-bit protocol, but training never sees the grid).

Each run is the ``bite`` profile's recipe (Adam, 1500 steps of 64, evaluated every 100 on 1000
examples at exactly N, stopping at 0.99) for models below, at and beyond their walls, two
learning rates and two seeds; the rule is swapped in for the benchmark only.

    python benchmarks/held_gradients.py

Writes benchmarks/results/held_gradients.{json,md}.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import torch

from models import base
from simulations.training import TrainConfig, train

RESULTS = Path(__file__).resolve().parent / "results"
RULES = ("straight-through", "clipped", "held at evaluation only")
MODELS = [  # (task, arch, width, precision, lengths, symbols): bits and wall in the comment
    ("index-lookup", "gru", 2, 2, (2, 4, 6), 2),  # 4 bits, Thm 3's wall N = 4
    ("index-lookup", "lstm", 2, 4, (4, 8, 16), 2),  # 16 bits, wall N = 16
    ("eq-random", "gru", 2, 4, (4, 8, 16), None),  # 8 bits, Thm 11's wall N = 16
    ("dyck", "transformer", 1, 2, (6, 10), None),  # width 1 at 2 bits, held wall N = 20
]
LRS = (3e-3, 1e-2)
SEEDS = (0, 1)


class _Clipped(torch.autograd.Function):
    """Round as :class:`models.base.HeldOnGrid` does; the gradient is zero where saturated."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, scale: float, lo: float, hi: float) -> torch.Tensor:
        scaled = x * scale
        ctx.save_for_backward((scaled >= lo - 0.5) & (scaled <= hi + 0.5))
        return torch.round(scaled).clamp(lo, hi) / scale

    @staticmethod
    def backward(ctx, grad: torch.Tensor):  # type: ignore[override]
        (inside,) = ctx.saved_tensors
        return grad * inside, None, None, None


@contextlib.contextmanager
def rule(name: str) -> Iterator[None]:
    """Hold numbers by ``name`` inside the block (the toolkit's rule outside it)."""
    original = base.MessageHold.__call__

    def clipped(self: base.MessageHold, x: torch.Tensor) -> torch.Tensor:
        return _Clipped.apply(x, self.scale, self.lo, self.hi)

    def eval_only(self: base.MessageHold, x: torch.Tensor) -> torch.Tensor:
        return x if torch.is_grad_enabled() else original(self, x)  # evaluation: no_grad

    replacement = {"clipped": clipped, "held at evaluation only": eval_only}.get(name)
    if replacement is not None:
        base.MessageHold.__call__ = replacement  # type: ignore[method-assign]
    try:
        yield
    finally:
        base.MessageHold.__call__ = original  # type: ignore[method-assign]


def main() -> None:
    torch.set_num_threads(1)
    start = time.perf_counter()
    rows = []
    for task, arch, width, p, lengths, symbols in MODELS:
        for n in lengths:
            for name in RULES:
                best = []
                for lr in LRS:
                    for seed in SEEDS:
                        extra = {"symbols": symbols} if symbols else {}
                        heads = {"heads": 1} if arch == "transformer" else {}
                        config = TrainConfig.of(task=task, arch=arch, width=width, layers=1,
                                                length=n, precision=p, lr=lr, seed=seed,
                                                steps=1500, batch=64, eval_every=100,
                                                eval_samples=1000, target=0.99, **extra,
                                                **heads)  # fmt: skip
                        with rule(name):
                            result = train(config, progress=False)
                        best.append(result["best_accuracy"])
                rows.append(
                    {
                        "task": task,
                        "arch": arch,
                        "width": width,
                        "precision": p,
                        "length": n,
                        "rule": name,
                        "best_of_runs": max(best),
                        "mean_best": statistics.mean(best),
                        "runs_at_target": sum(b >= 0.99 for b in best),
                        "runs": len(best),
                    }
                )
                print(rows[-1], flush=True)
    out = {
        "command": "python benchmarks/held_gradients.py",
        "threads": 1,
        "learning_rates": list(LRS),
        "seeds": list(SEEDS),
        "seconds": round(time.perf_counter() - start, 1),
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "held_gradients.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        "# Three ways to hold a number on its grid while training",
        "",
        f"Command: `{out['command']}` ({out['seconds']:.0f} s, one thread); per model and length,",
        f"{len(LRS)} learning rates x {len(SEEDS)} seeds of the `bite` recipe under each rule:",
        "the best accuracy of the runs, their mean, and how many reached 0.99.",
        "",
        "| task | model | p | N | rule | best | mean | at 0.99 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['task']} | {r['arch']} width {r['width']} | {r['precision']} | {r['length']} | "
            f"{r['rule']} | {r['best_of_runs']:.3f} | {r['mean_best']:.3f} | "
            f"{r['runs_at_target']}/{r['runs']} |"
        )
    (RESULTS / "held_gradients.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
