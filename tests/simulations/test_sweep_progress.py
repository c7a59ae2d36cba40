"""Sweep progress lines name every field in which the runs of the sweep differ."""

from __future__ import annotations

from simulations.progress_lines import run_label, varying_fields
from simulations.sweeps import load_spec, run_sweep
from simulations.training import TrainConfig


def instant_train(config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True):
    """Stands in for train(): a result with the fields the store needs, no training."""
    return {
        "accuracy": 0.5,
        "best_accuracy": 0.5,
        "steps": config.recipe.steps,
        "wall_seconds": 0.0,
        "checkpoint": None,
        "curve": [{"step": config.recipe.steps, "accuracy": 0.5}],
        "parameters": 1,
        "state_numel": 0,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
        "device": "cpu",
    }


def test_looped_sweep_lines_tell_the_runs_apart(tmp_path, capsys):
    spec = load_spec("looped-demo")  # p-hop: hops x loops; tasks and models differing in more
    run_sweep(spec, tmp_path / "s.db", workers=1, train_fn=instant_train, ensemble=1)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    labels = [line.split("] ", 1)[1].split(":")[0] for line in lines]
    assert len(labels) == len(spec.configs) == len(set(labels)) > 6
    assert (
        "p-hop looped width=32 layers=1 N=8 steps=400 loops=2 hops=1 alphabet=4 lr=0.003 seed=0"
        in labels
    )


def test_varying_fields_are_those_that_differ():
    base = TrainConfig.of(task="index-lookup", arch="transformer", width=8, layers=1, length=8)
    experts = [base.replace(experts=k, lr=lr) for k in (1, 4) for lr in (1e-3, 1e-2)]
    assert varying_fields(experts) == ("experts",)  # lr is always named
    assert varying_fields([base, base]) == ()
    assert varying_fields([]) == ()
    assert run_label(experts[3], ("experts",)) == (
        "index-lookup transformer width=8 layers=1 N=8 experts=4 lr=0.01 seed=0"
    )


def test_a_field_a_run_does_not_set_is_left_out_of_its_line():
    plain = TrainConfig.of(task="p-hop", arch="transformer", width=8, layers=1, length=8, hops=1)
    looped = plain.replace(arch="looped", loops=3)
    fields = varying_fields([plain, looped])
    assert fields == ("loops",)  # arch is always named
    assert "loops" not in run_label(plain, fields)
    assert " loops=3 " in run_label(looped, fields)


def test_kg_lines_name_the_graph_and_the_hops():
    base = TrainConfig.of(
        task="kg-path",
        arch="looped",
        width=8,
        layers=1,
        length=2,
        loops=2,
        entities=16,
        relations=4,
    )
    assert run_label(base, ("loops",)) == (
        "kg-path looped width=8 layers=1 q=2 entities=16 relations=4 loops=2 lr=0.001 seed=0"
    )


def test_lines_tell_the_time_left(tmp_path, capsys):
    run_sweep(load_spec("smoke"), tmp_path / "s.db", workers=1, train_fn=instant_train, ensemble=1)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert len(lines) == 8 and all("s left)" in line for line in lines)
    assert lines[-1].endswith("about 0s left)")


def test_the_time_left_is_paced_by_token_steps(monkeypatch, capsys):
    import simulations.progress_lines as lines_module

    clock = iter([0.0, 10.0])  # the start, then the first run's end
    monkeypatch.setattr(lines_module.time, "perf_counter", lambda: next(clock))
    base = TrainConfig.of(task="index-lookup", arch="gru", width=4, layers=1, length=64, steps=100)
    short = [base.replace(length=16, seed=s) for s in range(4)]  # a quarter of the work each
    progress = lines_module.ProgressLines([base, *short], [base, *short], enabled=True)
    progress(base, {"best_accuracy": 0.5})
    line = capsys.readouterr().err
    assert line.endswith("(10s; about 10s left)\n"), line  # not 40 s: four runs of a quarter


def test_a_resumed_sweep_prices_what_is_left_not_the_mean(monkeypatch, capsys):
    import simulations.progress_lines as lines_module

    clock = iter([0.0, 10.0])
    monkeypatch.setattr(lines_module.time, "perf_counter", lambda: next(clock))
    base = TrainConfig.of(task="index-lookup", arch="gru", width=4, layers=1, length=64, steps=100)
    long = [base.replace(seed=s) for s in range(4)]  # stored already: the costliest
    short = [base.replace(length=16, seed=s) for s in range(4)]
    progress = lines_module.ProgressLines([*long, *short], short, enabled=True)
    progress(short[0], {"best_accuracy": 0.5})
    line = capsys.readouterr().err
    assert line.startswith("[5/8]") and line.endswith("(10s; about 30s left)\n"), line
