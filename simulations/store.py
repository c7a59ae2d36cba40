"""The results store: one SQLite row per training run, keyed by the run's config hash.

Every figure and every threshold reads training results from here (ARCHITECTURE.md, "Results
store").  A row holds the full config as JSON, the config hash (UNIQUE, so the same run is never
stored twice), the columns one filters on (task, arch, width, layers, length, lr, seed, heads),
the outcome (final and best accuracy, accuracy per length, the validation curve, steps, wall
time), the model's size (parameters, state_numel), what some runs measure of their final model
(``diagnostics``, JSON: the looped-reasoning paper's block cosines and layer similarities) and
provenance (code version, device, torch threads, time).

Recognition: a store is an SQLite file whose header carries our ``application_id``
(:data:`APPLICATION_ID`) and schema version (``user_version``, :data:`SCHEMA_VERSION`).  Every
command that reads or writes a store opens it through :class:`Store`, which refuses, with one
line and before anything is created, a folder, a file that is not SQLite, an SQLite database of
anyone else (its tables are never touched) and a store of a newer schema.  Stores of schema 1
(written before the marker existed: exactly the tables ``runs`` and ``meta``) are recognised by
their tables; stores of schemas 1 and 2 are read as they are and upgraded in place when
written.  A new store is built beside its path and linked into place in one step, so no reader
ever sees a half-made one.  Readers open the file
read-only (``readonly=True``), so a store on a read-only file or disk can be read.

Durability: the database runs in WAL mode and each run is written by one ``INSERT`` inside
``with conn:``, so a row appears whole or not at all.  A sweep killed at any moment, even by
SIGKILL, loses at most the runs in flight; on restart ``done_hashes()`` says what to skip.

Leases: a sweep :meth:`~Store.claim` s a run before training it and renews its leases while it
works (:meth:`~Store.renew`); another sweep on the same store skips runs leased by a live sweep,
so concurrent sweeps share the work instead of training it twice.  A lease that is not renewed
(its sweep was killed) expires after its time to live and the run is claimed again.

The module stays whole (about 920 lines): one file format (schema, its four versions and their
upgrades, leases, the check of every row a reader decodes) and its one reader and writer; the
verdict rule it stores lives in :mod:`simulations.verdicts`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import shutil
import socket
import sqlite3
import tempfile
import time
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import quote

import ccomplexity
from ccomplexity import budget, limits
from ccomplexity.errors import DiskFull, InputError, one_line, shown, warn_once
from ccomplexity.files import check_output_file, full_disk, note_input, umask
from simulations.verdicts import VERDICTS, evaluated_on, judge

DEFAULT_STORE = Path("results") / "ccx.db"
APPLICATION_ID = 0x43435852
"""``PRAGMA application_id`` of a results store: "CCXR"."""
SCHEMA_VERSION = 5
"""``PRAGMA user_version`` of a results store. 2: the marker, leases and the threads column;
3: the diagnostics column; 4: each run's verdict, the interval of its accuracy and the ensemble
it trained in; 5: the ``environment`` column (what trained the run, :data:`ENVIRONMENT`)."""

_SCHEMA = """
CREATE TABLE runs (
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
    created            TEXT    NOT NULL,
    threads            INTEGER,
    diagnostics        TEXT,
    verdict            TEXT,
    accuracy_ci        TEXT,
    ensemble           TEXT,
    environment        TEXT
);
CREATE INDEX runs_model ON runs (task, arch, width, layers, length);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_LEASES = (
    "CREATE TABLE leases (config_hash TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL)"
)
_V1_TABLES = {"runs", "meta"}
_HEADER = ("application_id", "user_version")

