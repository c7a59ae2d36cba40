"""The SQLite results store: round trips, uniqueness of config hashes, validation, WAL mode."""

from __future__ import annotations

import sqlite3

import pytest

import ccomplexity
from ccomplexity.errors import InputError
from simulations.store import Store, runs


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
        "curve": [{"step": 50, "accuracy": 0.4}, {"step": 100, "accuracy": accuracy}],
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
    with pytest.raises(InputError, match="cannot open results store"):
        Store(path)
    with pytest.raises(InputError, match="is a folder"):
        Store(tmp_path)
    with pytest.raises(InputError, match="no results store"):
        runs(tmp_path / "missing.db")
