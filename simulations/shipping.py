"""Shipped results: a profile's runs as a small store that ships with the toolkit, so that its
figures draw without training (``ccx figure NAME --store shipped/<profile>.db``).

:func:`ship` copies every run of a results store into a new store (configs, metrics, curves,
verdicts, ensembles, provenance) with the checkpoint paths left out (no checkpoint ships), in
SQLite's rollback-journal mode (one self-contained file: a reader makes no WAL files beside it)
and compacted. ``python -m simulations.shipping SRC DST`` does the same from a shell.
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


def ship(source: str | Path, target: str | Path) -> dict[str, object]:
    """Copy the runs of the store ``source`` into a new shipped store ``target`` (replaced if it
    exists); returns {"runs", "bytes", "target"}. InputError when the result exceeds
    :data:`MOST_BYTES` (nothing is left at ``target`` then)."""
    source, target = Path(source), Path(target)
    with Store(source, readonly=True) as store:
        found = store.runs()
        sweeps = store.sweeps()
    check_output_file(target, "shipped store", inputs=[source], create_folder=True)
    part = target.with_name(f".{target.name}.part")
    part.unlink(missing_ok=True)
    try:
        with Store(part) as out:
            for run in found:
                out.add_run({**run, "checkpoint": None, **_extra(run)})
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
    return {"runs": len(found), "bytes": size, "target": str(target)}


def _extra(run: dict) -> dict:
    """What a stored row keeps beyond the trainer's keys, in the form ``add_run`` reads."""
    diagnostics = run.get("diagnostics") or {}
    return {k: v for k, v in diagnostics.items() if v is not None}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m simulations.shipping SOURCE_STORE TARGET_STORE", file=sys.stderr)
        return 2
    try:
        shipped = ship(*args)
    except InputError as err:
        print(f"ship: error: {err}", file=sys.stderr)
        return 2
    print(f"{shipped['runs']} runs, {shipped['bytes']:,} bytes -> {shipped['target']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
