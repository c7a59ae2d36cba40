"""The looped paper's sweep profiles: what each one runs."""

from __future__ import annotations

from collections import Counter

from simulations.sweeps import load_spec


def test_looped_profile_grid():
    spec = load_spec("looped")
    configs = spec.configs
    assert len(configs) == 72 and spec.target == 0.99
    # the paper's recipe: Adafactor, linear warm-up over 10% of the steps, cosine decay
    assert {
        (c.recipe.optimizer, c.recipe.schedule, c.recipe.warmup * 10 == c.recipe.steps)
        for c in configs
    } == {("adafactor", "warmup-cosine", True)}
    assert {c.recipe.lr for c in configs if c.task.name != "addition"} == {5e-3}
    phop = Counter(
        (c.task.hops, c.model.loops)
        for c in configs
        if c.task.name == "p-hop" and c.model.arch == "looped" and c.model.layers == 1
    )
    assert phop == {(p, loops): 3 for p in (1, 2, 3) for loops in (1, 2, 3, 4)}  # three seeds
    assert {c.model.heads for c in configs if c.task.name == "p-hop"} == {
        3
    }  # Cor. 2.3's three heads
    group = {(c.task.length, c.model.loops) for c in configs if c.task.name == "group-composition"}
    assert group == {(n, loops) for n in (2, 3, 4) for loops in (1, 2)}
    table = Counter(
        (c.model.arch, c.model.layers, c.model.loops) for c in configs if c.task.name == "addition"
    )
    assert table == {("looped", 1, 4): 6, ("transformer", 1, None): 6, ("transformer", 4, None): 6}
    addition = [c for c in configs if c.task.name == "addition"]
    # the paper's addition: the task's defaults, 3-digit operands, the sum most significant first
    assert all(
        c.task.reverse is None and c.task.digits is None and c.task.length == 4 for c in addition
    )
    task = addition[0].make_task()
    assert (task.digits, task.reverse) == (3, False)
    # every Table 1 model: the same learning rates and three seeds
    grids = {(c.model.arch, c.model.layers): set() for c in addition}
    for c in addition:
        grids[c.model.arch, c.model.layers].add((c.recipe.lr, c.seed))
    assert all(g == {(lr, s) for lr in (2e-3, 5e-3) for s in (0, 1, 2)} for g in grids.values())
    right = Counter(
        (c.model.arch, c.model.layers, c.model.loops)
        for c in configs
        if c.task.name == "p-hop" and c.task.hops == 3 and c.recipe.reg_lambda is None
    )
    assert right[("looped", 2, 2)] == right[("transformer", 4, None)] == 3
    regularised = sorted(
        (c.recipe.reg_block, c.recipe.reg_lambda) for c in configs if c.recipe.reg_lambda
    )
    assert regularised == [(1, 1.0), (1, 10.0), (2, 10.0)]
    deep = [
        c
        for c in configs
        if c.task.name == "p-hop" and c.model.arch == "transformer" and c.task.hops == 3
    ]
    assert {(c.model.layers, c.model.width, c.model.heads, c.task.length) for c in deep} == {
        (4, 48, 3, 10)
    }


def test_demo_slice_and_paper_grid():
    demo = load_spec("looped-demo").configs
    assert len(demo) == 16 and all(c.recipe.steps <= 400 for c in demo)
    tasks = Counter(c.task.name for c in demo)
    assert tasks == {"p-hop": 9, "group-composition": 4, "addition": 3}
    assert sum(c.recipe.reg_lambda is not None for c in demo) == 1
    paper = load_spec("looped-paper").configs
    phop_table = [
        c for c in paper if c.task.name == "p-hop" and c.task.hops in (16, 32) and c.seed == 0
    ]
    shapes = Counter(
        (c.model.arch, c.model.layers, c.model.loops)
        for c in phop_table
        if c.model.layers * (c.model.loops or 1) in (12,) or c.model.arch == "transformer"
    )
    assert all(shapes[("looped", k, 12 // k)] == 2 for k in (1, 2, 3, 4, 6))  # p = 16 and 32
    assert all(
        c.task.length == 256 and c.task.alphabet == 4 and c.model.width == 128 for c in phop_table
    )
    addition = [c for c in paper if c.task.name == "addition"]
    assert {(c.model.width, c.recipe.batch, c.recipe.lr, c.task.length) for c in addition} == {
        (256, 1024, 5e-3, 32)
    }
    assert {c.seed for c in paper} == {0, 1, 2}


def test_looped_igsm_profile_varies_the_models_depth():
    configs = load_spec("looped-igsm").configs
    assert len(configs) == 24
    # one problem distribution: the query's depth is fixed; the model's depth varies
    assert {(c.task.name, c.task.length, c.task.query_depth, c.task.depth) for c in configs} == {
        ("i-gsm", 5, 2, None)
    }
    shapes = Counter((c.model.layers, c.model.loops or 1) for c in configs)
    assert shapes == {s: 4 for s in ((1, 1), (2, 1), (4, 1), (1, 2), (1, 4), (2, 2))}
    assert {(c.recipe.lr, c.seed) for c in configs} == {
        (lr, s) for lr in (1e-3, 3e-3) for s in (0, 1)
    }
    assert {(c.recipe.optimizer, c.recipe.schedule, c.recipe.warmup) for c in configs} == {
        ("adafactor", "warmup-cosine", 150)
    }


def test_stored_addition_configs_keep_their_hash_and_meaning():
    """Runs stored by the earlier looped profile (2 digits, reversed sum) keep their hash and
    their task; a config without the options is the paper's addition, with another hash."""
    from simulations.run_config import TrainConfig

    old = TrainConfig.of(
        task="addition",
        arch="looped",
        width=64,
        layers=1,
        loops=4,
        length=4,
        steps=3000,
        lr=3e-3,
        eval_every=250,
        eval_samples=300,
        digits=2,
        reverse=True,
    )
    assert old.config_hash() == "4ef56c1d892e3b93"  # computed before the profile changed
    assert (old.make_task().digits, old.make_task().reverse) == (2, True)
    paper = TrainConfig.of(task="addition", arch="looped", width=64, layers=1, loops=4, length=4)
    assert (paper.make_task().digits, paper.make_task().reverse) == (3, False)
    explicit = TrainConfig.of(
        task="addition",
        arch="looped",
        width=64,
        layers=1,
        loops=4,
        length=4,
        digits=3,
        reverse=False,
    )
    assert explicit.make_task() == paper.make_task()
    assert "reverse" not in paper.to_dict() and explicit.to_dict()["reverse"] is False
