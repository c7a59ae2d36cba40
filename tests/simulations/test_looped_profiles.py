"""The looped paper's sweep profiles: what each one runs."""

from __future__ import annotations

from collections import Counter

from simulations.sweeps import load_spec


def test_looped_profile_grid():
    spec = load_spec("looped")
    configs = spec.configs
    assert len(configs) == 55 and spec.target == 0.99
    phop = Counter((c.hops, c.loops) for c in configs if c.task == "p-hop" and c.arch == "looped"
                   and c.layers == 1)  # fmt: skip
    assert phop == {(p, loops): 3 for p in (1, 2, 3) for loops in (1, 2, 3, 4)}  # three seeds
    assert {c.heads for c in configs if c.task == "p-hop"} == {3}  # Cor. 2.3's three heads
    group = {(c.length, c.loops) for c in configs if c.task == "group-composition"}
    assert group == {(n, loops) for n in (2, 3, 4) for loops in (1, 2)}
    table = sorted((c.arch, c.layers, c.loops) for c in configs if c.task == "addition")
    assert table == [("looped", 1, 4), ("transformer", 1, None), ("transformer", 4, None)]
    assert all(c.reverse and c.digits == 2 and c.length == 4 for c in configs
               if c.task == "addition")  # fmt: skip
    regularised = sorted((c.reg_block, c.reg_lambda) for c in configs if c.reg_lambda)
    assert regularised == [(1, 1.0), (1, 10.0), (2, 10.0)]
    deep = [c for c in configs if c.task == "p-hop" and c.arch == "transformer" and c.hops == 3]
    assert {(c.layers, c.width, c.heads, c.length) for c in deep} == {(4, 48, 3, 10)}


def test_demo_slice_and_paper_grid():
    demo = load_spec("looped-demo").configs
    assert len(demo) == 16 and all(c.steps <= 400 for c in demo)
    tasks = Counter(c.task for c in demo)
    assert tasks == {"p-hop": 9, "group-composition": 4, "addition": 3}
    assert sum(c.reg_lambda is not None for c in demo) == 1
    paper = load_spec("looped-paper").configs
    phop_table = [c for c in paper if c.task == "p-hop" and c.hops in (16, 32) and c.seed == 0]
    shapes = Counter((c.arch, c.layers, c.loops) for c in phop_table if c.layers * (c.loops or 1)
                     in (12,) or c.arch == "transformer")  # fmt: skip
    assert all(shapes[("looped", k, 12 // k)] == 2 for k in (1, 2, 3, 4, 6))  # p = 16 and 32
    assert all(c.length == 256 and c.alphabet == 4 and c.width == 128 for c in phop_table)
    addition = [c for c in paper if c.task == "addition"]
    assert {(c.width, c.batch, c.lr, c.length) for c in addition} == {(256, 1024, 5e-3, 32)}
    assert {c.seed for c in paper} == {0, 1, 2}
