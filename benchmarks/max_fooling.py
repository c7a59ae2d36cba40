"""The maximum fooling set of random matrices, side by side with boofun's greedy fooling set.

On the same seeded random n x n 0/1 matrices (density 1/2, ``problems.random_matrix``), one run:

- the compiled kernel's first call in a fresh process, with an empty numba cache (cold: the
  compilation) and again with the cache it wrote (warm: loading it), on a random 12 x 12 matrix;
- ours: ``lower_bounds.max_fooling_set`` with a time budget: the size found, whether it is
  proved maximum (``exact``), the upper bound when it is not, search nodes and seconds;
- boofun 1.3.0's ``fooling_set_bound`` (a greedy pass over the cells of each value), when boofun
  is installed (it is not a dependency: ``pip install boofun==1.3.0``); boofun reads a Boolean
  function on 2 log2 n variables, so n is a power of two, and its call also builds the matrix
  by evaluating the function cell by cell: that part is timed separately.

    python benchmarks/max_fooling.py                       # writes benchmarks/results/
    python benchmarks/max_fooling.py --sizes 8 16 --seeds 0 --budget 10
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from ccomplexity import lower_bounds, problems

RESULTS = Path(__file__).parent / "results"


FIRST_CALL = (
    "import time; t = time.perf_counter(); "
    "from ccomplexity import lower_bounds, problems; "
    "lower_bounds.max_fooling_set(problems.random_matrix(12, 12, 0)); "
    "print(time.perf_counter() - t)"
)


def first_call() -> dict:
    """Seconds of a fresh process's first exact search, numba cache empty and then filled."""
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for name in ("cold", "warm"):
            run = subprocess.run(
                [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True
            )
            out[name] = round(float(run.stdout.strip()), 3)
    return out


def ours(m: np.ndarray, budget: float) -> dict:
    start = time.perf_counter()
    found = lower_bounds.max_fooling_set(m, seconds=budget)
    seconds = time.perf_counter() - start
    prob = problems._matrix_problem("matrix", {}, m.copy())
    assert lower_bounds.verify_fooling_set(prob, found.rows, found.cols, found.value).valid
    return {
        "size": found.size,
        "exact": found.exact,
        "upper_bound": found.upper_bound,
        "nodes": found.nodes,
        "seconds": round(seconds, 3),
    }


def boofun_greedy(m: np.ndarray) -> dict | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import boofun
            from boofun.analysis import communication_complexity as cc
    except ImportError:
        return None
    n = m.shape[0]
    if n & (n - 1):
        return None  # boofun reads a Boolean function: n must be a power of two
    # boofun's matrix: row x, column y is f((x << log2 n) | y), i.e. the row-major truth table.
    f = boofun.create(m.reshape(-1).astype(int).tolist())
    start = time.perf_counter()
    built = cc.get_communication_matrix(f)
    matrix_seconds = time.perf_counter() - start
    assert built.shape == (n, n) and (built == m).all()
    start = time.perf_counter()
    size, _ = cc.fooling_set_bound(f)
    seconds = time.perf_counter() - start
    return {
        "size": int(size),
        "seconds": round(seconds, 3),
        "matrix_seconds": round(matrix_seconds, 3),
        "version": boofun.__version__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[8, 16, 24, 28, 32, 40, 48, 64])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds for our search")
    parser.add_argument("--out", type=Path, default=RESULTS / "max_fooling.json")
    args = parser.parse_args()
    load_before = os.getloadavg()
    compile_seconds = first_call()
    print(json.dumps({"first_call_seconds": compile_seconds}), flush=True)
    lower_bounds.max_fooling_set(problems.random_matrix(12, 12, 0))  # load the kernel first
    cases = []
    for n in args.sizes:
        for seed in args.seeds:
            m = problems.random_matrix(n, n, seed).matrix()
            row = {"n": n, "seed": seed, "ours": ours(m, args.budget), "boofun": boofun_greedy(m)}
            cases.append(row)
            print(json.dumps(row), flush=True)
    record = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "load_before": load_before,
                    "load_after": os.getloadavg(), "shared": True},
        "budget_seconds": args.budget,
        "first_call_seconds": compile_seconds,
        "cases": cases,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    have_boofun = any(c["boofun"] for c in cases)
    lines = [
        "# Maximum fooling set of random matrices, beside boofun's greedy fooling set",
        "",
        f"Machine: {os.cpu_count()} cores shared with other jobs, Python "
        f"{platform.python_version()}; load average {load_before[0]:.2f} before, "
        f"{record['machine']['load_after'][0]:.2f} after. Random n x n 0/1 matrices of density "
        f"1/2 (`problems.random_matrix(n, n, seed)`); our search has a budget of "
        f"{args.budget:.0f} s per matrix; `exact` says it proved the maximum, otherwise the "
        "maximum lies in [size, upper].",
        "",
        f"First exact search of a fresh process (random 12 x 12 matrix, imports included): "
        f"{compile_seconds['cold']} s with an empty numba cache (compiling the kernel), "
        f"{compile_seconds['warm']} s once the cache is written.",
        "",
    ]
    lines += [
        "boofun's column is empty where n is not a power of two (it reads a Boolean "
        "function on 2 log2 n variables).",
        "",
    ]
    if not have_boofun:
        lines += ["boofun is not installed: its column is empty (`pip install boofun==1.3.0`).", ""]
    lines += [
        "| n | seed | ours: size | exact | upper | nodes | seconds | boofun greedy: size | "
        "seconds (of which building its matrix) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        o, b = c["ours"], c["boofun"]
        theirs = f"{b['size']} | {b['seconds']} ({b['matrix_seconds']})" if b else "- | -"
        lines.append(
            f"| {c['n']} | {c['seed']} | {o['size']} | {o['exact']} | {o['upper_bound']} | "
            f"{o['nodes']} | {o['seconds']} | {theirs} |"
        )
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
