"""Mutation score of the exact core, the verifier and the experiment rules (mutmut).

A mutant is the code with one small change (a ``<`` for ``<=``, a constant plus one, a dropped
``not``, a call argument set to None); a test suite that fails on it kills it. A surviving mutant
is a change no test notices: either a missing test, or an equivalent mutant (the change cannot
alter any result), listed in ``benchmarks/mutation_equivalent.toml`` with the reason.

Each module runs on its own, against the test files that concern it (``MODULES`` below), in its
own work folder ``.mutation/<module>/`` (mutmut's ``mutants/`` copy and its cached results), so
that a module's run takes minutes on two cores; mutmut then runs, for each mutant, only the tests
among those files that reach the mutated function. Results go to
``benchmarks/results/mutation.json`` (one entry per module, replaced when the module is run
again) and the table ``benchmarks/results/mutation.md``.

    python benchmarks/mutation.py                                  # every module, from scratch
    python benchmarks/mutation.py ccomplexity/verifier.py          # one module
    python benchmarks/mutation.py ccomplexity/verifier.py --again  # re-test its survivors only
    python benchmarks/mutation.py --report                         # rewrite mutation.md only
    python benchmarks/mutation.py ccomplexity/verifier.py --collect  # record an interrupted run

The score of a module is killed / (mutants - equivalent); a mutant that times out counts as
killed (the change made a test loop or crawl), one that no mapped test reaches counts as a
survivor.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from ccomplexity.files import atomic_open

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
EQUIVALENT = ROOT / "benchmarks" / "mutation_equivalent.toml"
WORK = ROOT / ".mutation"
MUTMUT = Path(sys.executable).parent / "mutmut"
# Copied into each work folder: every package, so that the tests import the mutated copy of
# the module under test and the rest unchanged.
PACKAGES = ("ccomplexity", "models", "simulations", "paper_figures", "ccx")
TARGET = 90.0
# mutmut forks each mutant's test run from a process that has imported torch: with torch's
# thread pool started before the fork, the child waits on threads it does not have and every
# mutant times out. One thread each (the two children already fill two cores).
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Module:
    """A module to mutate, the test files that concern it, and which of its functions count."""

    tests: tuple[str, ...]
    # fnmatch pattern on mutmut's mutant names: only these mutants are run and scored.
    only: str | None = None
    # Said in the table, e.g. why a module must be measured again.
    note: str = ""


T = "tests/"
VERIFIER = (
    T + "ccomplexity/test_verifier_checks.py",
    T + "ccomplexity/test_certificates.py",
    T + "ccomplexity/test_verifier.py",
)
LB = (
    T + "ccomplexity/lower_bounds/test_fooling_checks.py",
    T + "ccomplexity/lower_bounds/test_lower_bounds.py",
    T + "ccomplexity/lower_bounds/test_max_fooling.py",
    T + "ccomplexity/lower_bounds/test_kg.py",
    T + "ccomplexity/lower_bounds/test_fooling_pinned.py",
    T + "ccomplexity/lower_bounds/test_max_fooling_pinned.py",
    T + "ccomplexity/lower_bounds/test_lower_bounds_api_pinned.py",
)
BOUNDS = (
    T + "ccomplexity/test_bounds.py",
    T + "ccomplexity/test_bounds_values.py",
)
P = T + "simulations/protocols/"

# module -> the test files that concern it (the per-mutant test command never is the suite).
LBP = T + "ccomplexity/lower_bounds/"
BP = T + "ccomplexity/bounds/"
LP = T + "ccomplexity/languages/"
CERT = P + "test_protocols_certificate.py"
LANG = (T + "ccomplexity/test_languages.py",)


def lb(*pinned: str) -> Module:
    return Module((*LB, *(LBP + f"test_{name}_pinned.py" for name in pinned)))


def language(name: str, *tests: str) -> Module:
    return Module((*tests, LP + f"test_{name}_pinned.py"))


MODULES: dict[str, Module] = {
    "ccomplexity/verifier.py": Module(
        (
            T + "ccomplexity/test_verifier_mutants.py",
            T + "ccomplexity/test_verifier_mutants_2.py",
            *VERIFIER,
        )
    ),
    "ccomplexity/certificates.py": Module((T + "ccomplexity/test_certificate_files.py", *VERIFIER)),
    "ccomplexity/precision.py": Module(
        (
            T + "ccomplexity/test_precision_edges.py",
            T + "ccomplexity/test_precision.py",
            T + "ccomplexity/test_precision_pinned.py",
        )
    ),
    "ccomplexity/automata.py": Module(
        (
            T + "ccomplexity/test_automata.py",
            T + "ccomplexity/test_automata_pinned.py",
            LBP + "test_automaton.py",
            T + "ccomplexity/test_groups.py",
        )
    ),
    "ccomplexity/problems.py": Module(
        (
            T + "ccomplexity/test_problems.py",
            T + "ccomplexity/lower_bounds/test_lower_bounds.py",
            T + "ccomplexity/test_problems_pinned.py",
            LBP + "test_kg.py",
        )
    ),
    "ccomplexity/bounds/base.py": Module(
        (*BOUNDS, BP + "test_bounds_base_pinned.py", BP + "test_bounds_base_pinned_2.py")
    ),
    "ccomplexity/bounds/separations.py": Module((*BOUNDS, BP + "test_separations_pinned.py")),
    "ccomplexity/bounds/parrots.py": Module(
        (
            *BOUNDS,
            BP + "test_parrots.py",
            BP + "test_parrots_pinned.py",
            BP + "test_parrots_pinned_2.py",
        )
    ),
    "ccomplexity/bounds/kg.py": Module(
        (*BOUNDS, BP + "test_kg.py", BP + "test_kg_pinned.py", BP + "test_kg_pinned_2.py")
    ),
    "ccomplexity/bounds/kg_blocks.py": Module(
        (*BOUNDS, BP + "test_kg.py", BP + "test_kg_pinned.py", BP + "test_kg_blocks_pinned.py")
    ),
    "ccomplexity/bounds/looped.py": Module(
        (
            *BOUNDS,
            BP + "test_looped.py",
            BP + "test_looped_lemmas.py",
            BP + "test_looped_pinned.py",
        )
    ),
    "ccomplexity/languages/dyck.py": language("dyck", *LANG),
    "ccomplexity/languages/strings.py": language("strings", *LANG),
    "ccomplexity/languages/retrieval.py": language(
        "retrieval", *LANG, LP + "test_retrieval_pinned_2.py"
    ),
    "ccomplexity/languages/memorization.py": language("memorization", LP + "test_memorization.py"),
    "ccomplexity/languages/arithmetic.py": language("arithmetic", LP + "test_arithmetic.py"),
    "ccomplexity/languages/assignment.py": language("assignment", LP + "test_assignment.py"),
    "ccomplexity/languages/graphs.py": language("graphs", LP + "test_graphs.py"),
    "ccomplexity/languages/hops.py": language("hops", LP + "test_hops.py"),
    "ccomplexity/languages/igsm.py": language(
        "igsm", LP + "test_igsm.py", LP + "test_igsm_pinned_2.py"
    ),
    "ccomplexity/languages/kg.py": language("kg", LP + "test_kg.py", LP + "test_kg_pinned_2.py"),
    "ccomplexity/lower_bounds/fooling.py": lb(),
    "ccomplexity/lower_bounds/max_fooling.py": Module((*LB, LBP + "test_max_fooling_pinned_2.py")),
    "ccomplexity/lower_bounds/matrix.py": lb("matrix"),
    "ccomplexity/lower_bounds/rank.py": lb("rank"),
    "ccomplexity/lower_bounds/one_way.py": lb("one_way"),
    "ccomplexity/lower_bounds/exact.py": Module(
        (*lb("exact").tests, LBP + "test_exact_pinned_2.py")
    ),
    "ccomplexity/lower_bounds/kg.py": lb("kg_lb"),
    "ccomplexity/lower_bounds/word_problem.py": Module(
        (*lb("word_problem").tests, T + "ccomplexity/test_groups.py")
    ),
    "ccomplexity/protocol.py": Module(
        (P + "test_protocols_channel.py", P + "test_channel_pinned.py", CERT)
    ),
    "simulations/protocols/bits_used.py": Module(
        (P + "test_bits_used.py", P + "test_bits_used_pinned.py")
    ),
    "simulations/protocols/rnn.py": Module(
        (P + "test_protocols_rnn.py", P + "test_protocols_pinned.py", CERT)
    ),
    "simulations/protocols/attention.py": Module(
        (
            P + "test_protocols_attention.py",
            P + "test_protocols_pinned.py",
            CERT,
            P + "test_protocols_attention_pinned.py",
        )
    ),
    "simulations/protocols/parrots.py": Module(
        (
            P + "test_protocols_parrots.py",
            P + "test_protocols_pinned.py",
            P + "test_protocols_parrots_pinned.py",
        )
    ),
    "simulations/thresholds.py": Module(
        (
            T + "simulations/test_thresholds_edges.py",
            T + "simulations/test_thresholds.py",
            T + "simulations/test_threshold_check.py",
            T + "simulations/test_thresholds_plugins_pinned.py",
        )
    ),
    "simulations/verdicts.py": Module(
        (
            T + "simulations/test_verdicts_edges.py",
            T + "simulations/test_verdicts.py",
            T + "simulations/test_verdicts_pinned.py",
        )
    ),
    "models/base.py": Module(
        (T + "models/test_quantizer.py",), only="models.base.xǁQuantizerǁ*", note="Quantizer only"
    ),
}

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped"}
TIMEOUT = {-24, 24, 152, 255, 36, -9}


def status(code: int | None) -> str:
    if code is None:
        return "not checked"
    if code in TIMEOUT:
        return "timeout"
    return STATUS.get(code, "suspicious")


def slug(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


def config_text(module: str, spec: Module) -> str:
    """The project's pyproject.toml plus the mutmut section for one module."""
    base = (ROOT / "pyproject.toml").read_text()
    section = {
        "source_paths": list(PACKAGES),
        "also_copy": ["shipped"],
        "only_mutate": [module],
        "pytest_add_cli_args_test_selection": list(spec.tests),
        "pytest_add_cli_args": ["-p", "no:cacheprovider"],
        "use_git_change_detection": False,
    }
    lines = ["", "[tool.mutmut]"]
    lines += [f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in section.items()]
    return base + "\n".join(lines) + "\n"


