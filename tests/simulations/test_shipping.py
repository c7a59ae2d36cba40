"""Shipped stores: every run kept, no checkpoint paths, one self-contained file figures read."""

from __future__ import annotations

import sqlite3

import pytest

from ccomplexity.errors import InputError
from simulations import shipping
from simulations.store import Store, runs


def result(seed: int, checkpoint: str | None) -> dict:
    config = {"task": "dyck", "arch": "lstm", "width": 8, "layers": 1, "length": 8,
              "lr": 1e-3, "seed": seed, "steps": 900}  # fmt: skip
    return {
        "config": config,
        "config_hash": f"h{seed}",
        "accuracy": 0.5,
        "best_accuracy": 0.6,
        "curve": [[100 * i, 0.1 * min(i, 6)] for i in range(1, 10)],
        "checkpoint": checkpoint,
        "layer_similarity": {"attn": [[1.0]]},
        "ensemble": {"members": 2, "configs": ["h0", "h1"]},
    }


def test_ship_keeps_the_runs_and_drops_the_checkpoints(tmp_path):
    source = tmp_path / "s.db"
    with Store(source) as store:
        store.add_run(result(0, "/somewhere/h0.pt"))
        store.add_run(result(1, None))
        store.note_sweep("tiny")
    target = tmp_path / "shipped" / "tiny.db"
    shipped = shipping.ship(source, target)
    assert shipped["runs"] == 2 and shipped["bytes"] == target.stat().st_size
    before, after = runs(source), runs(target)
    assert [r["checkpoint"] for r in after] == [None, None]
    for key in ("config", "curve", "verdict", "accuracy_ci", "ensemble", "diagnostics", "created"):
        assert [r[key] for r in before] == [r[key] for r in after], key
    conn = sqlite3.connect(target)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    with Store(target, readonly=True) as store:
        assert store.sweeps() == ["tiny"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["tiny.db"]  # nothing beside it


def test_a_store_over_the_limit_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    source = tmp_path / "s.db"
    with Store(source) as store:
        store.add_run(result(0, None))
    monkeypatch.setattr(shipping, "MOST_BYTES", 100)
    with pytest.raises(InputError, match="over 100"):
        shipping.ship(source, tmp_path / "out.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.db"]
    assert shipping.main([str(source)]) == 2


def test_rejudge_applies_the_current_rule_with_the_tasks_chance(tmp_path, capsys):
    """A run at chance that an older rule left undecided (its last evaluation a noise jump) is
    judged again with Dyck's chance level measured, and said to have changed."""
    flat = {**result(0, None), "verdict": "undecided", "accuracy_ci": [0.4, 0.6],
            "curve": [[100 * i, a] for i, a in enumerate(
                [0.5, 0.49, 0.51, 0.5, 0.49, 0.5, 0.51, 0.5, 0.53], start=1)]}  # fmt: skip
    source = tmp_path / "s.db"
    with Store(source) as store:
        store.add_run(flat)
    assert runs(source)[0]["verdict"] == "undecided"
    assert shipping.main(["--rejudge", str(source), str(tmp_path / "out.db")]) == 0
    after = runs(tmp_path / "out.db")[0]
    assert after["verdict"] == "plateaued"
    assert after["diagnostics"]["chance"]["examples"] == 4096
    assert 0.45 < after["diagnostics"]["chance"]["accuracy"] < 0.55
    assert "h0: undecided -> plateaued" in capsys.readouterr().out
