"""Hostile inputs: how long the verifier and the commands take to answer them.

Three measurements, each beside its reference in one run:

1. primality of a certificate's prime q: the verifier's deterministic Miller-Rabin against trial
   division to sqrt(q) (what the verifier did before; the reference runs in a subprocess with a
   time limit);
2. the small certificates that used to take minutes or all memory, checked by ``verify``;
3. the commands that used to run until killed, refuse or print a traceback: each run as a user
   runs it (``ccx ...`` in a fresh empty folder, a fresh process, start-up included).

    python benchmarks/hostile_inputs.py          # writes benchmarks/results/hostile_inputs.*
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
CCX = str(Path(sys.executable).parent / "ccx")
LIMIT = 240.0
BIG = "123456789012345678901234567890"

PRIMES = {"2^31 - 1": 2**31 - 1, "2^47 - 115": 2**47 - 115, "2^61 - 1": 2**61 - 1}

TRIAL = (
    "import math, sys; n = int(sys.argv[1]); print(all(n % d for d in range(2, math.isqrt(n) + 1)))"
)

COMMANDS = [
    "dfa dyck --types 2 --depth 1000000000",
    f"dfa equality --half {BIG}",
    "codes --length 1000000000",
    f"models --layers {BIG}",
    "fooling --problem dyck --types 2 --depth 2 --length 1000000000",
    f"dyck enumerate --types {BIG} --depth 2 --length 4",
    f"dyck sample --types 2 --depth 2 --length 10 --batch {BIG}",
    "models --width 1000000",
    f"protocol attention --width 8 --heads 2 --length {BIG} --partition odd-even --precision 16",
    "train --task index-lookup --arch lstm --width 16 --length 1000000000",
    "sweep --profile smoke --store other.db",
    "threshold --store other.db",
    "figure fig2 --store other.db",
]  # fmt: skip


def _seconds(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def primality() -> list[dict]:
    from ccomplexity.verifier import is_prime

    rows = []
    for name, q in PRIMES.items():
        fast, verdict = _seconds(lambda q=q: is_prime(q))
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-c", TRIAL, str(q)], capture_output=True, text=True, timeout=LIMIT
            )
            reference = f"{time.perf_counter() - start:.2f} s ({proc.stdout.strip()})"
        except subprocess.TimeoutExpired:
            reference = f"> {LIMIT:.0f} s (killed)"
        rows.append(
            {
                "prime": name,
                "miller_rabin_s": round(fast, 6),
                "prime?": verdict,
                "trial_division": reference,
            }
        )
    return rows


def certificates() -> list[dict]:
    import numpy as np

    from ccomplexity import certificates as certs
    from ccomplexity import problems, verifier

    eq = problems.equality(65)
    x = problems.digits(np.arange(8, dtype=object), 2, 65).tolist()
    y = problems.digits(np.arange(8, dtype=object) + 2**64, 2, 65).tolist()
    rank = certs._envelope(
        "rank",
        eq.describe(),
        {"rank_at_least": 8, "prime": 2_147_483_647, "bits": 3},
        {"alice_inputs": x, "bob_inputs": y},
    )
    big_prime = json.loads(json.dumps(rank))  # a genuine identity witness, over GF(2^61 - 1)
    big_prime["claim"]["prime"] = 2**61 - 1
    big_prime["witness"]["bob_inputs"] = x
    cases = {
        "rank, EQ half 65, aliased words (was accepted)": rank,
        "rank, genuine, prime 2^61 - 1 (was 70 s of trial division)": big_prime,
        "symbolic Dyck, types 4096 (was > 90 s)": certs.symbolic_dyck_certificate(4096, 1, 4, 1),
        "symbolic Dyck, depth 200000, N = 4 (was ~160 GB)": certs.symbolic_dyck_certificate(
            1, 200_000, 4, 2
        ),
    }
    rows = []
    for name, cert in cases.items():
        took, verdict = _seconds(lambda cert=cert: verifier.verify(cert))
        rows.append(
            {
                "certificate": name,
                "seconds": round(took, 4),
                "valid": verdict.valid,
                "reason": verdict.reason,
            }
        )
    return rows


def commands() -> list[dict]:
    import sqlite3

    rows = []
    for line in COMMANDS:
        folder = Path(tempfile.mkdtemp())
        conn = sqlite3.connect(folder / "other.db")
        conn.execute("CREATE TABLE t (x)")
        conn.close()
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [CCX, *line.split()], cwd=folder, capture_output=True, text=True, timeout=LIMIT
            )
            took, code, err = time.perf_counter() - start, proc.returncode, proc.stderr.strip()
        except subprocess.TimeoutExpired:
            took, code, err = LIMIT, None, "killed"
        created = sorted(p.name for p in folder.iterdir() if p.name != "other.db")
        shutil.rmtree(folder)
        rows.append(
            {
                "command": f"ccx {line}",
                "seconds": round(took, 2),
                "exit": code,
                "stderr_lines": len(err.splitlines()),
                "created": created,
                "message": err[:200],
            }
        )
    return rows


def main() -> None:
    before = os.getloadavg()
    result = {"primality": primality(), "certificates": certificates(), "commands": commands()}
    result["machine"] = {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": [round(v, 2) for v in before],
        "load_after": [round(v, 2) for v in os.getloadavg()],
        "note": "a 2-core machine shared with other jobs",
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hostile_inputs.json").write_text(json.dumps(result, indent=1) + "\n")
    machine = result["machine"]
    lines = [
        "# Hostile inputs: time to answer",
        "",
        f"Machine: {machine['cores']} cores shared with other jobs, Python {machine['python']}; "
        f"load average {machine['load_before'][0]} before, {machine['load_after'][0]} after.",
        "",
        "## Primality of a certificate's prime",
        "",
        "| q | Miller-Rabin (verifier) | trial division (reference) |",
        "|---|---|---|",
        *(f"| {r['prime']} | {r['miller_rabin_s'] * 1e6:.0f} us | {r['trial_division']} |"
          for r in result["primality"]),
        "",
        "## Certificates that took minutes or all memory",
        "",
        "| certificate | seconds | verdict |",
        "|---|---|---|",
        *(f"| {r['certificate']} | {r['seconds']} | "
          f"{'valid' if r['valid'] else 'invalid: ' + str(r['reason'])} |"
          for r in result["certificates"]),
        "",
        "## Commands that ran until killed or printed a traceback (fresh process, start-up in)",
        "",
        "| command | seconds | exit | stderr lines | files created |",
        "|---|---|---|---|---|",
        *(f"| `{r['command'][:90]}` | {r['seconds']} | {r['exit']} | {r['stderr_lines']} | "
          f"{len(r['created'])} |" for r in result["commands"]),
    ]  # fmt: skip
    (RESULTS / "hostile_inputs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
