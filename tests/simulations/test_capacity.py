"""The capacity search: rounds, best over learning rates, resuming, the table and the slopes."""

from __future__ import annotations

import dataclasses
import sys
import textwrap

import pytest

from ccomplexity.errors import InputError
from simulations import capacity
from simulations.store import Store
from simulations.sweeps import load_spec, run_sweep
from simulations.training import TrainConfig

SPEC = """
[sweep]
name = "tiny-capacity"
target = 0.97
grow = "relations"
grow_by = 2
grow_to = 12

[baseline]
task = "kg-path"
layers = 1
heads = 2
steps = 10
entities = 8
relations = 2
expert = "glu"

[grid]
lr = [1e-3, 3e-3]

[[grid.include]]
arch = "transformer"
width = [8, 16]
length = 1

[[grid.include]]
arch = "looped"
loops = 2
width = 8
length = 2
experts = 2
"""


def capacity_of(config: TrainConfig) -> int:
    """The fake trainer's truth: width / 2 relations at lr 3e-3 (width / 4 at 1e-3), less one
    per extra hop."""
    per_lr = 2 if config.recipe.lr == 3e-3 else 4
    return config.model.width // per_lr - (config.task.length - 1)


def never(config: TrainConfig) -> bool:
    return False


CLIMBING = never
"""Which fake runs are still climbing when their budget ends (undecided below the target)."""


def curve(accuracy: float, steps: int, climbing: bool = False) -> list[list[float]]:
    """Nine evaluations ending at ``accuracy``: flat from the middle on (plateaued below the
    target), or climbing to the end (undecided)."""
    points = [steps * k // 9 for k in range(1, 10)]
    if climbing:
        return [[s, accuracy * k / 9] for k, s in enumerate(points, start=1)]
    return [[s, accuracy * min(1.0, k / 4)] for k, s in enumerate(points, start=1)]


def fake_train(config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True):
    accuracy = 1.0 if config.task.relations <= capacity_of(config) else 0.5
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": config.recipe.steps,
        "curve": curve(accuracy, config.recipe.steps, climbing=CLIMBING(config)),
        "parameters": 100 * config.model.width,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
    }


CALLS: list[int] = []


def failing_train(config: TrainConfig, checkpoint_dir: str | None = None, progress: bool = True):
    """Like fake_train, but the run at R = 6 of the widest model at lr 3e-3 raises."""
    CALLS.append(config.task.relations)
    if config.model.width == 16 and config.task.relations == 6 and config.recipe.lr == 3e-3:
        raise RuntimeError("killed")
    return fake_train(config, checkpoint_dir, progress)


def spec_file(tmp_path, text=SPEC):
    path = tmp_path / "search.toml"
    path.write_text(textwrap.dedent(text))
    return path


def search(tmp_path, fn=fake_train, text=SPEC):
    return run_sweep(
        spec_file(tmp_path, text), tmp_path / "c.db", workers=1, train_fn=fn, progress=False
    )


def test_the_spec_is_a_search_starting_at_the_grid():
    spec = load_spec("kg")
    assert spec.grow is not None and spec.grow.field == "relations" and spec.target == 0.97
    assert {c.task.relations for c in spec.configs} == {spec.configs[0].task.relations}


def test_search_grows_while_the_best_lr_passes(tmp_path):
    out = search(tmp_path)
    table = {(r["family"], r["width"]): r for r in out["capacities"]}
    # width 8: 4 at 3e-3; width 16: 8; looped-MoE at q = 2, width 8: 3 -> the last even value 2
    assert table["standard", 8]["relations"] == 4 and table["standard", 8]["triples"] == 32
    assert table["standard", 16]["relations"] == 8
    assert table["looped-moe", 8]["relations"] == 2 and table["looped-moe", 8]["hops"] == 2
    assert all(r["lr"] == 3e-3 for r in out["capacities"])  # the best learning rate
    assert table["standard", 16]["tried"] == 10 and not table["standard", 16]["passed_all"]
    # every model stops one step after its capacity: runs = 2 lrs x (values tried)
    assert out["ran"] == 2 * (3 + 5 + 2) and out["failed"] == []
    assert out["stopped"] == {"missed the target": 3} and out["rounds"] == 5
    assert table["standard", 8]["flops_per_query"] > 0


