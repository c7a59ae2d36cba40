"""Record one stretch of a GPU sweep (``benchmarks/gpu_stretch.sh``) back on this machine.

    python benchmarks/gpu_stretch.py OUT_DIR --device-seconds S [--profile gpu]

OUT_DIR is the folder the stretch wrote (its store, ``stretch.json``, ``sweep.json``,
``gpu_util.csv``), or the archive ``benchmarks/gpu_papers.sh`` packed it into (``<paper>.tgz``,
unpacked into a temporary folder: members are checked by tarfile's ``data`` filter); S is the
device time the stretch's lease held (the machine's start included). It ships the store's runs to
``shipped/<profile>.db`` (no checkpoints), appends the stretch to
``benchmarks/results/gpu_stretches.json`` and rewrites ``gpu_stretches.md`` (per stretch: runs
stored, time; per ensemble trained: where its time went) and the profile's summary,
``benchmarks/results/gpu_profile.json`` for ``gpu`` (``gpu_<profile>.json`` for another); the forms
the stretch measured first, if any, go to ``gpu_forms.{json,md}``. The slices of
``benchmarks/gpu_papers.sh`` (:data:`PAPERS`) are also recorded in ``gpu_papers.json``; for a
capacity search, ``runs`` counts every run it could train (each model grown to ``grow_to``).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import tarfile
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from simulations.capacity import every_round  # noqa: E402
from simulations.shipping import ship  # noqa: E402
from simulations.store import Store  # noqa: E402
from simulations.sweeps import load_spec  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
PAPERS = {"parrots-gpu": "parrots", "looped-gpu": "looped", "kg-gpu": "kg"}
"""The profiles of ``benchmarks/gpu_papers.sh``, each recorded also in ``gpu_papers.json``."""


def units(runs: list[dict], since: set[str]) -> list[dict]:
    """The ensembles (or single runs) trained in this stretch, one row each, from their members'
    ``ensemble.timing`` (the last member to stop saw the whole ensemble)."""
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        if run["config_hash"] not in since:
            continue
        ens = run.get("ensemble") or {}
        key = tuple(ens.get("configs") or [run["config_hash"]])
        groups.setdefault(key, []).append(run)
    rows = []
    for members in groups.values():
        last = max(members, key=lambda r: r.get("wall_seconds") or 0.0)
        c = last["config"]
        timing = (last.get("ensemble") or {}).get("timing") or {}
        size = (last.get("ensemble") or {}).get("members", 1)
        steps = timing.get("steps") or last.get("steps") or 0
        rows.append(
            {
                "task": c["task"],
                "arch": c["arch"],
                "width": c["width"],
                "layers": c["layers"],
                "length": c["length"],
                "members": size,
                "stored": len(members),
                "steps": steps,
                "wall_seconds": round(last.get("wall_seconds") or 0.0, 1),
                **{k: timing.get(k) for k in ("setup_seconds", "train_seconds", "eval_seconds")},
                "fill": round(timing["member_steps"] / (size * steps), 3)
                if timing.get("member_steps") and steps
                else None,
                "ms_per_step": round(1000 * timing["train_seconds"] / steps, 2)
                if timing.get("train_seconds") and steps
                else None,
                "strategy": (last.get("ensemble") or {}).get("strategy", "alone"),
            }
        )
    return sorted(rows, key=lambda r: (r["task"], r["arch"], r["width"], r["layers"], r["length"]))


def stretch_folder(path: Path, scratch: Path) -> Path:
    """The stretch's folder: ``path`` itself, or the one folder its archive holds, unpacked into
    ``scratch`` (absolute paths, links out of it and special files are refused)."""
    if path.is_dir():
        return path
    if not path.is_file() or not tarfile.is_tarfile(path):
        sys.exit(f"{path}: neither a stretch's folder nor its archive")
    with tarfile.open(path) as archive:
        archive.extractall(scratch, filter="data")
    folders = [p for p in scratch.iterdir() if p.is_dir()]
    if len(folders) != 1:
        sys.exit(f"{path}: expected one folder in the archive, found {len(folders)}")
    return folders[0]


def utilisation(path: Path) -> float | None:
    """Mean GPU utilisation (%) over nvidia-smi's samples, None without them."""
    if not path.is_file():
        return None
    values = []
    with path.open() as f:
        for row in csv.reader(f):
            try:
                values.append(float(row[1].strip().rstrip("%").strip()))
            except (IndexError, ValueError):
                continue
    return round(statistics.fmean(values), 1) if values else None


