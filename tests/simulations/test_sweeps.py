"""Sweeps: spec validation and grid expansion, resumable runs (inline, pool, Ray), kill -9 resume.

Training is replaced by ``fake_train`` (the contract of ``simulations.training.train``); the
configs are the real ``TrainConfig``. The fake trainers live at module level so that pool
workers and the killed subprocess can import them.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pytest

from ccomplexity.errors import InputError
from simulations.run_config import TrainConfig
from simulations.store import Store, stored_count
from simulations.sweeps import load_spec, parse_spec, profiles, run_sweep


def fake_train(
    config: TrainConfig,
    checkpoint_dir: str | None = None,
    progress: bool = True,
    delay: float = 0.0,
) -> dict:
    """Deterministic stand-in for train(): transformers pass up to length 12, others up to 8.

    It saves nothing but reports the checkpoint path train() would write."""
    time.sleep(delay)
    where = None if checkpoint_dir is None else str(Path(checkpoint_dir) / config.config_hash())
    accuracy = (
        1.0 if config.task.length <= (12 if config.model.arch == "transformer" else 8) else 0.5
    )
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": config.recipe.steps,
        "wall_seconds": delay,
        "checkpoint": None if where is None else f"{where}.pt",
        "curve": [{"step": config.recipe.steps, "accuracy": accuracy}],
        "parameters": 100 * config.model.width,
        "state_numel": 2 * config.model.width * config.model.layers,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
        "device": "cpu",
    }


def slow_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    return fake_train(config, checkpoint_dir, progress, delay=0.15)


def second_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    return fake_train(config, checkpoint_dir, progress, delay=1.05)


def crowded_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    """Runs out of device memory in a pool worker (the device shared), trains in the sweep's
    own process (the device to itself); lstm runs fail for another reason everywhere."""
    import multiprocessing

    import torch

    if config.model.arch == "lstm" and config.task.length == 12:
        raise RuntimeError("diverged")
    if multiprocessing.parent_process() is not None:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.39 GiB.")
    return fake_train(config, checkpoint_dir, progress)


def out_of_memory_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    """Runs out of device memory on every transformer run, wherever it trains."""
    import torch

    if config.model.arch == "transformer":
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 8.39 GiB.")
    return fake_train(config, checkpoint_dir, progress)


def failing_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    if config.model.arch == "lstm":
        raise RuntimeError("diverged\nsecond line")
    return fake_train(config, checkpoint_dir, progress)


def counting_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    """fake_train that leaves one file per training, named by config hash and process."""
    marks = Path(os.environ["CCX_TEST_MARKS"])
    (marks / f"{config.config_hash()}.{os.getpid()}").write_text("")
    return fake_train(config, checkpoint_dir, progress, delay=0.3)


def dying_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    """fake_train whose worker is killed (SIGKILL, as the out-of-memory killer does) the first
    time it trains the transformer run of seed 0, and every time it trains the LSTM run of seed
    1; each attempt leaves a file named by config hash and process."""
    marks = Path(os.environ["CCX_TEST_MARKS"])
    key = config.config_hash()
    tries = len(list(marks.glob(f"{key}.*")))
    (marks / f"{key}.{os.getpid()}.{tries}").write_text("")
    doomed = (config.model.arch, config.seed) == ("lstm", 1)
    if doomed or ((config.model.arch, config.seed) == ("transformer", 0) and tries == 0):
        os.kill(os.getpid(), signal.SIGKILL)
    return fake_train(config, checkpoint_dir, progress, delay=0.05)


def lying_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    return {**fake_train(config, checkpoint_dir, progress), "config_hash": "not-the-plan"}


SPEC = """
[sweep]
name = "tiny"
target = 0.99

[baseline]
task = "index-lookup"
width = 16
layers = 1
steps = 10

