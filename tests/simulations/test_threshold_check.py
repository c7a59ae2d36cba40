"""``ccx threshold --check``: a run trained at p bits that reaches its target beyond its own
wall is listed and the exit status is 1; the accuracy ceiling says when it is wrong for sure."""

from __future__ import annotations

import pytest

from simulations.store import Store
from simulations.thresholds import beyond_bounds
from simulations.training import TrainConfig


def held_run(length: int, accuracy: float, width: int = 2, precision: int = 2) -> dict:
    """A GRU of ``width`` state numbers held at ``precision`` bits on index lookup over two
    symbols (Thm 3's wall: N = width x precision), with its best accuracy ``accuracy``."""
    config = TrainConfig.of(task="index-lookup", arch="gru", width=width, layers=1,
                            length=length, symbols=2, precision=precision, steps=100)  # fmt: skip
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": 100,
        "wall_seconds": 1.0,
        "checkpoint": None,
        "curve": [{"step": 50, "accuracy": accuracy}, {"step": 100, "accuracy": accuracy}],
        "parameters": 100,
        "state_numel": width,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": 0,
        "device": "cpu",
    }


@pytest.fixture
def store(tmp_path):
    def make(*runs):
        path = tmp_path / "held.db"
        with Store(path) as s:
            for run in runs:
                s.add_run(run)
        return path

    return make


def test_runs_within_their_walls_pass(store, ccx, ccx_json):
    path = store(held_run(4, 1.0), held_run(8, 0.6))  # wall 4: reached at 4, not beyond
    code, out, _ = ccx("threshold", "--store", str(path), "--check", "--json")
    assert code == 0 and '"beyond_bounds": []' in out and '"checked": 2' in out


def test_a_run_beyond_its_wall_is_named_with_its_ceiling(store, ccx):
    wrong, near = held_run(8, 1.0), held_run(17, 0.992, width=8, precision=2)
    path = store(held_run(4, 1.0), wrong, near)
    found = {r["config_hash"]: r for r in beyond_bounds(path)}
    assert set(found) == {wrong["config_hash"], near["config_hash"]}
    # 4 bits about 8 uniform bits: at most 0.89 on average (Fano), so 1.0 is wrong for certain
    assert found[wrong["config_hash"]]["accuracy_ceiling"] == pytest.approx(0.88997, abs=1e-4)
    assert "wrong" in found[wrong["config_hash"]]["why"]
    # 16 bits about 17: 0.992 is below the ceiling, so the run may err on inputs never drawn
    assert found[near["config_hash"]]["accuracy_ceiling"] > 0.992
    assert "worst-case wall" in found[near["config_hash"]]["why"]
    assert found[wrong["config_hash"]]["bound_length"] == 4
    code, out, _ = ccx("threshold", "--store", str(path), "--check")
    assert code == 1 and wrong["config_hash"] in out and near["config_hash"] in out


def test_the_shipped_bite_store_passes_its_check(ccx):
    """Every run of the shipped `bite` profile stays within its own wall at its own p."""
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[2] / "shipped" / "bite.db"
    code, out, _ = ccx("threshold", "--store", str(shipped), "--check", "--json")
    assert code == 0 and '"beyond_bounds": []' in out and '"checked": 320' in out
