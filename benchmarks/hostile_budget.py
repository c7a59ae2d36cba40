"""The memory and work budget, measured: in-range values of every command, each run as a user
runs it (``python -m ccx ...``, a fresh process in a fresh folder) under a 4 GiB address space
and a 30 s time limit, and a sweep whose pool worker is killed.

The cases are drawn by hypothesis from ``tests/ccx/budget_cases.py`` (the families of command
lines and the ranges their options declare), the issue's named cases beside them. Each case
must complete (exit 0) or refuse in one line (exit 2), never a traceback, never over its time.

    python benchmarks/hostile_budget.py [PURE TORCH]   # writes benchmarks/results/hostile_budget.*
"""

from __future__ import annotations

import json
import os
import platform
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from simulations.store import stored_count  # noqa: E402
from tests.ccx.budget_cases import ADDRESS_SPACE, SECONDS, cases, run_case  # noqa: E402

RESULTS = Path(__file__).parent / "results"
NAMED = [
    "dyck count --types 2 --depth 2 --length 1048576 --json",
    "cc exact --problem index --length 1048576",
    "cc exact --problem dyck --types 2 --depth 1048576 --length 6",
    "task index-lookup --length 1048576 --batch 10000",
    "looped rounds --task p-hop --hops 4096 --length 10000 --samples 1000",
    "construct --task memorize --examples 1048576 --dim 4",
    "dfa addition --operands 1000",
    "models --width 4 --layers 256 --experts 32",
    "codes --length 7449",
    "kg split --json --entities 1024 --relations 1 --hops 64 --cut 1 --seed 19326",
    "kg sample --json --entities 215 --relations 215 --hops 4096 --seed 2 --batch 10000",
    "construct --task index-lookup --length 8 --samples 10000000",
    "construct --task kg-path --entities 65536 --relations 2 --hops 2",
    "task i-gsm --modulus 97 --length 512 --batch 2048",
    "cc oneway --problem dyck --json --types 32768 --depth 0 --length 524289 --cut 2",
    "cc oneway --problem dyck --json --types 2 --depth 2 --length 1000000 --cut 5",
    "train --task dyck --arch transformer --width 64 --heads 1 --length 2048 --steps 1",
]
"""The issue's examples (and those the drawn cases found), run every time."""