# Columns copied from the run's config; the first five are required there.
_CONFIG_COLUMNS = ("task", "arch", "width", "layers", "length", "lr", "seed", "heads")
_REQUIRED_CONFIG = ("task", "arch", "width", "layers", "length", "lr", "seed")
# Columns read straight from the trainer's result dict (all optional).
_RESULT_COLUMNS = (
    "steps", "wall_seconds", "parameters", "state_numel", "device", "checkpoint", "threads"
)  # fmt: skip
_JSON_COLUMNS = ("config", "accuracy_by_length", "curve")
_PARSED_COLUMNS = (*_JSON_COLUMNS, "diagnostics", "accuracy_ci", "ensemble", "environment")
_V4_COLUMNS = ("verdict", "accuracy_ci", "ensemble")
ENVIRONMENT = "environment"
"""The result key (and column, JSON object, NULL when a run has none) that records what trained
a run beyond its config: software, machine and settings a re-run needs, and the plugins it
used. Runs stored before schema 5 have none (read as ``{}``)."""
DIAGNOSTICS = ("block_cosine", "layer_similarity", "chance")
"""Result keys stored together in the ``diagnostics`` column (JSON, NULL when a run has none);
``chance`` is the task's chance level the verdict rule reads (:mod:`simulations.verdicts`)."""
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
    "diagnostics",
    *_V4_COLUMNS,
    ENVIRONMENT,
)


def _accuracy(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"run result: {name} must be a number in [0, 1], got {value!r}")
    if math.isnan(value):
        raise InputError(f"run result: {name} is NaN")
    return float(value)


