"""Hostile files around a command, as a careful attacker prepares them: links and inputs inside
output folders, code planted in the working folder, data files that ask for too much, in-range
values at their slowest, a full disk, plugin code that raises or exits, Ctrl-C, tampered stores.

Each case prepares a fresh folder, runs ``python -m ccx ...`` there under a 4 GiB address space
and 30 s (:func:`tests.ccx.budget_cases.run_case`), and checks the rule: the expected exit status,
one line on stderr for a refusal, never a traceback, nothing of the user's lost or half-written,
and the case's own check (a store keeps its runs, a planted module is never imported, ...).
The full-disk cases mount a tiny tmpfs and run only as root (skipped otherwise).

    python benchmarks/hostile_files.py     # writes benchmarks/results/hostile_files.{json,md}
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulations.run_config import TrainConfig  # noqa: E402
from simulations.store import Store  # noqa: E402
from simulations.sweeps import load_spec  # noqa: E402
from tests.ccx.budget_cases import ADDRESS_SPACE, SECONDS, run_case  # noqa: E402
from tests.ccx.test_hostile_files import SPEC  # noqa: E402

RESULTS = Path(__file__).parent / "results"
TASK = """import numpy as np
from ccomplexity.plugins import task

@task(name="first-equals-last", alphabet=3, lengths=(2, 64))
def first_equals_last(words):
    return (words[:, 0] == words[:, -1]).astype(np.int8)
"""
PLANTED = """open("planted_was_imported", "w").close()
import numpy as np
from ccomplexity.plugins import task

@task(name="planted-task", alphabet=2, lengths=(2, 16))
def planted(words):
    return words[:, 0].astype(np.int8)
"""
RAISES = """import numpy as np
from ccomplexity.plugins import task

def draw(batch, length, rng):
    raise KeyError("no sampler")

@task(name="raises", alphabet=2, lengths=(2, 16), sampler=draw)
def raises(words):
    raise ZeroDivisionError("line one\\nline two \\x1b[31mred")
"""
MODEL = """import dataclasses
import torch
from torch import nn
from ccomplexity.plugins import model
from models.base import ModelConfig, SequenceModel

@dataclasses.dataclass(frozen=True)
class Config(ModelConfig):
    pass

@model(name="no-doc", family="attention")
class NoDoc(SequenceModel):
    recurrent = False

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.embedding = nn.Embedding(config.vocab_size, config.width)
        self.head = nn.Linear(config.width, config.outputs)

    def forward(self, tokens):
        raise RuntimeError("forward broke")
"""


@dataclass
class Case:
    """A prepared folder, a command line run there, what must hold."""

    group: str
    name: str
    argv: list[str]
    setup: Callable[[Path], None] = lambda folder: None
    codes: tuple[int, ...] = (2,)
    check: Callable[[Path, object], str | None] = lambda folder, outcome: None
    interrupt: str | None = None
    root: bool = False
    fragments: tuple[str, ...] = field(default=())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def store_with_runs(folder: Path, name: str = "s.db", count: int = 1) -> list[TrainConfig]:
    """``spec.toml`` and a store holding its first ``count`` runs (as a sweep stores them)."""
    (folder / "spec.toml").write_text(SPEC)
    configs = list(load_spec(folder / "spec.toml").configs)
    with Store(folder / name) as store:
        for config in configs[:count]:
            store.add_run(
                {
                    "config": config.to_dict(),
                    "config_hash": config.config_hash(),
                    "accuracy": 0.5,
                    "best_accuracy": 0.5,
                    "curve": [[4, 0.5]],
                    "device": "cpu",
                    "threads": 1,
                }
            )
    return configs


def keeps(path: str, **expected: object) -> Callable[[Path, object], str | None]:
    """A check that ``path`` kept its bytes as they were after setup (``.digest`` beside)."""

    def check(folder: Path, outcome: object) -> str | None:
        before = (folder / f".{Path(path).name}.digest").read_text()
        return None if digest(folder / path) == before else f"{path} changed"

    return check


def remember(folder: Path, *paths: str) -> None:
    for path in paths:
        (folder / f".{Path(path).name}.digest").write_text(digest(folder / path))


def forge(folder: Path, path: str, **config: object) -> None:
    """Run 1's stored config changed, and its hash with it (a careful forger)."""
    with sqlite3.connect(folder / path) as conn:
        stored = json.loads(conn.execute("SELECT config FROM runs WHERE id = 1").fetchone()[0])
        stored.update(config)
        conn.execute(
            "UPDATE runs SET config = ?, config_hash = ?, ensemble = NULL WHERE id = 1",
            (json.dumps(stored), TrainConfig.from_dict(stored).config_hash()),
        )