def markdown(stretches: list[dict], summary: dict) -> str:
    lines = [
        f"# Stretches of the `{summary['profile']}` profile on a GPU",
        "",
        f"{summary['completed']} of {summary['runs']} runs stored in `{summary['shipped']}` after "
        f"{summary['stretches']} stretch(es), {summary['gpu_seconds']:.0f} s of sweeping on "
        f"{summary['device']}. Each stretch: `bash benchmarks/gpu_stretch.sh OUT` on the GPU "
        "machine (no ensemble starts after START_SECONDS; the sweep stops at HARD_SECONDS, losing "
        "the ensembles still training), then `python benchmarks/gpu_stretch.py OUT "
        "--device-seconds S` here.",
        "",
        "| stretch | date | device | workers | start / stop s | sweep s | lease s | stored | "
        "mean GPU util % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(stretches, 1):
        lines.append(
            f"| {i} | {s['date']} | {s['device']} | {s['workers']} | {s['start_seconds']} / "
            f"{s['hard_seconds']} | {s['sweep_seconds']} | {s['device_seconds']} | "
            f"{s['stored_before']} -> {s['stored_after']} | {s['gpu_util_mean']} |"
        )
    for i, s in enumerate(stretches, 1):
        lines += [
            "",
            f"## Stretch {i}: where each ensemble's time went",
            "",
            "Set-up (models, batched form and its check), training steps and evaluations, from "
            "the last member to stop; fill = member-steps / (members x steps); ms/step = training "
            "seconds per ensemble step, with the other ensembles sharing the GPU.",
            "",
            "| task | arch | w | L | N | members | stored | steps | wall s | set-up s | train s | "
            "eval s | fill | ms/step | form |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for u in s["units"]:
            lines.append(
                "| "
                + " | ".join(
                    str(u[k])
                    for k in (
                        "task",
                        "arch",
                        "width",
                        "layers",
                        "length",
                        "members",
                        "stored",
                        "steps",
                        "wall_seconds",
                        "setup_seconds",
                        "train_seconds",
                        "eval_seconds",
                        "fill",
                        "ms_per_step",
                        "strategy",
                    )
                )
                + " |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder the stretch wrote")
    parser.add_argument(
        "--device-seconds",
        type=float,
        required=True,
        help="device time of the stretch's lease (start included)",
    )
    parser.add_argument("--profile", default="gpu")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        record(stretch_folder(args.out, Path(scratch)), args.device_seconds, args.profile)


def record(out: Path, device_seconds: float, wanted_profile: str) -> None:
    """Ship the stretch in ``out`` and rewrite the records (the module's docstring)."""
    stretch = json.loads((out / "stretch.json").read_text())
    profile = stretch["profile"]
    if profile != wanted_profile:
        sys.exit(f"the stretch ran profile {profile!r}, not {wanted_profile!r}")
    shipped = Path("shipped") / f"{profile}.db"
    before = set()
    if (ROOT / shipped).is_file():
        with Store(ROOT / shipped, readonly=True) as store:
            before = store.done_hashes()
    with Store(out / f"{profile}.db", readonly=True) as store:
        runs = store.runs()
    machine = (out / "log.txt").read_text().splitlines()
    device = next((ln.split(",")[0] for ln in machine if ln.startswith("NVIDIA")), "unknown")
    ship(out / f"{profile}.db", ROOT / shipped)
    spec = load_spec(profile)
    search = spec.grow is not None
    if search:  # a capacity search: every run it could train, an upper bound
        spec = every_round(spec)
    wanted = set(spec.hashes())
    done = {r["config_hash"] for r in runs} & wanted
    log_path = RESULTS / "gpu_stretches.json"
    log = json.loads(log_path.read_text()) if log_path.is_file() else {}
    stretches = log.setdefault(profile, [])
    stretches.append(
        {
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "device": device,
            "workers": stretch["workers"],
            "start_seconds": stretch["start_seconds"],
            "hard_seconds": stretch["hard_seconds"],
            "exit": stretch["exit"],
            "mps": stretch.get("mps", "off"),
            "sweep_args": stretch.get("sweep_args", ""),
            "sweep_seconds": stretch["sweep_seconds"],
            "device_seconds": device_seconds,
            "stored_before": len(before & wanted),
            "stored_after": len(done),
            "gpu_util_mean": utilisation(out / "gpu_util.csv"),
            "units": units(runs, {r["config_hash"] for r in runs} - before),
        }
    )
    summary = {
        "device": device,
        "runs": len(wanted),
        "completed": len(done),
        "gpu_seconds": round(sum(s["sweep_seconds"] for s in stretches), 1),
        "stretches": len(stretches),
        "shipped": str(shipped),
    }
    log_path.write_text(json.dumps(log, indent=1) + "\n")
    if profile in PAPERS:  # issue 24's record: the three papers' slices side by side
        papers_path = RESULTS / "gpu_papers.json"
        papers = json.loads(papers_path.read_text()) if papers_path.is_file() else {}
        papers["device"] = device
        papers.setdefault("papers", {})[PAPERS[profile]] = {
            **summary, "profile": profile, **({"runs_are": "an upper bound: every model of the "
            "capacity search grown to grow_to"} if search else {}),
        }  # fmt: skip
        papers_path.write_text(json.dumps(papers, indent=1) + "\n")
    (RESULTS / f"{summary_name(profile)}.json").write_text(json.dumps(summary, indent=1) + "\n")
    (RESULTS / "gpu_stretches.md").write_text(
        "\n".join(
            markdown(log[p], {**summary, "profile": p} if p == profile else summary_of(p))
            for p in log
        )
    )
    forms = out / "forms.json"
    if forms.is_file():  # the forms measured first in the stretch, kept beside the others
        from gpu_forms import write

        report = json.loads(forms.read_text())
        write(report, report.get("name", "gpu_forms"))
    print(json.dumps(summary))


def summary_name(profile: str) -> str:
    """The results file of a profile's summary: ``gpu_profile`` for ``gpu``."""
    return "gpu_profile" if profile == "gpu" else f"gpu_{profile}"


def summary_of(profile: str) -> dict:
    """Another profile's summary, as its last stretch wrote it."""
    return {
        **json.loads((RESULTS / f"{summary_name(profile)}.json").read_text()),
        "profile": profile,
    }


if __name__ == "__main__":
    main()
