"""Shipped results: a profile's runs as a small store that ships with the toolkit, so that its
figures draw without training (``ccx figure NAME --store shipped/<profile>.db``).

:func:`ship` copies every run of a results store into a new store (configs, metrics, curves,
verdicts, ensembles, provenance) with the checkpoint paths left out (no checkpoint ships), in
SQLite's rollback-journal mode (one self-contained file: a reader makes no WAL files beside it)
and compacted. ``python -m simulations.shipping SRC DST`` does the same from a shell.

With ``rejudge`` every run is judged again by the current verdict rule
(:mod:`simulations.verdicts`) from its stored curve, with its task's chance level measured
where the run has none (:meth:`simulations.tasks.Task.chance`; a plugin's task whose plugin is
not loaded is judged without one): how the shipped stores follow a change of the rule
(``python -m simulations.shipping --rejudge SRC DST``).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from ccomplexity.errors import InputError
from ccomplexity.files import check_output_file, write_target
from simulations.store import Store

SHIPPED = Path("shipped")
"""The folder of the shipped stores, one per CPU profile (``<profile>.db``)."""
MOST_BYTES = 2 * 1024 * 1024
"""Largest shipped store: 2 MB."""


def ship(source: str | Path, target: str | Path, rejudge: bool = False) -> dict[str, object]:
    """Copy the runs of the store ``source`` into a new shipped store ``target`` (replaced if it
    exists), each judged again when ``rejudge`` (see the module); returns {"runs", "bytes",
    "target"} and, with ``rejudge``, "changed": {config hash: [old verdict, new verdict]}.
    InputError when the result exceeds :data:`MOST_BYTES` (nothing is left at ``target``
    then)."""
    source, target = Path(source), Path(target)
    with Store(source, readonly=True) as store:
        found = store.runs()
        sweeps = store.sweeps()
    check_output_file(target, "shipped store", inputs=[source], create_folder=True)
    part = target.with_name(f".{target.name}.part")
    part.unlink(missing_ok=True)
    rows = [{**run, "checkpoint": None, **_extra(run)} for run in found]
    changed: dict[str, list[str]] = {}
    if rejudge:
        rows = [_unjudged(row) for row in rows]
    try:
        with Store(part) as out:
            for row in rows:
                out.add_run(row)
            if rejudge:
                now = {r["config_hash"]: r["verdict"] for r in out.runs()}
                changed = {
                    r["config_hash"]: [r["verdict"], now[r["config_hash"]]]
                    for r in found
                    if r["verdict"] != now[r["config_hash"]]
                }
            for name in sweeps:
                out.note_sweep(name)
        conn = sqlite3.connect(part, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.executemany(  # when and by which version each run was trained, as stored
                "UPDATE runs SET created = ?, code_version = ? WHERE config_hash = ?",
                [(r["created"], r["code_version"], r["config_hash"]) for r in found],
            )
            conn.execute("VACUUM")
        finally:
            conn.close()
        size = part.stat().st_size
        if size > MOST_BYTES:
            raise InputError(
                f"the shipped store would be {size:,} bytes, over {MOST_BYTES:,}; ship fewer runs"
            )
        os.replace(part, write_target(target, "shipped store"))
    finally:
        part.unlink(missing_ok=True)
    return {
        "runs": len(found),
        "bytes": size,
        "target": str(target),
        **({"changed": changed} if rejudge else {}),
    }


def _extra(run: dict) -> dict:
    """What a stored row keeps beyond the trainer's keys, in the form ``add_run`` reads."""
    diagnostics = run.get("diagnostics") or {}
    return {k: v for k, v in diagnostics.items() if v is not None}


def _unjudged(row: dict) -> dict:
    """``row`` without its verdict (so that ``add_run`` judges it from its curve), with its
    task's chance level and the examples each evaluation measured, both from its task where
    the task can be built."""
    from simulations.training import TrainConfig, task_chance

    row = {k: v for k, v in row.items() if k not in ("verdict", "accuracy_ci")}
    try:
        config = TrainConfig.from_dict(row["config"])
        task = config.make_task()
    except InputError:  # a plugin's task without its plugin, or a config no longer valid
        return row
    fixed = task.training_set(config.task.length)
    if fixed is not None:
        row["evaluated"] = len(fixed[0])
    row.setdefault("chance", task_chance(config, task))
    return row


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    rejudge = args[:1] == ["--rejudge"]
    args = args[1:] if rejudge else args
    if len(args) != 2:
        print(
            "usage: python -m simulations.shipping [--rejudge] SOURCE_STORE TARGET_STORE",
            file=sys.stderr,
        )
        return 2
    try:
        shipped = ship(*args, rejudge=rejudge)
    except InputError as err:
        print(f"ship: error: {err}", file=sys.stderr)
        return 2
    print(f"{shipped['runs']} runs, {shipped['bytes']:,} bytes -> {shipped['target']}")
    for config_hash, (old, new) in shipped.get("changed", {}).items():
        print(f"  {config_hash}: {old} -> {new}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
