"""Sweeps with ensembles: grouping, members stored as they stop (inline and in the pool), a killed
ensemble keeps its finished members, and a real sweep gives the same rows with and without them.

The fake trainers live at module level so that pool workers and the killed subprocess can
import them.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ccomplexity import limits
from ccomplexity.errors import InputError
from simulations.store import Store
from simulations.sweeps import load_spec, run_sweep
from simulations.units import plan_units


def fake_train(config, checkpoint_dir=None, progress=True) -> dict:
    accuracy = 1.0 if config.seed == 0 else 0.5
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": config.recipe.steps,
        "curve": [[config.recipe.steps, accuracy]],
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
        "device": "cpu",
        "checkpoint": None,
    }


CALLS: list[int] = []


def fake_ensemble(configs, checkpoint_dir=None, on_result=None, delay: float = 0.0) -> list:
    """Members stop one after the other, each reported at once through ``on_result``."""
    CALLS.append(len(configs))
    results = []
    for config in configs:
        time.sleep(delay)
        results.append({**fake_train(config), "ensemble": {"members": len(configs)}})
        if on_result is not None:
            on_result(results[-1])
    return results


def slow_ensemble(configs, checkpoint_dir=None, on_result=None) -> list:
    return fake_ensemble(configs, checkpoint_dir, on_result, delay=0.3)


def broken_ensemble(configs, checkpoint_dir=None, on_result=None) -> list:
    on_result(fake_train(configs[0]))
    raise RuntimeError("out of memory")


SPEC = """
[baseline]
task = "index-lookup"
width = 16
layers = 1
steps = 10

[grid]
arch = ["transformer", "lstm"]
length = [8, 12]
seed = [0, 1, 2, 3]
"""


def write_spec(tmp_path: Path, text: str = SPEC) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_the_gpu_profile_is_figs_2_to_4_with_the_lr_grid_one_ensemble_per_cell():
    gpu = load_spec("gpu")
    paper = load_spec("paper")
    app_h = {1e-2, 5e-3, 1e-3, 5e-4, 1e-4, 5e-5, 1e-6}  # App. H's 7; `paper` adds 1e-5, 5e-6
    assert {c.recipe.lr for c in gpu.configs} == app_h
    assert {c.recipe.lr for c in paper.configs} - {1e-5, 5e-6} == app_h
    assert {c.seed for c in gpu.configs} == {0, 1}
    assert {c.task.name for c in gpu.configs} == {
        "index-lookup",
        "dyck",
        "eq-random",
        "eq-one",
        "eq-ncp",
    }
    assert max(c.task.length for c in gpu.configs if c.task.name != "eq-ncp") == 400
    assert max(c.task.length for c in gpu.configs if c.task.name == "eq-ncp") == 800
    units = plan_units(list(zip(gpu.hashes(), gpu.configs, strict=True)), cap=16, workers=1)
    sizes = sorted(len(u) for u in units)
    # one ensemble of 14 per cell, except where 14 members' activations (evaluated at once)
    # exceed limits.FORWARD_NUMBERS: the transformers at N = 400 (7 + 7) and at N = 800
    # (3 + 3 + 3 + 3 + 2)
    assert sizes == [2] + [3] * 4 + [7] * 12 + [14] * 41
    for unit in units:
        assert len(unit) * unit[0][1].activations() <= limits.FORWARD_NUMBERS


def test_units_group_by_shape_and_split_for_idle_workers(tmp_path):
    spec = load_spec(write_spec(tmp_path))
    pending = list(zip(spec.hashes(), spec.configs, strict=True))
    units = plan_units(pending, cap=16, workers=1)
    assert [len(u) for u in units] == [4, 4, 4, 4]
    assert all(len({(c.model.arch, c.task.length) for _, c in u}) == 1 for u in units)
    assert sorted(len(u) for u in plan_units(pending, cap=3, workers=1)) == [1, 1, 1, 1, 3, 3, 3, 3]
    assert len(plan_units(pending, cap=16, workers=6)) == 6
    assert [len(u) for u in plan_units(pending, cap=1, workers=2)] == [1] * 16


def test_ensembles_inline_every_member_stored_once(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    CALLS.clear()
    summary = run_sweep(
        spec,
        db,
        workers=1,
        train_fn=fake_train,
        ensemble_fn=fake_ensemble,
        ensemble=2,
        progress=False,
    )
    assert (summary["ran"], summary["failed"]) == (16, [])
    assert CALLS == [2] * 8
    with Store(db) as store:
        assert store.done_hashes() == set(load_spec(spec).hashes())
    again = run_sweep(
        spec, db, workers=1, train_fn=fake_train, ensemble_fn=fake_ensemble, progress=False
    )
    assert (again["skipped"], again["ran"]) == (16, 0)


def test_a_custom_trainer_alone_is_not_grouped(tmp_path):
    CALLS.clear()
    summary = run_sweep(
        write_spec(tmp_path), tmp_path / "db", workers=1, train_fn=fake_train, progress=False
    )
    assert summary["ran"] == 16 and CALLS == []


def test_ensembles_in_the_pool(tmp_path, capsys):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    summary = run_sweep(spec, db, workers=2, train_fn=fake_train, ensemble_fn=fake_ensemble)
    assert (summary["ran"], summary["failed"]) == (16, [])
    assert "[16/16]" in capsys.readouterr().err
    with Store(db) as store:
        assert store.done_hashes() == set(load_spec(spec).hashes())


def test_a_failing_ensemble_keeps_the_members_it_finished(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    summary = run_sweep(
        spec, db, workers=1, train_fn=fake_train, ensemble_fn=broken_ensemble, progress=False
    )
    assert summary["ran"] == 4 and len(summary["failed"]) == 12
    assert {f["error"] for f in summary["failed"]} == {"RuntimeError: out of memory"}


def test_bad_ensemble_sizes(tmp_path):
    for bad in (0, -2, True, 1.5):
        with pytest.raises(InputError, match="ensemble must be an integer"):
            run_sweep(write_spec(tmp_path), tmp_path / "db", ensemble=bad, progress=False)
    assert not (tmp_path / "db").exists()


CHILD = """
import sys
sys.path.insert(0, {here!r})
from test_sweeps_ensemble import fake_train, slow_ensemble
from simulations.sweeps import run_sweep
run_sweep({spec!r}, {db!r}, workers=1, train_fn=fake_train, ensemble_fn=slow_ensemble,
          ensemble=8, progress=False)