def prepare(module: str, spec: Module, fresh: bool) -> Path:
    work = WORK / slug(module)
    if fresh and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    for name in (*PACKAGES, "tests", "shipped"):  # shipped: the stores some tests read
        link = work / name
        if not link.exists():
            link.symlink_to(ROOT / name)
    (work / "pyproject.toml").write_text(config_text(module, spec))
    return work


def read_codes(work: Path, module: str) -> dict[str, int | None]:
    meta = json.loads((work / "mutants" / (module + ".meta")).read_text())
    return meta["exit_code_by_key"]


def keep_earlier(work: Path, module: str, before: dict, after: dict) -> dict:
    """After a re-test of the survivors, the other mutants keep their earlier result.

    mutmut forgets every result when the test files change; a mutant that a test killed is
    still killed when tests are only added, so its earlier result stands (a fresh run, without
    ``--again``, tests every mutant anew). Written back, so the next ``--again`` sees it too.
    """
    merged = {k: (v if v is not None else before.get(k)) for k, v in after.items()}
    path = work / "mutants" / (module + ".meta")
    meta = json.loads(path.read_text())
    meta["exit_code_by_key"] = merged
    path.write_text(json.dumps(meta, indent=4))
    return merged


def diffs(work: Path, names: list[str]) -> dict[str, str]:
    """Each named mutant's diff against the original function, read by mutmut in the work folder."""
    if not names:
        return {}
    script = (
        "import json, sys\n"
        "from mutmut.mutation.diff_apply import get_diff_for_mutant, find_mutant\n"
        "out = {n: get_diff_for_mutant(n, path=find_mutant(n).path) for n in sys.argv[1:]}\n"
        "print(json.dumps(out))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, *names], cwd=work, capture_output=True, text=True, check=True
    )
    return json.loads(run.stdout)


