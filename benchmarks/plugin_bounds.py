"""Plugin tasks at real lengths: the acceptance commands of bounds from structure, measured.

Each command runs as a user types it (``python -m ccx ...``, a fresh process, start-up
included) in one folder holding the plugin files below, under a 4 GiB address space: a regular
task with its DFA ("contains a b a"), the same task without it (its automaton found from the
word function at N), a palindrome task with its own fooling-set construction, a^n b^n with
neither (a seeded greedy set), and a label task over three symbols; then a short sweep of the
palindrome task, its thresholds, its figure and the runs its store holds. Wall and CPU seconds
and the peak resident memory of each process are recorded, with what it printed.

    python benchmarks/plugin_bounds.py      # writes benchmarks/results/plugin_bounds.*
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
ADDRESS_SPACE = 4 << 30

PLUGINS = {
    "contains.py": """import numpy as np
from ccomplexity.automata import DFA
from ccomplexity.plugins import task

SEEN = np.array([[1, 0], [1, 2], [3, 0], [3, 3]])

@task(name="contains-aba", alphabet=2, lengths=(1, 1_000_000),
      dfa=DFA(SEEN, 0, np.array([False, False, False, True]), ("a", "b")))
def contains_aba(words):
    hit = (words[:, :-2] == 0) & (words[:, 1:-1] == 1) & (words[:, 2:] == 0)
    return hit.any(axis=1).astype(np.int8)
""",
    "contains_nodfa.py": """import numpy as np
from ccomplexity.plugins import task

@task(name="contains-aba-nodfa", alphabet=2, lengths=(1, 1_000_000))
def contains_aba(words):
    hit = (words[:, :-2] == 0) & (words[:, 1:-1] == 1) & (words[:, 2:] == 0)
    return hit.any(axis=1).astype(np.int8)
""",
    "palindrome.py": """import numpy as np
from ccomplexity.plugins import task

