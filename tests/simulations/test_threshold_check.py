"""``ccx threshold --check``: a run trained at p bits that reaches its target beyond its own
wall is listed and the exit status is 1; the accuracy ceiling says when it is wrong for sure."""

from __future__ import annotations

import pytest

from ccomplexity.fano import index_lookup_ceiling
from simulations.store import Store
from simulations.thresholds import beyond_bounds
from simulations.training import TrainConfig


def held_run(
    length: int, accuracy: float, width: int = 2, precision: int | None = 2, **more: object
) -> dict:
    """A GRU of ``width`` state numbers held at ``precision`` bits on index lookup over two
    symbols (Thm 3's wall: N = width x precision), with its best accuracy ``accuracy``; ``more``
    changes the config (task, arch, heads, ...)."""
    options = {"task": "index-lookup", "arch": "gru", "symbols": 2, "layers": 1, **more}
    if options["task"] != "index-lookup":
        options.pop("symbols")
    config = TrainConfig.of(width=width, length=length, precision=precision,
                            steps=100, **options)  # fmt: skip
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


def test_what_the_check_skips_and_what_it_keeps_looking_at(store):
    """A float run, a held two-layer transformer (no lower bound for two layers) and a held
    run below the target are passed over; a held run exactly at the target beyond its wall is
    found after them."""
    floating = held_run(64, 1.0, precision=None)
    two_layers = held_run(64, 1.0, task="dyck", arch="transformer", heads=1, layers=2)
    below = held_run(6, 0.98)
    at_target = held_run(8, 0.99)
    path = store(floating, two_layers, below, at_target)
    assert [r["config_hash"] for r in beyond_bounds(path)] == [at_target["config_hash"]]


def test_a_held_transformer_is_checked_against_its_held_wall_with_its_heads(store):
    from ccomplexity import bounds

    run = held_run(64, 0.995, task="dyck", arch="transformer", width=2, heads=2)
    run["state_numel"] = None
    (found,) = beyond_bounds(store(run))
    held = bounds.get("separations.thm5_held")
    assert found["bound_id"] == "separations.thm5_held" and found["task"] == "dyck"
    assert found["bound_params"] == {"m": 1, "p": 2, "H": 2, "m_is": "width / heads"}
    assert found["bound_length"] == held.max_length(1, 2, 2) < 64
    assert found["accuracy_ceiling"] is None  # not index lookup: no information ceiling


def test_the_why_of_each_kind_of_flagged_run(store):
    eq = held_run(64, 1.0, task="eq-random", width=2, precision=2)
    wide = held_run(8, 0.99, symbols=4)  # 4 bits about 8 symbols of 2 bits each
    path = store(eq, wide)
    found = {r["config_hash"]: r for r in beyond_bounds(path)}
    assert found[eq["config_hash"]]["accuracy_ceiling"] is None
    assert found[eq["config_hash"]]["why"] == (
        "beyond the worst-case wall: every protocol of its bits errs on some input, so the "
        "model errs on inputs its evaluation did not draw, or the model, the protocol or "
        "the bound's implementation is wrong; evaluate it on more inputs"
    )
    ceiling = index_lookup_ceiling(4, 8, 4)
    assert found[wide["config_hash"]]["accuracy_ceiling"] == ceiling < 0.99
    assert found[wide["config_hash"]]["why"] == (
        f"above {ceiling:.4f}, the most any message of its bits scores on uniform inputs "
        "(Fano): the model, the protocol or the bound's implementation is wrong"
    )
