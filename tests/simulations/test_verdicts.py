"""Verdicts: the Wilson interval against its formula's known values, the rule on curves: its
chance floor, its trend test (against the rise it is built to see) and its late-jump test."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simulations
from simulations import verdicts
from simulations.sweeps import load_spec
from simulations.verdicts import combine, current, judge, verdict, wilson

PROFILES = Path(simulations.__file__).parent / "profiles"


def test_wilson_matches_known_values():
    # 50/100: 0.5 +- 0.0962 (the textbook example); 0/10: [0, 0.2775]; 10/10: [0.7225, 1].
    assert wilson(0.5, 100) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    assert wilson(0.0, 10) == pytest.approx((0.0, 0.27754), abs=1e-5)
    assert wilson(1.0, 10) == pytest.approx((0.72246, 1.0), abs=1e-5)


@given(st.integers(1, 10_000), st.data())
def test_wilson_holds_the_estimate_within_zero_and_one(n, data):
    k = data.draw(st.integers(0, n))
    lo, hi = wilson(k / n, n)
    assert 0 <= lo <= k / n <= hi <= 1


def curve(*accuracies: float) -> list[list[float]]:
    return [[100 * (i + 1), a] for i, a in enumerate(accuracies)]


def test_reached_plateaued_and_undecided():
    assert verdict(curve(0.2, 0.5, 0.995), 0.99, 1000) == "reached"
    # still climbing in the last third of the budget: 0.35 -> 0.52 -> 0.70 -> 0.73
    rising = curve(0.1, 0.2, 0.35, 0.45, 0.52, 0.6, 0.70, 0.72, 0.73)
    assert verdict(rising, 0.99, 1000) == "undecided"
    # at chance, within sampling noise, for the whole budget
    flat = curve(0.02, 0.025, 0.018, 0.022, 0.03, 0.024, 0.021, 0.026, 0.02)
    assert verdict(flat, 0.99, 1000) == "plateaued"
    # rose, then stopped well before the budget ended
    stalled = curve(0.1, 0.5, 0.8, 0.81, 0.8, 0.82, 0.81, 0.8, 0.81)
    assert verdict(stalled, 0.99, 1000) == "plateaued"
    # the same small gain is noise on 100 examples but not on 10,000
    gain = curve(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.53, 0.53, 0.53)
    assert verdict(gain, 0.99, 100) == "plateaued"
    assert verdict(gain, 0.99, 10_000) == "undecided"


def test_a_run_within_noise_of_chance_is_plateaued_at_chance():
    # chance 1/64 on 1000 examples: wobbling up to 0.027 in the last half is noise there
    wobbly = curve(0.016, 0.012, 0.015, 0.014, 0.012, 0.013, 0.015, 0.027)
    assert verdict(wobbly, 0.99, 1000, 1 / 64, 4096) == "plateaued"
    # without a chance level the same late jump reads as a gain
    assert verdict(wobbly, 0.99, 1000) == "undecided"
    # clearly above chance and rising: not floored
    leaving = curve(0.016, 0.015, 0.016, 0.02, 0.03, 0.045, 0.06, 0.08)
    assert verdict(leaving, 0.99, 1000, 1 / 64, 4096) == "undecided"
    # an exact chance (a fixed set): at it, below it, one example above it on 1000 examples
    assert verdicts.at_chance(curve(0.5, 0.5, 0.5, 0.5), 1000, 0.5, None)
    assert verdicts.at_chance(curve(0.45, 0.45, 0.45, 0.45), 1000, 0.5, None)
    assert not verdicts.at_chance(curve(0.6, 0.6, 0.6, 0.6), 1000, 0.5, None)
    assert not verdicts.at_chance(curve(0.5, 0.5), 1000, None)


def test_a_slow_steady_rise_is_undecided_when_the_evaluations_can_see_it():
    # 0.02 -> 0.14 over the budget, rising at every evaluation
    slow = curve(0.02, 0.035, 0.05, 0.065, 0.08, 0.095, 0.11, 0.125, 0.14)
    assert verdict(slow, 0.99, 2000, 1 / 64, 4096) == "undecided"
    # the same rise on 100 examples is within sampling noise
    assert verdict(slow, 0.99, 100, 1 / 64, 4096) == "plateaued"


def test_a_fixed_set_is_evaluated_without_sampling_noise():
    # memorisation: four more of 256 sequences right at the end of the budget
    exact = curve(0.87, 0.92, 0.922, 0.926, 0.926, 0.926, 0.926, 0.934, 0.938, 0.941)
    assert verdict(exact, 1.0, 256, 0.53, None) == "undecided"  # no sampling noise: a gain
    assert verdict(exact, 1.0, 256, 0.53, 4096) == "plateaued"  # as fresh samples: noise


def test_the_trend_test_sees_the_rise_it_is_built_to_see():
    for n, k, level in ((500, 5, 0.1), (2000, 5, 0.5), (1000, 8, 0.9)):
        rise = verdicts.detectable_rise(n, k, level)
        line = [(float(i), level - rise / 2 + rise * i / (k - 1)) for i in range(k)]
        # a straight line: no scatter, so its z is the binomial one, Z_TREND at that rise
        assert verdicts.scatter([a for _, a in line]) == pytest.approx(0, abs=1e-15)
        assert verdicts.trend_z(line, n) == pytest.approx(verdicts.Z_TREND, rel=0.01)
        falling = [(x, 2 * level - y) for x, y in line]
        assert verdicts.trend_z(falling, n) == pytest.approx(-verdicts.Z_TREND, rel=0.01)
    assert verdicts.trend_z([(1.0, 0.5), (2.0, 0.6)], 100) == 0.0  # too few points


def test_scatter_is_the_variance_of_second_differences():
    assert verdicts.scatter([0.5, 0.6, 0.5]) == pytest.approx(0.2**2 / 6)
    assert verdicts.scatter([0.1, 0.2, 0.3, 0.4]) == pytest.approx(0)
    assert verdicts.scatter([0.5, 0.5]) == 0.0


@pytest.mark.parametrize(
    "record",
    [
        None,
        0.5,
        {"accuracy": 1.5, "examples": 10},
        {"accuracy": 0.5, "examples": 0},
        {"accuracy": True, "examples": 10},
        {"accuracy": 0.5, "examples": "10"},
        {"examples": 10},
    ],
)
def test_a_malformed_chance_record_means_no_chance_floor(record):
    assert verdicts.chance_of(record) == (None, None)
    assert verdicts.chance_of({"accuracy": 0.25, "examples": 7}) == (0.25, 7)
    assert verdicts.chance_of({"accuracy": 0, "examples": None}) == (0.0, None)


def test_too_short_a_curve_is_undecided():
    assert verdict(curve(0.1, 0.1), 0.99, 1000) == "undecided"
    assert verdict([], 0.99, 1000) == "undecided"


def test_judge_gives_the_interval_of_the_final_accuracy():
    judged = judge({"target": 0.9}, curve(0.1, 0.5, 0.95), 0.95, 200)
    assert judged["verdict"] == "reached"
    assert judged["accuracy_ci"] == list(wilson(0.95, 200))
    flat = curve(0.017, 0.011, 0.015, 0.014, 0.015, 0.008, 0.015, 0.03)
    chance = {"accuracy": 1 / 64, "examples": 4096}
    assert judge({}, flat, 0.03, 1000, 0.03, chance)["verdict"] == "plateaued"
    assert judge({}, flat, 0.03, 1000, 0.03)["verdict"] == "undecided"


def test_cells_combine_as_a_best_over_runs():
    assert combine(["plateaued", "reached", "undecided"]) == "reached"
    assert combine(["plateaued", "undecided"]) == "undecided"
    assert combine(["plateaued", "plateaued"]) == "plateaued"


def test_an_extension_supersedes_the_run_it_extends():
    def run(steps: int, lr: float) -> dict:
        return {"config": {"task": "dyck", "lr": lr, "steps": steps}}

    runs = [run(100, 1e-3), run(100, 1e-2), run(200, 1e-3), run(400, 1e-3)]
    assert current(runs) == [runs[1], runs[3]]


@settings(max_examples=200, deadline=None)
@given(steps=st.integers(1, 400), every=st.integers(1, 200))
def test_judgeable_says_whether_a_flat_miss_can_be_called_a_plateau(steps, every):
    evaluated = sorted({s for s in range(1, steps + 1) if s % every == 0 or s == steps})
    flat = [[s, 0.5] for s in evaluated]  # the training loop's evaluation steps, no gain
    expected = "plateaued" if verdicts.judgeable(steps, every) else "undecided"
    assert verdicts.verdict(flat, 0.99, 300) == expected


@pytest.mark.parametrize("name", sorted(p.stem for p in PROFILES.glob("*.toml")))
def test_every_profile_run_can_be_judged(name):
    """A run that misses its target after all its steps has the evaluations a plateau needs, so
    that no profile's verdict is undecided for want of evaluations."""
    for config in load_spec(name).configs:
        assert verdicts.judgeable(config.recipe.steps, config.evaluation.eval_every), (
            name,
            config.task.name,
        )
