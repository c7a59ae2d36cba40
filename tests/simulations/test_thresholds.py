"""Thresholds: best over learning rates and seeds, the every-shorter-length rule, the bounds."""

from __future__ import annotations

import itertools

import pytest

from ccomplexity import bounds
from ccomplexity.errors import InputError
from simulations.store import Store
from simulations.thresholds import claim_for, threshold_length, thresholds

_ids = itertools.count()


def add(
    store: Store,
    task: str,
    arch: str,
    length: int,
    best: float,
    curve: list | None = None,
    **config: object,
) -> None:
    """One stored run; width 16, one layer, heads 4 unless given; its curve flat at ``best``
    over 9 evaluations (so a run below the target plateaued) unless given."""
    config = {"width": 16, "layers": 1, "heads": 4, "lr": 1e-3, "seed": 0, **config}
    config.update(task=task, arch=arch, length=length)
    width, layers = config["width"], config["layers"]
    store.add_run(
        {
            "config": config,
            "config_hash": f"run-{next(_ids)}",
            "accuracy": best,
            "best_accuracy": best,
            "curve": curve if curve is not None else [[100 * i, best] for i in range(1, 10)],
            "state_numel": config.pop("state_numel", 2 * width * layers),
        }
    )


@pytest.mark.parametrize(
    ("accuracies", "expected"),
    [
        ({20: 1.0, 50: 0.995, 100: 0.5}, 50),
        ({20: 1.0, 50: 0.99, 100: 0.99}, 100),  # reaching the target counts
        ({20: 0.98, 50: 1.0}, None),  # the shortest fails
        ({100: 1.0, 20: 1.0, 50: 0.2}, 20),  # a later pass after a failure does not count
        ({}, None),
    ],
)
def test_threshold_length(accuracies, expected):
    assert threshold_length(accuracies, 0.99) == expected


def test_best_over_learning_rates_and_seeds(tmp_path):
    db = tmp_path / "ccx.db"
    with Store(db) as store:
        for n, accs in {
            20: (0.3, 1.0),
            50: (0.995, 0.2),
            100: (0.9, 0.97),
            200: (1.0, 1.0),
        }.items():
            add(store, "index-lookup", "transformer", n, accs[0], lr=1e-3)
            add(store, "index-lookup", "transformer", n, accs[1], lr=1e-4, seed=3)
    (row,) = thresholds(db)
    assert row["lengths"] == {20: 1.0, 50: 0.995, 100: 0.97, 200: 1.0}
    assert row["threshold_length"] == 50
    assert row["runs"] == 8
    assert (row["bound_id"], row["bound_length"], row["bound_params"]) == (None, None, None)
    assert thresholds(db, target=0.95)[0]["threshold_length"] == 200


