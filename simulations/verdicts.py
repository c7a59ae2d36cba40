"""A verdict for every run: did it reach its target, stop improving below it, or run out of
budget while still improving? (ARCHITECTURE.md, "Verdicts".)

The rule, read off the run's evaluation curve ((step, accuracy) pairs, each accuracy measured on
``n`` examples), its target and, when known, the task's chance level (the accuracy of the best
answer that ignores the input, :meth:`simulations.tasks.Task.chance`, measured on ``chance_n``
examples):

1. ``reached``: its best accuracy is at or above the target;
2. ``undecided`` when the curve is too short to judge: fewer than :data:`MIN_EARLY` evaluations
   up to two thirds of its last step or :data:`MIN_LATE` after it (a plateau needs three
   evaluations to be seen);
3. ``plateaued`` *at chance* when the evaluations of the last half of the budget, pooled
   (``k n`` examples), have a 95% Wilson interval that meets chance's: whatever it does, a run
   within noise of chance has learned nothing this budget can show (:func:`at_chance`);
4. ``undecided`` when it was still improving: either its slope over the last half of the budget
   is positive beyond noise (:func:`trend_z` at least :data:`Z_TREND`: a least-squares slope
   against its standard error), or the best accuracy of the last third exceeds the best before
   it by more than :data:`Z_GAIN` standard deviations (a late jump). The noise of an evaluation
   is the larger of the binomial one (``n`` examples) and the curve's own scatter
   (:func:`scatter`: training noise beyond sampling, which a fixed binomial test would read as
   gains);
5. ``plateaued`` otherwise.

The thresholds are set for cells of many runs: a cell is undecided when any of its runs is
(:func:`combine`), so a false "undecided" per run multiplies by the runs of a cell. The false
rates on simulated flat, noisy and rising curves are measured by ``benchmarks/verdict_rates.py``
(``benchmarks/results/verdict_rates.md``); what a trend test can see is set by the evaluation
set: :func:`detectable_rise` is the smallest rise over the last half of the budget that it calls
improving (half the time), so a profile's ``eval_samples`` is chosen for the rises it must see.

"Plateaued" is a statement about this budget's curve, not a proof that more steps would not help:
a model may leave a long plateau later. "Undecided" is never a failure: a threshold, a capacity,
a fewest-loops or a smallest-width count that such a run would decide is reported as undecided.

:func:`wilson` is the 95% Wilson score interval of a proportion, used for every accuracy's
``accuracy_ci``. Pure Python: the store reads verdicts of old runs without torch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

VERDICTS = ("reached", "plateaued", "undecided")
Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
LATE_FRACTION = 1 / 3
"""The final part of the budget whose best, against the best before it, shows a late jump."""
TREND_FRACTION = 1 / 2
"""The final part of the budget whose slope and level the trend test and the chance floor read."""
MIN_EARLY, MIN_LATE = 2, 3
"""Evaluations needed before and after the two-thirds split to judge a curve."""
Z_TREND = 2.5
"""One-sided z of the slope test (a flat curve of pure sampling noise passes it 0.6% of the
time)."""
Z_GAIN = 2.5
"""Standard deviations of one evaluation by which the late best must pass the best before it to
count as a late jump."""


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


def _window(curve: Sequence[Sequence[float]], fraction: float) -> list[tuple[float, float]]:
    """The (step, accuracy) evaluations after ``1 - fraction`` of the last step."""
    split = float(curve[-1][0]) * (1 - fraction)
    return [(float(s), float(a)) for s, a in curve if float(s) > split]


def at_chance(
    curve: Sequence[Sequence[float]], n: int, chance: float | None, chance_n: int | None = None
) -> bool:
    """Whether the evaluations of the last half of the budget, pooled, are within noise of
    ``chance``: their 95% Wilson interval (on ``k n`` examples) meets chance's (measured on
    ``chance_n`` examples; None: exact, on the very examples evaluated). False when chance is
    unknown (None)."""
    if chance is None or not curve:
        return False
    late = _window(curve, TREND_FRACTION)
    pooled = sum(a for _, a in late) / len(late)
    ceiling = chance if chance_n is None else wilson(chance, chance_n)[1]
    return wilson(pooled, n * len(late))[0] <= ceiling


def scatter(accuracies: Sequence[float]) -> float:
    """The variance of one evaluation about the curve's own course, beyond what a smooth curve
    explains: the mean square of the second differences over 6 (for independent noise of
    variance s^2 a second difference has variance 6 s^2, and a straight rise adds nothing to
    it). Training noise that sampling alone does not explain shows here; 0 below 3 points."""
    d2 = [
        accuracies[i - 1] - 2 * accuracies[i] + accuracies[i + 1]
        for i in range(1, len(accuracies) - 1)
    ]
    return sum(d * d for d in d2) / (6 * len(d2)) if d2 else 0.0


def noise_variance(accuracy: float, n: int, spread: float = 0.0, sampled: bool = True) -> float:
    """The variance of one evaluation around ``accuracy``: the binomial p (1 - p) / n (p shrunk
    off 0 and 1 by one success and one failure) of a fresh sample, or the curve's own ``spread``
    (:func:`scatter`), whichever is larger. An evaluation of the same fixed set every time (not
    ``sampled``) has no sampling noise: its noise is the spread alone, at least one example's
    worth, (1 / n)^2."""
    if not sampled:
        return max(spread, 1 / (n * n))
    shrunk = (accuracy * n + 1) / (n + 2)
    return max(shrunk * (1 - shrunk) / n, spread)


def trend_z(
    points: Sequence[tuple[float, float]], n: int, spread: float = 0.0, sampled: bool = True
) -> float:
    """The least-squares slope of accuracy against step over ``points``, divided by its standard
    error, each evaluation's variance :func:`noise_variance` at the points' mean accuracy. 0 for
    fewer than 3 points or a single step."""
    if len(points) < 3:
        return 0.0
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope / math.sqrt(noise_variance(my, n, spread, sampled) / sxx)


def detectable_rise(n: int, evaluations: int, accuracy: float, z: float = Z_TREND) -> float:
    """The rise over the last half of the budget (evenly spaced ``evaluations`` there, each on
    ``n`` examples, around ``accuracy``) at which :func:`trend_z` reaches ``z`` on average: a
    linear rise of that size is called improving about half the time, twice it nearly always."""
    k = max(evaluations, 3)
    spread = math.sqrt(k * (k + 1) / (12 * (k - 1)))  # sqrt(Sxx) / range of k even points
    return z * math.sqrt(accuracy * (1 - accuracy) / n) / spread


def verdict(
    curve: Sequence[Sequence[float]],
    target: float,
    n: int,
    chance: float | None = None,
    chance_n: int | None = None,
) -> str:
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
    if at_chance(curve, n, chance, chance_n):
        return "plateaued"
    window = _window(curve, TREND_FRACTION)
    spread = scatter([a for _, a in window])
    sampled = chance is None or chance_n is not None  # a fixed set is evaluated exactly
    if trend_z(window, n, spread, sampled) >= Z_TREND:
        return "undecided"
    jump = Z_GAIN * math.sqrt(noise_variance(max(early), n, spread, sampled))
    return "undecided" if max(late) > max(early) + jump else "plateaued"


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


def chance_of(chance: object) -> tuple[float | None, int | None]:
    """(accuracy, examples) of a run's recorded ``chance`` ({"accuracy": a in [0, 1],
    "examples": an integer >= 1, or None when exact}); (None, None) when it has none or the
    record is malformed (a store is data: such a run is judged without a chance floor)."""
    if not isinstance(chance, Mapping):
        return None, None
    accuracy, examples = chance.get("accuracy"), chance.get("examples")
    if isinstance(accuracy, bool) or not isinstance(accuracy, int | float):
        return None, None
    if not 0 <= accuracy <= 1 or (
        examples is not None
        and (isinstance(examples, bool) or not isinstance(examples, int) or examples < 1)
    ):
        return None, None
    return float(accuracy), examples


def judge(
    config: Mapping,
    curve: Sequence[Sequence[float]],
    accuracy: float,
    n: int,
    best: float = 0.0,
    chance: object = None,
) -> dict:
    """``verdict`` and ``accuracy_ci`` (the Wilson interval of the final ``accuracy``) of a run
    whose config sets its ``target`` (0.99 when it does not), with the task's ``chance`` as the
    run records it (:func:`chance_of`); a ``best`` accuracy at the target is ``reached``
    whatever the curve says."""
    target = float(config.get("target", 0.99))
    lo, hi = wilson(accuracy, n)
    judged = "reached" if best >= target else verdict(curve, target, n, *chance_of(chance))
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
    """A stored run's verdict, at ``target`` when given (a threshold's own target) and not the
    run's own: judged again from its curve, with the chance it recorded."""
    if target is None or float(target) == float(run["config"].get("target", 0.99)):
        return str(run["verdict"])
    chance = (run.get("diagnostics") or {}).get("chance")
    return verdict(run["curve"], target, evaluated_on(run["config"]), *chance_of(chance))


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
    "TREND_FRACTION",
    "VERDICTS",
    "Z_GAIN",
    "Z_TREND",
    "at_chance",
    "chance_of",
    "noise_variance",
    "scatter",
    "combine",
    "current",
    "detectable_rise",
    "evaluated_on",
    "extension_key",
    "judge",
    "judgeable",
    "run_verdict",
    "trend_z",
    "verdict",
    "wilson",
]