"""


def test_sigkill_mid_ensemble_keeps_its_finished_members(tmp_path, stored_runs):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    expected = set(load_spec(spec).hashes())
    child = CHILD.format(here=str(Path(__file__).parent), spec=str(spec), db=str(db))
    proc = subprocess.Popen([sys.executable, "-c", child], cwd=Path(__file__).parents[2])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and stored_runs(db) < 2:
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    kept = stored_runs(db)
    assert 2 <= kept < 4  # members of the first ensemble of 4, stored while it still ran
    summary = run_sweep(
        spec, db, workers=1, train_fn=fake_train, ensemble_fn=fake_ensemble, progress=False
    )
    assert (summary["skipped"], summary["ran"]) == (kept, len(expected) - kept)
    conn = sqlite3.connect(db)
    hashes = [h for (h,) in conn.execute("SELECT config_hash FROM runs")]
    conn.close()
    assert sorted(hashes) == sorted(expected)  # each run exactly once


def test_a_real_sweep_gives_the_same_rows_with_and_without_ensembles(
    tmp_path, one_thread, tiny_sweep
):
    spec = tiny_sweep
    rows = {}
    for cap in (1, 4):
        db = tmp_path / f"e{cap}.db"
        summary = run_sweep(spec, db, workers=1, ensemble=cap, progress=False)
        assert (summary["ran"], summary["failed"]) == (8, [])
        with Store(db) as store:
            rows[cap] = {r["config_hash"]: r for r in store.runs()}
    assert rows[1].keys() == rows[4].keys()
    for key, alone in rows[1].items():
        together = rows[4][key]
        assert together["steps"] == alone["steps"]
        assert together["accuracy"] == pytest.approx(alone["accuracy"], abs=1e-6)
        assert together["curve"] == alone["curve"]
