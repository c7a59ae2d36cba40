"""The demo's protocol step on a store of tiny trained models (and on one without any)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ccx.demo import PROTOCOL_PRECISION, protocol_runs
from simulations.store import Store
from simulations.training import TrainConfig, train


@pytest.fixture(autouse=True)
def fewer_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every protocol of the demo, on a fifth of its samples: the same commands, agreements and
    files, in a fraction of the time."""
    from ccx import demo

    for name in ("PROTOCOL_SAMPLES", "BITS_USED_SAMPLES", "REDUCTION_SAMPLES"):
        monkeypatch.setattr(demo, name, getattr(demo, name) // 5)


@pytest.fixture(scope="module")
def trained_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    db = folder / "tiny.db"
    with Store(db) as store:
        for task, arch, n in (
            ("dyck", "lstm", 6),
            ("dyck", "lstm", 8),
            ("index-lookup", "transformer", 6),
            ("dyck", "transformer", 4),
        ):
            config = TrainConfig.of(
                task=task,
                arch=arch,
                width=8,
                layers=1,
                length=n,
                steps=10,
                batch=16,
                heads=2,
                eval_every=10,
                eval_samples=20,
            )
            store.add_run(train(config, folder / "tiny_checkpoints", progress=False, device="cpu"))
    return db


def test_protocol_runs_on_trained_checkpoints(trained_store: Path, tmp_path: Path, capsys) -> None:
    written = protocol_runs(trained_store, tmp_path / "protocols")
    names = sorted(p.name for p in written)
    assert names == [
        "attention_transformer_dyck_N4.json",
        "attention_transformer_dyck_N4_single_output.json",
        "bits_used_lstm_dyck_N8.json",
        "reduce_dyck_lstm_N8.json",
        "reduce_dyck_transformer_N4.json",
        "rnn_lstm_dyck_N8.json",
    ]  # the largest N of each model; a transformer on Dyck before one on index lookup
    assert not list((tmp_path / "protocols").glob(".*.tmp")), "no temporary file is left"
    rnn = json.loads((tmp_path / "protocols" / "rnn_lstm_dyck_N8.json").read_text())
    assert (rnn["arch"], rnn["length"], rnn["cut"], rnn["precision"]) == (
        "lstm",
        8,
        4,
        PROTOCOL_PRECISION,
    )
    assert rnn["bits_sent"] == rnn["state_numel"] * PROTOCOL_PRECISION == 16 * PROTOCOL_PRECISION
    assert rnn["agreement"] == rnn["logits_exact"] == 1.0
    att = json.loads((tmp_path / "protocols" / "attention_transformer_dyck_N4.json").read_text())
    assert att["length"] == 4 and att["partition"] == "odd-even"
    assert att["agreement"] == att["logits_exact"] == 1.0
    single = json.loads(
        (tmp_path / "protocols" / "attention_transformer_dyck_N4_single_output.json").read_text()
    )
    assert single["variant"] == "single-output" and single["logits_exact"] == 1.0
    assert single["bits_sent"] == single["bits_run_count"] < att["bits_sent"]
    reduced = json.loads((tmp_path / "protocols" / "reduce_dyck_transformer_N4.json").read_text())
    assert reduced["claim"]["bound_id"] == "separations.thm5"
    assert reduced["protocol_agreement"] == 1.0 and reduced["bits_sent"] == single["bits_sent"]
    used = json.loads((tmp_path / "protocols" / "bits_used_lstm_dyck_N8.json").read_text())
    assert used["checkpoint"].endswith(".pt") and used["cut"] == 4 and used["task"] == "dyck"
    out = capsys.readouterr().out
    assert out.count("  $ ccx protocol") == 6 and "agreement 1.000" in out


def test_index_lookup_transformer_runs_on_an_even_length(
    trained_store: Path, tmp_path: Path, monkeypatch
) -> None:
    """Without a Dyck transformer, the index-lookup one runs over its first N tokens."""
    from simulations import store as store_module

    real = store_module.runs
    monkeypatch.setattr(
        store_module,
        "runs",
        lambda path, **f: [
            r for r in real(path, **f) if r["task"] != "dyck" or r["arch"] == "lstm"
        ],
    )
    written = protocol_runs(trained_store, tmp_path)
    att = json.loads((tmp_path / "attention_transformer_index-lookup_N6.json").read_text())
    assert att["length"] == 6 and att["agreement"] == att["logits_exact"] == 1.0
    assert len(written) == 5  # no Dyck transformer: no reduction through it


def test_protocol_runs_without_checkpoints(tmp_path: Path, capsys) -> None:
    db = tmp_path / "empty.db"
    Store(db).close()
    assert protocol_runs(db, tmp_path / "protocols") == []
    out = capsys.readouterr().out
    assert "no LSTM checkpoint on dyck" in out and "no one-layer transformer checkpoint" in out


def test_parrots_share_writes_its_results_and_slices_the_profile(tmp_path, monkeypatch, capsys):
    from ccx import demo
    from simulations.sweeps import load_spec

    monkeypatch.chdir(tmp_path)
    first = {"bound_thm3_1": demo.PARROTS_COMMANDS["bound_thm3_1"]}
    monkeypatch.setattr(demo, "PARROTS_COMMANDS", first)
    chosen = [c for c in load_spec("parrots").configs if demo.parrots_slice(c)]
    assert {c.task.name for c in chosen} == {"length2-path", "memorize"}
    paths = [c for c in chosen if c.task.name == "length2-path"]
    assert {(c.task.length, c.seed) for c in paths} == {(4, 0)}
    assert {(c.recipe.lr, c.seed) for c in chosen} == {(1e-2, 0)}  # one run per model
    # every panel of parrots-reasoning: dense and experts (a, b), Cor 3.3's matched models (c)
    assert {c.model.experts for c in paths if c.model.mlp_width is not None} == {1, 4}
    assert {(c.model.width, c.model.experts) for c in paths if c.model.mlp_width is None} == {
        (4, 1),
        (2, 4),
        (1, 16),
    }
    assert {c.model.experts for c in chosen if c.task.name == "memorize"} == {1, 4, 16}
    monkeypatch.setattr(demo, "parrots_slice", lambda config: False)  # no training here
    assert demo.parrots_share() == {"parrots": "results/parrots.db"}
    bound = json.loads((tmp_path / "results/parrots/bound_thm3_1.json").read_text())
    assert bound["min_width"] == 15
    out = capsys.readouterr().out
    assert "min_width 15" in out and "{" not in out  # one line of numbers, no raw JSON


def test_kg_share_runs_its_commands_and_slices_the_search(tmp_path, monkeypatch, capsys):
    from ccx import demo
    from simulations.sweeps import load_spec

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(demo, "KG_COMMANDS", demo.KG_COMMANDS[:1])
    spec = load_spec("kg")
    chosen = [c for c in spec.configs if demo.kg_slice(c)]
    assert {c.task.length for c in chosen} == {1, 2, 3}  # one panel per q
    assert {c.model.width for c in chosen if c.task.length == 1} == {8}
    assert {(c.model.arch, c.model.experts) for c in chosen if c.task.length == 1} == {
        ("transformer", 1),
        ("looped", 4),
    }
    for q in (2, 3):  # standard, looped and looped-MoE, one of each, parameter-matched
        assert sorted((c.model.arch, c.model.experts) for c in chosen if c.task.length == q) == [
            ("looped", 1),
            ("looped", 4),
            ("transformer", 1),
        ]
    assert {(c.recipe.lr, c.seed) for c in chosen} == {(demo.KG_DEMO_LR, 0)}
    monkeypatch.setattr(demo, "kg_slice", lambda config: False)  # no training here
    assert demo.kg_share() == {"kg": "results/kg.db"}
    out = capsys.readouterr().out
    assert "min_parameters " in out and '{"' not in out
