"""The SQLite results store: round trips, uniqueness of config hashes, validation, WAL mode,
recognising its own files (and nobody else's), read-only reading, leases."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time

import pytest

import ccomplexity
from ccomplexity.errors import InputError
from simulations.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Store,
    lease_owner,
    runs,
    stored_count,
)


def result(length: int = 20, arch: str = "lstm", seed: int = 0, accuracy: float = 0.5) -> dict:
    """A trainer result as simulations.training.train returns it."""
    config = {
        "task": "index-lookup",
        "arch": arch,
        "width": 16,
        "layers": 1,
        "length": length,
        "lr": 1e-3,
        "seed": seed,
        "heads": 4,
        "steps": 100,
    }
    return {
        "config": config,
        "config_hash": f"{arch}-{length}-{seed}",
        "accuracy": accuracy,
        "best_accuracy": max(accuracy, 0.6),
        "curve": [[50, 0.4], [100, accuracy]],
        "steps": 100,
        "wall_seconds": 1.25,
        "parameters": 1234,
        "state_numel": 32,
        "device": "cpu",
        "checkpoint": None,
        "seed": seed,
    }


def test_round_trip(tmp_path):
    path = tmp_path / "sub" / "ccx.db"
    with Store(path) as store:
        assert store.add_run(result())
    (row,) = runs(path)
    assert row["config"] == result()["config"]
    assert row["config_hash"] == "lstm-20-0"
    assert (row["task"], row["arch"], row["width"], row["layers"], row["length"]) == (
        "index-lookup",
        "lstm",
        16,
        1,
        20,
    )
    assert (row["lr"], row["seed"], row["heads"]) == (1e-3, 0, 4)
    assert (row["accuracy"], row["best_accuracy"]) == (0.5, 0.6)
    assert row["accuracy_by_length"] == {20: 0.5}
    assert row["curve"] == result()["curve"]
    assert (row["steps"], row["wall_seconds"], row["parameters"], row["state_numel"]) == (
        100,
        1.25,
        1234,
        32,
    )
    assert row["code_version"] == ccomplexity.__version__
    assert row["created"]


def test_same_hash_is_stored_once(tmp_path):
    with Store(tmp_path / "db") as store:
        assert store.add_run(result(accuracy=0.5))
        assert not store.add_run(result(accuracy=0.9))
        assert len(store) == 1
        assert store.runs()[0]["accuracy"] == 0.5
        assert store.done_hashes() == {"lstm-20-0"}


def test_filters(tmp_path):
    with Store(tmp_path / "db") as store:
        for n in (20, 50, 100):
            for arch in ("lstm", "transformer"):
                store.add_run(result(length=n, arch=arch))
        assert len(store.runs()) == 6
        assert [r["length"] for r in store.runs(arch="lstm")] == [20, 50, 100]
        assert len(store.runs(arch="transformer", length=[20, 100])) == 2
        assert store.runs(length=[]) == []
        with pytest.raises(InputError, match="unknown run field 'colour'"):
            store.runs(colour="red")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("config_hash"), "lacks 'config_hash'"),
        (lambda r: r.pop("best_accuracy"), "lacks 'best_accuracy'"),
        (lambda r: r["config"].pop("length"), "config lacks 'length'"),
        (lambda r: r.update(accuracy=1.5), r"accuracy must be a number in \[0, 1\]"),
        (lambda r: r.update(accuracy=float("nan")), "accuracy"),
        (lambda r: r.update(config_hash=""), "config_hash must be a non-empty string"),
    ],
)
def test_bad_results_are_rejected_and_nothing_is_written(tmp_path, change, message):
    bad = result()
    change(bad)
    with Store(tmp_path / "db") as store:
        with pytest.raises(InputError, match=message):
            store.add_run(bad)
        assert len(store) == 0


def test_persists_and_uses_wal(tmp_path):
    path = tmp_path / "db"
    with Store(path) as store:
        store.add_run(result())
    with Store(path) as store:
        assert store.done_hashes() == {"lstm-20-0"}
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_not_a_database(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("this is not SQLite, just some text that is long enough " * 20)
    with pytest.raises(InputError, match="not an SQLite file"):
        Store(path)
    with pytest.raises(InputError, match="is a folder"):
        Store(tmp_path)
    with pytest.raises(InputError, match="no results store"):
        runs(tmp_path / "missing.db")


# -- recognition: our stores only ----------------------------------------------------------------


def _listing(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_other_sqlite_databases_are_refused_untouched(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    with conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        conn.execute("INSERT INTO invoices (amount) VALUES (12.5)")
    conn.close()
    before = _listing(tmp_path)
    with pytest.raises(InputError, match=r"another application \(tables: invoices\)"):
        Store(other)
    with pytest.raises(InputError, match="another application"):
        runs(other)
    assert _listing(tmp_path) == before


def test_empty_and_foreign_files_are_refused(tmp_path):
    (tmp_path / "empty.db").write_bytes(b"")
    with pytest.raises(InputError, match="empty file"):
        Store(tmp_path / "empty.db")
    (tmp_path / "bin.db").write_bytes(bytes(range(256)) * 8)
    with pytest.raises(InputError, match="not an SQLite file"):
        runs(tmp_path / "bin.db")
    with pytest.raises(InputError, match="lies under"):
        Store(tmp_path / "bin.db" / "x.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin.db", "empty.db"]


def test_a_new_store_carries_the_marker(tmp_path):
    path = tmp_path / "new" / "ccx.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    header = [conn.execute(f"PRAGMA {k}").fetchone()[0] for k in ("application_id", "user_version")]
    conn.close()
    assert header == [APPLICATION_ID, SCHEMA_VERSION]
    assert sorted(p.name for p in path.parent.iterdir()) == ["ccx.db"]  # no temporary left


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "ccx.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(InputError, match="schema version"):
        Store(path)


V1_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, config_hash TEXT NOT NULL UNIQUE, config TEXT NOT NULL,
  task TEXT NOT NULL, arch TEXT NOT NULL, width INTEGER NOT NULL, layers INTEGER NOT NULL,
  length INTEGER NOT NULL, lr REAL NOT NULL, seed INTEGER NOT NULL, heads INTEGER,
  accuracy REAL NOT NULL, best_accuracy REAL NOT NULL, accuracy_by_length TEXT NOT NULL,
  curve TEXT NOT NULL, steps INTEGER, wall_seconds REAL, parameters INTEGER,
  state_numel INTEGER, device TEXT, checkpoint TEXT, code_version TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE INDEX runs_model ON runs (task, arch, width, layers, length);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
INSERT INTO runs (config_hash, config, task, arch, width, layers, length, lr, seed, heads,
  accuracy, best_accuracy, accuracy_by_length, curve, code_version, created)
  VALUES ('h1', '{"length": 20}', 'dyck', 'lstm', 16, 1, 20, 0.001, 0, 4, 0.5, 0.6,
  '{"20": 0.5}', '[]', '0.1.0', '2024-01-01T00:00:00+00:00');
"""