# --- cases -------------------------------------------------------------------------------------


def _figure_link(folder: Path) -> None:
    store_with_runs(folder)
    (folder / "fig").mkdir()
    os.symlink("../s.db", folder / "fig/thresholds.csv")
    remember(folder, "s.db")


def _figure_hard_link(folder: Path) -> None:
    store_with_runs(folder)
    (folder / "fig").mkdir()
    os.link(folder / "s.db", folder / "fig/thresholds.png")
    remember(folder, "s.db")


def _report_link(folder: Path) -> None:
    store_with_runs(folder)
    (folder / "rep").mkdir()
    os.symlink("../s.db", folder / "rep/index.html")
    remember(folder, "s.db")


def _checkpoint_link(hard: bool) -> Callable[[Path], None]:
    def setup(folder: Path) -> None:
        configs = store_with_runs(folder)
        (folder / "s_checkpoints").mkdir()
        target = folder / f"s_checkpoints/{configs[1].config_hash()}.pt"
        os.link(folder / "s.db", target) if hard else os.symlink("../s.db", target)
        remember(folder, "s.db")

    return setup


def _train_link(folder: Path) -> None:
    (folder / "plug.py").write_text(TASK)
    config = TrainConfig.of(task="dyck", arch="lstm", width=4, layers=1, length=4, steps=4, batch=8)
    (folder / "ckp").mkdir()
    os.symlink("../plug.py", folder / f"ckp/{config.config_hash()}.pt")
    remember(folder, "plug.py")


def _certificate_link(folder: Path) -> None:
    store_with_runs(folder)
    os.symlink("s.db", folder / "c.json")
    remember(folder, "s.db")


def _wal_link(folder: Path) -> None:
    store_with_runs(folder)
    (folder / "plug.py").write_text(TASK)
    os.symlink("plug.py", folder / "s.db-wal")
    remember(folder, "plug.py")


