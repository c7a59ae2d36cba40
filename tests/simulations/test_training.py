"""The App. H training loop: config, determinism, learning, checkpoints."""

from __future__ import annotations

import pytest
import torch

import models
from ccomplexity.errors import InputError
from simulations.checkpoints import load_checkpoint, save_checkpoint
from simulations.training import (
    TrainConfig,
    build_model,
    train,
)

TINY = TrainConfig.of(
    task="index-lookup",
    arch="transformer",
    width=16,
    layers=1,
    length=6,
    heads=2,
    steps=12,
    eval_every=4,
    eval_samples=40,
    batch=16,
)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models run fastest on one thread, especially on a shared machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_config_round_trip_and_hash():
    d = TINY.to_dict()
    assert TrainConfig.from_dict(d) == TINY
    h = TINY.config_hash()
    assert len(h) == 16 and int(h, 16) >= 0
    assert TrainConfig.from_dict(d).config_hash() == h
    assert TINY.replace(lr=2e-3).config_hash() != h
    assert TINY.replace(lr=1).recipe.lr == 1.0  # one canonical form, one hash
    assert TINY.replace(lr=1).config_hash() == TINY.replace(lr=1.0).config_hash()


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"optimizer": "sgd"}, "optimizer must be one of adam, adamw, adafactor"),
        ({"momentum": 0.9}, "no field"),
        ({"width": "16"}, "width must be an integer"),
        ({"steps": True}, "steps must be an integer"),
        ({"lr": -1.0}, r"lr must be a finite number in \(0"),
        ({"target": 1.5}, r"target must be a finite number in \(0, 1\]"),
        ({"task": "copy"}, "unknown task"),
        ({"arch": "rwkv"}, "unknown model"),
        ({"task": "dyck", "length": 7}, "even"),
        ({"seed": -1}, r"seed must be an integer in 0\.\."),
    ],
)
def test_config_rejects(change, match):
    with pytest.raises(InputError, match=match):
        TrainConfig.from_dict({**TINY.to_dict(), **change})


def test_config_missing_field():
    d = TINY.to_dict()
    del d["width"]
    with pytest.raises(InputError, match="missing field"):
        TrainConfig.from_dict(d)


def test_deterministic_on_cpu():
    a = train(TINY, progress=False, device="cpu")
    b = train(TINY, progress=False, device="cpu")
    assert a["curve"] == b["curve"] and len(a["curve"]) == 3
    c = train(TINY.replace(seed=1), progress=False, device="cpu")
    assert c["config_hash"] != a["config_hash"]
    assert a["steps"] == 12 and a["device"] == "cpu" and a["checkpoint"] is None
    assert set(a) == {
        "accuracy",
        "best_accuracy",
        "steps",
        "wall_seconds",
        "checkpoint",
        "curve",
        "parameters",
        "active_parameters",
        "state_numel",
        "config",
        "config_hash",
        "seed",
        "device",
        "threads",
        "verdict",
        "accuracy_ci",
        "evaluated",
        "lr_final",
        "chance",
        "environment",
    }
    assert a["config"] == TINY.to_dict() and a["seed"] == 0 and a["state_numel"] == 0


def test_learns_index_lookup():
    config = TrainConfig.of(
        task="index-lookup",
        arch="transformer",
        width=32,
        layers=1,
        length=8,
        heads=2,
        lr=3e-3,
        steps=300,
        batch=32,
        eval_every=50,
        eval_samples=200,
        target=0.95,
    )
    result = train(config, progress=False, device="cpu")
    assert result["best_accuracy"] >= 0.9, result["curve"]  # chance is 1/64
    assert result["accuracy"] == result["curve"][-1][1]


def test_progress_bar_runs(capsys):
    train(TINY.replace(steps=3, eval_every=3), progress=True, device="cpu")
    assert capsys.readouterr().out == ""  # the bar goes to stderr


def test_bad_device():
    with pytest.raises(InputError, match="device"):
        train(TINY, progress=False, device="tpu")


def test_checkpoint_round_trip(tmp_path):
    result = train(TINY, checkpoint_dir=tmp_path, progress=False, device="cpu")
    path = tmp_path / f"{TINY.config_hash()}.pt"
    assert result["checkpoint"] == str(path)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left
    model, config = load_checkpoint(path)
    assert config == TINY and not model.training
    tokens = torch.randint(0, model.config.vocab_size, (3, 7), generator=torch.Generator())
    again, _ = load_checkpoint(path)
    assert torch.equal(model(tokens), again(tokens))
    fresh, _ = build_model(TINY)
    assert not torch.equal(fresh(tokens), model(tokens))  # the trained weights were restored


@pytest.mark.parametrize("arch", list(models.REGISTRY))
def test_checkpoint_every_architecture(tmp_path, arch):
    config = TINY.replace(arch=arch, width=8, layers=1)
    model, _ = build_model(config)
    path = save_checkpoint(model, config, tmp_path)
    loaded, again = load_checkpoint(path)
    assert again == config and type(loaded) is type(model)
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name])


def tamper(tmp_path, edit):
    model, _ = build_model(TINY)
    path = save_checkpoint(model, TINY, tmp_path)
    payload = torch.load(path, weights_only=True)
    edit(payload)
    torch.save(payload, path)
    return path


def _set(keys, value):
    def edit(payload):
        d = payload
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value

    return edit


