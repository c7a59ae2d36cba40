"""How far each exact method reaches in 10 s and in 60 s on this machine.

Each (method, size) runs in a fresh subprocess with a wall-clock limit, so a case that runs away
is killed instead of stalling the benchmark. A ladder of sizes stops at the first case that
exceeds the limit or that the library refuses (its limit is then recorded with the message).

    python benchmarks/exact_methods.py                 # full run, writes benchmarks/results/
    python benchmarks/exact_methods.py --only rank-gf-p    # re-measure one, keep the rest
    python benchmarks/exact_methods.py --run rank 8    # one case, prints its seconds
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def _dyck_count(n: int) -> str:
    from ccomplexity.languages.dyck import count_dyck

    return f"bits of count: {count_dyck(2, 2, n).bit_length()}"


def _dyck_exhaustive(n: int) -> str:
    from ccomplexity import lower_bounds, problems

    prob = problems.dyck(2, 2, n, "odd-even")
    found = lower_bounds.dyck_fooling_set(prob)
    check = lower_bounds.verify_fooling_set(prob, found.rows, found.cols, found.value)
    assert check.valid
    return f"|S| = {check.size}"


def _dyck_symbolic(n: int) -> str:
    from ccomplexity import lower_bounds

    sym = lower_bounds.dyck_fooling_symbolic(2, 2, n)
    assert sym["verified"]
    return f"bits = {sym['bits']}"


def _verify_symbolic(n: int) -> str:
    from ccomplexity import certificates, verifier

    cert = certificates.symbolic_dyck_certificate(2, 2, n, 2 ** (n - 1))
    verdict = verifier.verify(cert)
    assert verdict.valid, verdict.reason
    return f"bits = {verdict.claimed_bits}"


def _verify_explicit(n: int) -> str:
    from ccomplexity import certificates, lower_bounds, problems, verifier

    prob = problems.dyck(2, 2, n, "odd-even")
    found = lower_bounds.dyck_fooling_set(prob)
    cert = certificates.fooling_set_certificate(prob, found.rows, found.cols, found.value)
    verdict = verifier.verify(json.loads(json.dumps(cert)))
    assert verdict.valid, verdict.reason
    return f"pairs = {found.size}"


def _max_fooling(h: int) -> str:
    from ccomplexity import lower_bounds, problems

    res = lower_bounds.max_fooling_set(problems.equality(h).matrix())
    return f"max |S| = {res.size}"


def _rank(h: int) -> str:
    from ccomplexity import lower_bounds, problems

    res = lower_bounds.rank_mod_p(problems.disjointness(h).matrix())
    return f"rank = {res.rank}"


def _one_way_dense(n: int) -> str:
    from ccomplexity import lower_bounds, problems

    res = lower_bounds.one_way_bits(problems.index(n))
    return f"bits = {res.bits}"


def _one_way_symbolic(n: int) -> str:
    from ccomplexity import lower_bounds

    res = lower_bounds.one_way_bits_dyck(2, 2, n, n // 2)
    return f"distinct rows = {res.distinct_rows}"


def _exact(n: int) -> str:
    import numpy as np

    from ccomplexity import lower_bounds

    rng = np.random.default_rng(n)
    res = lower_bounds.exact_bits(rng.integers(0, 2, size=(n, n)))
    return f"D = {res.bits}"


def _minimize(h: int) -> str:
    from ccomplexity.automata import equality_dfa, minimize, state_counts

    return f"states = {state_counts(minimize(equality_dfa(h, 2)))['states']}"


# name: (what the size means, sizes, function)
METHODS: dict[str, tuple[str, list[int], Callable[[int], str]]] = {
    "dyck-count": ("N, Dyck-(2,2), exact DP", [10**3, 10**4, 10**5, 10**6], _dyck_count),
    "fooling-dyck-exhaustive": ("N, build + verify", [12, 14, 16, 18, 20], _dyck_exhaustive),
    "fooling-dyck-symbolic": ("N, automaton", [10**3, 10**4, 10**5, 170_000], _dyck_symbolic),
    "verify-symbolic-certificate": ("N", [10**3, 10**4, 10**5], _verify_symbolic),
    "verify-explicit-certificate": ("N, all ordered pairs", [8, 10, 12, 14], _verify_explicit),
    "max-fooling": ("H, EQ on H bits", [2, 3, 4, 5, 6], _max_fooling),
    "rank-gf-p": ("H, DISJ on H bits", [8, 9, 10, 11, 12, 13], _rank),
    "one-way-dense": ("N, INDEX on N bits", [10, 12, 14, 16, 18, 20, 22], _one_way_dense),
    "one-way-dyck-symbolic": ("N, cut N/2", [10**2, 10**3, 10**4, 10**5], _one_way_symbolic),
    "exact-two-way": ("n, random n x n", [4, 6, 8, 10, 12, 14, 16], _exact),
    "minimize-equality-dfa": ("H, {ww : |w| = H}", [8, 10, 12, 14, 16, 18], _minimize),
}


def run_case(method: str, size: int) -> None:
    """Child process: run one case and print {"seconds": ..., "result": ...}."""
    fn = METHODS[method][2]
    start = time.perf_counter()
    result = fn(size)
    print(json.dumps({"seconds": time.perf_counter() - start, "result": result}))


def ladder(method: str, limit: float) -> dict:
    what, sizes, _ = METHODS[method]
    cases = []
    for size in sizes:
        cmd = [sys.executable, __file__, "--run", method, str(size)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 15)
        except subprocess.TimeoutExpired:
            cases.append({"size": size, "seconds": None, "outcome": f"killed after {limit + 15} s"})
            break
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["failed"])[-1]
            cases.append({"size": size, "seconds": None, "outcome": last})
            break
        out = json.loads(done.stdout.strip().splitlines()[-1])
        cases.append({"size": size, "seconds": round(out["seconds"], 3), "outcome": out["result"]})
        print(f"  {method} {size}: {out['seconds']:.3f} s ({out['result']})", flush=True)
        if out["seconds"] > limit:
            break

    def reach(budget: float) -> int | None:
        ok = [c["size"] for c in cases if c["seconds"] is not None and c["seconds"] <= budget]
        return max(ok) if ok else None

    return {
        "method": method,
        "size": what,
        "reach_10s": reach(10),
        "reach_60s": reach(60),
        "cases": cases,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", nargs=2, metavar=("METHOD", "SIZE"))
    parser.add_argument("--only", nargs="*", choices=sorted(METHODS))
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--out", type=Path, default=RESULTS / "exact_methods.json")
    args = parser.parse_args()
    if args.run:
        run_case(args.run[0], int(args.run[1]))
        return
    load_before = os.getloadavg()
    fresh = {m: ladder(m, args.limit) for m in (args.only or METHODS)}
    # With --only, the other methods keep their recorded rows.
    old = json.loads(args.out.read_text())["methods"] if args.only and args.out.exists() else []
    kept = {r["method"]: r for r in old}
    rows = [fresh.get(m) or kept[m] for m in METHODS if m in fresh or m in kept]
    record = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "load_before": load_before,
                    "load_after": os.getloadavg()},
        "limit_seconds": args.limit,
        "methods": rows,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    lines = [
        "# How far each exact method reaches",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}; load average "
        f"{load_before[0]:.2f} before, {record['machine']['load_after'][0]:.2f} after. "
        f"Each case in a fresh process (import time excluded), limit {args.limit:.0f} s.",
        "",
        "| method | size parameter | reach in 10 s | reach in 60 s | last case |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        last = r["cases"][-1]
        tail = f"{last['size']}: " + (
            f"{last['seconds']} s" if last["seconds"] is not None else last["outcome"]
        )
        lines.append(
            f"| {r['method']} | {r['size']} | {r['reach_10s']} | {r['reach_60s']} | {tail} |"
        )
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