def test_a_schema_1_store_is_read_as_is_and_upgraded_when_written(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(V1_SCHEMA)
    conn.close()
    before = path.read_bytes()
    (row,) = runs(path)
    assert (row["config_hash"], row["threads"], row["accuracy_by_length"]) == (
        "h1",
        None,
        {20: 0.5},
    )
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]
    with Store(path) as store:
        assert store.add_run(result())
        assert store.claim("x", "me", 60) == "claimed"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    assert [r["config_hash"] for r in runs(path)] == ["h1", "lstm-20-0"]


def test_a_schema_2_store_gains_the_diagnostics_column_when_written(tmp_path):
    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        V1_SCHEMA + "ALTER TABLE runs ADD COLUMN threads INTEGER;"
        "CREATE TABLE leases (config_hash TEXT PRIMARY KEY, owner TEXT NOT NULL,"
        " expires REAL NOT NULL);"
    )
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    (old,) = runs(path)
    assert old["diagnostics"] == {}
    assert old["verdict"] in ("reached", "plateaued", "undecided")  # judged on reading
    similarity = {"attn_q": [[1.0, 0.5], [0.5, 1.0]]}
    with Store(path) as store:
        assert store.add_run({**result(), "layer_similarity": similarity, "block_cosine": None})
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    stored = conn.execute("SELECT verdict, accuracy_ci FROM runs ORDER BY id").fetchall()
    conn.close()
    assert stored[0][0] == old["verdict"] and json.loads(stored[0][1]) == old["accuracy_ci"]
    new = runs(path)[1]
    assert new["diagnostics"] == {"layer_similarity": similarity}  # None values are left out


def test_a_schema_4_store_gains_the_environment_column_when_written(tmp_path):
    path = tmp_path / "v4.db"
    with Store(path) as store:
        store.add_run(result())
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE runs DROP COLUMN environment")
    conn.execute("PRAGMA user_version = 4")
    conn.close()
    (old,) = runs(path)
    assert old["environment"] == {}
    environment = {"torch": "2.13.0", "plugins": [{"name": "p", "sha256": "0" * 64}]}
    with Store(path) as store:
        assert store.add_run({**result(), "config_hash": "h2", "environment": environment})
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    conn.close()
    assert [r["environment"] for r in runs(path)] == [{}, environment]


