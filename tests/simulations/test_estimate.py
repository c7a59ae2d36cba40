"""Dry runs: the cost model's arithmetic, the store's finished runs left out, a real probe, and
``ccx sweep --dry-run`` (which writes nothing)."""

from __future__ import annotations

import math

import pytest
import torch

from simulations import estimate
from simulations.stacks import work
from simulations.store import Store
from simulations.sweeps import load_spec
from simulations.training import TrainConfig

COEFFICIENTS = {
    "a_seconds": 0.01,
    "c_seconds_per_token": 1e-4,
    "b_seconds_per_madd": 1e-9,
    "ensemble_efficiency": 0.5,
}


@pytest.fixture
def fixed_probe(monkeypatch):
    calls = []

    def probe(arch, task, device, held=False):
        calls.append(arch)
        return COEFFICIENTS

    monkeypatch.setattr(estimate, "probe", probe)
    return calls


def test_makespan_spreads_longest_first():
    assert estimate.makespan([3, 3, 2, 2, 2], 2) == 7  # greedy: the best split would give 6
    assert estimate.makespan([5, 1, 1], 3) == 5
    assert estimate.makespan([1, 2, 3], 1) == 6


def test_unit_seconds_is_the_cost_model():
    config = TrainConfig.of(
        task="index-lookup",
        arch="lstm",
        width=16,
        layers=1,
        length=8,
        steps=100,
        eval_every=50,
        eval_samples=200,
        batch=32,
    )
    step = 0.01 + 1e-4 * 9 + 1e-9 * work(config)  # index lookup at N = 8: 9 tokens
    evaluations = 2 * math.ceil(200 / 32) / 3  # two evaluations, a third of a step per batch
    assert estimate.unit_seconds([config], COEFFICIENTS) == pytest.approx(
        step * (100 + evaluations)
    )
    pair = [config, config.replace(seed=1)]
    assert estimate.unit_seconds(pair, COEFFICIENTS) == pytest.approx(
        2 * 0.5 * step * (100 + evaluations)
    )


def test_the_fit_recovers_costs_and_never_goes_negative():
    rows = [[1.0, 16.0, 1e5], [1.0, 64.0, 4e5], [1.0, 64.0, 2e7]]
    exact = [0.002 + 3e-5 * t + 1e-9 * w for _, t, w in rows]
    a, c, b = estimate._nonnegative_fit(rows, exact)
    assert (a, c, b) == pytest.approx((0.002, 3e-5, 1e-9), rel=1e-6)
    noisy = [0.010, 0.009, 0.030]  # a longer probe timed faster: no negative cost per token
    assert min(estimate._nonnegative_fit(rows, noisy)) >= 0


def test_work_grows_with_width_length_and_attention():
    base = TrainConfig.of(task="index-lookup", arch="lstm", width=16, layers=1, length=8)
    wider = base.replace(width=32)
    longer = base.replace(length=16)
    attention = base.replace(arch="transformer")
    assert work(base) < work(wider) and work(base) < work(longer) < work(attention) * 2
    assert work(base) < work(attention)


def test_dry_run_leaves_out_stored_runs_and_writes_nothing(tmp_path, fixed_probe):
    db = tmp_path / "absent.db"
    plan = estimate.dry_run("smoke", db, workers=2, ensemble=4)
    assert not db.exists()
    assert (plan["runs"], plan["pending"], plan["units"], plan["largest_ensemble"]) == (8, 8, 4, 2)
    assert sorted(fixed_probe) == ["lstm", "transformer"]
    assert plan["estimated_seconds"] > 0 and "all its steps" in plan["estimate"]
    smoke = load_spec("smoke")
    stored = tmp_path / "s.db"
    with Store(stored) as store:
        for config in smoke.configs[:3]:
            store.add_run(
                {
                    "config": config.to_dict(),
                    "config_hash": config.config_hash(),
                    "accuracy": 1.0,
                    "best_accuracy": 1.0,
                }
            )
    assert estimate.dry_run("smoke", stored, workers=1)["pending"] == 5


def test_a_real_probe_measures_positive_costs():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        coefficients = estimate.probe("gru", "index-lookup", "cpu")
    finally:
        torch.set_num_threads(before)
    costs = [coefficients[k] for k in ("a_seconds", "c_seconds_per_token", "b_seconds_per_madd")]
    assert min(costs) >= 0 and sum(costs) > 0
    assert coefficients["ensemble_efficiency"] > 0


def test_ccx_sweep_dry_run(ccx_json, ccx, tmp_path, monkeypatch, fixed_probe):
    monkeypatch.chdir(tmp_path)
    plan = ccx_json("sweep", "--profile", "gpu", "--dry-run")
    assert plan["runs"] == 672 and plan["units"] == 58  # 48 cells, 6 split to fit memory
    assert isinstance(plan["estimated_seconds"], float)
    assert not (tmp_path / "results").exists()
    code, _, err = ccx("sweep", "--profile", "smoke", "--ensemble", "0")
    assert code == 2 and "--ensemble must be an integer in 1..1024" in err