def drawn(torch: bool, examples: int) -> list[list[str]]:
    """``examples`` command lines drawn from the families with (or without) torch."""
    out: list[list[str]] = []

    @settings(
        max_examples=examples,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(cases(torch))
    def collect(argv):
        out.append(argv)

    collect()
    return out


def killed_worker() -> dict:
    """``ccx sweep --profile smoke --workers 2`` with one pool worker killed (SIGKILL) once the
    pool has stored a run (the worker is then on its next one): the sweep's exit status, its
    summary and the runs in its store (``killed_pid`` None: the sweep ended first)."""
    folder = Path(tempfile.mkdtemp())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "ccx", "sweep", "--profile", "smoke", "--store", "s.db",
            "--workers", "2", "--json"]  # fmt: skip
    start = time.perf_counter()
    sweep = subprocess.Popen(
        argv, cwd=folder, env=env, stdout=subprocess.PIPE, text=True, stderr=subprocess.DEVNULL
    )
    victim = None
    while victim is None and sweep.poll() is None:  # a worker, once the pool has stored a run
        time.sleep(0.2)
        if stored_count(folder / "s.db") < 1:
            continue
        kids = subprocess.run(
            ["pgrep", "-P", str(sweep.pid), "-f", "multiprocessing.spawn"],
            capture_output=True,
            text=True,
        ).stdout.split()
        victim = int(kids[0]) if kids else None
        try:
            if victim is not None:
                os.kill(victim, signal.SIGKILL)
        except ProcessLookupError:  # it ended between the listing and the kill: another
            victim = None
    out, _ = sweep.communicate()
    summary = json.loads(out)
    with sqlite3.connect(folder / "s.db") as conn:
        query = "SELECT count(*), count(DISTINCT config_hash) FROM runs"
        rows, distinct = conn.execute(query).fetchone()
    return {
        "command": " ".join(argv[3:]),
        "exit": sweep.returncode,
        "killed_pid": victim,
        "runs": summary["runs"],
        "ran": summary["ran"],
        "failed": len(summary["failed"]),
        "stored_rows": rows,
        "distinct_runs": distinct,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    pure, torch = (int(a) for a in (sys.argv[1:3] if len(sys.argv) > 2 else (60, 20)))
    before = os.getloadavg()
    lines = [a.split() for a in NAMED] + drawn(False, pure) + drawn(True, torch)
    rows = []
    for argv in lines:
        o = run_case(argv)
        rows.append(
            {
                "command": "ccx " + " ".join(argv),
                "exit": o.code,
                "seconds": round(o.seconds, 2),
                "max_rss_mib": o.max_rss >> 20,
                "problem": o.problem(),
                "stderr": o.stderr.strip().splitlines()[-1][:200] if o.stderr.strip() else "",
            }
        )
        print(rows[-1]["exit"], rows[-1]["seconds"], rows[-1]["command"][:120], flush=True)
    sweep = killed_worker()
    summary = {
        "cases": len(rows),
        "completed": sum(r["exit"] == 0 for r in rows),
        "refused": sum(r["exit"] == 2 for r in rows),
        "broken": sum(r["problem"] is not None for r in rows),
        "max_seconds": max(r["seconds"] for r in rows),
        "max_rss_mib": max(r["max_rss_mib"] for r in rows),
        "address_space_gib": ADDRESS_SPACE >> 30,
        "time_limit_s": SECONDS,
    }
    machine = {"cores": os.cpu_count(), "python": platform.python_version(),
               "load_before": [round(v, 2) for v in before],
               "load_after": [round(v, 2) for v in os.getloadavg()],
               "note": "a 2-core machine shared with other jobs"}  # fmt: skip
    result = {"summary": summary, "killed_worker": sweep, "cases": rows, "machine": machine}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hostile_budget.json").write_text(json.dumps(result, indent=1) + "\n")
    text = [
        "# The budget: in-range values of every command, and a sweep that outlives a worker",
        "",
        f"Machine: {machine['cores']} cores shared with other jobs, Python {machine['python']}; "
        f"load average {machine['load_before'][0]} before, {machine['load_after'][0]} after. "
        f"Each case: a fresh `python -m ccx` process, {summary['address_space_gib']} GiB of "
        f"address space, {SECONDS:.0f} s; start-up included.",
        "",
        "| cases | completed (exit 0) | refused (exit 2, one line) | broken | slowest | largest |",
        "|---|---|---|---|---|---|",
        f"| {summary['cases']} | {summary['completed']} | {summary['refused']} | "
        f"{summary['broken']} | {summary['max_seconds']} s | {summary['max_rss_mib']} MiB |",
        "",
        f"Killed worker: `ccx {sweep['command']}`, worker {sweep['killed_pid']} killed (SIGKILL) "
        f"once the pool had stored a run: exit {sweep['exit']}, {sweep['ran']} of "
        f"{sweep['runs']} runs trained, {sweep['failed']} failed, {sweep['stored_rows']} rows for "
        f"{sweep['distinct_runs']} distinct runs, {sweep['seconds']} s.",
        "",
        "| command | exit | seconds | MiB | problem or message |",
        "|---|---|---|---|---|",
        *(f"| `{r['command'][:110]}` | {r['exit']} | {r['seconds']} | {r['max_rss_mib']} | "
          f"{(r['problem'] or r['stderr'])[:120]} |" for r in rows),
    ]  # fmt: skip
    (RESULTS / "hostile_budget.md").write_text("\n".join(text) + "\n")
    print("\n".join(text[:12]))


if __name__ == "__main__":
    main()
