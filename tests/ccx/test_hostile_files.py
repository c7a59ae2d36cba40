"""Hostile files around a command: links and inputs in the way of what it writes, data files that
ask for too much, a full disk. Each refusal is one line, exit 2, and nothing of the user's is
lost or half-written."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
from pathlib import Path

import pytest

from simulations.store import Store, runs
from simulations.sweeps import load_spec

SPEC = """[baseline]
task = "dyck"
arch = "lstm"
layers = 1
width = 4
steps = 4
batch = 8
eval_every = 4
eval_samples = 8
[grid]
length = [4]
seed = [0, 1]
"""


def digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def one_line(ccx, *args: str) -> str:
    code, _, err = ccx(*args)
    assert code == 2 and err.startswith("ccx: error: "), err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture
def stored(tmp_path, monkeypatch):
    """A folder with a results store s.db holding the first run of SPEC, as a sweep stores it."""
    monkeypatch.chdir(tmp_path)
    Path("spec.toml").write_text(SPEC)
    first = load_spec("spec.toml").configs[0]
    with Store("s.db") as store:
        store.add_run(
            {
                "config": first.to_dict(),
                "config_hash": first.config_hash(),
                "accuracy": 0.5,
                "best_accuracy": 0.5,
                "curve": [[4, 0.5]],
            }
        )
    return tmp_path


def test_a_link_or_an_input_inside_a_figure_folder_is_refused(stored, ccx):
    before = digest("s.db")
    Path("fig").mkdir()
    os.symlink("../s.db", "fig/thresholds.csv")
    err = one_line(ccx, "figure", "thresholds", "--store", "s.db", "--out", "fig")
    assert "fig/thresholds.csv is a symbolic link (to ../s.db)" in err
    os.remove("fig/thresholds.csv")
    os.link("s.db", "fig/thresholds.png")  # the store under another name
    assert "is an input of this command" in one_line(
        ccx, "figure", "thresholds", "--store", "s.db", "--out", "fig"
    )
    os.remove("fig/thresholds.png")
    os.symlink("../s.db", "fig/index.html")
    assert "fig/index.html is a symbolic link" in one_line(
        ccx, "report", "--store", "s.db", "--out", "fig"
    )
    assert digest("s.db") == before and sorted(os.listdir("fig")) == ["index.html"]


def test_a_link_among_the_checkpoints_never_costs_the_store_its_runs(stored, ccx):
    before = digest("s.db")
    pending = load_spec("spec.toml").hashes()[1]
    Path("s_checkpoints").mkdir()
    os.symlink("../s.db", f"s_checkpoints/{pending}.pt")
    err = one_line(ccx, "sweep", "spec.toml", "--store", "s.db", "--workers", "1")
    assert f"s_checkpoints/{pending}.pt is a symbolic link (to ../s.db)" in err
    os.remove(f"s_checkpoints/{pending}.pt")
    os.link("s.db", f"s_checkpoints/{pending}.pt")
    assert "is an input of this command" in one_line(
        ccx, "sweep", "spec.toml", "--store", "s.db", "--workers", "1"
    )
    assert digest("s.db") == before
    Path("plug.py").write_text("# the user's own code\n")
    from simulations.run_config import TrainConfig

    config = TrainConfig.of(task="dyck", arch="lstm", width=4, layers=1, length=4, steps=4, batch=8)
    os.makedirs("ckp")
    os.symlink("../plug.py", f"ckp/{config.config_hash()}.pt")
    args = ("--task", "dyck", "--arch", "lstm", "--width", "4", "--layers", "1", "--length", "4",
            "--steps", "4", "--batch", "8", "--checkpoint-dir", "ckp", "--json")  # fmt: skip
    assert "is a symbolic link (to ../plug.py)" in one_line(ccx, "train", *args)
    assert Path("plug.py").read_text() == "# the user's own code\n"


def _forge(path: str, **changes: object) -> None:
    """Change run 1's stored config (and its hash, as a careful forger would) and columns."""
    from simulations.run_config import TrainConfig

    with sqlite3.connect(path) as conn:
        config = json.loads(conn.execute("SELECT config FROM runs WHERE id = 1").fetchone()[0])
        config.update(changes.pop("config", {}))
        digest_ = TrainConfig.from_dict(config).config_hash()
        conn.execute(
            "UPDATE runs SET config = ?, config_hash = ? WHERE id = 1",
            (json.dumps(config), digest_),
        )
        for column, value in changes.items():
            conn.execute(f"UPDATE runs SET {column} = ? WHERE id = 1", (value,))