def test_an_environment_that_is_not_an_object_is_refused_or_skipped(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store, pytest.raises(InputError, match="environment must be a dict"):
        store.add_run({**result(), "environment": [1, 2]})
    with Store(path) as store:
        store.add_run(result())
    conn = sqlite3.connect(path)
    conn.execute("UPDATE runs SET environment = '[1]'")
    conn.commit()
    conn.close()
    assert runs(path) == []  # the malformed row is skipped, and said


def test_readers_write_nothing(tmp_path):
    path = tmp_path / "ccx.db"
    with Store(path) as store:
        store.add_run(result())
    before = _listing(tmp_path)
    assert len(runs(path)) == 1
    assert _listing(tmp_path) == before
    with Store(path, readonly=True) as store, pytest.raises(InputError, match="cannot write"):
        store.add_run(result(seed=5))
    with pytest.raises(InputError, match="no results store"):
        Store(tmp_path / "missing.db", readonly=True)
    assert _listing(tmp_path) == before


def test_a_store_whose_wal_files_cannot_be_made_is_read_immutable(tmp_path, monkeypatch):
    """In a read-only folder SQLite cannot make the shared-memory file a WAL reader needs and
    refuses the normal connection; the reader then opens the file as immutable."""
    path = tmp_path / "ccx.db"
    with Store(path) as store:
        store.add_run(result())
    real = sqlite3.connect
    refused = []

    def connect(database, *args, **kwargs):
        if "immutable=1" not in str(database) and "mode=rw" in str(database):
            refused.append(database)
            raise sqlite3.OperationalError("unable to open database file")
        return real(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    assert [r["config_hash"] for r in runs(path)] == ["lstm-20-0"] and refused


# -- leases --------------------------------------------------------------------------------------


def test_leases(tmp_path):
    with Store(tmp_path / "ccx.db") as store:
        me, other = lease_owner(), lease_owner()
        assert store.claim("h", me, 60) == "claimed"
        assert store.claim("h", me, 60) == "claimed"  # a renewal of its own lease
        assert store.claim("h", other, 60) == "leased"  # a live owner on this host
        store.release(me, "h")
        assert store.claim("h", other, -1) == "claimed"  # already expired
        assert store.claim("h", me, 60) == "claimed"
        store.renew(me, 60)
        store.add_run({**result(), "config_hash": "h"})  # storing a run ends its lease
        assert store.claim("h", other, 60) == "stored"


def test_a_lease_of_a_dead_process_is_void_at_once(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = f"{socket.gethostname()}:{proc.stdout.strip()}:feed"
    far = "elsewhere.example:1:feed"
    with Store(tmp_path / "ccx.db") as store:
        assert store.claim("h", dead, 3600) == "claimed"
        assert store.claim("h", lease_owner(), 60) == "claimed"
        assert store.claim("g", far, 60) == "claimed"  # another host: trusted until it expires
        assert store.claim("g", lease_owner(), 60) == "leased"


@pytest.mark.parametrize(
    ("column", "value", "why"),
    [
        ("curve", "{not json", "curve is not valid JSON"),
        ("accuracy_by_length", '{"x": 1}', "invalid literal"),
        ("config", "[1, 2]", "config must be an object"),
        ("length", "'twenty'", "length is not a number"),
        ("curve", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ("width", "0", "width must be an integer >= 1"),
        ("layers", "-3", "layers must be an integer >= 1"),
        ("length", "20.5", "length must be an integer >= 1"),
        ("seed", "-1", "seed must be an integer >= 0"),
        ("accuracy", "2.5", "accuracy must lie in [0, 1]"),
        ("lr", "0", "lr must be a positive number"),
    ],
)
def test_a_tampered_run_is_skipped_with_its_id(tmp_path, capsys, column, value, why):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_run(result(length=20))
        store.add_run(result(length=30))
    conn = sqlite3.connect(path)
    with conn:
        if column in ("curve", "config", "accuracy_by_length"):
            conn.execute(f"UPDATE runs SET {column} = ? WHERE length = 20", (value,))
        else:  # a number or a quoted text, as SQL writes it
            conn.execute(f"UPDATE runs SET {column} = {value} WHERE length = 20")
    conn.close()
    kept = runs(path)
    assert [r["length"] for r in kept] == [30]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "run 1 is malformed" in err and why in err, err


def test_a_store_without_its_runs_table_is_refused_in_one_line(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_run(result(length=20))
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE runs")
    with pytest.raises(InputError, match="has no runs table"):
        runs(path)


def test_stored_count_reads_without_creating(tmp_path):
    db = tmp_path / "s.db"
    assert stored_count(db) == 0 and not db.exists()
    sqlite3.connect(db).close()  # a file without the table yet
    assert stored_count(db) == 0
    db.unlink()
    with Store(db) as store:
        store.add_run(result(seed=0))
        store.add_run(result(seed=1))
        assert stored_count(db) == 2  # while the store is open


def test_lease_rows_are_data_forged_ones_reported_and_taken_over_on_request(tmp_path, capsys):
    """A lease expiring beyond LEASE_HORIZON, of a malformed owner or expiry, is no sweep's:
    "refused" (said once) instead of waited for; another host's live lease is waited for and
    said; both are taken over with ``take_over``."""
    path, me = tmp_path / "ccx.db", lease_owner()
    with Store(path) as store:
        with sqlite3.connect(path) as conn:
            conn.executemany(
                "INSERT INTO leases VALUES (?, ?, ?)",
                [
                    ("far", "elsewhere.example:1:feed", 1e300),
                    ("inf", "elsewhere.example:1:feed", float("inf")),
                    ("owner", "\x1b[31m", 1.0e9),
                    ("text", "elsewhere.example:1:feed", "soon"),
                    ("host", "elsewhere.example:1:feed", time.time() + 50),
                ],
            )
        for key in ("far", "inf", "owner", "text"):
            assert store.claim(key, me, 60) == "refused"
            assert store.claim(key, me, 60) == "refused"
        assert store.claim("host", me, 60) == "leased"
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 5 and all(line.startswith("ccx: warning:") for line in err), err
        assert "more than 600 s ahead" in err[0] and "\\x1b" in err[2] and "another host" in err[4]
        for key in ("far", "inf", "owner", "text", "host"):
            assert store.claim(key, me, 60, take_over=True) == "claimed"


def tampered(path, curve: str):
    """A store of two runs (N = 20 and 30), the first with ``curve`` as its curve's text."""
    with Store(path) as store:
        store.add_run(result(length=20))
        store.add_run(result(length=30))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET curve = ? WHERE length = 20", (curve,))
    return path


def test_a_malformed_row_is_not_done_a_sweep_retrains_and_replaces_it(tmp_path, capsys):
    path = tampered(tmp_path / "s.db", "[")
    with Store(path) as store:
        assert store.done_hashes() == {"lstm-30-0"}
        assert store.claim("lstm-20-0", lease_owner(), 60) == "claimed"
        assert store.add_run(result(length=20, accuracy=0.75))
        assert store.done_hashes() == {"lstm-20-0", "lstm-30-0"}
    assert {r["length"]: r["accuracy"] for r in runs(path)} == {20: 0.75, 30: 0.5}
    assert capsys.readouterr().err.count("run 1 is malformed") == 1


def test_a_command_reads_a_store_once_and_says_each_malformed_row_once(tmp_path, capsys):
    from ccomplexity.errors import warnings_once

    path = tampered(tmp_path / "s.db", "x")
    with warnings_once():  # one ccx call: three readers of one unchanged file
        assert [len(runs(path)) for _ in range(3)] == [1, 1, 1]
    with warnings_once():  # the next call says it again
        runs(path)
    assert capsys.readouterr().err.count("run 1 is malformed") == 2
    first = runs(path)
    first[0]["length"] = 99  # a reader's change is its own
    assert runs(path)[0]["length"] == 30


def test_stored_columns_are_sized_before_parsing_and_ensembles_bounded(tmp_path, capsys):
    path = tmp_path / "s.db"
    with Store(path) as store:
        for n in (20, 30, 40):
            store.add_run(result(length=n))
    many = json.dumps({"configs": ["lstm-30-0"] * 200_000, "strategy": "loop"})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE runs SET ensemble = ? WHERE length = 20", (many,))
        conn.execute(
            "UPDATE runs SET ensemble = ? WHERE length = 30", (json.dumps({"configs": ["a", "a"]}),)
        )
        conn.execute("UPDATE runs SET curve = ? WHERE length = 40", ("[" * (1 << 20 + 1),))
    assert runs(path) == []
    err = capsys.readouterr().err
    assert "ensemble has 2600033 characters; the limit is 65536" in err
    assert "at most 1024 distinct config hashes" in err and "curve has 2097152" in err


def test_a_store_read_whole_is_priced_by_its_size(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    with Store(path) as store:
        store.add_run(result())
    monkeypatch.setenv("CCX_WORK_BUDGET", "1M")
    with pytest.raises(InputError, match=r"reading results store .* takes .* the budget is"):
        runs(path)
    assert runs(path, length=20)  # a run asked for by its fields is not the whole store
