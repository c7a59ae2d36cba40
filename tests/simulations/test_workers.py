"""Pool workers die with their sweep: the parent-death signal (Linux) and the watchdog used
where there is none. (The kill -9 of a whole sweep is in test_cli_fuzz.py.)"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

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
        cwd=root, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    orphan = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 30
    while _exists(orphan) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _exists(orphan)


def test_a_worker_whose_parent_is_already_gone_exits_at_once():
    code = "from simulations.workers import _die_with_parent; _die_with_parent(1); print('alive')"
    proc = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parents[2],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 1 and "alive" not in proc.stdout