class Store:
    """The results store at ``path``: created (with its parent folders) if missing, unless
    ``readonly``, which opens an existing store for reading only.

    Use as a context manager, or call :meth:`close`.  Any number of processes may read and
    write; concurrent sweeps coordinate through leases.
    """

    def __init__(self, path: str | Path = DEFAULT_STORE, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        if readonly and not self.path.exists():
            raise InputError(f"no results store at {str(self.path)!r}; run `ccx sweep` first")
        if not self.path.exists():
            _create(self.path)
        version = identify(self.path)
        try:
            if readonly:
                self._conn = _connect_for_reading(self.path)
            else:
                self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
                self._conn.execute("PRAGMA journal_mode=WAL")
                if version < SCHEMA_VERSION:
                    self._upgrade()
        except sqlite3.OperationalError as err:  # a full disk: no room for its WAL files
            raise write_failed(self.path, err) from None
        except sqlite3.DatabaseError as err:
            raise InputError(f"cannot open results store {str(self.path)!r}: {err}") from None
        present = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)")}
        self._columns = tuple(c for c in COLUMNS if c in present)
        self.malformed: list[tuple[object, str]] = []
        """(key, warning) of each malformed row read so far."""
        if "config_hash" not in self._columns:
            self._conn.close()
            raise InputError(f"results store {str(self.path)!r} has no runs table (damaged)")

    def _transaction(self) -> _Transaction:
        return _Transaction(self._conn, self.path)

    def _upgrade(self) -> None:
        """Schema 1..4 -> 5 in one transaction: (from 1) the threads column, leases, the
        marker; (from 2) the diagnostics column; (from 3) the verdict columns, each run's verdict
        and interval read off its stored curve (:func:`simulations.verdicts.judge`); (from 4)
        the environment column."""
        with self._transaction():
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return  # another process upgraded it first
            if version < 2:
                self._conn.execute("ALTER TABLE runs ADD COLUMN threads INTEGER")
                self._conn.execute(_LEASES)
            if version < 3:
                self._conn.execute("ALTER TABLE runs ADD COLUMN diagnostics TEXT")
            if version < 4:
                for column in _V4_COLUMNS:
                    self._conn.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
                self._judge_all()
            self._conn.execute(f"ALTER TABLE runs ADD COLUMN {ENVIRONMENT} TEXT")
            self._conn.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
            )
            self._conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _judge_all(self) -> None:
        """Every run's verdict and accuracy interval from its stored curve; a row that does not
        decode is left as it is (readers skip it)."""
        query = "SELECT id, config, curve, accuracy, best_accuracy FROM runs WHERE verdict IS NULL"
        for run_id, config, curve, accuracy, best in self._conn.execute(query).fetchall():
            try:
                judged = _judged(json.loads(config), json.loads(curve), accuracy, best, None)
            except (ValueError, TypeError, AttributeError, RecursionError):
                continue
            self._conn.execute(
                "UPDATE runs SET verdict = ?, accuracy_ci = ? WHERE id = ?",
                (judged["verdict"], json.dumps(judged["accuracy_ci"]), run_id),
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
        with self._transaction():
            if self._decodes(row["config_hash"]) is False:  # a malformed row: replaced
                self._conn.execute("DELETE FROM runs WHERE config_hash = ?", (row["config_hash"],))
            cursor = self._conn.execute(
                f"INSERT OR IGNORE INTO runs ({names}) VALUES ({marks})", tuple(row.values())
            )
            self._conn.execute("DELETE FROM leases WHERE config_hash = ?", (row["config_hash"],))
        return cursor.rowcount == 1

    # -- leases ---------------------------------------------------------------------------------
    def claim(self, config_hash: str, owner: str, ttl: float, take_over: bool = False) -> str:
        """Lease run ``config_hash`` to ``owner`` for ``ttl`` seconds: "claimed"; or "stored"
        when the run is in the store already (a row that decodes), "leased" when another owner
        holds a live lease on it (one not expired, of a process that is still running, or of
        another host), "refused" when its lease row is not a sweep's (:func:`lease_problem`:
        an expiry beyond :data:`LEASE_HORIZON`, an owner that is no lease owner), said once.
        With ``take_over``, a lease of another host or a refused one is taken over."""
        now = time.time()
        with self._transaction():
            if self._decodes(config_hash):
                return "stored"
            held = self._conn.execute(
                "SELECT owner, expires FROM leases WHERE config_hash = ?", (config_hash,)
            ).fetchone()
            if held is not None and held[0] != owner and _alive(held[0]):  # else void at once
                where = f"results store {self.path}: run {config_hash}"
                problem = lease_problem(held[0], held[1], now)
                if problem is not None and not take_over:
                    warn_once(
                        ("lease", config_hash),
                        f"{where} {problem}; left untrained "
                        "(ccx sweep --take-over-leases trains it)",
                    )
                    return "refused"
                if problem is None and held[1] > now:
                    if held[0].partition(":")[0] == socket.gethostname():
                        return "leased"  # a live sweep of this host
                    if not take_over:
                        warn_once(
                            ("lease", config_hash),
                            f"{where} is leased by "
                            f"{one_line(held[0])}, a sweep on another host, while it "
                            "renews the lease (ccx sweep --take-over-leases takes it "
                            "over)",
                        )
                        return "leased"
            self._conn.execute(
                "INSERT OR REPLACE INTO leases (config_hash, owner, expires) VALUES (?, ?, ?)",
                (config_hash, owner, now + ttl),
            )
        return "claimed"

    def renew(self, owner: str, ttl: float) -> None:
        """Extend every lease of ``owner`` to ``ttl`` seconds from now."""
        with self._transaction():
            self._conn.execute(
                "UPDATE leases SET expires = ? WHERE owner = ?", (time.time() + ttl, owner)
            )

    def release(self, owner: str, config_hash: str | None = None) -> None:
        """Give up ``owner``'s lease on ``config_hash`` (all of its leases when None)."""
        with self._transaction():
            if config_hash is None:
                self._conn.execute("DELETE FROM leases WHERE owner = ?", (owner,))
            else:
                self._conn.execute(
                    "DELETE FROM leases WHERE owner = ? AND config_hash = ?", (owner, config_hash)
                )

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
        diagnostics = {k: result[k] for k in DIAGNOSTICS if result.get(k) is not None}
        best = _accuracy(result["best_accuracy"], "best_accuracy")
        judged = _judged(config, result.get("curve") or [], accuracy, best, result)
        ensemble = result.get("ensemble")
        environment = result.get(ENVIRONMENT)
        if environment is not None and not isinstance(environment, Mapping):
            raise InputError(f"run result: {ENVIRONMENT} must be a dict")
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
            "diagnostics": json.dumps(diagnostics) if diagnostics else None,
            "verdict": judged["verdict"],
            "accuracy_ci": json.dumps(judged["accuracy_ci"]),
            "ensemble": json.dumps(ensemble) if isinstance(ensemble, Mapping) else None,
            ENVIRONMENT: json.dumps(dict(environment), sort_keys=True) if environment else None,
        }
        if row["checkpoint"] is not None:
            row["checkpoint"] = str(row["checkpoint"])
        return row

    # -- reading --------------------------------------------------------------------------------
    def note_sweep(self, name: str) -> None:
        """Record that sweep ``name`` (a profile or a spec's name) wrote into this store."""
        with self._transaction():
            names = self.sweeps()
            if name not in names:
                self._conn.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    ("sweeps", json.dumps([*names, name])),
                )

    def sweeps(self) -> list[str]:
        """The sweeps (profiles, specs) recorded as having written into this store, oldest
        first; empty for runs of ``ccx train`` alone or a store written before the record."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'sweeps'").fetchone()
        try:
            names = json.loads(row[0]) if row else []
        except (TypeError, ValueError):
            return []
        return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []

    def done_hashes(self) -> set[str]:
        """Config hashes of every stored run that decodes: what a resumed sweep skips. A
        malformed row (:func:`_decode`) is reported once and is not done: the sweep trains its
        run again and replaces the row (:meth:`add_run`)."""
        return {run["config_hash"] for run in self.runs()}

    def _decodes(self, config_hash: str) -> bool | None:
        """Whether the stored row of ``config_hash`` decodes (None: there is none)."""
        row = self._conn.execute(
            f"SELECT {', '.join(self._columns)} FROM runs WHERE config_hash = ?", (config_hash,)
        ).fetchone()
        if row is None:
            return None
        try:
            _decode(dict(zip(self._columns, row, strict=True)))
        except MalformedRun:
            return False
        return True

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
        if not clauses:  # every row: priced by the file's size
            size = sum(
                os.path.getsize(p)
                for p in (self.path, Path(f"{self.path}-wal"))
                if os.path.exists(p)
            )
            what = f"reading results store {self.path} ({budget.size_text(size)}, every run)"
            budget.check(what, *budget.store_read(size), "read a smaller store")
        try:
            cursor = self._conn.execute(
                f"SELECT {', '.join(self._columns)} FROM runs{where} ORDER BY id", values
            ).fetchall()
        except sqlite3.DatabaseError as err:  # a damaged file: one line, not a traceback
            raise InputError(f"cannot read results store {str(self.path)!r}: {err}") from None
        out = []
        for r in cursor:
            raw = dict(zip(self._columns, r, strict=True))
            try:
                out.append(_decode(raw))
            except MalformedRun as err:  # a store is data: a tampered row is skipped, and said
                key = (os.path.realpath(self.path), raw.get("id"))
                message = f"results store {self.path}: {err}; skipped (a sweep trains it again)"
                self.malformed.append((key, message))
                warn_once(key, message)
        return out


class MalformedRun(ValueError):
    """A stored run whose columns do not decode (a store edited by hand or damaged)."""


_NUMBER_COLUMNS = ("width", "layers", "length", "seed", "accuracy", "best_accuracy", "lr")
_SIZE_COLUMNS = ("width", "layers", "length")
"""Sizes of a run: integers of at least 1 (a reader divides by them and draws them on log
axes); its seed an integer of at least 0 and its accuracies in [0, 1]."""


def _check_values(row: dict[str, Any]) -> None:
    """ValueError naming the first value of a decoded run that no reader can use."""
    for column in _NUMBER_COLUMNS:
        if isinstance(row[column], bool) or not isinstance(row[column], int | float):
            raise ValueError(f"{column} is not a number")
    for column in (*_SIZE_COLUMNS, "seed"):
        least = 0 if column == "seed" else 1
        if not isinstance(row[column], int) or row[column] < least:
            raise ValueError(f"{column} must be an integer >= {least}, got {row[column]!r}")
    for column in ("accuracy", "best_accuracy"):
        if not 0 <= row[column] <= 1:
            raise ValueError(f"{column} must lie in [0, 1], got {row[column]!r}")
    if not (math.isfinite(row["lr"]) and row["lr"] > 0):
        raise ValueError(f"lr must be a positive number, got {row['lr']!r}")


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    """The run's JSON columns decoded and its numbers checked; MalformedRun naming its id."""
    row = {column: row.get(column) for column in COLUMNS}  # older schemas lack some columns
    try:
        for column in _PARSED_COLUMNS:  # sizes before parsing
            most = limits.STORE_CELL_CHARS.get(column, limits.STORE_CELL_MOST)
            if isinstance(row[column], str | bytes) and len(row[column]) > most:
                raise ValueError(f"{column} has {len(row[column])} characters; the limit is {most}")
        for column in _JSON_COLUMNS:
            row[column] = json.loads(row[column])
        if not isinstance(row["config"], dict) or not isinstance(row["curve"], list):
            raise ValueError("config must be an object and curve a list")
        by_length = {int(n): a for n, a in row["accuracy_by_length"].items()}
        if not all(a is None or type(a) in (int, float) for a in by_length.values()):
            raise ValueError("accuracy_by_length holds a value that is not a number")
        row["accuracy_by_length"] = by_length
        diagnostics = json.loads(row["diagnostics"]) if row["diagnostics"] else {}
        if not isinstance(diagnostics, dict):
            raise ValueError("diagnostics must be an object")
        row["diagnostics"] = diagnostics
        _check_values(row)
        ensemble = json.loads(row["ensemble"]) if row["ensemble"] else None
        row["ensemble"] = _ensemble(ensemble) if isinstance(ensemble, dict) else None
        environment = json.loads(row[ENVIRONMENT]) if row[ENVIRONMENT] else {}
        if not isinstance(environment, dict):
            raise ValueError(f"{ENVIRONMENT} must be an object")
        row[ENVIRONMENT] = environment
        ci = json.loads(row["accuracy_ci"]) if row["accuracy_ci"] else None
        if row["verdict"] in VERDICTS and _is_interval(ci):
            row["accuracy_ci"] = ci
        else:  # older stores, or a row edited by hand: judged from its curve
            recorded = {"chance": diagnostics.get("chance")}
            row.update(
                _judged(
                    row["config"], row["curve"], row["accuracy"], row["best_accuracy"], recorded
                )
            )
    except RecursionError:
        raise MalformedRun(f"run {row.get('id')} is malformed (nested too deeply)") from None
    except (ValueError, TypeError, AttributeError) as err:
        what = f"{column} is not valid JSON" if isinstance(err, json.JSONDecodeError) else err
        raise MalformedRun(f"run {row.get('id')} is malformed ({what})") from None
    return row


