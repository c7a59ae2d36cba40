"""The verdict rule's pieces pinned at their boundaries: the windows' edges, the chance floor's
interval, the noise and trend arithmetic against independent closed forms, malformed chance
records, superseded runs and a stored run judged again at another target."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.verdicts import (
    LATE_FRACTION,
    TREND_FRACTION,
    Z95,
    Z_TREND,
    _window,
    at_chance,
    chance_of,
    current,
    detectable_rise,
    evaluated_on,
    extension_key,
    judgeable,
    noise_variance,
    run_verdict,
    trend_z,
    verdict,
    wilson,
)


def test_one_trial_is_an_interval_not_ignorance():
    lo, hi = wilson(1.0, 1)
    assert hi == 1.0 and lo == pytest.approx(1 / (1 + Z95 * Z95))


def test_the_window_starts_after_its_split_of_the_last_step():
    curve = [(100 * i, i / 10) for i in range(1, 11)]  # the split of half of 1000 is step 500
    assert _window(curve, 0.5) == [(float(s), a) for s, a in curve[5:]]


def test_the_chance_floor_widens_by_chance_measured_on_few_examples():
    late = [(100 * i, 0.58) for i in range(1, 11)]  # 5 late evaluations of 1000 each: 0.566+
    assert wilson(0.58, 5000)[0] > 0.5
    assert at_chance(late, 1000, 0.5, 100)  # chance 0.5 on 100 examples: up to 0.596
    assert not at_chance(late, 1000, 0.5)  # exact chance 0.5


def test_the_chance_floor_pools_the_late_evaluations():
    late = [(100 * i, 0.52) for i in range(1, 11)]  # on 5 x 1000 examples 0.52 is above 0.5
    assert not at_chance(late, 1000, 0.5)
    assert at_chance(late, 200, 0.5)  # on 5 x 200 it is not


def test_a_curve_exactly_at_an_exact_chance_is_at_chance():
    assert at_chance([(100 * i, 0.0) for i in range(1, 7)], 1000, 0.0)


def test_chance_records_at_the_ends_of_their_ranges_are_kept():
    assert chance_of({"accuracy": 1.0, "examples": 5}) == (1.0, 5)
    assert chance_of({"accuracy": 0.0, "examples": 1}) == (0.0, 1)
    assert chance_of({"accuracy": 0.5, "examples": None}) == (0.5, None)
    for bad in ({"accuracy": 1.01}, {"accuracy": 0.5, "examples": 0}, {"accuracy": True}, [0.5]):
        assert chance_of(bad) == (None, None)


def test_the_noise_of_one_evaluation():
    assert noise_variance(0.5, 100) == pytest.approx((51 / 102) * (51 / 102) / 100, rel=1e-12)
    assert noise_variance(0.2, 98) == pytest.approx((20.6 / 100) * (79.4 / 100) / 98, rel=1e-12)
    assert noise_variance(0.5, 100, sampled=False) == pytest.approx(1e-4, rel=1e-12)
    assert noise_variance(0.5, 100, 0.3, sampled=False) == 0.3
    assert noise_variance(0.5, 100, 0.3) == 0.3


def _z_reference(points, n, spread=0.0, sampled=True):
    xs, ys = np.array([x for x, _ in points], float), np.array([y for _, y in points], float)
    slope = np.polyfit(xs, ys, 1)[0]
    sxx = ((xs - xs.mean()) ** 2).sum()
    p = ys.mean()
    if sampled:
        shrunk = (p * n + 1) / (n + 2)
        var = max(shrunk * (1 - shrunk) / n, spread)
    else:
        var = max(spread, 1 / n**2)
    return slope / math.sqrt(var / sxx)


@pytest.mark.parametrize("sampled", [True, False])
def test_the_trend_is_the_least_squares_slope_over_its_error(sampled):
    points = [(500.0, 0.30), (600.0, 0.31), (700.0, 0.33), (800.0, 0.32), (900.0, 0.36)]
    z = trend_z(points, 1000, sampled=sampled)
    assert z == pytest.approx(_z_reference(points, 1000, sampled=sampled), rel=1e-9)
    three = points[:3]
    assert trend_z(three, 1000) == pytest.approx(_z_reference(three, 1000), rel=1e-9)
    assert trend_z(points[:2], 1000) == 0.0
    assert trend_z([(700.0, 0.1), (700.0, 0.2), (700.0, 0.3)], 1000) == 0.0  # one step


def test_the_detectable_rise_at_three_evaluations():
    spread = math.sqrt(3 * 4 / (12 * 2))
    want = Z_TREND * math.sqrt(0.1 * 0.9 / 1000) / spread
    assert detectable_rise(1000, 3, 0.1) == pytest.approx(want, rel=1e-12)
    assert detectable_rise(1000, 2, 0.1) == detectable_rise(1000, 3, 0.1)


def test_the_late_window_begins_after_its_split():
    last = 600.0
    split = last * (1 - LATE_FRACTION)  # an evaluation exactly at the split is early
    flat = [(100.0, 0.3), (split, 0.3), (500.0, 0.3), (550.0, 0.3), (last, 0.3)]
    assert verdict(flat, 0.99, 1000) == "plateaued"  # two early, three late
    short = [(100.0, 0.3), (200.0, 0.3), (split, 0.3), (500.0, 0.3), (last, 0.3)]
    assert verdict(short, 0.99, 1000) == "undecided"  # three early, two late: too few


def test_chance_measured_on_few_examples_keeps_a_late_blip_plateaued():
    curve = [(s, 0.55) for s in range(100, 900, 100)] + [(900, 0.62)]
    assert verdict(curve, 0.99, 1000, 0.5, 100) == "plateaued"
    assert verdict(curve, 0.99, 1000, 0.5) == "undecided"


def test_a_steady_rise_after_an_early_spike_is_still_improving():
    """The early spike puts the late best below the early one (the jump rule says plateaued),
    but the last half rises steadily: the trend test keeps it undecided, with its spread."""
    rising = [0.10 + 0.004 * i for i in range(6)]
    curve = [(100, 0.30), (200, 0.10), (300, 0.10)] + [(400 + 100 * i, a) for i, a in
                                                       enumerate(rising)]  # fmt: skip
    assert max(a for s, a in curve if s > 900 * (1 - LATE_FRACTION)) < 0.30
    window = _window(curve, TREND_FRACTION)
    assert trend_z(window, 10_000) >= Z_TREND
    assert verdict(curve, 0.99, 10_000) == "undecided"


def test_an_exactly_evaluated_set_has_no_sampling_noise():
    """A fixed set evaluated exactly (chance exact): a rise of a few examples is real."""
    rising = [0.100 + 0.002 * i for i in range(6)]
    curve = [(100, 0.30), (200, 0.10), (300, 0.10)] + [(400 + 100 * i, a) for i, a in
                                                       enumerate(rising)]  # fmt: skip
    assert verdict(curve, 0.99, 1000, 0.0) == "undecided"
    assert verdict(curve, 0.99, 1000) == "plateaued"  # as sampled, within noise


def test_superseded_runs_give_way_to_their_longest_extension():
    def run(steps, name, **more):
        config = {"task": "dyck", "lr": 0.01, **({"steps": steps} if steps is not None else {})}
        return {"config": {**config, **more}, "name": name}

    kept = current([run(200, "long"), run(100, "short"), run(200, "again"), run(50, "other", lr=1)])
    assert [r["name"] for r in kept] == ["long", "other"]
    assert [r["name"] for r in current([run(200, "long"), run(100, "short")])] == ["long"]
    assert [r["name"] for r in current([run(None, "a"), run(None, "b")])] == ["a"]


def test_the_extension_key_ignores_key_order_and_steps():
    assert extension_key({"a": 1, "b": 2, "steps": 5}) == extension_key(
        {"steps": 9, "b": 2, "a": 1}
    )


def test_the_examples_an_evaluation_measured():
    assert evaluated_on({"eval_samples": 500}, {"evaluated": 37}) == 37
    assert evaluated_on({"eval_samples": 500}, {"evaluated": "37"}) == 500
    assert evaluated_on({"eval_samples": 500}) == 500
    assert evaluated_on({}) == 1000
    assert evaluated_on({"eval_samples": True}) == 1000
    assert evaluated_on({"eval_samples": 500.0}) == 1000


def test_a_stored_run_is_judged_again_at_another_target_with_its_chance():
    curve = [[s, 0.55] for s in range(100, 900, 100)] + [[900, 0.62]]
    run = {"config": {"eval_samples": 1000}, "curve": curve, "verdict": "stored",
           "diagnostics": {"chance": {"accuracy": 0.5, "examples": 100}}}  # fmt: skip
    assert run_verdict(run) == "stored"
    assert run_verdict(run, 0.99) == "stored"  # the run's own target (0.99 by default)
    own = {**run, "config": {"eval_samples": 1000, "target": 0.9}}
    assert run_verdict(own, 0.9) == "stored" and run_verdict(own, 0.99) == "plateaued"
    assert run_verdict(run, 0.6) == "reached"
    assert run_verdict(run, 0.9) == "plateaued"  # the late blip is within chance's noise
    assert run_verdict({**run, "diagnostics": None}, 0.9) == "undecided"
    few = {**run, "config": {"eval_samples": 20}, "diagnostics": None}
    assert run_verdict(few, 0.9) == "plateaued"  # on 20 examples the blip is noise


def test_a_run_is_judgeable_with_its_last_step_evaluated_once():
    assert judgeable(9, 1)  # 1..9: six early, three late
    assert not judgeable(49, 10)  # 10, 20, 30 early; 40 and the last step, 49, late: two


def test_a_small_late_rise_on_an_exactly_evaluated_set_is_undecided():
    """Chance exact (a fixed set evaluated exactly): the late best beats the early best by more
    than one example's worth, where a sampled evaluation's noise would call it plateaued."""
    values = [0.3, 0.3, 0.298, 0.3, 0.3, 0.3, 0.3, 0.301, 0.303]
    curve = [(100 * (i + 1), a) for i, a in enumerate(values)]
    assert verdict(curve, 0.99, 1000, 0.0) == "undecided"
    assert verdict(curve, 0.99, 1000) == "plateaued"


def test_a_trend_exactly_at_z_trend_is_still_improving() -> None:
    # Window steps 23, 29, 31, 37 (offsets -7, -1, 1, 7 about 30: Sxx = 100), a linear rise of
    # b = 1/32 per step on an exactly evaluated set of n = 8: the noise is (1/n)^2 (the scatter,
    # 1/(6 n^2), is below it), so z = b sqrt(Sxx) n = 2.5 = Z_TREND, exactly in binary.
    # An early best of 0.9 keeps the late-jump test from firing: only the trend test decides.
    b, n = 1 / 32, 8
    window = [(s, 0.5 + b * (s - 30)) for s in (23, 29, 31, 37)]
    spread = sum((a - 2 * m + c) ** 2 for a, m, c in [(-7, -1, 1), (-1, 1, 7)]) * b * b / 12
    assert spread == 1 / (6 * n * n) and spread < 1 / (n * n)
    assert trend_z(window, n, spread, sampled=False) == Z_TREND == 10 * b * n
    curve = [(1, 0.9), *window]
    assert verdict(curve, 0.99, n, chance=0.0) == "undecided"  # at the threshold: improving
    flatter = [(1, 0.9), *[(s, 0.5 + 0.99 * b * (s - 30)) for s in (23, 29, 31, 37)]]
    assert verdict(flatter, 0.99, n, chance=0.0) == "plateaued"


def test_a_late_best_exactly_one_jump_above_the_early_best_is_not_a_jump() -> None:
    # Exactly evaluated (chance 0 exact), n = 4: the noise is (1/4)^2, so a jump is 2.5/4 = 0.625.
    # The trend window is the three late evaluations, flat (z = 0, no scatter).
    early = [(1, 0.25), (2, 0.25)]
    assert trend_z([(7, 0.875), (8, 0.875), (9, 0.875)], 4, 0.0, sampled=False) == 0.0
    at = [*early, (7, 0.875), (8, 0.875), (9, 0.875)]
    assert 0.25 + 2.5 * math.sqrt(noise_variance(0.25, 4, 0.0, sampled=False)) == 0.875
    assert verdict(at, 0.99, 4, chance=0.0) == "plateaued"  # not more than one jump above
    above = [*early, (7, 0.875), (8, 0.875), (9, 0.875 + 2**-20)]
    assert verdict(above, 0.99, 4, chance=0.0) == "undecided"
