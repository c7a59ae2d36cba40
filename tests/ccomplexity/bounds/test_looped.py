"""Bounds of the looped-reasoning paper: the spec's calculators, errata, and the CLI contract."""

from __future__ import annotations

import pytest

from ccomplexity import bounds
from ccomplexity.errors import InputError
from ccomplexity.groups import group_order
from ccomplexity.integers import ceil_log2
from ccomplexity.rounds import group_doubling_rounds, pointer_doubling_rounds

IDS = ["looped.thm2_1", "looped.thm2_2", "looped.thmB_6", "looped.cor2_3", "looped.thmB_1",
       "looped.eq3", "looped.word_problem", "looped.carry"]  # fmt: skip


def test_registered_under_the_paper():
    assert set(IDS) <= set(bounds.ids())
    assert all(bounds.get(i).paper == "looped" for i in IDS)


@pytest.mark.parametrize(
    ("n", "loops", "d_literal", "d_needed", "d_attn", "d_attn_needed"),
    [
        (8, 3, 33, 33, 3, 4),
        (16, 4, 36, 36, 4, 5),
        (24, 5, 39, 36, 5, 5),
        (32, 5, 39, 39, 5, 6),
        (64, 6, 42, 42, 6, 7),
        (256, 8, 48, 48, 8, 9),
        (300, 9, 51, 48, 9, 9),
    ],
)
def test_thm2_1_s5_calculator_of_the_spec(n, loops, d_literal, d_needed, d_attn, d_attn_needed):
    out = bounds.get("looped.thm2_1").outputs(group="S5", length=n)
    assert out["loops"] == loops and out["heads"] == 2 and out["mlp_width"] == 14_442
    assert out["model_dim"] == d_literal and out["model_dim_needed"] == d_needed
    assert out["head_dim"] == d_attn and out["key_dim_needed"] == d_attn_needed
    assert out["value_dim_needed"] == 7
    assert out["attention_dim_needed"] == max(d_attn_needed, 7)


def test_thm2_1_loops_are_algorithm_2s_rounds():
    b = bounds.get("looped.thm2_1")
    for n in range(1, 600):
        assert b.value(group="A5", length=n) == group_doubling_rounds(n) == ceil_log2(n)
    assert b.outputs(group="Z7", length=10)["mlp_width"] == 49 + 6 * 3
    assert b.outputs(group="S9", length=4)["group_order"] == group_order("S9")


@pytest.mark.parametrize(
    ("p", "loops"), [(1, 2), (2, 3), (4, 4), (8, 5), (16, 6), (24, 6), (32, 7), (64, 8)]
)
def test_phop_calculator(p, loops):
    assert bounds.get("looped.cor2_3").value(hops=p) == loops
    assert bounds.get("looped.thmB_6").outputs(hops=p)["layers"] == loops
    assert pointer_doubling_rounds(p) == loops


def test_thm2_2_sizes():
    out = bounds.get("looped.thm2_2").outputs(
        model_dim=64, mlp_width=256, heads=4, distinct_layers=3, layers=7
    )
    assert out == {
        "loops": 7,
        "block_layers": 1,
        "looped_model_dim": 69,
        "looped_mlp_width": 778,
        "looped_heads": 12,
    }
    with pytest.raises(InputError, match="cannot exceed"):
        bounds.get("looped.thm2_2").outputs(
            model_dim=8, mlp_width=8, heads=1, distinct_layers=5, layers=3
        )


@pytest.mark.parametrize(
    ("looped", "base", "deep", "gap"),
    [
        (30.8, 22.7, 33.9, 72.3),  # open-book QA, k = 8 (spec's derived table)
        (34.3, 26.7, 29.3, 292.3),  # math, k = 12: looping beats the 24-layer model
        (29.8, 17.7, 29.3, 104.3),  # math, k = 6
        (9.3, 8.2, 11.2, 36.7),  # closed-book QA, k = 12
    ],
)
def test_eq3_gap_reproduces_the_derived_values(looped, base, deep, gap):
    value = bounds.get("looped.eq3").value(looped_score=looped, base_score=base, deep_score=deep)
    assert value == pytest.approx(gap, abs=0.05)


def test_refusals():
    with pytest.raises(InputError, match="undefined"):
        bounds.get("looped.eq3").value(looped_score=1, base_score=2, deep_score=2)
    with pytest.raises(InputError, match="unknown group"):
        bounds.get("looped.thm2_1").value(group="Q8", length=4)
    with pytest.raises(InputError):
        bounds.get("looped.cor2_3").value(hops=0)


def test_acceptance_commands(ccx_json):
    assert ccx_json("bound", "--theorem", "looped.cor2_3", "--hops", "32")["loops"] == 7
    out = ccx_json("bound", "--theorem", "looped.thm2_1", "--group", "S5", "--length", "256")
    assert (out["loops"], out["mlp_width"], out["heads"]) == (8, 14_442, 2)
    assert ccx_json("bound", "--theorem", "looped.word_problem", "--group", "A5")["value"] == 6


def test_bad_group_exits_2_with_one_line(ccx):
    code, out, err = ccx("bound", "--theorem", "looped.thm2_1", "--group", "X5", "--length", "4")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
