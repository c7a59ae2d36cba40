"""Does `make test` catch one-line mistakes? Each change of ``one_line_changes.toml`` is applied
alone to a copy of the repository and the whole suite (make test's pytest command, stopping at
the first failure) is run on it.

    python benchmarks/one_line_changes.py            # every change (minutes each when missed)
    python benchmarks/one_line_changes.py 1 4        # some of them (1-based, as listed)

A change counts as caught when the suite fails; the first failing test is recorded. Each change
must leave its file ruff-formatted (checked first), so that a catch is the tests' doing, not
`ruff format --check`'s. Results: ``benchmarks/results/one_line_changes.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ccomplexity.files import atomic_open

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CHANGES = ROOT / "benchmarks" / "one_line_changes.toml"
RESULTS = ROOT / "benchmarks" / "results"
# make test's pytest command (Makefile), stopping at the first failure.
PYTEST = ["-m", "pytest", "-n", "auto", "--maxprocesses", "8", "--dist", "loadgroup", "-x", "-rfE"]


def load_changes() -> list[dict]:
    changes = tomllib.loads(CHANGES.read_text())["change"]
    for i, c in enumerate(changes, 1):
        count = (ROOT / c["file"]).read_text().count(c["old"])
        if count != 1:
            sys.exit(f"change {i}: `old` occurs {count} times in {c['file']} (must be once)")
    return changes


def copy_repo(dest: Path) -> None:
    """The working tree as git sees it (tracked and untracked, not ignored files)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def try_change(copy: Path, change: dict) -> dict:
    path = copy / change["file"]
    original = path.read_text()
    path.write_text(original.replace(change["old"], change["new"]))
    try:
        fmt = subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--check", str(path)], capture_output=True
        )
        if fmt.returncode != 0:
            return {**change, "result": "not formatted (fix the change)", "caught": None}
        start = time.perf_counter()
        run = subprocess.run([sys.executable, *PYTEST], cwd=copy, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", run.stdout, flags=re.MULTILINE)
        caught = run.returncode != 0
        return {
            **change,
            "caught": caught,
            "first_failure": failed[0] if failed else ("" if not caught else run.stdout[-300:]),
            "seconds": round(seconds, 1),
        }
    finally:
        path.write_text(original)


def describe() -> str:
    """The commit the copy is taken from, and whether the working tree differs from it (the
    recorded results themselves aside)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", ".", ":!benchmarks/results"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return commit + (" with uncommitted changes" if dirty else "")


def report(results: list[dict], commit: str) -> str:
    judged = [r for r in results if r["caught"] is not None]
    caught = sum(r["caught"] for r in judged)
    out = [
        "# One-line changes against `make test`",
        "",
        f"`python benchmarks/one_line_changes.py` at {commit}: each change of"
        " `benchmarks/one_line_changes.toml` applied alone to a copy of the repository, the whole"
        f" suite run on it (stopping at the first failure). **Caught: {caught} of {len(judged)}.**",
        "",
        "| # | file | change | kind | caught | first failing test | seconds |",
        "|---:|---|---|---|---|---|---:|",
    ]
    for i, r in enumerate(results, 1):
        change = f"`{r['old']}` -> `{r['new']}`".replace("|", "\\|")
        verdict = {True: "yes", False: "**no**", None: r.get("result", "")}[r["caught"]]
        out.append(
            f"| {i} | {r['file']} | {change} | {r['kind']} | {verdict} |"
            f" {r.get('first_failure', '')} | {r.get('seconds', '')} |"
        )
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", type=int, help="1-based indices (default: all)")
    args = parser.parse_args(argv)
    changes = load_changes()
    bad = [i for i in args.which if not 1 <= i <= len(changes)]
    if bad:
        parser.error(f"no change {bad[0]}: there are {len(changes)}")
    chosen = args.which or list(range(1, len(changes) + 1))
    results = []
    commit = describe()  # of the tree copied now, before any result is written
    with tempfile.TemporaryDirectory(prefix="one-line-") as tmp:
        copy = Path(tmp)
        copy_repo(copy)
        for i in chosen:
            result = try_change(copy, changes[i - 1])
            results.append(result)
            said = {True: "caught", False: "MISSED", None: result.get("result")}[result["caught"]]
            print(f"{i:2d} {said:8s} {changes[i - 1]['kind']}", flush=True)
    RESULTS.mkdir(exist_ok=True)
    if not args.which:  # only a full run replaces the recorded results
        with atomic_open(RESULTS / "one_line_changes.json") as handle:
            handle.write(json.dumps(results, indent=1) + "\n")
        with atomic_open(RESULTS / "one_line_changes.md") as handle:
            handle.write(report(results, commit))
    else:
        print(report(results, commit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
