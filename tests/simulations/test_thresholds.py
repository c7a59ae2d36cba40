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