def test_a_killed_search_resumes_without_training_again(tmp_path):
    CALLS.clear()
    first = search(tmp_path, failing_train)
    assert len(first["failed"]) == 1
    assert {r["width"]: r["relations"] for r in first["capacities"]}[16] == 4  # stopped at 6
    CALLS.clear()
    again = search(tmp_path)
    assert again["failed"] == [] and again["ran"] == 1 + 2 + 2  # R = 6 (one lr), 8, 10
    assert {
        r["width"]: r["relations"] for r in again["capacities"] if r["family"] == "standard"
    } == {8: 4, 16: 8}
    third = search(tmp_path)
    assert third["ran"] == 0 and third["skipped"] == third["runs"]
    with Store(tmp_path / "c.db") as store:
        assert len(store) == 2 * (3 + 5 + 2)


def test_an_undecided_miss_leaves_the_capacity_open(tmp_path, monkeypatch):
    # the widest model's runs at R = 10 are still climbing when their budget ends
    monkeypatch.setattr(
        sys.modules[__name__], "CLIMBING", lambda c: c.model.width == 16 and c.task.relations == 10
    )
    out = search(tmp_path)
    table = {(r["family"], r["width"]): r for r in out["capacities"]}
    wide = table["standard", 16]
    assert wide["verdict"] == "undecided" and wide["tried"] == 10
    assert wide["relations"] == wide["largest"] == wide["triples"] == "undecided"  # no number
    assert (wide["largest_at_least"], wide["triples_at_least"]) == (8, 64)  # one-sided
    narrow = table["standard", 8]  # its miss at R = 6 plateaued: a number
    assert (narrow["verdict"], narrow["relations"], narrow["triples"]) == ("plateaued", 4, 32)
    fitted = {(r["family"], r["hops"]) for r in capacity.slopes(out["capacities"])}
    assert ("standard", 1) in fitted  # fitted on the decided capacities only
    assert [r for r in capacity.slopes(out["capacities"]) if r["family"] == "standard"][0][
        "models"
    ] == 1


def test_no_ratio_to_a_slope_that_is_not_positive():
    rows = [
        {"family": f, "hops": 2, "parameters": p, "triples": t}
        for f, points in (
            ("standard", ((1000, 64), (2000, 64))),
            ("looped-moe", ((1000, 32), (2000, 64))),
        )
        for p, t in points
    ]
    fitted = capacity.slopes(rows)
    assert [r["slope"] for r in fitted if r["family"] == "standard"] == [pytest.approx(0.0)]
    ratios = [r for r in fitted if "ratio" in r]  # flat standard slope: no division by it
    assert [(r["ratio"], r["why"]) for r in ratios] == [
        (None, "the standard slope is 0, not positive")
    ]


def test_grow_to_caps_the_search(tmp_path):
    out = search(tmp_path, text=SPEC.replace("grow_to = 12", "grow_to = 6"))
    table = {(r["family"], r["width"]): r for r in out["capacities"]}
    assert table["standard", 16]["relations"] == 6 and table["standard", 16]["passed_all"]
    assert out["stopped"] == {"missed the target": 2, "reached grow_to = 6": 1}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("grow_to = 12", ""), "grow, grow_by and grow_to together"),
        (('grow = "relations"', 'grow = "gate"'), "integer TrainConfig field"),
        (("grow_by = 2", "grow_by = 0"), "grow_by must be at least 1"),
        (("grow_to = 12", "grow_to = 1"), "below the start"),
        (("relations = 2\n", ""), "does not set it"),
        (("grow_to = 12", "grow_to = 100000000"), "relations = 100000000"),
    ],
)
def test_bad_searches_are_refused_before_anything_runs(tmp_path, edit, message):
    with pytest.raises(InputError, match=message):
        search(tmp_path, text=SPEC.replace(*edit))
    assert not (tmp_path / "c.db").exists()


def test_every_round_prices_the_largest_search():
    spec = load_spec("kg")
    whole = capacity.every_round(spec)
    assert whole.grow is None and len(whole.configs) > len(spec.configs)
    assert max(c.task.relations for c in whole.configs) <= spec.grow.to


def test_slopes_fit_triples_per_parameter():
    rows = [
        {"family": f, "hops": q, "parameters": p, "triples": int(s * p)}
        for f, s in (("standard", 0.05), ("looped-moe", 0.2))
        for q in (1, 4)
        for p in (1000, 2000, 4000)
    ]
    fitted = {(r["family"], r["hops"]): r for r in capacity.slopes(rows)}
    assert fitted["standard", 1]["slope"] == pytest.approx(0.05)
    assert fitted["standard", 1]["paper_slope"] == 0.061
    assert fitted["looped-moe / standard", 4]["ratio"] == pytest.approx(4.0)
    assert fitted["looped-moe / standard", 4]["paper_ratio"] == 9.0


