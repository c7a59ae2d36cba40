"""The Theorem 2.1 construction check for S5 at n = 300 on 500 random words, as a user runs it.

``ccx construct --task group-composition --group S5 --length 300 --samples 500 --seed 0
--json`` in a fresh process (start-up and building the 14,442-unit model included): wall and
CPU seconds, the accuracy and whether every loop matched Algorithm 2. The model runs as built
(the zoo's looped transformer, its weights), in bfloat16, where every value is exact, one word
per batch, the batches spread over one one-thread worker per core.

    python benchmarks/group_composition.py [SAMPLES]   # writes results/group_composition.*
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    args = ["construct", "--task", "group-composition", "--group", "S5", "--length", "300",
            "--samples", str(samples), "--seed", "0", "--json"]  # fmt: skip
    load = [os.getloadavg()[0]]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ccx", *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    load.append(os.getloadavg()[0])
    result = json.loads(done.stdout)
    out = {
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "command": "ccx " + " ".join(args),
        "load_average": load,
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        **{k: result[k] for k in ("accuracy", "rounds_match_algorithm2", "dtype", "seconds",
                                  "mlp_width", "loops", "samples")},
    }  # fmt: skip
    print(out)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "group_composition.json").write_text(json.dumps(out, indent=1) + "\n")
    (RESULTS / "group_composition.md").write_text(
        "# Theorem 2.1 construction check, S5, n = 300\n\n"
        f"Machine: {out['machine']}, shared with other jobs; load average {load[0]:.1f} before, "
        f"{load[1]:.1f} after.\n\n`{out['command']}`\n\n"
        '| samples | accuracy | loops match Algorithm 2 | dtype | "seconds" | wall s | CPU s |\n'
        "|---|---|---|---|---|---|---|\n"
        f"| {out['samples']} | {out['accuracy']} | {out['rounds_match_algorithm2']} | "
        f"{out['dtype']} | {out['seconds']} | {out['wall_s']} | {out['cpu_s']} |\n\n"
        "Earlier versions, same command, 2 cores shared with other jobs: float32, 1 word per "
        "batch, 2 torch threads: 434 s reported; bfloat16, 15 words per batch, 2 torch threads: "
        "698.5 s reported, 717.5 s wall, 125.3 CPU s (load average about 14 to 20).\n"
    )


if __name__ == "__main__":
    main()