def test_bounds_next_to_thresholds(tmp_path):
    db = tmp_path / "ccx.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 20, 1.0, width=64)  # LSTM state: h and c, 128 numbers
        add(store, "dyck", "transformer", 20, 1.0, width=64, heads=4)
        add(store, "dyck", "transformer", 20, 1.0, width=64, heads=8)
        add(store, "dyck", "transformer", 20, 1.0, width=64, layers=2)
        add(store, "eq-random", "mamba", 20, 1.0, width=8, state_numel=160)
        add(store, "mqar", "lstm", 20, 1.0)
    found = thresholds(db, precision=16)
    rows = {(r["task"], r["arch"], r["layers"], r.get("shape", {}).get("heads")): r for r in found}
    assert set(rows) == {
        ("index-lookup", "lstm", 1, None),
        ("dyck", "transformer", 1, 4),
        ("dyck", "transformer", 1, 8),
        ("dyck", "transformer", 2, 4),
        ("eq-random", "mamba", 1, None),
        ("mqar", "lstm", 1, None),
    }

    lstm = rows["index-lookup", "lstm", 1, None]
    assert lstm["bound_id"] == "separations.thm3"
    assert lstm["bound_length"] == 128 * 16 == bounds.get("separations.thm3").max_length(128, 16)
    assert lstm["bound_params"] == {"m": 128, "p": 16, "H": 1, "m_is": "state_numel"}

    # heads 4 and 8 at width 64 are two models, each against its own bound: per-head width 16
    # and 8, m H = 64 either way, but the protocol Thm 5 rests on sends 4p + ceil(log2 N) bits
    # more per head, so the wall of H = 8 stands further out
    thm5 = bounds.get("separations.thm5")
    for heads in (4, 8):
        tf1 = rows["dyck", "transformer", 1, heads]
        assert tf1["bound_id"] == "separations.thm5"
        assert tf1["bound_length"] == thm5.max_length(64 // heads, 16, heads)
        assert tf1["bound_params"]["H"] == heads
        assert tf1["bound_params"]["m_is"] == "width / heads"
        assert tf1["runs"] == 1
    assert thm5.max_length(8, 16, 8) > thm5.max_length(16, 16, 4)

    assert rows["dyck", "transformer", 2, 4]["bound_id"] is None  # no lower bound for 2 layers
    eq = rows["eq-random", "mamba", 1, None]
    assert eq["bound_id"] == "separations.thm11"
    assert eq["bound_length"] == 2 * 160 * 16  # m p >= N / 2
    assert rows["mqar", "lstm", 1, None]["bound_length"] is None


def _bound_of(task, arch, layers):
    claim = claim_for(task, arch, layers)
    return claim.bound_id if claim is not None else None


def test_bound_mapping_comes_from_the_claims():
    assert _bound_of("index-lookup", "retnet", 6) == "separations.thm3"
    assert _bound_of("eq-ncp", "dss", 2) == "separations.thm11"
    assert _bound_of("dyck", "transformer", 1) == "separations.thm5"
    assert _bound_of("eq-random", "transformer", 1) == "separations.thm12"
    assert _bound_of("dyck", "lstm", 1) is None  # the DFA-RNN claim is an upper bound
    assert _bound_of("index-lookup", "transformer", 1) is None
    assert _bound_of("eq-random", "transformer", 2) is None


def test_families_match_the_model_classes():
    models = pytest.importorskip("models")
    for name in models.REGISTRY:
        recurrent = models.model_class(name).recurrent
        assert (models.family(name) == "recurrent") == recurrent, name
        assert models.family(name) in ("recurrent", "attention", "concat-attention", "looped")


def test_runs_differing_in_loops_or_hops_are_separate_models(tmp_path):
    path = tmp_path / "looped.db"
    with Store(path) as store:
        for loops, hops, acc in ((2, 1, 1.0), (3, 1, 0.5), (2, 2, 0.3)):
            config = {"task": "p-hop", "arch": "looped", "width": 32, "layers": 1, "length": 16,
                      "lr": 1e-3, "seed": 0, "loops": loops, "hops": hops}  # fmt: skip
            flat = [[100 * i, acc] for i in range(1, 10)]  # plateaued below the target
            store.add_run(
                {
                    "config": config,
                    "config_hash": f"h{loops}{hops}",
                    "accuracy": acc,
                    "best_accuracy": acc,
                    "curve": flat,
                }
            )
    rows = thresholds(path)
    assert [(r["options"], r["threshold_length"]) for r in rows] == [
        ({"loops": 2, "hops": 1}, 16),
        ({"loops": 2, "hops": 2}, None),
        ({"loops": 3, "hops": 1}, None),
    ]


def test_runs_differing_in_heads_or_experts_are_separate_models(tmp_path):
    path = tmp_path / "shapes.db"
    with Store(path) as store:
        for heads, experts, acc in ((1, 1, 1.0), (2, 1, 0.5), (1, 4, 0.3)):
            add(store, "length2-path", "concat-transformer", 8, acc, heads=heads, experts=experts)
        for heads in (1, 2):  # an LSTM has no heads: its heads field tells nothing apart
            add(store, "index-lookup", "lstm", 8, 1.0 if heads == 1 else 0.5, heads=heads)
    rows = thresholds(path)
    shapes = [(r["arch"], r.get("shape"), r["threshold_length"], r["runs"]) for r in rows]
    assert shapes == [
        ("lstm", None, 8, 2),
        ("concat-transformer", {"heads": 1, "experts": 4}, None, 1),
        ("concat-transformer", {"heads": 1}, 8, 1),
        ("concat-transformer", {"heads": 2}, None, 1),
    ]


def test_bad_arguments(tmp_path):
    with pytest.raises(InputError, match="no results store"):
        thresholds(tmp_path / "missing.db")
    with Store(tmp_path / "db") as store:  # creates an empty store
        assert len(store) == 0
    assert thresholds(tmp_path / "db") == []
    with pytest.raises(InputError, match="target must be a number"):
        thresholds(tmp_path / "db", target=1.5)
    with pytest.raises(InputError, match="precision must be an integer"):
        thresholds(tmp_path / "db", precision=0)
    with pytest.raises(InputError, match="metric must be one of"):
        thresholds(tmp_path / "db", metric="loss")


def test_a_claim_that_does_not_bound_length_draws_no_length(tmp_path):
    """kg-path's lower bound (Thm B.19) counts parameters: thresholds name it, draw no length."""
    db = tmp_path / "ccx.db"
    with Store(db) as store:
        for hops in (1, 2):
            add(store, "kg-path", "transformer", hops, 1.0)
            add(store, "kg-path", "transformer", hops, 0.5, seed=1)
    (row,) = thresholds(db)
    assert row["bound_id"] == "kg.thm_b19" and row["threshold_length"] == 2
    assert row["bound_length"] is None and row["bound_params"] is None


RISING = [[100 * i, 0.1 * i] for i in range(1, 10)]  # 0.1 .. 0.9: still improving at the end


def test_an_undecided_run_makes_the_threshold_undecided_never_a_length(tmp_path):
    db = tmp_path / "ccx.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 20, 1.0)
        add(store, "index-lookup", "lstm", 50, 0.9, curve=RISING)
        add(store, "index-lookup", "lstm", 100, 0.2)
    (row,) = thresholds(db)
    assert row["threshold_length"] == "undecided" and row["threshold_at_least"] == 20
    assert [p["verdict"] for p in row["points"]] == ["reached", "undecided", "plateaued"]
    assert all({"length", "best_accuracy", "verdict", "runs"} <= set(p) for p in row["points"])


def test_a_plateaued_run_decides_and_a_reached_one_outweighs_an_undecided_one(tmp_path):
    db = tmp_path / "ccx.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 20, 1.0)
        add(store, "index-lookup", "lstm", 50, 0.9, curve=RISING)
        add(store, "index-lookup", "lstm", 50, 1.0, seed=1)  # another seed reached N = 50
        add(store, "index-lookup", "lstm", 100, 0.2)  # plateaued: decides the threshold
        add(store, "index-lookup", "lstm", 200, 0.3, curve=RISING)  # after it: irrelevant
    (row,) = thresholds(db)
    assert row["threshold_length"] == 50 and row["threshold_at_least"] == 50


def test_an_extension_replaces_the_undecided_run_it_extends(tmp_path):
    db = tmp_path / "ccx.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 20, 1.0)
        add(store, "index-lookup", "lstm", 50, 0.9, curve=RISING, steps=100)
        add(store, "index-lookup", "lstm", 50, 0.95, steps=200)  # the same run, more steps
    (row,) = thresholds(db)
    assert row["threshold_length"] == 20 and row["points"][1]["verdict"] == "plateaued"
    assert row["runs"] == 2


def test_the_limits_of_target_precision_and_metric_at_their_edges(tmp_path):
    db = tmp_path / "db"
    Store(db).close()
    assert thresholds(db, target=1.0, precision=1, metric="accuracy") == []  # each at its edge
    for bad in (0.0, True, "0.9"):
        with pytest.raises(InputError, match="target must be a number"):
            thresholds(db, target=bad)
    for bad in (True, 1.5):
        with pytest.raises(InputError, match="precision must be an integer"):
            thresholds(db, precision=bad)
    with pytest.raises(InputError, match="one of best_accuracy, accuracy"):
        thresholds(db, metric="loss")


def test_a_run_trained_at_p_bits_is_bounded_at_its_own_p(tmp_path):
    """An LSTM of width 2 (4 state numbers) held at 2 bits: Thm 3's wall is N = 8 whatever
    precision the float runs are priced at; a float twin at 16 bits has its wall at 64."""
    db = tmp_path / "held.db"
    with Store(db) as store:
        for n, acc in ((4, 1.0), (8, 0.99), (12, 0.6)):
            add(store, "index-lookup", "lstm", n, acc, width=2, precision=2, frac=1)
            add(store, "index-lookup", "lstm", n, acc, width=2)
    held, floating = sorted(thresholds(db, precision=16), key=lambda r: "options" in r)[::-1]
    assert held["held"] is True and held["options"] == {"precision": 2, "frac": 1}
    assert held["bound_id"] == "separations.thm3" and held["bound_length"] == 8
    assert held["bound_params"]["p"] == 2 and held["threshold_length"] == 8
    assert floating["held"] is False and "options" not in floating
    assert floating["bound_length"] == 64 and floating["width"] == 2


def test_a_reached_run_beyond_the_metric_counts_only_at_the_target(tmp_path):
    db = tmp_path / "edge.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 4, 0.99)  # exactly the target: reached
        add(store, "index-lookup", "lstm", 8, 0.989)
    (row,) = thresholds(db, target=0.99)
    assert row["threshold_length"] == 4


def test_the_heads_of_a_run_come_from_its_row_or_its_config():
    from simulations.thresholds import _run_model

    run = {"width": 8, "heads": None, "state_numel": 3, "config": {"heads": 2}}
    assert _run_model(run) == {"width": 8, "heads": 2, "state_numel": 3}
    assert _run_model({**run, "heads": 4})["heads"] == 4


def test_which_tasks_are_a_plugins():
    from simulations.thresholds import is_plugin_task

    assert not is_plugin_task("dyck")  # built in
    assert not is_plugin_task("kg-path")  # a claims task
    assert is_plugin_task("no-such-task-here")


def test_a_point_judged_at_the_thresholds_own_target_and_metric(tmp_path):
    """A run trained to 0.99 that reached 0.9 is plateaued at 0.99 but reached at 0.8; by its
    final accuracy a run whose best reached the target is no longer there: plateaued."""
    db = tmp_path / "points.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 4, 0.9)
    (row,) = thresholds(db)
    assert row["points"][0]["verdict"] == "plateaued"
    (row,) = thresholds(db, target=0.8)
    assert row["points"][0]["verdict"] == "reached" and row["threshold_length"] == 4
    later = tmp_path / "final.db"
    with Store(later) as store:
        store.add_run(
            {
                "config": {
                    "task": "index-lookup",
                    "arch": "lstm",
                    "width": 16,
                    "layers": 1,
                    "length": 4,
                    "lr": 1e-3,
                    "seed": 0,
                },
                "config_hash": "fell",
                "accuracy": 0.5,
                "best_accuracy": 1.0,
                "verdict": "reached",
                "curve": [[100 * i, 1.0 if i == 5 else 0.5] for i in range(1, 10)],
            }  # fmt: skip
        )
    (row,) = thresholds(later, metric="accuracy")
    assert row["points"][0]["verdict"] == "plateaued" and row["threshold_length"] is None


def test_float_runs_are_bounded_at_32_bits_by_default(tmp_path):
    db = tmp_path / "float.db"
    with Store(db) as store:
        add(store, "index-lookup", "lstm", 4, 1.0, width=2)  # 4 state numbers
    (row,) = thresholds(db)
    assert row["bound_length"] == 4 * 32 and row["bound_params"]["p"] == 32


def test_claims_for_held_and_float_models_and_for_plugin_architectures(monkeypatch):
    from simulations import thresholds as module

    assert claim_for("dyck", "transformer", 1, held=True).bound_id == "separations.thm5_held"
    assert claim_for("dyck", "transformer", 1).bound_id == "separations.thm5"
    assert claim_for("dyck", "no-such-arch", 1) is None

    class Found:
        family = "recurrent"

    monkeypatch.setattr(module.plugins, "model_definition", lambda arch: Found() if arch ==
                        "my-rnn" else None)  # fmt: skip
    assert module._family("my-rnn") == "recurrent" and module._family("other") is None
    assert claim_for("index-lookup", "my-rnn", 1).bound_id == "separations.thm3"


def test_a_run_whose_shape_its_bound_cannot_read_is_named(tmp_path):
    db = tmp_path / "shape.db"
    with Store(db) as store:
        add(store, "dyck", "transformer", 8, 1.0, width=6, heads=4)  # 6 is no multiple of 4
    with pytest.raises(InputError, match=r"^run run-\d+: "):
        thresholds(db)


def test_runs_of_a_plugin_task_not_loaded_get_their_row_without_bits(tmp_path, monkeypatch):
    from simulations import thresholds as module

    monkeypatch.setattr(module.plugins, "task_definition", lambda task: None)
    db = tmp_path / "plugin.db"
    with Store(db) as store:
        for n, acc in ((4, 1.0), (6, 0.5)):
            add(store, "my-task", "lstm", n, acc, width=2, precision=2, frac=1)
    (row,) = thresholds(db)
    assert row["task"] == "my-task" and row["arch"] == "lstm" and row["width"] == 2
    assert row["layers"] == 1 and row["runs"] == 2 and row["held"] is True
    assert row["threshold_length"] == 4 and row["points"][0]["length"] == 4
    assert row["model_bits"] == {4: 8, 6: 8}  # 4 state numbers at its own 2 bits
    assert row["bound_id"] == "separations.thm2" and row["computed_bits"] is None