def _planted(folder: Path) -> None:
    """A dist-info and its module in the working folder, a module named like torch, and data
    files naming the planted task: a certificate, a spec, a store."""
    (folder / "planted.py").write_text(PLANTED)
    (folder / "torch.py").write_text(PLANTED)
    info = folder / "planted-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: planted\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ccomplexity.tasks]\nplanted-task = planted\n")
    (folder / "spec.toml").write_text(SPEC.replace('"dyck"', '"planted-task"'))
    with Store(folder / "s.db") as store:
        store.add_run(
            {
                "config": {
                    "task": "planted-task",
                    "arch": "lstm",
                    "width": 4,
                    "layers": 1,
                    "length": 4,
                    "lr": 0.01,
                    "seed": 0,
                },
                "config_hash": "p1",
                "accuracy": 0.5,
                "best_accuracy": 0.5,
            }
        )
    maker = folder / "maker.py"  # a certificate about the task, made by other code
    maker.write_text(TASK.replace("first-equals-last", "planted-task"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ccx",
            "--plugin",
            "maker.py",
            "fooling",
            "--problem",
            "planted-task",
            "--length",
            "4",
            "--certificate",
            "cert.json",
        ],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    maker.unlink()
    (folder / "planted_was_imported").unlink(missing_ok=True)


def never_imported(folder: Path, outcome: object) -> str | None:
    return "the planted module was imported" if (folder / "planted_was_imported").exists() else None


def _steps(folder: Path) -> None:
    store_with_runs(folder)
    forge(folder, "s.db", steps=10**9)


def _gpu_run(folder: Path) -> None:
    shutil.copy(ROOT / "shipped/gpu.db", folder / "gpu.db")


def _leases(folder: Path) -> None:
    configs = store_with_runs(folder)
    with sqlite3.connect(folder / "s.db") as conn:
        conn.execute(
            "INSERT INTO leases VALUES (?, ?, ?)",
            (configs[1].config_hash(), "elsewhere.example:1:feed", 1e300),
        )


def _ensemble(folder: Path) -> None:
    configs = store_with_runs(folder)
    many = json.dumps({"configs": [configs[0].config_hash()] * 200_000, "strategy": "loop"})
    with sqlite3.connect(folder / "s.db") as conn:
        conn.execute("UPDATE runs SET ensemble = ? WHERE id = 1", (many,))


def _huge_store(folder: Path) -> None:
    """A store of 216 MB: the shipped GPU store's runs, over and over under new hashes."""
    shutil.copy(ROOT / "shipped/gpu.db", folder / "big.db")
    with sqlite3.connect(folder / "big.db") as conn:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(runs)")]
        rows = conn.execute("SELECT * FROM runs").fetchall()
        at, key = columns.index("id"), columns.index("config_hash")
        marks = ", ".join("?" for _ in columns)
        for copy in range(420):
            batch = [list(r) for r in rows]
            for r in batch:
                r[at], r[key] = None, f"{copy}-{r[key]}"
            conn.executemany(f"INSERT INTO runs ({', '.join(columns)}) VALUES ({marks})", batch)


def _plugin(text: str, name: str = "plug.py") -> Callable[[Path], None]:
    def setup(folder: Path) -> None:
        (folder / name).write_text(text)

    return setup


def _million_grid(folder: Path) -> None:
    seeds = ", ".join(map(str, range(1000)))
    rates = ", ".join(f"{i}e-4" for i in range(1, 1001))
    (folder / "grid.toml").write_text(
        SPEC.replace("seed = [0, 1]", f"seed = [{seeds}]\nlr = [{rates}]")
    )


def _escapes(folder: Path) -> None:
    store_with_runs(folder)
    with sqlite3.connect(folder / "s.db") as conn:
        conn.execute("UPDATE runs SET task = ? WHERE id = 1", ("\x1b[31mred\x1b]0;title\x07",))


def no_escape_printed(folder: Path, outcome: object) -> str | None:
    return "a raw ESC reached the terminal" if "\x1b" in outcome.stdout + outcome.stderr else None


def _tampered(folder: Path) -> None:
    store_with_runs(folder, count=2)
    with sqlite3.connect(folder / "s.db") as conn:
        conn.execute("UPDATE runs SET curve = '[' WHERE id = 1")


def warned_once(folder: Path, outcome: object) -> str | None:
    count = outcome.stderr.count("run 1 is malformed")
    return None if count == 1 else f"the malformed row was reported {count} times"


def retrained(folder: Path, outcome: object) -> str | None:
    summary = json.loads(outcome.stdout or "{}")
    return (
        None if summary.get("ran") == 1 else f"ran {summary.get('ran')} runs, not the malformed one"
    )


def _mixed_plugins(folder: Path) -> None:
    (folder / "plug.py").write_text(TASK)
    (folder / "spec.toml").write_text(
        SPEC.replace('"dyck"', '"first-equals-last"').replace("length = [4]", "length = [6]")
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ccx",
            "--plugin",
            "plug.py",
            "sweep",
            "spec.toml",
            "--store",
            "s.db",
            "--workers",
            "1",
        ],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    (folder / "plug.py").write_text(TASK.replace("==", "!="))


def _huge_query(folder: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ccx",
            "protocol",
            "attention",
            "--precision",
            "16",
            "--width",
            "8",
            "--heads",
            "2",
            "--length",
            "8",
            "--partition",
            "random",
            "--one-way",
            "--samples",
            "4",
            "--certificate",
            "a.json",
            "--json",
        ],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    cert = json.loads((folder / "a.json").read_text())
    cert["protocol"]["query_token"] = 10**30
    (folder / "a.json").write_text(json.dumps(cert))


def _slow_plugin(folder: Path) -> None:
    (folder / "slow.py").write_text("open('loading', 'w').close()\nimport time\ntime.sleep(60)\n")


def _full_disk(make: Callable[[Path], None], free: int) -> Callable[[Path], None]:
    """``make`` the case's files on a tmpfs mounted at ``disk/``, then fill it to ``free``
    bytes left."""

    def setup(folder: Path) -> None:
        disk = folder / "disk"
        disk.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
        make(disk)
        left = shutil.disk_usage(disk).free - free
        if left > 0:
            with open(disk / "filler", "wb") as handle:
                handle.write(b"\0" * left)
        (folder / ".mounted").write_text(str(disk))

    return setup


def nothing_half_written(folder: Path, outcome: object) -> str | None:
    disk = folder / "disk"
    stray = [p.name for p in disk.rglob("*") if p.name.endswith(".tmp")]
    return f"left behind: {stray}" if stray else None


def c(group: str, name: str, command: str, setup=None, **kw) -> Case:
    """A case whose command line is ``command`` split at spaces."""
    return Case(group, name, command.split(), setup or (lambda folder: None), **kw)


SWEEP = "sweep spec.toml --store s.db --workers 1"
TRAIN = "train --task dyck --arch lstm --width 4 --layers 1 --length 4 --steps 4 --batch 8"
COUNT = "dyck count --types 1 --depth 1 --length 2"
WIDE = TASK.replace("first-equals-last", "wide").replace("alphabet=3", "alphabet=65536")
FULL = dict(check=nothing_half_written, root=True)
CASES = [
    # data loss through links and inputs inside output folders
    c("links", "figure csv -> store", "figure thresholds --store s.db --out fig", _figure_link,
      check=keeps("s.db"), fragments=("symbolic link (to ../s.db)",)),
    c("links", "figure png = store (hard link)", "figure thresholds --store s.db --out fig",
      _figure_hard_link, check=keeps("s.db"), fragments=("input of this command",)),
    c("links", "report index.html -> store", "report --store s.db --out rep", _report_link,
      check=keeps("s.db")),
    c("links", "sweep checkpoint -> store", SWEEP, _checkpoint_link(False), check=keeps("s.db")),
    c("links", "sweep checkpoint = store (hard link), 2 workers", SWEEP.replace("1", "2"),
      _checkpoint_link(True), check=keeps("s.db")),
    c("links", "train checkpoint -> plugin source", f"{TRAIN} --checkpoint-dir ckp", _train_link,
      check=keeps("plug.py")),
    c("links", "certificate -> store", "fooling --problem equality --half 2 --certificate c.json",
      _certificate_link, check=keeps("s.db")),
    c("links", "store's WAL -> plugin source", "threshold --store s.db", _wal_link,
      check=keeps("plug.py")),
    # code from the working folder, under python -m ccx
    *(c("working folder", f"{command.split()[0]}{' (opted in)' if opt else ''}",
        ("--entry-points " if opt else "") + command, _planted, codes=codes,
        check=never_imported)
      for command, codes in (("verify cert.json", (2,)),
                             ("sweep spec.toml --store n.db --dry-run", (2,)),
                             ("threshold --store s.db", (0,)))
      for opt in (False, True)),
    # data files that ran for ever, unpriced
    c("data files", "rerun of steps = 10^9", "rerun --store s.db --run 1", _steps,
      fragments=("training budget",)),
    c("data files", "rerun of a shipped GPU run (N = 400)", "rerun --store gpu.db --run 238",
      _gpu_run, fragments=("--allow-cpu",)),
    c("data files", "forged lease (1e300, another host)", f"{SWEEP} --json", _leases,
      codes=(0,)),
    c("data files", "ensemble row of 200,000 hashes", "rerun --store s.db --run 1", _ensemble),
    c("data files", "a 216 MB store", "figure thresholds --store big.db --out fig", _huge_store,
      fragments=("reading results store",)),
    # in-range values priced
    c("in range", "dfa task, the docs' plugin, N = 13",
      "--plugin plug.py dfa task first-equals-last --length 13", _plugin(TASK), codes=(0, 2)),
    c("in range", "dfa task, alphabet 65,536", "--plugin plug.py dfa task wide --length 2",
      _plugin(WIDE), codes=(0, 2)),
    c("in range", "task of a plugin, N = 2^20 over 65,536 symbols",
      "--plugin plug.py task wide --length 1048576 --batch 10",
      _plugin(WIDE.replace("(2, 64)", "(1, 1048576)")), fragments=("too rare",)),
    c("in range", "sweep --dry-run of 10^6 runs",
      "sweep grid.toml --store g.db --dry-run --allow-large-grid", _million_grid),
    c("in range", "train width 64 at N = 2048",
      "train --task dyck --arch transformer --width 64 --heads 1 --length 2048 --steps 1",
      fragments=("of memory",)),
    c("in range", "train --threads 1024", f"{TRAIN} --threads 1024", fragments=("cores",)),
    c("in range", "plugin cc oneway N = 26",
      "--plugin plug.py cc oneway --problem first-equals-last --length 26", _plugin(TASK),
      codes=(0, 2)),
    c("in range", "construct index-lookup, 10^7 samples",
      "construct --task index-lookup --length 8 --samples 10000000"),
    c("in range", "construct kg-path E = 65536, R = 2, q = 2",
      "construct --task kg-path --entities 65536 --relations 2 --hops 2"),
    c("in range", "task i-gsm, 2048 x 512 statements",
      "task i-gsm --modulus 97 --length 512 --batch 2048"),
    # tracebacks before
    c("errors", "full disk under a sweep", "sweep disk/spec.toml --store disk/s.db --workers 1",
      _full_disk(store_with_runs, 2048), fragments=("disk is full",), **FULL),
    c("errors", "full disk under a certificate", "fooling --problem dyck --types 2 --depth 2 "
      "--length 100000 --partition odd-even --certificate disk/c.json",
      _full_disk(lambda d: None, 1024), fragments=("no space left",), **FULL),
    c("errors", "full disk under a figure", "figure bounds --out disk/fig",
      _full_disk(lambda d: None, 4096), fragments=("no space left",), **FULL),
    c("errors", "plugin word function raises",
      "--plugin plug.py cc oneway --problem raises --length 6", _plugin(RAISES),
      fragments=("plugin plug.py: raises raised ZeroDivisionError",)),
    c("errors", "plugin sampler raises", "--plugin plug.py task raises --length 4 --train",
      _plugin(RAISES), fragments=("draw raised KeyError",)),
    c("errors", "plugin forward raises", "--plugin plug.py train --task dyck --arch no-doc "
      "--width 4 --length 4 --steps 2 --json", _plugin(MODEL),
      fragments=("forward raised RuntimeError",)),
    c("errors", "plugin model without a docstring", "--plugin plug.py models --json",
      _plugin(MODEL), codes=(0,)),
    c("errors", "plugin model, its config not annotated", "--plugin plug.py models --json",
      _plugin(MODEL.replace("config: Config", "config")), fragments=("must annotate",)),
    c("errors", "Ctrl-C while a plugin loads", f"--plugin slow.py {COUNT}", _slow_plugin,
      codes=(130,), interrupt="loading"),
    c("errors", "verify: huge query token", "verify a.json", _huge_query, codes=(1,),
      fragments=("public query token",)),
    # smaller
    c("smaller", "plugin message with newlines", f"--plugin plug.py {COUNT}",
      _plugin("raise ValueError('one\\ntwo\\nthree')")),
    c("smaller", "raise SystemExit(0) in a plugin", f"--plugin plug.py {COUNT}",
      _plugin("raise SystemExit(0)")),
    c("smaller", "terminal escapes in a store", "threshold --store s.db", _escapes, codes=(0,),
      check=no_escape_printed),
    c("smaller", "runs of another plugin's code", "--plugin plug.py threshold --store s.db",
      _mixed_plugins, fragments=("load the plugin that trained",)),
    c("smaller", "malformed row: retrained", f"{SWEEP} --json", _tampered, codes=(0,),
      check=retrained),
    c("smaller", "report on a tampered store: warned once", "report --store s.db --out rep",
      _tampered, codes=(0,), check=warned_once),
]  # fmt: skip
"""Every case of the round: the issue's and the variants a careful attacker tries next."""


def problem(case: Case, outcome, folder: Path) -> str | None:
    """Why ``outcome`` breaks the rule of ``case`` (None: it keeps it)."""
    lines = [
        line for line in outcome.stderr.strip().splitlines() if not line.startswith("ccx: warning")
    ]
    if outcome.code is None:
        return f"still running after {SECONDS} s"
    if "Traceback" in outcome.stderr:
        return f"traceback: {lines[-1] if lines else ''}"
    if outcome.code not in case.codes:
        return f"exit {outcome.code}, not {case.codes}: {outcome.stderr.strip()[-160:]}"
    if outcome.code != 0 and len(lines) != 1:
        return f"exit {outcome.code} with {len(lines)} lines on stderr"
    if case.fragments and not any(f in outcome.stderr for f in case.fragments):
        return f"the line does not say {case.fragments[0]!r}"
    return case.check(folder, outcome)


def run(case: Case) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="ccx-hostile-"))
    try:
        case.setup(folder)
        signal = None if case.interrupt is None else folder / case.interrupt
        outcome = run_case(case.argv, folder=folder, interrupt=signal)
        broken = problem(case, outcome, folder)
    finally:
        mounted = folder / ".mounted"
        if mounted.exists():
            subprocess.run(["umount", mounted.read_text()], check=False)
        shutil.rmtree(folder, ignore_errors=True)
    last = outcome.stderr.strip().splitlines()[-1][:160] if outcome.stderr.strip() else ""
    return {
        "group": case.group,
        "case": case.name,
        "command": "ccx " + " ".join(case.argv),
        "exit": outcome.code,
        "seconds": round(outcome.seconds, 2),
        "max_rss_mib": outcome.max_rss >> 20,
        "problem": broken,
        "stderr": last,
    }


