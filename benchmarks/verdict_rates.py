"""False rates of the verdict rule (:mod:`simulations.verdicts`) on simulated curves.

Each simulated run is an evaluation curve of a profile's shape (``eval_samples`` examples every
``eval_every`` steps up to ``steps``, as the trainer evaluates) whose true accuracy follows a
known path; each evaluation is a binomial draw around it (plus, for the noisy curves, a normal
training noise of the given standard deviation per evaluation). The chance level, where the rule
is given one, is itself an estimate on 4096 examples
(:data:`simulations.tasks.base.CHANCE_SAMPLES`), drawn the same way. Per curve kind and shape:
how many runs the rule gives each verdict, and the rate of the wrong one per run and per cell
of 14 runs (7 learning rates x 2 seeds, the ``gpu`` profile's cells: a cell is undecided when
any of its runs is).

    python benchmarks/verdict_rates.py            # 4000 runs per kind and shape, seed 0

Writes benchmarks/results/verdict_rates.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from simulations import verdicts
from simulations.tasks.base import CHANCE_SAMPLES

RESULTS = Path(__file__).resolve().parent / "results"
CELL = 14
SHAPES = {  # name: (eval_samples, eval_every, steps)
    "quick (500 examples, 200/1500)": (500, 200, 1500),
    "gpu (1000 examples, 250/1800)": (1000, 250, 1800),
    "2000 examples, 200/1500": (2000, 200, 1500),
}
CHANCE = 1 / 64  # index lookup's 64 symbols


def flat(level: float):
    return lambda t: np.full_like(t, level)


def linear(start: float, end: float):
    return lambda t: start + (end - start) * t


def rise_then_flat(start: float, end: float, until: float):
    return lambda t: start + (end - start) * np.minimum(t / until, 1.0)


KINDS = [  # (name, path of the true accuracy over t in (0, 1], training noise, chance given, right)
    ("flat at chance 1/64, chance known", flat(CHANCE), 0.0, True, "plateaued"),
    ("flat at chance 1/64, no chance recorded", flat(CHANCE), 0.0, False, "plateaued"),
    ("flat at chance 1/64 + noise 0.005, chance known", flat(CHANCE), 0.005, True, "plateaued"),
    ("flat at 0.10", flat(0.10), 0.0, True, "plateaued"),
    ("flat at 0.50", flat(0.50), 0.0, True, "plateaued"),
    ("flat at 0.90", flat(0.90), 0.0, True, "plateaued"),
    ("flat at 0.10 + noise 0.01", flat(0.10), 0.01, True, "plateaued"),
    ("flat at 0.50 + noise 0.02", flat(0.50), 0.02, True, "plateaued"),
    ("rose 0.10 -> 0.60 by 40% of the budget, then flat", rise_then_flat(0.1, 0.6, 0.4), 0.0,
     True, "plateaued"),
    ("rising 0.02 -> 0.14 (the slow LSTM and Mamba rises)", linear(0.02, 0.14), 0.0, True,
     "undecided"),
    ("rising 0.02 -> 0.08", linear(0.02, 0.08), 0.0, True, "undecided"),
    ("rising 0.10 -> 0.30", linear(0.10, 0.30), 0.0, True, "undecided"),
    ("rising 0.50 -> 0.70", linear(0.50, 0.70), 0.0, True, "undecided"),
    ("rising 0.50 -> 0.70 + noise 0.02", linear(0.50, 0.70), 0.02, True, "undecided"),
]  # fmt: skip


def simulate(
    shape: tuple[int, int, int],
    path,
    noise: float,
    given: bool,
    runs: int,
    rng: np.random.Generator,
) -> dict[str, int]:
    """Verdict counts of ``runs`` simulated curves of ``shape`` along ``path``."""
    n, every, steps = shape
    evaluated = list(range(every, steps + 1, every))
    if evaluated[-1] != steps:
        evaluated.append(steps)
    t = np.array(evaluated, dtype=float) / steps
    truth = np.clip(path(t)[None, :] + rng.normal(0, noise, (runs, len(t))), 0, 1)
    accuracies = rng.binomial(n, truth) / n
    chances = rng.binomial(CHANCE_SAMPLES, CHANCE, runs) / CHANCE_SAMPLES
    counts = dict.fromkeys(verdicts.VERDICTS, 0)
    for row, chance in zip(accuracies, chances, strict=True):
        curve = [[s, float(a)] for s, a in zip(evaluated, row, strict=True)]
        judged = verdicts.verdict(curve, 0.99, n, float(chance) if given else None, CHANCE_SAMPLES)
        counts[judged] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    rows = []
    for shape_name, shape in SHAPES.items():
        for name, path, noise, given, right in KINDS:
            counts = simulate(shape, path, noise, given, args.runs, rng)
            wrong = 1 - counts[right] / args.runs
            rows.append(
                {
                    "shape": shape_name,
                    "curve": name,
                    "right": right,
                    **counts,
                    "wrong_per_run": wrong,
                    "wrong_per_cell": 1 - (1 - wrong) ** CELL,
                }
            )
    out = {
        "command": "python benchmarks/verdict_rates.py",
        "runs_per_kind": args.runs,
        "seed": args.seed,
        "z_trend": verdicts.Z_TREND,
        "z_gain": verdicts.Z_GAIN,
        "seconds": round(time.perf_counter() - start, 1),
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "verdict_rates.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        "# False rates of the verdict rule on simulated curves",
        "",
        f"Command: `{out['command']}`; {args.runs} simulated runs per curve kind and shape, seed "
        f"{args.seed}; Z_TREND = {verdicts.Z_TREND:g}, Z_GAIN = {verdicts.Z_GAIN:g}; chance "
        f"1/64 estimated on {CHANCE_SAMPLES} examples. 'wrong': the share of runs given the "
        f"other verdict than the path's (a flat or stalled path is plateaued, a rising one "
        f"undecided); per cell: of {CELL} such runs at least one wrong "
        f"(1 - (1 - rate)^{CELL}). No run reaches the target 0.99.",
        "",
        "| shape | curve | right verdict | reached | plateaued | undecided | wrong per run | "
        f"wrong per cell of {CELL} |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['shape']} | {r['curve']} | {r['right']} | {r['reached']} | {r['plateaued']} "
            f"| {r['undecided']} | {100 * r['wrong_per_run']:.2f}% | "
            f"{100 * r['wrong_per_cell']:.1f}% |"
        )
    (RESULTS / "verdict_rates.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