def changed_lines(diff: str) -> list[str]:
    """The lines a mutant removes and adds, the key that ties an equivalence reason to it."""
    return [
        line.rstrip()
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def run_module(
    module: str, spec: Module, again: bool, children: int, collect: bool = False
) -> dict:
    previous = load_results().get(module)
    if collect:  # the results of the last run as they stand (it may have been interrupted)
        work = WORK / slug(module)
        return summarise(module, spec, work, read_codes(work, module), 0.0, previous, False)
    work = prepare(module, spec, fresh=not again)
    names: list[str] = []
    if again and previous:
        names = [s["mutant"] for s in previous["survivors"]]
    elif spec.only:
        names = [spec.only]
    before = read_codes(work, module) if again else {}
    start = time.perf_counter()
    cmd = [str(MUTMUT), "run", "--max-children", str(children), *names]
    log = work / "mutmut.log"
    print("$ mutmut", " ".join(cmd[2:]), f"(in {work.relative_to(ROOT)}, output in {log.name})")
    with log.open("w") as out:
        subprocess.run(cmd, cwd=work, env=ENV, check=True, stdout=out, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    codes = read_codes(work, module)
    if again:
        codes = keep_earlier(work, module, before, codes)
    return summarise(module, spec, work, codes, seconds, previous, again)


def summarise(
    module: str, spec: Module, work: Path, codes: dict, seconds: float, previous, again: bool
) -> dict:
    """The entry of mutation.json for one module's mutmut results."""
    if spec.only:
        from fnmatch import fnmatchcase

        codes = {k: v for k, v in codes.items() if fnmatchcase(k, spec.only)}
    counts: dict[str, int] = {}
    for code in codes.values():
        counts[status(code)] = counts.get(status(code), 0) + 1
    alive = sorted(
        k
        for k, v in codes.items()
        if status(v) in ("survived", "no tests", "suspicious", "not checked")
    )
    text = diffs(work, alive)
    survivors = [
        {"mutant": k, "status": status(codes[k]), "change": changed_lines(text[k])} for k in alive
    ]
    entry = {
        "tests": list(spec.tests),
        "mutants": len(codes),
        "counts": counts,
        "survivors": survivors,
        "seconds": round(seconds + (previous or {}).get("seconds", 0) * again, 1),
        "when": time.strftime("%Y-%m-%d"),
        # The source the run mutated (an --again run keeps the first run's): a later change of
        # the module makes the entry stale.
        "source": (previous or {}).get("source") if again else source_digest(module),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
    }
    return entry


def load_results() -> dict:
    path = RESULTS / "mutation.json"
    return json.loads(path.read_text())["modules"] if path.exists() else {}


def load_equivalent() -> dict[str, dict]:
    if not EQUIVALENT.exists():
        return {}
    return {e["mutant"]: e for e in tomllib.loads(EQUIVALENT.read_text())["equivalent"]}


def score(entry: dict, equivalent: dict[str, dict]) -> tuple[int, list[dict], list[dict]]:
    """Equivalent mutants, justified and not: (count, the justified, the unexplained survivors)."""
    justified, open_ = [], []
    for s in entry["survivors"]:
        e = equivalent.get(s["mutant"])
        # A reason holds only for the change it was written for: if the code moved, it is stale.
        if e is not None and [c.strip() for c in e["change"]] == [c.strip() for c in s["change"]]:
            justified.append({**s, "reason": e["reason"]})
        else:
            open_.append(s)
    return len(justified), justified, open_


def source_digest(module: str) -> str:
    return hashlib.sha256((ROOT / module).read_bytes()).hexdigest()[:16]


def stale(module: str, entry: dict) -> bool:
    """Whether the module changed since its entry was measured: against the recorded digest,
    or (an entry without one) against the module at the recorded commit."""
    if entry.get("source"):
        return entry["source"] != source_digest(module)
    diff = subprocess.run(["git", "diff", "--quiet", entry["commit"], "--", module], cwd=ROOT)
    return diff.returncode != 0


def note(module: str, entry: dict) -> str:
    """The module's note, how many mutants an interrupted run left unchecked, and whether the
    module changed since."""
    unchecked = entry["counts"].get("not checked", 0)
    said = [MODULES[module].note] if MODULES[module].note else []
    if stale(module, entry):
        said.append("the module changed since this run: its score is of the earlier code")
    if unchecked:
        said.append(f"run interrupted: {unchecked} mutants not checked (counted as not killed)")
    return "; ".join(said)


def report(results: dict) -> str:
    equivalent = load_equivalent()
    out = [
        "# Mutation score",
        "",
        "`make mutation` (`benchmarks/mutation.py`, mutmut "
        f"{version('mutmut')}, Python {platform.python_version()}): each module mutated on its "
        "own and tested by the test files that concern it. Score = killed / (mutants -"
        f" equivalent); target {TARGET:.0f}% in each module. A timeout counts as killed.",
        "",
        "| module | mutants | killed | timeout | equivalent | not killed | score | seconds |"
        " run at | note |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    sections = []
    for module in MODULES:
        entry = results.get(module)
        if entry is None:
            out.append(f"| {module} | not run | | | | | | | | {MODULES[module].note} |")
            continue
        c = entry["counts"]
        n_eq, justified, open_ = score(entry, equivalent)
        killed = c.get("killed", 0) + c.get("timeout", 0)
        denominator = entry["mutants"] - n_eq
        pct = 100.0 * killed / denominator if denominator else 100.0
        out.append(
            f"| {module} | {entry['mutants']} | {c.get('killed', 0)} | {c.get('timeout', 0)} |"
            f" {n_eq} | {len(open_)} | {pct:.1f}% | {entry['seconds']:.0f} |"
            f" {entry['commit']} | {note(module, entry)} |"
        )
        if justified or open_:
            sections.append(f"\n## {module}\n")
            for s in open_:
                sections.append(f"- NOT KILLED ({s['status']}) `{s['mutant']}`")
                sections += [f"  `{c}`" for c in s["change"]]
            for s in justified:
                sections.append(f"- equivalent `{s['mutant']}`: {s['reason']}")
                sections += [f"  `{c}`" for c in s["change"]]
    out.append("")
    out.append("Tests per module: `MODULES` in `benchmarks/mutation.py`.")
    out.append("\n# Survivors\n")
    out.append(
        "Each mutant that no test kills, with the lines it removes (-) and adds (+); the"
        " equivalent ones with the reason no result can change."
    )
    return "\n".join(out + sections) + "\n"


def write(results: dict) -> None:
    # Merged into what is on disk, so that two runs of different modules keep both.
    results = {**load_results(), **results}
    RESULTS.mkdir(exist_ok=True)
    with atomic_open(RESULTS / "mutation.json") as handle:
        handle.write(json.dumps({"modules": results}, indent=1, ensure_ascii=False) + "\n")
    with atomic_open(RESULTS / "mutation.md") as handle:
        handle.write(report(results))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="modules to run (default: all of MODULES)")
    parser.add_argument("--again", action="store_true", help="re-test the last survivors only")
    parser.add_argument("--report", action="store_true", help="only rewrite mutation.md")
    parser.add_argument(
        "--collect", action="store_true", help="record the last run as it stands (interrupted)"
    )
    parser.add_argument("--children", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"not in MODULES: {', '.join(unknown)}")
    if not args.report:
        for module in args.modules or list(MODULES):
            entry = run_module(module, MODULES[module], args.again, args.children, args.collect)
            print(f"{module}: {entry['mutants']} mutants, {entry['counts']}", flush=True)
            write({module: entry})
    write({})
    return 0


if __name__ == "__main__":
    sys.exit(main())