def main() -> None:
    before = os.getloadavg()
    rows = []
    for case in CASES:
        if case.root and os.geteuid() != 0:
            rows.append({"group": case.group, "case": case.name, "skipped": "needs root"})
            continue
        rows.append(run(case))
        r = rows[-1]
        print(r["exit"], r["seconds"], r["case"], r["problem"] or "", flush=True)
    ran = [r for r in rows if "skipped" not in r]
    summary = {
        "cases": len(rows), "ran": len(ran), "skipped": len(rows) - len(ran),
        "kept_the_rule": sum(r["problem"] is None for r in ran),
        "broken": sum(r["problem"] is not None for r in ran),
        "max_seconds": max(r["seconds"] for r in ran),
        "max_rss_mib": max(r["max_rss_mib"] for r in ran),
        "address_space_gib": ADDRESS_SPACE >> 30, "time_limit_s": SECONDS,
    }  # fmt: skip
    machine = {"cores": os.cpu_count(), "python": platform.python_version(),
               "load_before": [round(v, 2) for v in before],
               "load_after": [round(v, 2) for v in os.getloadavg()],
               "note": "a 2-core machine shared with other jobs"}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hostile_files.json").write_text(
        json.dumps({"summary": summary, "machine": machine, "cases": rows}, indent=1) + "\n"
    )
    text = [
        "# Hostile files around a command: links, planted code, unpriced data, full disks",
        "",
        f"Machine: {machine['cores']} cores shared with other jobs, Python {machine['python']}; "
        f"load average {machine['load_before'][0]} before, {machine['load_after'][0]} after. "
        f"Each case: a prepared folder, a fresh `python -m ccx` process there, "
        f"{summary['address_space_gib']} GiB of address space, {SECONDS:.0f} s; start-up "
        "included.",
        "",
        "| cases | ran | kept the rule | broken | skipped | slowest | largest |",
        "|---|---|---|---|---|---|---|",
        f"| {summary['cases']} | {summary['ran']} | {summary['kept_the_rule']} | "
        f"{summary['broken']} | {summary['skipped']} | {summary['max_seconds']} s | "
        f"{summary['max_rss_mib']} MiB |",
        "",
        "| group | case | exit | seconds | MiB | problem or message |",
        "|---|---|---|---|---|---|",
        *(f"| {r['group']} | {r['case']} | skipped ({r['skipped']}) | | | |" if "skipped" in r
          else f"| {r['group']} | {r['case']} | {r['exit']} | {r['seconds']} | "
          f"{r['max_rss_mib']} | {(r['problem'] or r['stderr']).replace('|', '/')[:140]} |"
          for r in rows),
    ]  # fmt: skip
    (RESULTS / "hostile_files.md").write_text("\n".join(text) + "\n")
    print("\n".join(text[:10]))


if __name__ == "__main__":
    main()