def _ensemble(record: dict[str, Any]) -> dict[str, Any]:
    """A stored ensemble record whose member list (``configs``) is at most
    :data:`ccomplexity.limits.ENSEMBLE` distinct config hashes; ValueError otherwise."""
    members = record.get("configs")
    if members is None:
        return record
    if not (
        isinstance(members, list)
        and len(members) <= limits.ENSEMBLE.most
        and all(isinstance(h, str) and 0 < len(h) <= 64 for h in members)
        and len(set(members)) == len(members)
    ):
        raise ValueError(
            f"ensemble must list at most {limits.ENSEMBLE.most} distinct config hashes"
        )
    return record


def _is_interval(value: object) -> bool:
    """Whether ``value`` is [lo, hi] with 0 <= lo <= hi <= 1."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
        and 0 <= value[0] <= value[1] <= 1
    )


def _judged(
    config: Mapping[str, Any],
    curve: object,
    accuracy: float,
    best: float,
    result: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The run's verdict and accuracy interval: the result's own when it carries them, else
    judged from its curve (:mod:`simulations.verdicts`); a curve that is not a list of (step,
    accuracy) pairs counts as none."""
    if result is not None and result.get("verdict") in VERDICTS and result.get("accuracy_ci"):
        return {"verdict": result["verdict"], "accuracy_ci": list(result["accuracy_ci"])}
    chance = None if result is None else result.get("chance")
    pairs = curve if isinstance(curve, list) else []
    if not all(
        isinstance(p, list | tuple)
        and len(p) == 2
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in p)
        for p in pairs
    ):
        pairs = []
    return judge(dict(config), pairs, accuracy, evaluated_on(dict(config), result), best, chance)