[grid]
arch = ["transformer", "lstm"]
length = [8, 12]
seed = [0, 1]
"""


def write_spec(tmp_path: Path, text: str = SPEC) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(text))
    return path


def parse(text: str):
    import tomllib

    return parse_spec(tomllib.loads(textwrap.dedent(text)), "t.toml")


# -- specs ---------------------------------------------------------------------------------------


def test_grid_is_the_product_over_the_baseline(tmp_path):
    spec = load_spec(write_spec(tmp_path))
    assert spec.name == "tiny" and spec.target == 0.99
    assert len(spec.configs) == 8
    assert {(c.model.arch, c.task.length, c.seed) for c in spec.configs} == {
        (a, n, s) for a in ("transformer", "lstm") for n in (8, 12) for s in (0, 1)
    }
    assert all(
        c.model.width == 16 and c.recipe.steps == 10 and c.evaluation.target == 0.99
        for c in spec.configs
    )
    assert len(set(spec.hashes())) == 8


def test_includes_are_sub_grids_crossed_with_the_shared_lists():
    spec = parse(
        """
        [baseline]
        task = "dyck"
        width = 64
        [grid]
        length = [20, 50]
        lr = [1e-3]
        [[grid.include]]
        arch = "transformer"
        layers = [1, 2]
        [[grid.include]]
        arch = "lstm"
        layers = 1
        length = [20, 400]
        [[grid.include]]
        arch = "transformer"
        layers = 1
        """
    )
    got = [(c.model.arch, c.model.layers, c.task.length) for c in spec.configs]
    # the third include repeats points of the first: kept once
    assert got == [
        ("transformer", 1, 20),
        ("transformer", 1, 50),
        ("transformer", 2, 20),
        ("transformer", 2, 50),
        ("lstm", 1, 20),
        ("lstm", 1, 400),
    ]
    assert all(isinstance(c.recipe.lr, float) for c in spec.configs)


def test_ints_are_accepted_for_floats():
    (config,) = parse(
        """
        [baseline]
        task = "dyck"
        arch = "lstm"
        width = 8
        layers = 1
        length = 10
        lr = 1
        """
    ).configs
    assert config.recipe.lr == 1.0 and isinstance(config.recipe.lr, float)


B = "[baseline]\ntask = 'dyck'\narch = 'lstm'\nlayers = 1\nlength = 10\n"  # all but width
W = B + "width = 8\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (W + "[baselin]\n", "unknown key 'baselin'"),
        (W + "[sweep]\ncolour = 1\n", r"\[sweep\]: unknown key 'colour'"),
        (W + "widht = 3\n", r"\[baseline\]: unknown key 'widht'"),
        (W + "[grid]\ndepht = [1]\n", r"\[grid\]: unknown key 'depht'"),
        (W + "[grid]\ndepth = [1]\n", r"task 'dyck' has no option\(s\) depth"),
        (W + "[[grid.include]]\nfoo = 1\n", r"include\]\] #1: unknown key 'foo'"),
        (W + "[grid]\ntask = ['sorting']\n", "unknown task 'sorting'"),
        (W + "[grid]\narch = ['rwkv']\n", "unknown architecture 'rwkv'"),
        (W + "[grid]\nlr = []\n", r"\[grid\]\.lr is an empty list"),
        (W + "[grid]\nlr = 0.1\n", r"\[grid\]\.lr must be a list"),
        (W + "[grid]\nseed = [2, 2]\n", "lists a value twice"),
        (B + "width = '16'\n", "width must be an integer, got '16'"),
        (B + "width = true\n", "width must be an integer, got True"),
        (B + "width = 1.5\n", "width must be an integer"),
        (W + "lr = 'fast'\n", "lr must be a number"),
        (W + "[grid]\nsteps = [100, 'many']\n", "steps must be an integer"),
        (W + "[sweep]\ntarget = 2\n", r"target must be in \(0, 1\]"),
        (W + "target = 0.8\n[sweep]\ntarget = 0.9\n", "disagrees"),
        (W + "[grid]\ninclude = 3\n", "grid.include must be a non-empty array of tables"),
        ("baseline = 3\n", r"\[baseline\] must be a table"),
        (B + "width = 0\n", r"width must be an integer in 1\.\.16384"),
    ],
)
def test_bad_specs_name_the_problem(text, message):
    with pytest.raises(InputError, match=message) as info:
        parse(text)
    assert "\n" not in str(info.value)


def test_missing_required_field():
    with pytest.raises(InputError, match="no value for 'length'"):
        parse("[baseline]\ntask = 'dyck'\narch = 'lstm'\nwidth = 8\nlayers = 1\n")


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="missing.toml does not exist"):
        load_spec(tmp_path / "missing.toml")
    with pytest.raises(InputError, match="not a file and not a profile"):
        load_spec("no-such-profile")
    with pytest.raises(InputError, match="invalid TOML"):
        load_spec(write_spec(tmp_path, "[grid\n"))


def test_profiles_load():
    assert {"paper", "quick", "smoke"} <= set(profiles())  # and the other papers' profiles
    smoke = load_spec("smoke")
    assert len(smoke.configs) == 8 and {c.seed for c in smoke.configs} == {0, 1}
    assert all(
        c.model.width == 16 and c.recipe.steps <= 200 and c.evaluation.eval_samples <= 200
        for c in smoke.configs
    )
    assert {c.task.length for c in smoke.configs} == {4, 8} and {
        c.task.name for c in smoke.configs
    } == {"dyck"}
    quick = load_spec("quick")
    assert len(quick.configs) == 24
    # equal budgets: every index-lookup model (Figs. 2(a, b), 3) the same steps, N = 20, 50
    index_runs = [c for c in quick.configs if c.task.name == "index-lookup"]
    assert {(c.recipe.steps, c.task.length in (20, 50)) for c in index_runs} == {(1500, True)}
    for task in ("dyck", "eq-random"):
        assert len({c.recipe.steps for c in quick.configs if c.task.name == task}) == 1
    index = {(c.model.arch, c.model.layers) for c in quick.configs if c.task.name == "index-lookup"}
    assert index == {("transformer", 1), ("lstm", 1), ("mamba", 1)}
    widths = {
        c.model.width
        for c in quick.configs
        if c.task.name == "index-lookup" and c.model.arch == "mamba"
    }
    assert widths == {16, 64, 128}  # Fig. 3's width x length grid
    dyck = {(c.model.arch, c.model.layers) for c in quick.configs if c.task.name == "dyck"}
    assert dyck == {("transformer", 1), ("lstm", 1), ("transformer", 2)}
    assert {c.task.name for c in quick.configs} == {"index-lookup", "dyck", "eq-random"}
    assert all(c.task.length % 2 == 0 for c in quick.configs if c.task.name != "index-lookup")
    paper = load_spec("paper")
    assert {c.task.name for c in paper.configs} == {
        "index-lookup",
        "dyck",
        "eq-random",
        "eq-one",
        "eq-ncp",
    }
    # App. H's 7 learning rates and the 1e-5, 5e-6 that Sec. 6's range {1e-2, 5e-3, ..., 1e-6} holds
    assert len({c.recipe.lr for c in paper.configs}) == 9
    assert max(c.model.layers for c in paper.configs if c.model.arch == "lstm") == 3
    # Dyck words and the halves of equality inputs need even lengths
    assert all(c.task.length % 2 == 0 for c in paper.configs if c.task.name != "index-lookup")


def test_profiles_fit_the_real_trainer_config():
    training = pytest.importorskip("simulations.training")
    for name in profiles():
        spec = load_spec(name)
        assert all(isinstance(c, training.TrainConfig) for c in spec.configs)
        assert len(set(spec.hashes())) == len(spec.configs)


# -- running -------------------------------------------------------------------------------------


def test_inline_run_then_resume_skips_everything(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    first = run_sweep(spec, db, workers=1, train_fn=fake_train, progress=False)
    assert (first["runs"], first["skipped"], first["ran"], first["failed"]) == (8, 0, 8, [])
    again = run_sweep(spec, db, workers=1, train_fn=fake_train, progress=False)
    assert (again["skipped"], again["ran"], again["stored_total"]) == (8, 0, 8)
    with Store(db) as store:
        rows = store.runs(arch="transformer", length=12)
    assert len(rows) == 2 and all(r["best_accuracy"] == 1.0 for r in rows)


def test_a_time_limit_starts_no_run_after_it_and_the_next_sweep_goes_on(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    first = run_sweep(spec, db, workers=1, train_fn=second_train, progress=False, time_limit=1)
    # the first run starts at once and ends after the limit: the other seven wait
    assert (first["ran"], first["not_started"], first["stored_total"]) == (1, 7, 1)
    with Store(db) as store:  # the cheapest started first: a width-16 LSTM at N = 8
        assert [(r["arch"], r["length"]) for r in store.runs()] == [("lstm", 8)]
    rest = run_sweep(spec, db, workers=1, train_fn=fake_train, progress=False)
    assert (rest["skipped"], rest["ran"], rest["stored_total"]) == (1, 7, 8)
    assert "not_started" not in rest
    with pytest.raises(InputError, match="--time-limit and --extend-undecided"):
        run_sweep(spec, db, workers=1, train_fn=fake_train, time_limit=5, extend_undecided=1)


def test_several_processes_start_the_costliest_units_first_one_keeps_the_spec_order(
    tmp_path, monkeypatch
):
    """The longest-first rule: with two processes and no time limit the units start in
    decreasing :func:`unit_work`, so that no long unit starts last beside an idle worker."""
    import contextlib

    from simulations import sweeps

    started: list[list] = []

    def record(store, owner, units, runner, deliver, deadline, take_over=False):
        started.append(units)
        return 0, 0

    monkeypatch.setattr(sweeps.workers_mod, "run_leased", record)
    monkeypatch.setattr(sweeps.workers_mod, "runner", lambda *a: contextlib.nullcontext())
    spec = write_spec(tmp_path)
    run_sweep(spec, tmp_path / "two.db", workers=2, train_fn=fake_train, progress=False)
    run_sweep(spec, tmp_path / "one.db", workers=1, train_fn=fake_train, progress=False)
    costs = [sweeps.unit_work(u) for u in started[0]]
    assert costs == sorted(costs, reverse=True) and costs[0] > costs[-1]
    assert [c for u in started[1] for _, c in u] == list(load_spec(spec).configs)


def test_runs_out_of_device_memory_beside_others_are_trained_again_alone(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    summary = run_sweep(spec, db, workers=2, train_fn=crowded_train, progress=False)
    assert summary["retried_alone"] == 6 and summary["ran"] == 6
    assert [f["config"]["arch"] for f in summary["failed"]] == ["lstm", "lstm"]
    assert all(f["error"] == "RuntimeError: diverged" for f in summary["failed"])
    # one worker: nothing shares the device, so an out-of-memory failure stays a failure
    alone = run_sweep(
        spec, tmp_path / "one.db", workers=1, train_fn=out_of_memory_train, progress=False
    )
    assert "retried_alone" not in alone and alone["ran"] == 4
    assert [f["config"]["arch"] for f in alone["failed"]] == ["transformer"] * 4
    assert all(f["error"].startswith("OutOfMemoryError") for f in alone["failed"])


def test_checkpoints_go_beside_the_store_unless_told_otherwise(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    summary = run_sweep(spec, db, workers=1, train_fn=fake_train, progress=False)
    assert summary["checkpoints"] == str(tmp_path / "ccx_checkpoints")
    with Store(db) as store:
        rows = store.runs()
    assert {r["checkpoint"] for r in rows} == {
        str(tmp_path / "ccx_checkpoints" / f"{r['config_hash']}.pt") for r in rows
    }
    other = tmp_path / "elsewhere"
    db2 = tmp_path / "two.db"
    run_sweep(spec, db2, workers=1, train_fn=fake_train, progress=False, checkpoint_dir=other)
    with Store(db2) as store:
        assert all(Path(r["checkpoint"]).parent == other for r in store.runs())


def test_an_unusable_checkpoint_folder_is_refused_before_any_run(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    (tmp_path / "a_file").write_text("")
    with pytest.raises(InputError, match="checkpoint folder"):
        run_sweep(
            spec,
            db,
            workers=1,
            train_fn=fake_train,
            progress=False,
            checkpoint_dir=tmp_path / "a_file" / "sub",
        )
    assert not db.exists()


@pytest.mark.xdist_group("smoke")
def test_a_real_sweep_saves_loadable_checkpoints(smoke_sweep, monkeypatch):
    """The smoke profile with the real trainer, from a relative store path: the stored paths
    are relative too and load from the same directory."""
    from simulations.checkpoints import load_checkpoint

    folder, summary = smoke_sweep
    monkeypatch.chdir(folder)
    db = Path("results") / "smoke.db"
    assert (summary["ran"], summary["failed"]) == (8, [])
    assert summary["checkpoints"] == str(Path("results") / "smoke_checkpoints")
    with Store(db) as store:
        rows = store.runs()
        assert store.sweeps() == ["smoke"]
    assert len(rows) == 8
    from simulations.thresholds import thresholds

    learned = {r["arch"]: r["threshold_length"] for r in thresholds(db)}
    assert learned["lstm"] == 8, "the tour's training step learns: the LSTM passes N = 4 and 8"
    for row in rows:
        path = Path(row["checkpoint"])
        assert path == Path("results") / "smoke_checkpoints" / f"{row['config_hash']}.pt"
        model, config = load_checkpoint(path)
        assert config.config_hash() == row["config_hash"] and model.name == row["arch"]


def test_process_pool(tmp_path, capsys):
    db = tmp_path / "ccx.db"
    summary = run_sweep(write_spec(tmp_path), db, workers=2, train_fn=fake_train)
    assert (summary["ran"], summary["failed"]) == (8, [])
    assert "[8/8]" in capsys.readouterr().err
    with Store(db) as store:
        assert store.done_hashes() == set(load_spec(write_spec(tmp_path)).hashes())


def test_a_sweep_outlives_its_killed_workers(tmp_path, monkeypatch):
    """Workers killed under their runs: the runs of a broken pool are trained again one at a
    time on a fresh worker, the one that always dies is recorded as failed after its retries
    alone (whatever ran beside it), and every other run is stored exactly once."""
    from simulations import workers

    monkeypatch.setattr(workers, "WORKER_RETRIES", 1)  # each retry spawns a fresh pool
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setenv("CCX_TEST_MARKS", str(marks))
    spec = write_spec(tmp_path, SPEC.replace("length = [8, 12]", "length = [8]"))
    db = tmp_path / "ccx.db"
    summary = run_sweep(spec, db, workers=2, train_fn=dying_train, progress=False)
    configs = load_spec(spec).configs
    doomed = [c for c in configs if (c.model.arch, c.seed) == ("lstm", 1)]
    assert [f["config_hash"] for f in summary["failed"]] == [doomed[0].config_hash()]
    assert re.search(r"died [23] times", summary["failed"][0]["error"])
    assert summary["ran"] == summary["stored_total"] == 3
    with sqlite3.connect(db) as conn:
        hashes = [h for (h,) in conn.execute("SELECT config_hash FROM runs")]
    assert sorted(hashes) == sorted(c.config_hash() for c in configs if c not in doomed)
    tries = {(c.model.arch, c.seed): len(list(marks.glob(f"{c.config_hash()}.*"))) for c in configs}
    assert tries[("lstm", 1)] in (2, 3) and tries[("transformer", 0)] >= 2


def test_failed_runs_are_reported_and_retried(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    summary = run_sweep(spec, db, workers=1, train_fn=failing_train, progress=False)
    assert summary["ran"] == 4 and len(summary["failed"]) == 4
    assert summary["failed"][0]["error"] == "RuntimeError: diverged"
    retry = run_sweep(spec, db, workers=1, train_fn=fake_train, progress=False)
    assert (retry["skipped"], retry["ran"]) == (4, 4)


def test_a_trainer_hash_that_disagrees_with_the_plan_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match="config hash"):
        run_sweep(
            write_spec(tmp_path),
            tmp_path / "db",
            workers=1,
            train_fn=lying_train,
            progress=False,
        )


def test_bad_arguments_fail_before_any_run(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    kw = {"train_fn": fake_train, "progress": False}
    with pytest.raises(InputError, match="unknown backend 'slurm'"):
        run_sweep(spec, db, backend="slurm", **kw)
    with pytest.raises(InputError, match=r"workers must be an integer in 1\.\.256"):
        run_sweep(spec, db, workers=0, **kw)
    with pytest.raises(InputError, match="unknown architecture"):
        run_sweep(write_spec(tmp_path, SPEC.replace('"lstm"', '"lstn"')), db, **kw)
    assert not db.exists()


def test_ray_backend_without_ray(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(InputError, match=r"pip install 'ccomplexity\[ray\]'"):
        run_sweep(
            write_spec(tmp_path),
            tmp_path / "db",
            backend="ray",
            train_fn=fake_train,
            progress=False,
        )


def test_ray_backend_with_a_stand_in_for_ray(tmp_path, monkeypatch):
    """The Ray path's use of init / remote / wait / get, against an in-process stand-in."""

    class Ref:
        def __init__(self, fn, args):
            self.fn, self.args = fn, args

    fake = types.SimpleNamespace(initialized=False)
    fake.is_initialized = lambda: fake.initialized
    fake.init = lambda: setattr(fake, "initialized", True)

    def remote(fn=None, **options):  # ray.remote(**options)(fn), as a retrying task is made
        if fn is None:
            fake.options = options
            return remote
        return types.SimpleNamespace(remote=lambda *args: Ref(fn, args))

    fake.remote = remote
    fake.wait = lambda refs, num_returns, timeout=None: (refs[:num_returns], refs[num_returns:])
    fake.get = lambda ref: ref.fn(*ref.args)
    fake.cluster_resources = lambda: {"CPU": 2.0}
    monkeypatch.setitem(sys.modules, "ray", fake)
    summary = run_sweep(
        write_spec(tmp_path),
        tmp_path / "db",
        backend="ray",
        train_fn=failing_train,
        progress=False,
    )
    assert fake.initialized
    assert (summary["ran"], len(summary["failed"])) == (4, 4)
    from simulations.workers import WORKER_RETRIES

    assert fake.options == {"max_retries": WORKER_RETRIES}  # a task whose worker dies: again


