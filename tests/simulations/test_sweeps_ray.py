"""The Ray backend against a real local Ray cluster (``ray.init`` with this machine's cores):
ensembles and single runs, and a sweep whose driver is killed and then resumed.

Runs when Ray is installed (``pip install ".[ray]"``, or ``make test-ray``); skipped otherwise.
The drivers run in subprocesses so that each starts and stops its own cluster.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from simulations.store import Store  # noqa: E402
from simulations.sweeps import load_spec, run_sweep  # noqa: E402

ROOT = Path(__file__).parents[2]


# A driver: trains with the real trainer, each run first sleeping ``delay`` seconds (so that it
# can be killed mid-sweep); the functions live in __main__, so Ray ships them by value.
DRIVER = """
import json, os, time
import ray
from simulations.sweeps import run_sweep
from simulations.training import train


def slow_train(config, checkpoint_dir=None, progress=False):
    time.sleep({delay})
    return train(config, checkpoint_dir=checkpoint_dir, progress=False, device="cpu")


ray.init(num_cpus=os.cpu_count(), include_dashboard=False)
summary = run_sweep({spec!r}, {db!r}, backend="ray", train_fn=slow_train, ensemble={ensemble},
                    progress=False)
print(json.dumps(summary))
ray.shutdown()
"""


def driver(spec: Path, db: Path, delay: float, ensemble: int) -> subprocess.Popen:
    code = DRIVER.format(delay=delay, spec=str(spec), db=str(db), ensemble=ensemble)
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["OMP_NUM_THREADS"] = "1"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def finish(proc: subprocess.Popen) -> dict:
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0
    return json.loads(out.strip().splitlines()[-1])


def rows(db: Path) -> dict[str, dict]:
    with Store(db) as store:
        return {r["config_hash"]: r for r in store.runs()}


def test_ensembles_on_a_real_ray_cluster_give_the_rows_of_an_inline_sweep(
    tmp_path, one_thread, tiny_sweep
):
    ray_db, inline_db = tmp_path / "ray.db", tmp_path / "inline.db"
    summary = finish(driver(tiny_sweep, ray_db, delay=0.0, ensemble=4))
    assert (summary["backend"], summary["ran"], summary["failed"]) == ("ray", 8, [])
    run_sweep(tiny_sweep, inline_db, workers=1, ensemble=4, progress=False)
    on_ray, inline = rows(ray_db), rows(inline_db)
    assert on_ray.keys() == inline.keys()
    for key, row in inline.items():
        assert (on_ray[key]["steps"], on_ray[key]["curve"]) == (row["steps"], row["curve"])
        assert Path(on_ray[key]["checkpoint"]).is_file()


def test_a_killed_ray_driver_resumes_without_losing_or_repeating_runs(
    tmp_path, stored_runs, tiny_sweep
):
    db = tmp_path / "ccx.db"
    proc = driver(tiny_sweep, db, delay=2.0, ensemble=1)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None and stored_runs(db) < 2:
        time.sleep(0.1)
    assert proc.poll() is None, "the sweep finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and the cluster it started
    proc.wait(timeout=60)
    kept = stored_runs(db)
    expected = set(load_spec(tiny_sweep).hashes())
    assert 2 <= kept < len(expected)
    summary = finish(driver(tiny_sweep, db, delay=0.0, ensemble=1))
    assert (summary["skipped"], summary["ran"], summary["failed"]) == (kept, 8 - kept, [])
    conn = sqlite3.connect(db)
    hashes = [h for (h,) in conn.execute("SELECT config_hash FROM runs")]
    conn.close()
    assert sorted(hashes) == sorted(expected)  # each run exactly once