def check_plugin_sources(found: list[dict[str, Any]]) -> None:
    """Refuse (one line) to read ``found`` runs beside a plugin's bound when plugin code other
    than the loaded one trained them: runs of one plugin task or model recorded with different
    source hashes (their ``environment``'s ``plugins``), or with another hash than the plugin
    loaded now. Runs that recorded no plugin (stores before schema 5) are read as they are."""
    from ccomplexity import plugins

    seen: dict[tuple[str, str], tuple[str, str, object]] = {}
    for run in found:
        for entry in run[ENVIRONMENT].get("plugins") or ():
            if not isinstance(entry, dict):
                continue
            kind, name, sha = entry.get("kind"), entry.get("name"), entry.get("sha256")
            if not (isinstance(kind, str) and isinstance(name, str) and isinstance(sha, str)):
                continue
            source = str(entry.get("source", "?"))
            first = seen.setdefault((kind, name), (sha, source, run["id"]))
            if first[0] != sha:
                raise InputError(
                    f"runs {first[2]} and {run['id']} of {kind} {shown(name)} were trained by "
                    f"different plugin code ({shown(first[1])} sha256 {first[0][:12]}, "
                    f"{shown(source)} sha256 {sha[:12]}): one bound cannot stand beside both; "
                    "keep one plugin's runs in a store"
                )
    for (kind, name), (sha, source, run_id) in seen.items():
        find = {"task": plugins.task_definition, "model": plugins.model_definition}.get(kind)
        loaded = find(name) if find is not None else None
        if loaded is not None and loaded.sha256 != sha:
            raise InputError(
                f"run {run_id} of {kind} {shown(name)} was trained by {shown(source)} (sha256 "
                f"{sha[:12]}), but the loaded plugin {loaded.source} has sha256 "
                f"{loaded.sha256[:12]}: its bound would not be about these runs; load the plugin "
                "that trained them"
            )


