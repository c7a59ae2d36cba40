"""A verdict for every run: did it reach its target, stop improving below it, or run out of
budget while still improving? (ARCHITECTURE.md, "Verdicts".)

The rule, read off the run's evaluation curve ((step, accuracy) pairs, each accuracy measured on
``n`` examples) and its target:

* ``reached``: its best accuracy is at or above the target;
* otherwise the curve is split at two thirds of its last step: the evaluations after the split
  (the last third of the budget) against those before. The run is ``undecided`` when the best
  accuracy of the last third exceeds the upper end of the 95% Wilson interval of the best accuracy
  before it (it was still gaining more than sampling noise explains), and ``plateaued`` when it
  does not;
* a curve too short to judge (fewer than 2 evaluations before the split or 3 after it) is
  ``undecided``: a plateau needs three evaluations to be seen.

"Plateaued" is a statement about this budget's curve, not a proof that more steps would not help:
a model may leave a long plateau later. "Undecided" is never a failure: a threshold, a capacity,
a fewest-loops or a smallest-width count that such a run would decide is reported as undecided.

:func:`wilson` is the 95% Wilson score interval of a proportion, used for every accuracy's
``accuracy_ci``. Pure Python: the store reads verdicts of old runs without torch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

VERDICTS = ("reached", "plateaued", "undecided")
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
LATE_FRACTION = 1 / 3
"""The final part of the budget whose gain decides ``undecided`` against ``plateaued``."""
MIN_EARLY, MIN_LATE = 2, 3
"""Evaluations needed before and after the split to judge a curve."""


def wilson(accuracy: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval [lo, hi] of a proportion ``accuracy`` measured on ``n`` trials
    (95% for the default z); [0, 1] when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(accuracy, 0.0), 1.0)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # The interval holds p exactly; rounding must not push an end past it (p = 0 or 1).
    return min(max(0.0, centre - half), p), max(min(1.0, centre + half), p)


def verdict(curve: Sequence[Sequence[float]], target: float, n: int) -> str:
    """``reached``, ``plateaued`` or ``undecided`` for an evaluation curve (see the module)."""
    if not curve:
        return "undecided"
    accuracies = [float(a) for _, a in curve]
    if max(accuracies) >= target:
        return "reached"
    split = float(curve[-1][0]) * (1 - LATE_FRACTION)
    early = [a for (step, a) in curve if float(step) <= split]
    late = [a for (step, a) in curve if float(step) > split]
    if len(early) < MIN_EARLY or len(late) < MIN_LATE:
        return "undecided"
    return "undecided" if max(late) > wilson(max(early), n)[1] else "plateaued"


def judgeable(steps: int, eval_every: int) -> bool:
    """Whether a run of ``steps`` steps evaluated every ``eval_every`` steps (and after its last
    step) that trains all its steps has the evaluations :func:`verdict` needs to call a plateau:
    at least :data:`MIN_EARLY` before the split and :data:`MIN_LATE` after it. A run that is not
    judgeable and misses its target is ``undecided`` whatever its curve."""
    evaluated = [s for s in range(eval_every, steps + 1, eval_every)]
    if not evaluated or evaluated[-1] != steps:
        evaluated.append(steps)
    split = steps * (1 - LATE_FRACTION)
    early = sum(1 for s in evaluated if s <= split)
    return early >= MIN_EARLY and len(evaluated) - early >= MIN_LATE


def evaluated_on(config: dict, result: dict | None = None) -> int:
    """How many examples each evaluation of a run measured: the result's ``evaluated`` when it
    says (tasks with a fixed training set evaluate on all of it), else the config's
    ``eval_samples`` (1000 by default)."""
    if result is not None and isinstance(result.get("evaluated"), int):
        return int(result["evaluated"])
    samples = config.get("eval_samples", 1000)
    return int(samples) if isinstance(samples, int) and not isinstance(samples, bool) else 1000


def judge(
    config: dict, curve: Sequence[Sequence[float]], accuracy: float, n: int, best: float = 0.0
) -> dict:
    """``verdict`` and ``accuracy_ci`` (the Wilson interval of the final ``accuracy``) of a run
    whose config sets its ``target`` (0.99 when it does not); a ``best`` accuracy at the target
    is ``reached`` whatever the curve says."""
    target = float(config.get("target", 0.99))
    lo, hi = wilson(accuracy, n)
    judged = "reached" if best >= target else verdict(curve, target, n)
    return {"verdict": judged, "accuracy_ci": [lo, hi]}


def extension_key(config: dict) -> str:
    """A run's config less its ``steps``: the runs of one key are one run at growing budgets
    (``ccx sweep --extend-undecided``)."""
    return json.dumps({k: v for k, v in config.items() if k != "steps"}, sort_keys=True)


def current(runs: Sequence[dict]) -> list[dict]:
    """The stored runs less those superseded by an extension: of runs whose configs differ only
    in ``steps``, the one with the most steps; order kept."""
    most: dict[str, int] = {}
    for run in runs:
        key = extension_key(run["config"])
        most[key] = max(most.get(key, 0), int(run["config"].get("steps", 0)))
    kept, seen = [], set()
    for run in runs:
        key = extension_key(run["config"])
        if int(run["config"].get("steps", 0)) == most[key] and key not in seen:
            seen.add(key)
            kept.append(run)
    return kept


def run_verdict(run: dict, target: float | None = None) -> str:
    """A stored run's verdict, at ``target`` when given (a threshold's own target) rather than
    the run's: judged again from its curve."""
    if target is None:
        return str(run["verdict"])
    return verdict(run["curve"], target, evaluated_on(run["config"]))


def combine(verdicts: Sequence[str]) -> str:
    """The verdict of a cell over several runs (learning rates, seeds) read as a best over
    them: ``reached`` when any run reached, else ``undecided`` when any run is, else
    ``plateaued``."""
    if "reached" in verdicts:
        return "reached"
    return "undecided" if "undecided" in verdicts or not verdicts else "plateaued"


__all__ = [
    "LATE_FRACTION",
    "MIN_EARLY",
    "MIN_LATE",
    "VERDICTS",
    "combine",
    "current",
    "evaluated_on",
    "judgeable",
    "extension_key",
    "judge",
    "run_verdict",
    "verdict",
    "wilson",
]