# -- kill -9 -------------------------------------------------------------------------------------

CHILD = """
import sys
sys.path.insert(0, {here!r})
from test_sweeps import TrainConfig, slow_train
from simulations.sweeps import run_sweep
run_sweep({spec!r}, {db!r}, workers=1, train_fn=slow_train, progress=False)
"""


def test_sigkill_mid_sweep_then_resume(tmp_path):
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    expected = set(load_spec(spec).hashes())
    child = CHILD.format(here=str(Path(__file__).parent), spec=str(spec), db=str(db))
    root = Path(__file__).parents[2]
    for stored_before_kill in (2, 5):
        proc = subprocess.Popen([sys.executable, "-c", child], cwd=root)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists() and stored_count(db) >= stored_before_kill:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the sweep finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
        assert stored_before_kill <= stored_count(db) < len(expected)

    summary = run_sweep(spec, db, workers=1, train_fn=fake_train, progress=False)
    assert summary["skipped"] + summary["ran"] == len(expected)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    hashes = [h for (h,) in conn.execute("SELECT config_hash FROM runs")]
    conn.close()
    assert sorted(hashes) == sorted(expected)  # each config exactly once
    with Store(db) as store:
        for row in store.runs():  # whole rows only
            assert row["config"]["length"] == row["length"]
            assert row["best_accuracy"] in (0.5, 1.0) and row["curve"]