def runs(path: str | Path, **filters: object) -> list[dict[str, Any]]:
    """Read-only: ``Store(path, readonly=True).runs(**filters)``; InputError if there is no
    store at ``path`` or the file there is not a results store. Every run of an unchanged file
    is read (and priced, and its malformed rows reported) once: a figure or a report reads its
    store many times."""
    if filters:
        with Store(path, readonly=True) as store:
            return store.runs(**filters)
    state = _file_state(path)
    if state is None or state not in _READ:
        with Store(path, readonly=True) as store:
            found, malformed = store.runs(), store.malformed
        _READ.clear()
        if state is not None:
            _READ[state] = (found, malformed)
        return [dict(run) for run in found]
    found, malformed = _READ[state]
    for key, message in malformed:  # said once per command, as a first read says it
        warn_once(key, message)
    return [dict(run) for run in found]


_READ: dict[tuple[object, ...], tuple[list[dict[str, Any]], list[tuple[object, str]]]] = {}
"""The last store read whole by :func:`runs`: its file's state, its runs and its warnings."""


def _file_state(path: str | Path) -> tuple[object, ...] | None:
    """What changes when a store's file (or its WAL) is written: device, inode, size and time
    of both; None when it cannot be read."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    try:
        wal = os.stat(f"{path}-wal")
        beside: tuple[int, ...] = (wal.st_size, wal.st_mtime_ns)
    except OSError:
        beside = ()
    return (
        os.path.realpath(path),
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        *beside,
    )


def stored_count(path: str | Path) -> int:
    """Rows in the ``runs`` table of the store at ``path``, read with a connection of its own
    while another process may be writing it; 0 before the file or its table exists (the file is
    never created)."""
    path = Path(path)
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=10)
    try:
        return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not created yet
        return 0
    finally:
        conn.close()


LEASE_HORIZON = 600.0
"""Seconds ahead a sweep's lease may expire: sweeps lease runs for a minute and renew them every
20 s (:data:`simulations.workers.LEASE_SECONDS`), so a later expiry is no sweep's."""