def mirrored(length, alice, most):
    if length % 2 or alice != tuple(range(length // 2)):
        return None
    half = length // 2
    x = (np.arange(min(most, 2**half))[:, None] >> np.arange(half)) & 1
    return np.concatenate([x, x[:, ::-1]], axis=1)

def half_palindromes(batch, length, rng):
    words = rng.integers(0, 2, (batch, length))
    words[: batch // 2, length - length // 2 :] = words[: batch // 2, : length // 2][:, ::-1]
    return words

@task(name="palindrome", alphabet=2, lengths=(1, 4096), fooling=mirrored,
      sampler=half_palindromes)
def palindrome(words):
    return (words == words[:, ::-1]).all(axis=1).astype(np.int8)
""",
    "anbn.py": """import numpy as np
from ccomplexity.plugins import task

def some_positives(batch, length, rng):
    words = rng.integers(0, 2, (batch, length))
    words[: batch // 2] = np.array([0] * (length // 2) + [1] * (length - length // 2))
    return words

@task(name="anbn", alphabet=2, lengths=(2, 4096), sampler=some_positives)
def a_n_b_n(words):
    n = words.shape[1]
    target = np.array([0] * (n // 2) + [1] * (n - n // 2))
    return ((n % 2 == 0) & (words == target).all(axis=1)).astype(np.int8)
""",
    "sum_mod3.py": """import numpy as np
from ccomplexity.plugins import task

@task(name="sum-mod3", alphabet=3, lengths=(1, 64), labels=("0", "1", "2"))
def sum_mod3(words):
    return words.sum(axis=1) % 3
""",
}
COMMANDS = [
    "--plugin contains.py cc oneway --problem contains-aba --length 1000000 --json",
    "--plugin contains.py fooling --problem contains-aba --length 1000 --partition prefix:500 "
    "--certificate c.json --json",
    "verify --plugin contains.py c.json",
    "--plugin palindrome.py fooling --problem palindrome --length 64 --partition prefix:32 --json",
    "--plugin palindrome.py cc oneway --problem palindrome --length 24",
    "--plugin contains.py fooling --problem contains-aba --length 1000000 --partition "
    "prefix:500000 --certificate big.json --json",
    "verify --plugin contains.py big.json",
    "--plugin contains.py cc oneway --problem contains-aba --length 1000000 --cut 500000 "
    "--certificate cut.json --json",
    "verify --plugin contains.py cut.json",
    "--plugin palindrome.py fooling --problem palindrome --length 64 --partition prefix:32 "
    "--certificate pal.json --json",
    "verify --plugin palindrome.py pal.json",
    "--plugin contains_nodfa.py cc oneway --problem contains-aba-nodfa --length 20 --json",
    "--plugin contains_nodfa.py dfa task contains-aba-nodfa --length 16 --json",
    "--plugin contains_nodfa.py fooling --problem contains-aba-nodfa --length 22 --partition "
    "prefix:11 --exact --json",
    "--plugin anbn.py fooling --problem anbn --length 64 --partition prefix:32 --json",
    "--plugin sum_mod3.py cc oneway --problem sum-mod3 --length 12 --json",
    "--plugin sum_mod3.py fooling --problem sum-mod3 --length 12 --partition odd-even --json",
    "--plugin palindrome.py sweep spec.toml --store s.db --workers 1 --json",
    "--plugin palindrome.py threshold --store s.db --json",
    "--plugin palindrome.py figure thresholds --store s.db --out fig --json",
    "runs --store s.db --json",
]
SPEC = """[baseline]
task = "palindrome"
layers = 1
width = 8
steps = 5
lr = 0.01
batch = 16
eval_every = 5
eval_samples = 16
[grid]
arch = ["lstm", "transformer"]
length = [8, 24, 32]
"""
"""A sweep of a few steps: the figure and thresholds of a plugin task at N = 8, 24 and 32 (the
one-way bound at 32 is over the budget: 2^32 words, named in the output)."""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(line: str, folder: str) -> dict:
    """Exit status, wall and CPU seconds, peak resident MiB (of that process alone, from
    wait4) and the start of what ``python -m ccx LINE`` printed."""
    out, err = Path(folder, ".stdout"), Path(folder, ".stderr")
    start = time.perf_counter()
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ccx", *line.split()],
            cwd=folder,
            stdout=o,
            stderr=e,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            preexec_fn=_limit,
        )
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return {
        "line": line,
        "exit": os.waitstatus_to_exitcode(status),
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024),
        "stdout": out.read_text()[:400],
        "stderr": err.read_text().strip()[:400],
    }


def main() -> None:
    load = [os.getloadavg()[0]]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, text in PLUGINS.items():
            Path(folder, name).write_text(text)
        Path(folder, "spec.toml").write_text(SPEC)
        for line in COMMANDS:
            rows.append(run(line, folder))
            shown = {k: rows[-1][k] for k in ("line", "exit", "wall_s", "cpu_s", "peak_rss_mib")}
            print(json.dumps(shown), flush=True)
    load.append(os.getloadavg()[0])
    out = {"machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
           "load_average": load, "address_space_gib": ADDRESS_SPACE >> 30,
           "rows": rows}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "plugin_bounds.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [
        "# Plugin tasks at real lengths: bounds from structure",
        "",
        f"Machine: {out['machine']}, shared with other jobs; load average {load[0]:.1f} before, "
        f"{load[1]:.1f} after. Each command a fresh process (start-up included) under a "
        f"{ADDRESS_SPACE >> 30} GiB address space, in one folder with the plugin files of "
        "`benchmarks/plugin_bounds.py`; peak memory is each process's largest resident set.",
        "",
        "| command | exit | wall s | CPU s | peak MiB | prints |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        said = (r["stdout"] or r["stderr"]).replace("|", "/").replace("\n", " ")[:160]
        lines.append(
            f"| `ccx {r['line']}` | {r['exit']} | {r['wall_s']} | {r['cpu_s']} | "
            f"{r['peak_rss_mib']} | {said} |"
        )
    (RESULTS / "plugin_bounds.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
