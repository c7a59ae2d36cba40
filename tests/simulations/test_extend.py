"""--extend-undecided: undecided runs trained again with doubled steps, the extension read in
place of the run it extends; and ccx rerun on real runs."""

from __future__ import annotations

import json
import textwrap

import pytest

from ccomplexity.errors import InputError
from simulations.environment import identity_differences
from simulations.rerun import compare, rerun
from simulations.store import runs
from simulations.sweeps import run_sweep
from simulations.thresholds import thresholds
from simulations.training import TrainConfig

SPEC = """
    [sweep]
    name = "budget"
    target = 0.99

    [baseline]
    task = "index-lookup"
    arch = "lstm"
    width = 8
    layers = 1
    steps = 100
    eval_every = 10

    [grid]
    length = [8, 12, 16]
"""


def budget_train(config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True):
    """N = 8 is learned at once; N = 12 climbs by 0.2 per 100 steps and reaches the target at
    400 steps (undecided before); N = 16 stays at chance (plateaued)."""
    evaluations = config.recipe.steps // config.evaluation.eval_every
    if config.task.length == 8:
        curve = [[10, 1.0]]
    elif config.task.length == 12:
        top = min(1.0, 0.2 + 0.2 * config.recipe.steps / 100)
        curve = [[10 * (i + 1), top * (i + 1) / evaluations] for i in range(evaluations)]
    else:
        curve = [[10 * (i + 1), 0.1] for i in range(evaluations)]
    best = max(a for _, a in curve)
    return {
        "accuracy": curve[-1][1],
        "best_accuracy": best,
        "steps": curve[-1][0],
        "curve": curve,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
        "state_numel": 16,
        "checkpoint": None,
    }


@pytest.fixture
def spec(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(SPEC))
    return path


def test_undecided_runs_are_extended_until_decided(spec, tmp_path):
    db = tmp_path / "s.db"
    first = run_sweep(spec, db, workers=1, train_fn=budget_train, progress=False)
    assert "extended" not in first
    (row,) = thresholds(db)
    assert row["threshold_length"] == "undecided" and row["threshold_at_least"] == 8
    once = run_sweep(spec, db, workers=1, train_fn=budget_train, progress=False, extend_undecided=1)
    assert once["skipped"] == 3 and once["extended"] == [
        {"round": 1, "extended": 1, "steps": [200], "ran": 1, "failed": 0, "still_undecided": 1}
    ]
    twice = run_sweep(
        spec, db, workers=1, train_fn=budget_train, progress=False, extend_undecided=3
    )
    assert [r["steps"] for r in twice["extended"]] == [[200], [400]]
    assert [r["ran"] for r in twice["extended"]] == [0, 1]  # the 200-step run is stored already
    assert twice["extended"][-1]["still_undecided"] == 0
    (row,) = thresholds(db)
    assert row["threshold_length"] == 12 and row["runs"] == 3
    assert sorted(r["config"]["steps"] for r in runs(db) if r["length"] == 12) == [100, 200, 400]


def test_extension_rounds_are_limited(spec, tmp_path):
    with pytest.raises(InputError, match="extend-undecided"):
        run_sweep(
            spec,
            tmp_path / "s.db",
            workers=1,
            train_fn=budget_train,
            progress=False,
            extend_undecided=11,
        )
    assert not (tmp_path / "s.db").exists()


def test_rerun_reproduces_runs_trained_alone_and_in_an_ensemble(tmp_path):
    spec = tmp_path / "real.toml"
    spec.write_text(
        textwrap.dedent("""
        [sweep]
        name = "real"
        [baseline]
        task = "dyck"
        arch = "transformer"
        width = 8
        layers = 1
        length = 4
        steps = 20
        eval_every = 10
        eval_samples = 50
        [grid]
        lr = [1e-3, 1e-2]
    """)
    )
    db = tmp_path / "s.db"
    run_sweep(spec, db, workers=1, progress=False)
    stored = runs(db)
    assert all(r["ensemble"]["configs"] == [s["config_hash"] for s in stored] for r in stored)
    again = rerun(db, str(stored[1]["id"]))
    assert again["identical"] and again["form"]["trained"].startswith("ensemble of 2")
    assert again["max_difference"] == 0.0 and again["verdict_changed"] is False
    assert again["environment"]["differs_in"] == []  # trained here, now: the same where it decides
    assert again["rerun"]["best_accuracy"] == stored[1]["best_accuracy"]
    db_alone = tmp_path / "alone.db"
    run_sweep(spec, db_alone, workers=1, progress=False, ensemble=1)
    alone = rerun(db_alone, runs(db_alone)[0]["config_hash"])
    assert alone["identical"] and alone["form"]["trained"] == "alone"
    for missing in ("999", "9" * 23):  # beyond SQLite's integers: read as a hash
        with pytest.raises(InputError, match="no run"):
            rerun(db, missing)
    with pytest.raises(InputError, match="row id or a config hash"):
        rerun(db, "\u0661\u0662")  # digits, but not ASCII ones
    json.dumps(again)  # JSON-ready


def test_compare_reports_the_largest_difference_and_a_changed_verdict():
    stored = {"best_accuracy": 0.966, "accuracy": 0.95, "steps": 400, "verdict": "undecided",
              "curve": [[200, 0.5], [400, 0.966]]}  # fmt: skip
    same = compare(stored, dict(stored))
    assert same["identical"] and same["max_difference"] == 0 and not same["verdict_changed"]
    fresh = {**stored, "best_accuracy": 0.944, "accuracy": 0.944, "verdict": "plateaued",
             "curve": [[200, 0.51], [400, 0.944]]}  # fmt: skip
    report = compare(stored, fresh)
    assert not report["identical"] and report["verdict_changed"]
    assert report["differences"] == ["best_accuracy", "accuracy", "curve", "verdict"]
    assert report["max_difference"] == pytest.approx(0.022)
    # a re-run that stops early: compared at the steps both evaluated
    short = {**stored, "steps": 200, "curve": [[200, 0.5]], "accuracy": 0.5, "best_accuracy": 0.5}
    assert compare(stored, short)["max_difference"] == pytest.approx(0.466)


def test_identity_differences_name_what_decides_a_rerun():
    stored = {"torch": "2.13.0", "cpu_capability": "AVX512", "threads": 1, "deterministic": True}
    assert identity_differences(stored, dict(stored)) == []
    now = {**stored, "cpu_capability": "AVX2", "cpu": "another"}
    assert identity_differences(stored, now) == ["cpu_capability: AVX512 -> AVX2"]
    assert identity_differences({}, now) == [
        "torch: not recorded",
        "cpu_capability: not recorded",
        "threads: not recorded",
        "deterministic: not recorded",
    ]