def test_rerun_prices_the_stored_config_before_any_work(stored, ccx, monkeypatch):
    _forge("s.db", config={"steps": 10**9})
    err = one_line(ccx, "rerun", "--store", "s.db", "--run", "1")
    assert "run 1 (1000000000 steps at N = 4)" in err and "the training budget is 7 days" in err
    _forge("s.db", config={"steps": 100, "width": 512, "length": 400, "batch": 64}, device="cuda:0")
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    err = one_line(ccx, "rerun", "--store", "s.db", "--run", "1")
    assert "was trained on a GPU (cuda:0), and there is none here" in err
    assert "on this CPU (estimated); pass --allow-cpu" in err


def test_training_is_priced_before_its_first_forward_pass(tmp_path, monkeypatch, ccx):
    from simulations import training

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(training, "_train", lambda *a: pytest.fail("training started"))
    args = ("train", "--task", "dyck", "--arch", "transformer", "--width", "64", "--heads", "1",
            "--length", "2048", "--steps", "1", "--json")  # fmt: skip
    err = one_line(ccx, *args)
    assert "needs about" in err and "GiB of memory at once" in err and "CCX_MEMORY_BUDGET" in err
    err = one_line(
        ccx,
        "train",
        "--task",
        "dyck",
        "--arch",
        "lstm",
        "--width",
        "8",
        "--length",
        "4",
        "--threads",
        "1024",
    )
    assert "--threads 1024 exceeds the limit of" in err and "machine's cores" in err
    assert not Path("results").exists()


class FullFile:
    """A file on a full disk: its writes fail with ENOSPC."""

    def __init__(self, handle):
        self.handle = handle

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()


def test_a_full_disk_is_one_line_naming_the_path_and_nothing_half_written(stored, ccx, monkeypatch):
    from ccomplexity import files
    from simulations import store as store_module

    real_fdopen = files.os.fdopen
    monkeypatch.setattr(files.os, "fdopen", lambda *a, **k: FullFile(real_fdopen(*a, **k)))
    err = one_line(
        ccx,
        "fooling",
        "--problem",
        "equality",
        "--half",
        "2",
        "--alphabet",
        "2",
        "--certificate",
        "c.json",
    )
    assert "cannot write certificate c.json: no space left on the device" in err
    import matplotlib.pyplot as plt

    from ccomplexity.errors import DiskFull
    from paper_figures import style

    Path("fig").mkdir()  # a figure, as every figure command saves it
    with pytest.raises(DiskFull, match="cannot write figure file fig/f.png: no space left"):
        style.save(plt.figure(), Path("fig"), "f", [], ["x"])
    assert sorted(os.listdir()) == ["fig", "s.db", "spec.toml"] and os.listdir("fig") == []
    monkeypatch.undo()
    monkeypatch.chdir(stored)
    before = runs("s.db")
    real_connect = store_module.sqlite3.connect

    def full(*args, **kwargs):  # the store's file may not grow by a page
        conn = real_connect(*args, **kwargs)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")
        return conn

    real_row = Store._row  # a run's row that needs pages the disk no longer has
    big = staticmethod(lambda r: {**real_row(r), "checkpoint": "x" * 100_000})
    monkeypatch.setattr(Store, "_row", big)
    monkeypatch.setattr(store_module.sqlite3, "connect", full)
    err = one_line(ccx, "sweep", "spec.toml", "--store", "s.db", "--workers", "1")
    assert "results store s.db: the database or disk is full; nothing of this write" in err
    monkeypatch.undo()
    assert runs(stored / "s.db") == before  # the run stored before, whole; none half-stored


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            "construct --task index-lookup --length 8 --samples 10000000",
            "checking the Theorem 1 model on 10000000 inputs of length 8 takes",
        ),
        (
            "construct --task kg-path --entities 65536 --relations 2 --hops 2",
            "the KG path constructions over E = 65536, R = 2 at q = 2 on 500 queries takes",
        ),
        ("task i-gsm --modulus 97 --length 512 --batch 2048", "2048 samples of 3074 tokens takes"),
        ("sweep spec.toml --dry-run --store d.db", "planning the grid's 1000000 runs"),
    ],
)
def test_the_slowest_in_range_values_are_priced_and_refused(
    tmp_path, monkeypatch, ccx, args, message
):
    monkeypatch.chdir(tmp_path)
    seeds = ", ".join(map(str, range(1000)))
    Path("spec.toml").write_text(
        SPEC.replace(
            "seed = [0, 1]",
            f"seed = [{seeds}]\nlr = [" + ", ".join(f"{i}e-4" for i in range(1, 1001)) + "]",
        )
    )
    assert message in one_line(ccx, *args.split(), *(["--allow-large-grid"] * ("sweep" in args)))
    assert sorted(os.listdir()) == ["spec.toml"]