# -- validation before the store, sharing the store ----------------------------------------------


def test_large_grids_need_a_flag_and_are_counted_before_expansion():
    base = "[baseline]\ntask = 'dyck'\narch = 'lstm'\nwidth = 8\nlayers = 1\nlength = 10\n"
    seeds = "seed = " + str(list(range(101))) + "\n"
    lrs = "lr = " + str([1.0 / i for i in range(1, 101)]) + "\n"
    text = base + "[grid]\n" + seeds + lrs  # 10,100 runs
    with pytest.raises(InputError, match="--allow-large-grid"):
        parse(text)
    import tomllib

    assert len(parse_spec(tomllib.loads(text), "t.toml", allow_large_grid=True).configs) == 10_100
    wide = text.replace("seed = [", "seed = [" + ", ".join(map(str, range(200, 300))) + ", ")
    # 20,100 runs: over the work budget, priced from the grid's size before expansion
    with pytest.raises(InputError, match="planning the grid's 20100 runs .* steps; the budget"):
        parse_spec(tomllib.loads(wide), "t.toml", allow_large_grid=True)
    steps = "steps = " + str(list(range(1, 101))) + "\n"
    start = time.perf_counter()
    with pytest.raises(InputError, match="the limit is 1000000"):  # 10^6 x 101: never expanded
        parse_spec(tomllib.loads(text + steps), "t.toml", allow_large_grid=True)
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("length = [8, 1000000000]", "length"),
        ("width = [1000000]", "width"),
        ("batch = [1000000000]", "batch"),
        ("eval_samples = [1000000000000]", "eval_samples"),
        ("layers = [100000]", "layers"),
    ],
)
def test_spec_values_meet_the_cli_limits_before_the_store_is_touched(tmp_path, grid, message):
    text = SPEC.replace("length = [8, 12]", "") + grid + "\n"
    spec = write_spec(tmp_path, text if "length" in grid else text + "length = [8]\n")
    with pytest.raises(InputError, match=message):
        run_sweep(spec, tmp_path / "db", workers=1, train_fn=fake_train, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]


