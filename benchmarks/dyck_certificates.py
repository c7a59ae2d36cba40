"""Symbolic Dyck-(2,2) certificates under odd-even: making and independently verifying them.

Each command runs as a user runs it (a fresh process, start-up included), in a fresh folder:
``ccx fooling --problem dyck --types 2 --depth 2 --length N --partition odd-even --certificate
c.json --json`` and then ``ccx verify c.json``. Both answer within the one limit of
:func:`ccomplexity.limits.check_dyck_symbolic` (N <= 2^20 for Dyck-(2,2)).

    python benchmarks/dyck_certificates.py      # writes benchmarks/results/dyck_certificates.*
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
LENGTHS = (100_000, 1_000_000, 1 << 20)


def timed(args: list[str], folder: str) -> dict:
    """Wall and CPU seconds (user + system, of the child) of ``python -m ccx ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ccx", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "exit": done.returncode,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "stdout": done.stdout,
        "stderr": done.stderr.strip(),
    }


def main() -> None:
    rows = []
    load = [os.getloadavg()[0]]
    for n in LENGTHS:
        with tempfile.TemporaryDirectory() as folder:
            make = timed(
                [
                    "fooling",
                    "--problem",
                    "dyck",
                    "--types",
                    "2",
                    "--depth",
                    "2",
                    "--length",
                    str(n),
                    "--partition",
                    "odd-even",
                    "--certificate",
                    "c.json",
                    "--json",
                ],
                folder,
            )
            bits = json.loads(make["stdout"])["bits"] if make["exit"] == 0 else None
            size = (Path(folder) / "c.json").stat().st_size if make["exit"] == 0 else 0
            check = timed(["verify", "c.json"], folder)
        rows.append(
            {
                "length": n,
                "bits": bits,
                "certificate_bytes": size,
                "make": {k: make[k] for k in ("exit", "wall_s", "cpu_s")},
                "verify": {k: check[k] for k in ("exit", "wall_s", "cpu_s")},
                "verify_says": check["stdout"].strip() or check["stderr"],
            }
        )
        print(rows[-1], flush=True)
    load.append(os.getloadavg()[0])
    out = {"machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
           "load_average": load, "rows": rows}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "dyck_certificates.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        "# Symbolic Dyck-(2,2) certificates: make and verify",
        "",
        f"Machine: {out['machine']}, shared with other jobs; load average {load[0]:.1f} "
        f"before, {load[1]:.1f} after. Each command in a fresh process, start-up included.",
        "Before one limit served both, the maker refused N > 171,196 (its stored product cells)"
        " and the verifier N > 100,000, calling such a certificate invalid.",
        "",
        "| N | bits | certificate | make: wall / CPU s | verify: wall / CPU s | verify says |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        m, v = r["make"], r["verify"]
        lines.append(
            f"| {r['length']} | {r['bits']} | {r['certificate_bytes']} B | {m['wall_s']} / "
            f"{m['cpu_s']} | {v['wall_s']} / {v['cpu_s']} (exit {v['exit']}) | "
            f"{r['verify_says']} |"
        )
    (RESULTS / "dyck_certificates.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
