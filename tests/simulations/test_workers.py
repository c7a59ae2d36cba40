"""Pool workers die with their sweep: after ``kill -9`` of a running sweep no process of it is
alive 5 seconds later; the parent-death signal (Linux) and the watchdog used where there is
none."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulations import workers

ORPHAN = """
import os, subprocess, sys
code = {code!r}.replace("PARENT", str(os.getpid()))
child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
assert child.stdout.readline() == "ready\\n"  # armed; now this parent ends
print(child.pid, flush=True)
"""


def _exists(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
@pytest.mark.parametrize(
    "code",
    [
        "from simulations.workers import watch_parent; print('ready', flush=True);"
        " watch_parent(PARENT, 0.05)",
        "import time; from simulations.workers import _die_with_parent;"
        " _die_with_parent(PARENT); print('ready', flush=True); time.sleep(60)",
    ],
    ids=["watchdog", "parent-death-signal"],
)
def test_a_worker_ends_when_its_parent_ends(code):
    root = Path(__file__).parents[2]
    parent = subprocess.run(
        [sys.executable, "-c", ORPHAN.format(code=code)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    orphan = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 30
    while _exists(orphan) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _exists(orphan)


def test_a_worker_whose_parent_is_already_gone_exits_at_once():
    code = "from simulations.workers import _die_with_parent; _die_with_parent(1); print('alive')"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "alive" not in proc.stdout


SLOW_SPEC = """[baseline]
task = "dyck"
arch = "gru"
width = 8
layers = 1
length = 8
[grid]
seed = [0, 1, 2, 3]
"""

KILLED_SWEEP = """
import sys
sys.path.insert(0, {here!r})
from test_workers import sleeping_train
from simulations.sweeps import run_sweep
if __name__ == "__main__":
    run_sweep({spec!r}, {db!r}, workers=2, train_fn=sleeping_train, progress=False)
"""


def sleeping_train(config, checkpoint_dir=None, progress=True) -> dict:
    """A run that trains for a minute: long enough to be killed mid-run."""
    time.sleep(60)
    raise RuntimeError("not reached")


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_a_sweep_leaves_no_process_behind(tmp_path):
    spec = tmp_path / "slow.toml"
    spec.write_text(SLOW_SPEC)
    script = tmp_path / "sweep.py"
    here = str(Path(__file__).parent)
    script.write_text(KILLED_SWEEP.format(here=here, spec=str(spec), db=str(tmp_path / "s.db")))
    root = Path(__file__).parents[2]
    proc = subprocess.Popen([sys.executable, str(script)], cwd=root)
    deadline = time.monotonic() + 90
    family: set[int] = set()
    while time.monotonic() < deadline:  # until both workers are up (and the resource tracker)
        family = _descendants(proc.pid)
        if len(family) >= 3:
            break
        time.sleep(0.2)
    assert len(family) >= 2, "the pool never started"
    time.sleep(1.0)
    family |= _descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    gone_by = time.monotonic() + 5.0  # every one of them gone within 5 s of the kill
    while time.monotonic() < gone_by and any(_exists(pid) for pid in family):
        time.sleep(0.1)
    survivors = [pid for pid in family if _exists(pid)]
    for pid in survivors:  # do not leave them running if the test fails
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert survivors == []


def test_workers_take_only_the_cores_the_load_leaves_free(monkeypatch):
    """On 8 cores: idle, 1 worker takes all 8 and 3 take 2 each; under a load of 6, 1 worker
    takes the 2 free cores; past 8 every worker takes one (threads beyond the free cores stall
    each other: benchmarks/results/sweep_load.md)."""
    monkeypatch.setattr(workers, "default_workers", lambda: 8)
    for load, processes, threads in (
        (0.0, 1, 8),
        (0.0, 3, 2),
        (6.0, 1, 2),
        (6.0, 2, 1),
        (9.5, 1, 1),
        (7.9, 1, 1),
    ):
        monkeypatch.setattr(workers.os, "getloadavg", lambda load=load: (load, load, load))
        assert workers.worker_threads(processes) == threads, (load, processes)
