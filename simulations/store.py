"""The results store: one SQLite row per training run, keyed by the run's config hash.

Every figure and every threshold reads training results from here (ARCHITECTURE.md, "Results
store").  A row holds the full config as JSON, the config hash (UNIQUE, so the same run is never
stored twice), the columns one filters on (task, arch, width, layers, length, lr, seed, heads),
the outcome (final and best accuracy, accuracy per length, the validation curve, steps, wall
time), the model's size (parameters, state_numel) and provenance (code version, device, time).

Durability: the database runs in WAL mode and each run is written by one ``INSERT`` inside
``with conn:``, so a row appears whole or not at all.  A sweep killed at any moment, even by
SIGKILL, loses at most the runs in flight; on restart ``done_hashes()`` says what to skip.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

import ccomplexity
from ccomplexity.errors import InputError

DEFAULT_STORE = Path("results") / "ccx.db"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id                 INTEGER PRIMARY KEY,
    config_hash        TEXT    NOT NULL UNIQUE,
    config             TEXT    NOT NULL,
    task               TEXT    NOT NULL,
    arch               TEXT    NOT NULL,
    width              INTEGER NOT NULL,
    layers             INTEGER NOT NULL,
    length             INTEGER NOT NULL,
    lr                 REAL    NOT NULL,
    seed               INTEGER NOT NULL,
    heads              INTEGER,
    accuracy           REAL    NOT NULL,
    best_accuracy      REAL    NOT NULL,
    accuracy_by_length TEXT    NOT NULL,
    curve              TEXT    NOT NULL,
    steps              INTEGER,
    wall_seconds       REAL,
    parameters         INTEGER,
    state_numel        INTEGER,
    device             TEXT,
    checkpoint         TEXT,
    code_version       TEXT    NOT NULL,
    created            TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_model ON runs (task, arch, width, layers, length);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

# Columns copied from the run's config; the first five are required there.
_CONFIG_COLUMNS = ("task", "arch", "width", "layers", "length", "lr", "seed", "heads")
_REQUIRED_CONFIG = ("task", "arch", "width", "layers", "length", "lr", "seed")
# Columns read straight from the trainer's result dict (all optional).
_RESULT_COLUMNS = ("steps", "wall_seconds", "parameters", "state_numel", "device", "checkpoint")
_JSON_COLUMNS = ("config", "accuracy_by_length", "curve")
COLUMNS = (
    "id",
    "config_hash",
    "config",
    *_CONFIG_COLUMNS,
    "accuracy",
    "best_accuracy",
    "accuracy_by_length",
    "curve",
    *_RESULT_COLUMNS,
    "code_version",
    "created",
)


def _accuracy(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"run result: {name} must be a number in [0, 1], got {value!r}")
    if math.isnan(value):
        raise InputError(f"run result: {name} is NaN")
    return float(value)


class Store:
    """An SQLite results store at ``path`` (created with its parent folders if missing).

    Use as a context manager, or call :meth:`close`.  Only one process should write at a time
    (a sweep writes from its parent process); any number may read.
    """

    def __init__(self, path: str | Path = DEFAULT_STORE) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise InputError(f"store path {str(self.path)!r} is a folder, not a database file")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(self.path, timeout=30.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            with self._conn:
                self._conn.executescript(_SCHEMA)
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
        except sqlite3.DatabaseError as err:
            raise InputError(f"cannot open results store {str(self.path)!r}: {err}") from None
        version = self._conn.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone()[0]
        if int(version) != SCHEMA_VERSION:
            self._conn.close()
            raise InputError(
                f"results store {str(self.path)!r} has schema version {version}; "
                f"this code reads version {SCHEMA_VERSION}"
            )

    # -- lifetime -------------------------------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------------
    def add_run(self, result: Mapping[str, Any]) -> bool:
        """Store one trainer result (``simulations.training.train``'s dict) as one row.

        Needs ``config`` (a dict with task, arch, width, layers, length, lr, seed), ``config_hash``,
        ``accuracy`` and ``best_accuracy``; stores ``curve``, ``accuracy_by_length`` (default
        ``{length: accuracy}``) and the size and timing keys when present.  Returns True when
        the row was written, False when a run with this config hash is already stored (the
        store then keeps the first one).  The write is one transaction.
        """
        row = self._row(result)
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self._conn:
            cursor = self._conn.execute(
                f"INSERT OR IGNORE INTO runs ({names}) VALUES ({marks})", tuple(row.values())
            )
        return cursor.rowcount == 1

    @staticmethod
    def _row(result: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(result, Mapping):
            raise InputError(f"run result must be a dict, got {type(result).__name__}")
        for key in ("config", "config_hash", "accuracy", "best_accuracy"):
            if key not in result:
                raise InputError(f"run result lacks {key!r}")
        config = result["config"]
        if not isinstance(config, Mapping):
            raise InputError(f"run result: config must be a dict, got {type(config).__name__}")
        missing = [k for k in _REQUIRED_CONFIG if k not in config]
        if missing:
            raise InputError(f"run result: config lacks {missing[0]!r}")
        config_hash = result["config_hash"]
        if not isinstance(config_hash, str) or not config_hash:
            raise InputError(
                f"run result: config_hash must be a non-empty string, got {config_hash!r}"
            )
        accuracy = _accuracy(result["accuracy"], "accuracy")
        by_length = result.get("accuracy_by_length") or {config["length"]: accuracy}
        row: dict[str, Any] = {
            "config_hash": config_hash,
            "config": json.dumps(dict(config), sort_keys=True),
            **{k: config.get(k) for k in _CONFIG_COLUMNS},
            "accuracy": accuracy,
            "best_accuracy": _accuracy(result["best_accuracy"], "best_accuracy"),
            "accuracy_by_length": json.dumps({str(n): a for n, a in by_length.items()}),
            "curve": json.dumps(result.get("curve") or []),
            **{k: result.get(k) for k in _RESULT_COLUMNS},
            "code_version": ccomplexity.__version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        if row["checkpoint"] is not None:
            row["checkpoint"] = str(row["checkpoint"])
        return row

    # -- reading --------------------------------------------------------------------------------
    def done_hashes(self) -> set[str]:
        """Config hashes of every stored run: what a resumed sweep skips."""
        return {h for (h,) in self._conn.execute("SELECT config_hash FROM runs")}

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    def runs(self, **filters: object) -> list[dict[str, Any]]:
        """Stored runs as dicts (JSON columns decoded), oldest first.

        Filters name columns: ``runs(task="dyck", arch="lstm")``; a list, tuple or set value
        matches any of its items: ``runs(length=[20, 50])``.
        """
        clauses, values = [], []
        for column, value in filters.items():
            if column not in COLUMNS:
                raise InputError(f"unknown run field {column!r}; known: {', '.join(COLUMNS)}")
            if isinstance(value, list | tuple | set | frozenset):
                items = list(value)
                if not items:
                    return []
                clauses.append(f"{column} IN ({', '.join('?' for _ in items)})")
                values.extend(items)
            else:
                clauses.append(f"{column} = ?")
                values.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        cursor = self._conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM runs{where} ORDER BY id", values
        )
        return [_decode(dict(zip(COLUMNS, r, strict=True))) for r in cursor]


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    for column in _JSON_COLUMNS:
        row[column] = json.loads(row[column])
    row["accuracy_by_length"] = {int(n): a for n, a in row["accuracy_by_length"].items()}
    return row


def runs(path: str | Path, **filters: object) -> list[dict[str, Any]]:
    """Read-only convenience: ``Store(path).runs(**filters)``; InputError if there is no store."""
    if not Path(path).is_file():
        raise InputError(f"no results store at {str(path)!r}")
    with Store(path) as store:
        return store.runs(**filters)


__all__ = ["DEFAULT_STORE", "Store", "runs"]