def lease_problem(owner: object, expires: object, now: float) -> str | None:
    """Why a lease row (data like any row) is not a live sweep's: an owner that is not
    ``host:pid:token`` text, an expiry that is no finite number or lies more than
    :data:`LEASE_HORIZON` seconds ahead; None for a well-formed lease."""
    if not isinstance(owner, str) or len(owner) > 300 or owner.count(":") != 2:
        return f"has a lease whose owner {one_line(repr(owner)[:80])} is not a sweep's"
    if isinstance(expires, bool) or not isinstance(expires, int | float):
        return f"has a lease of {one_line(owner)} whose expiry is not a number"
    if not math.isfinite(expires) or expires > now + LEASE_HORIZON:
        return (
            f"is leased by {one_line(owner)} until {expires:.6g}, more than "
            f"{LEASE_HORIZON:.0f} s ahead (no sweep leases for so long)"
        )
    return None


def lease_owner() -> str:
    """This process as a lease owner: host, process id and a random token."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _alive(owner: object) -> bool:
    """Whether a lease owner may still be running: always for another host (its lease then
    lasts until it expires) or an owner that names none, for this host while its process
    exists."""
    if not isinstance(owner, str):
        return True
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user
        return True
    return True


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception) on an autocommit
    connection: the write lock is taken first, so a check and the write it decides are one. A
    write that fails for a full disk (or another error of the file) is rolled back whole and
    reported in one line naming the store (:func:`write_failed`)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn, self.path = conn, path

    def __enter__(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise write_failed(self.path, err) from None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            try:
                self.conn.execute("COMMIT")
                return
            except sqlite3.OperationalError as err:
                exc = err
        with contextlib.suppress(sqlite3.Error):
            self.conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.OperationalError):
            raise write_failed(self.path, exc) from None


def write_failed(path: Path, err: sqlite3.Error) -> InputError:
    """The one line for a write the store's file refused: :class:`DiskFull` when SQLite found
    the disk full (``SQLITE_FULL``, or an I/O error where its folder has no room left), else an
    InputError with SQLite's reason. Nothing of the failed transaction is in the store."""
    if "full" in str(err) or ("I/O" in str(err) and _no_room(path)):
        return DiskFull(
            f"results store {path}: the database or disk is full; nothing of this write was "
            "stored (free some space and run again)"
        )
    return InputError(f"results store {path}: cannot write ({err}); nothing of it was stored")


ROOM = 1 << 16
"""Free bytes below which a store's folder counts as full (a WAL write needs pages)."""


def _no_room(path: Path) -> bool:
    """Whether the file system of ``path`` has (almost) no room left."""
    try:
        return shutil.disk_usage(path.parent if path.parent != Path("") else ".").free < ROOM
    except OSError:
        return False


def _uri(path: Path, **params: object) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quote(str(path.resolve()))}?{query}"