def test_no_ratio_over_a_non_positive_slope():
    rows = [
        {"family": f, "hops": 2, "parameters": p, "triples": t}
        for f, pts in (
            ("standard", ((1464, 64), (3784, 64), (9000, 64))),
            ("looped-moe", ((1000, 32), (2000, 64))),
        )
        for p, t in pts
    ]
    fitted = {(r["family"], r["hops"]): r for r in capacity.slopes(rows)}
    assert fitted["standard", 2]["slope"] == 0.0  # exactly: equal triples, no rounding sign
    ratio = fitted["looped-moe / standard", 2]
    assert ratio["ratio"] is None and ratio["why"] == "the standard slope is 0, not positive"
    falling = [
        {**r, "triples": 100 - r["parameters"] // 100} if r["family"] == "standard" else r
        for r in rows
    ]
    why = {(r["family"], r["hops"]): r for r in capacity.slopes(falling)}
    assert why["looped-moe / standard", 2]["why"].startswith("the standard slope is -")
    from paper_figures.kg_capacity import _slopes_text

    text = _slopes_text(capacity.slopes(rows))
    assert (
        "looped-MoE / standard at q = 2: no ratio (the standard slope is 0, not positive)" in text
    )


def test_the_paper_profile_is_the_papers_grid_and_is_priced(tmp_path, monkeypatch):
    from simulations import estimate

    spec = load_spec("kg-paper")
    grid = {
        (capacity.family(c.to_dict()), c.task.length, c.model.width, c.recipe.lr)
        for c in spec.configs
    }
    assert len(spec.configs) == len(grid) == 3 * 4 * 6 * 4
    assert {c.model.width for c in spec.configs} == {64, 96, 128, 160, 192, 224}
    assert {(c.task.entities, c.task.relations, c.model.expert) for c in spec.configs} == {
        (128, 8, "glu")
    }
    assert (spec.grow.by, spec.target) == (8, 0.97)
    assert all(
        c.model.layers == c.task.length for c in spec.configs if c.model.arch == "transformer"
    )
    assert all(c.model.loops == c.task.length for c in spec.configs if c.model.arch == "looped")
    assert spec.grow.to == 512  # priced below as if every model grew to 512 / 8 = 64 sizes
    coefficients = {"a_seconds": 0.01, "b_seconds_per_madd": 1e-9, "ensemble_efficiency": 0.5}
    monkeypatch.setattr(estimate, "probe", lambda arch, task, device, held=False: coefficients)
    short = dataclasses.replace(spec, grow=dataclasses.replace(spec.grow, to=spec.grow.by * 4))
    plan = estimate.dry_run(short, tmp_path / "absent.db", workers=1)  # 4 sizes: a quarter second
    assert plan["runs"] == 288 * 4  # every model grown to grow_to: an upper bound of the runs
    assert plan["estimated_seconds"] > 0 and not (tmp_path / "absent.db").exists()


def test_kg_options_and_the_glu_expert_reach_the_task_and_the_model():
    from simulations.training import build_model

    plain = TrainConfig.of(task="kg-path", arch="transformer", width=8, layers=1, length=1, heads=2)
    assert not {"entities", "relations", "graph_seed", "expert"} & set(plain.to_dict()) - {
        "expert"
    }  # unset task options stay out of the config (and of its hash)
    glu = TrainConfig.of(
        task="kg-path",
        arch="looped",
        width=8,
        layers=1,
        length=2,
        heads=2,
        loops=2,
        entities=6,
        relations=3,
        expert="glu",
    )
    model, task = build_model(glu)
    assert (task.entities, task.relations, task.max_length) == (6, 3, 2)
    assert model.config.expert == "glu" and model.config.loops == 2
    assert glu.config_hash() != glu.replace(expert="").config_hash()
    assert plain.config_hash() == plain.replace(expert="").config_hash()


def test_a_real_search_learns_a_small_graph(tmp_path):
    """One round of the real trainer (R = 2, no growth): the rounds themselves are checked with
    the fake trainer above, at a fraction of the cost."""
    text = SPEC[: SPEC.index("[grid]")].replace("grow_to = 12", "grow_to = 2")
    text = text.replace("steps = 10", "steps = 400\neval_every = 50\neval_samples = 64")
    text = (
        text.replace("entities = 8", "entities = 4")
        + """
[grid]
arch = ["transformer"]
width = [16]
length = [1]
lr = [3e-3, 1e-2]
seed = [1, 2]
"""
    )
    out = run_sweep(spec_file(tmp_path, text), tmp_path / "r.db", workers=1, progress=False)
    (row,) = out["capacities"]
    assert row["triples"] >= 8 and row["family"] == "standard"  # R = 2: 8 triples learned
    # (seed 0 stalls at 7 of the 8 queries at this size: the best over seeds is what counts)
    assert row["parameters"] > 0 and row["flops_per_query"] > 0
    assert row["tried"] == 2 and row["passed_all"]
    assert out["ran"] == 4  # best over 2 learning rates x 2 seeds


def test_kg_profile_has_parameter_matched_points_and_one_grid():
    """Every standard model of the kg profile has a looped-MoE (and, for q >= 2, a looped)
    model within 10% of its parameters at the same q; every model the same lrs and 3 seeds."""
    from simulations.training import build_model

    spec = load_spec("kg")
    sizes: dict[tuple[str, int], set[int]] = {}
    grids: dict[tuple, set[tuple[float, int]]] = {}
    for c in spec.configs:
        model, _ = build_model(c)
        fam = capacity.family(c.to_dict())
        sizes.setdefault((fam, c.task.length), set()).add(
            sum(p.numel() for p in model.parameters())
        )
        grids.setdefault(capacity.model_key(c.to_dict(), "relations"), set()).add(
            (c.recipe.lr, c.seed)
        )
    assert {c.recipe.optimizer for c in spec.configs} == {"adam"}
    assert all(g == {(lr, s) for lr in (1e-3, 3.16e-3) for s in (0, 1, 2)} for g in grids.values())
    for (fam, q), params in sizes.items():
        if fam != "standard":
            continue
        partners = ["looped-moe"] + (["looped"] if q >= 2 else [])
        for p in params:
            for other in partners:
                assert any(abs(o - p) <= 0.1 * p for o in sizes[other, q]), (fam, q, p, other)


def test_the_capacity_listing_prints_why_there_is_no_ratio(tmp_path, monkeypatch, capsys):
    from ccx.cmd_kg import kg_capacity

    search(tmp_path)  # a real store, so that the command accepts it
    rows = [
        {
            "family": f,
            "hops": 2,
            "width": w,
            "layers": 1,
            "loops": 2,
            "experts": 1,
            "parameters": p,
            "active_parameters": p,
            "flops_per_query": 1,
            "relations": t // 16,
            "triples_at_least": t,
            "triples": t,
            "tried": 4,
            "verdict": "plateaued",
            "lr": 1e-3,
        }
        for f, pts in (
            ("standard", ((1000, 64), (2000, 64))),
            ("looped-moe", ((1000, 32), (2000, 64))),
        )
        for w, (p, t) in enumerate(pts)
    ]
    monkeypatch.setattr(capacity, "capacities", lambda store: rows)
    kg_capacity(store=str(tmp_path / "c.db"), as_json=False)
    out = capsys.readouterr().out
    assert "looped-moe / standard slope at q = 2: no ratio (the standard slope is 0" in out


def test_extensions_decide_the_misses_only_and_stand_in_for_their_runs(tmp_path):
    """--extend-undecided in a search: a model whose best missed while still climbing gets its
    runs trained again with doubled steps (here they learn two more relations), a run that
    missed where another run of its model passed is left alone, and the capacities read each
    extension in place of its run (one row per model)."""
    doubled: list[tuple[int, int]] = []

    def train(config, checkpoint_dir=None, progress=True):
        if config.recipe.steps > 10:
            doubled.append((config.model.width, config.task.relations))
        passes = config.task.relations <= capacity_of(config) + (
            2 if config.recipe.steps > 10 else 0
        )
        out = fake_train(config, checkpoint_dir, progress)
        accuracy = 1.0 if passes else 0.5
        return {
            **out,
            "accuracy": accuracy,
            "best_accuracy": accuracy,
            "curve": curve(accuracy, config.recipe.steps, climbing=config.recipe.steps == 10),
        }

    out = run_sweep(
        spec_file(tmp_path),
        tmp_path / "c.db",
        workers=1,
        train_fn=train,
        progress=False,
        extend_undecided=1,
    )
    table = {(r["family"], r["width"]): r for r in out["capacities"]}
    assert len(out["capacities"]) == len(capacity.capacities(tmp_path / "c.db")) == 3
    assert (table["standard", 16]["relations"], table["standard", 16]["verdict"]) == (
        10,
        "plateaued",
    )
    assert table["standard", 8]["relations"] == 6 and table["looped-moe", 8]["relations"] == 4
    assert sorted({r for w, r in doubled if w == 16}) == [10, 12]  # not R = 6, 8 (passed)
    assert [r["steps"] for r in out["extended"]] == [[20]] * len(out["extended"])