def test_a_refused_store_gets_nothing_beside_it(tmp_path):
    spec = write_spec(tmp_path)
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    (tmp_path / "afile.txt").write_text("hello")
    (tmp_path / "adir").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    for store, message in (
        (other, "another application"),
        (tmp_path / "afile.txt", "SQLite"),
        (tmp_path / "adir", "folder"),
    ):
        with pytest.raises(InputError, match=message):
            run_sweep(spec, store, workers=1, train_fn=fake_train, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_the_store_records_each_runs_threads(tmp_path):
    db = tmp_path / "ccx.db"
    run_sweep(write_spec(tmp_path), db, workers=1, train_fn=threads_train, progress=False)
    with Store(db) as store:
        assert {r["threads"] for r in store.runs()} == {3}


def threads_train(config, checkpoint_dir=None, progress=True) -> dict:
    return {**fake_train(config, checkpoint_dir, progress), "threads": 3}


CONCURRENT = """
import sys
sys.path.insert(0, {here!r})
from test_sweeps import counting_train
from simulations.sweeps import run_sweep
if __name__ == "__main__":
    s = run_sweep({spec!r}, {db!r}, workers={workers}, train_fn=counting_train, progress=False)
    print(s["ran"], s["shared"], s["skipped"], len(s["failed"]))
"""


def test_concurrent_sweeps_on_one_store_share_the_work(tmp_path):
    """Two sweeps of two workers each started together on one store: every run is trained
    exactly once (a lease per run) and both end with all runs stored."""
    spec, db = write_spec(tmp_path), tmp_path / "ccx.db"
    Store(db).close()  # both find the store; neither waits on the other's creation
    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "sweep.py"
    here = str(Path(__file__).parent)
    script.write_text(CONCURRENT.format(here=here, spec=str(spec), db=str(db), workers=2))
    env = {**os.environ, "CCX_TEST_MARKS": str(marks)}
    root = Path(__file__).parents[2]
    procs = [
        subprocess.Popen(
            [sys.executable, str(script)], cwd=root, env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    trained = sorted(m.name.split(".")[0] for m in marks.iterdir())
    expected = sorted(load_spec(spec).hashes())
    assert trained == expected  # each run once
    assert sum(int(o[0]) for o in outs) == len(expected)
    assert all(int(o[3]) == 0 for o in outs)
    with Store(db) as store:
        assert sorted(store.done_hashes()) == expected


def test_parrots_profile_recipe_grid_and_equal_active_parameters():
    from ccomplexity.bounds.parrots import one_layer_parameters

    configs = load_spec("parrots").configs
    assert {(c.recipe.optimizer, c.recipe.weight_decay) for c in configs} == {("adamw", 0.1)}
    grids: dict[tuple, set[tuple[float, int]]] = {}
    for c in configs:
        key = (c.task.name, c.task.length, c.model.width, c.model.experts, c.model.mlp_width)
        grids.setdefault(key, set()).add((c.recipe.lr, c.seed))
    assert all(g == {(lr, s) for lr in (3e-3, 1e-2) for s in (0, 1, 2)} for g in grids.values())
    memo = {(c.model.mlp_width, c.model.experts) for c in configs if c.task.name == "memorize"}
    active = {key: one_layer_parameters(16, 1, key[0], key[1])["active"] for key in memo}
    for (_, k), moe in active.items():
        if k > 1:  # a dense model within 10% of this MoE's active parameters
            assert any(abs(a - moe) <= 0.1 * moe for (_, kk), a in active.items() if kk == 1)


def test_a_forged_lease_is_reported_and_left_and_taken_over_on_request(tmp_path, capsys):
    """A lease row that is no sweep's (expiry 1e300, another host) never makes a sweep wait:
    its run is reported and left (``not_started``), then trained with ``take_over_leases``."""
    spec = write_spec(tmp_path)
    forged = load_spec(spec).hashes()[0]
    path = tmp_path / "s.db"
    with Store(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO leases VALUES (?, ?, ?)", (forged, "far.example:1:ab", 1e300))
    summary = run_sweep(spec, path, workers=1, train_fn=fake_train, progress=False)
    assert (summary["ran"], summary["not_started"]) == (7, 1)
    assert f"run {forged} is leased by far.example:1:ab until 1e+300" in capsys.readouterr().err
    again = run_sweep(
        spec, path, workers=1, train_fn=fake_train, progress=False, take_over_leases=True
    )
    assert (again["ran"], again["stored_total"], "not_started" in again) == (1, 8, False)


def full_disk_train(
    config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True
) -> dict:
    from ccomplexity.errors import DiskFull

    raise DiskFull(f"cannot write checkpoint {checkpoint_dir}/x.pt: no space left on the device")


def test_a_full_disk_stops_the_sweep_at_the_first_run_it_fails(tmp_path):
    from ccomplexity.errors import DiskFull

    with pytest.raises(DiskFull, match="no space left"):
        run_sweep(
            write_spec(tmp_path),
            tmp_path / "s.db",
            workers=1,
            train_fn=full_disk_train,
            progress=False,
        )
    assert stored_count(tmp_path / "s.db") == 0