def _connect_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that never writes (``query_only``), opened normally so that the last one to
    close removes the WAL files; where that fails (a read-only folder, where no shared-memory
    file can be made) the file is read as immutable: nobody can be writing it there."""
    conn = None
    try:
        conn = sqlite3.connect(_uri(path, mode="rw"), uri=True, timeout=30.0)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        if conn is not None:
            conn.close()
        conn = sqlite3.connect(_uri(path, mode="ro", immutable=1), uri=True)
    return conn


def _peek(path: Path) -> tuple[int, int, set[str], bool]:
    """application_id, user_version, the tables, and whether ``meta`` says schema 1.

    Read as immutable (no locks, no WAL files made, so nothing appears beside a file that turns
    out not to be ours) from the main file, where a store has these from before it is linked
    into place (:func:`_create`); a file plain ``open``/``close`` would not do, as closing it
    drops every SQLite lock this process holds on it.
    """
    conn = sqlite3.connect(_uri(path, mode="ro", immutable=1), uri=True)
    try:
        app, version = (conn.execute(f"PRAGMA {k}").fetchone()[0] for k in _HEADER)
        listed = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = {t for (t,) in listed}
        query = "SELECT value FROM meta WHERE key = 'schema_version'"
        schema_1 = "meta" in tables and conn.execute(query).fetchone() == ("1",)
    finally:
        conn.close()
    return app, version, tables, schema_1


def identify(path: str | Path) -> int:
    """The schema version of the results store at ``path``; a one-line InputError for anything
    else (a folder, an empty or non-SQLite file, another application's database, a newer
    schema). Nothing is created or changed (see :func:`_peek`)."""
    p = Path(path)
    where = f"{str(p)!r}"
    if p.is_dir():
        raise InputError(f"store path {where} is a folder, not a database file")
    instead = "give a results store written by `ccx sweep`, or a new path"
    for beside in {str(p), os.path.realpath(p)}:  # SQLite writes these beside the store
        for side in ("-wal", "-shm", "-journal"):
            if os.path.islink(beside + side):
                raise InputError(
                    f"results store {where}: {beside + side} is a symbolic link, which SQLite "
                    "would write through: remove it"
                )
    note_input(p)  # no file the command writes may replace it
    if p.stat().st_size == 0:
        raise InputError(f"{where} is an empty file, not a results store; {instead}")
    try:
        app, version, tables, schema_1 = _peek(p)
    except sqlite3.DatabaseError as err:
        if "not a database" in str(err):
            message = f"{where} is not a results store (not an SQLite file); {instead}"
            raise InputError(message) from None
        raise InputError(f"cannot open results store {where}: {err}") from None
    if app == 0 and tables == _V1_TABLES and schema_1:
        return 1
    if app != APPLICATION_ID:
        shown = ", ".join(sorted(tables)[:5]) or "none"
        raise InputError(
            f"{where} is an SQLite database of another application (tables: {shown}), not a "
            f"results store; {instead}"
        )
    if not 2 <= version <= SCHEMA_VERSION:
        raise InputError(
            f"results store {where} has schema version {version}; this code reads versions "
            f"1..{SCHEMA_VERSION}"
        )
    if "runs" not in tables:
        raise InputError(f"results store {where} has no runs table (damaged); {instead}")
    return version


def _create(path: Path) -> None:
    """A new, empty store at ``path``: built in a temporary file beside it and linked into place
    in one step (if another process links one first, theirs is kept)."""
    check_output_file(path, "results store", create_folder=True, through_link=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as err:
        raise full_disk(err, "results store", path) from None
    os.fchmod(fd, 0o666 & ~umask())  # the mode a plain open would give (mkstemp makes 0600)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.executescript(f"BEGIN; {_SCHEMA} {_LEASES}; COMMIT;")
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("PRAGMA journal_mode=WAL")
        finally:
            conn.close()
        with contextlib.suppress(FileExistsError):  # another process linked its store first
            os.link(tmp, path)
    except sqlite3.OperationalError as err:
        raise write_failed(path, err) from None
    except OSError as err:
        raise full_disk(err, "results store", path) from None
    finally:
        Path(tmp).unlink(missing_ok=True)


__all__ = [
    "DEFAULT_STORE",
    "ENVIRONMENT",
    "Store",
    "identify",
    "lease_owner",
    "runs",
    "stored_count",
]