def _del(keys):
    def edit(payload):
        d = payload
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]

    return edit


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (_del(["version"]), "expected keys"),
        (_set(["extra"], 1), "expected keys"),
        (_set(["format"], "other"), "format"),
        (_set(["version"], "1"), "version"),
        (_set(["version"], 2), "version"),
        (_del(["config", "width"]), "missing field"),
        (_set(["config", "width"], "16"), "width must be an integer"),
        (_set(["config", "surprise"], 0), "no field"),
        (_set(["model", "name"], "lstm"), "differs from arch"),
        (_set(["model", "config", "heads"], 2.0), "wrong type"),
        (_set(["model", "config", "width"], 32), "disagrees"),
        (_del(["model", "config", "layer_norm"]), "fields"),
        (_set(["model"], [1, 2]), "'model' must be a dict"),
        (_del(["state_dict", "head.bias"]), "missing"),
        (_set(["state_dict", "head.bias"], torch.zeros(3)), "head.bias"),
        (_set(["state_dict", "head.bias"], 1.0), "not a tensor"),
        (_set(["state_dict", "head.bias"], torch.zeros(64, dtype=torch.float64)), "float64"),
        (_set(["state_dict"], None), "state_dict must be"),
        (_set(["state_dict", "head.bias"], torch.full((64,), float("nan"))), "NaN or infinite"),
        (_set(["state_dict", "head.bias"], torch.full((64,), float("-inf"))), "NaN or infinite"),
        (_set(["config", "width"], 10**6), "exceeds the limit"),
        (_set(["config", "length"], 10**9), "exceeds the limit"),
        (_set(["config", "seed"], -1), "seed"),
    ],
)
def test_checkpoint_rejects_tampering(tmp_path, edit, match):
    path = tamper(tmp_path, edit)
    with pytest.raises(InputError, match=match) as info:
        load_checkpoint(path)
    assert "\n" not in str(info.value)


def test_checkpoint_rejects_garbage(tmp_path):
    path = tmp_path / "junk.pt"
    path.write_bytes(b"not a checkpoint")
    with pytest.raises(InputError, match="not a readable checkpoint") as info:
        load_checkpoint(path)
    assert "\n" not in str(info.value)
    with pytest.raises(InputError, match="no such file"):
        load_checkpoint(tmp_path / "missing.pt")


def test_model_options_keep_old_hashes_and_reach_the_model():
    new = ("experts", "top_k", "gate", "balance", "mlp_width")
    old = {k: v for k, v in TINY.to_dict().items() if k not in new}
    assert TrainConfig.from_dict(old).config_hash() == TINY.config_hash()
    moe = TINY.replace(experts=4, top_k=2, balance=0.01)
    assert moe.config_hash() != TINY.config_hash()
    model, _ = build_model(moe)
    assert model.config.experts == 4 and model.config.top_k == 2
    with pytest.raises(InputError, match="lstm has no option experts"):
        build_model(TINY.replace(arch="lstm", experts=2))


def test_memorize_trains_on_its_training_set_and_learns():
    config = TrainConfig.of(
        task="memorize",
        arch="concat-transformer",
        width=16,
        layers=1,
        length=64,
        heads=1,
        steps=300,
        lr=1e-2,
        batch=64,
        eval_every=50,
        target=1.0,
        mlp_width=16,
        experts=2,
        gate="softmax",
        balance=0.01,
    )
    result = train(config, progress=False, device="cpu")
    assert result["best_accuracy"] == 1.0  # all 64 signs right
    assert result["active_parameters"] < result["parameters"]
    with pytest.raises(InputError, match="vector inputs"):
        build_model(
            config.replace(arch="transformer", experts=1, gate="", balance=0.0, mlp_width=None)
        )


def test_length2_path_learning_happens():
    config = TrainConfig.of(
        task="length2-path",
        arch="concat-transformer",
        width=8,
        layers=1,
        length=2,
        heads=1,
        steps=300,
        lr=1e-2,
        eval_every=10,
        eval_samples=200,
    )
    result = train(config, progress=False, device="cpu")
    assert result["best_accuracy"] >= result["curve"][0][1] + 0.1


def test_checkpoint_size_is_checked_before_reading(tmp_path, monkeypatch):
    from ccomplexity import limits

    path = tamper(tmp_path, lambda payload: None)
    monkeypatch.setattr(limits, "CHECKPOINT_BYTES", path.stat().st_size - 1)
    with pytest.raises(InputError, match="the limit is"):
        load_checkpoint(path)


def test_threads_are_recorded_and_reproduce_the_checkpoint(tmp_path):
    """Training again with the recorded thread count gives the same weights bit for bit."""
    a = train(TINY, checkpoint_dir=tmp_path / "a", progress=False, device="cpu", threads=1)
    b = train(TINY, checkpoint_dir=tmp_path / "b", progress=False, device="cpu", threads=1)
    assert a["threads"] == b["threads"] == 1
    first, second = (load_checkpoint(r["checkpoint"])[0].state_dict() for r in (a, b))
    assert all(torch.equal(first[k], second[k]) for k in first)
    assert torch.get_num_threads() == 1  # restored to what the test set


def test_nothing_is_written_when_training_cannot_start(tmp_path):
    with pytest.raises(InputError, match="unknown device"):
        train(TINY, checkpoint_dir=tmp_path / "ckpt", progress=False, device="foo")
    (tmp_path / "afile").write_text("")
    with pytest.raises(InputError, match="lies under"):
        train(TINY, checkpoint_dir=tmp_path / "afile" / "ckpt", progress=False, device="cpu")
    with pytest.raises(InputError, match="threads"):
        train(TINY, checkpoint_dir=tmp_path / "ckpt", progress=False, threads=0)
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]
