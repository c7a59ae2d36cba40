"""The looped paper's commands and the generic ``ccx task``: JSON contracts and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.groups import get_group
from ccomplexity.languages import igsm
from ccomplexity.languages.hops import chain_statistics, hop_p


def test_task_command_p_hop(ccx_json):
    out = ccx_json(
        "task",
        "p-hop",
        "--alphabet",
        "4",
        "--length",
        "256",
        "--hops",
        "16",
        "--batch",
        "3",
        "--seed",
        "0",
    )
    assert len(out["samples"]) == 3
    for sample in out["samples"]:
        assert len(sample["input"]) == 256 and isinstance(sample["answer"], int)
        assert hop_p([sample["input"]], 16)[0] == sample["answer"]
    again = ccx_json(
        "task",
        "p-hop",
        "--alphabet",
        "4",
        "--length",
        "256",
        "--hops",
        "16",
        "--batch",
        "3",
        "--seed",
        "0",
    )
    assert again == out


def test_task_command_i_gsm(ccx_json):
    out = ccx_json("task", "i-gsm", "--query-depth", "4", "--seed", "0")
    assert out["length"] == 8 and out["classes"] == 7 and len(out["samples"]) == 3
    for sample in out["samples"]:
        solved = igsm.solve(sample["input"], 8, 7)
        assert solved["answer"] == sample["answer"] and solved["depth"] == 4
        assert sample["text"].endswith("?")
    assert ccx_json("task", "i-gsm", "--query-depth", "4", "--seed", "0") == out
    deep = ccx_json("task", "i-gsm", "--query-depth", "2", "--length", "12", "--modulus", "23")
    assert deep["classes"] == 23 and all(len(s["input"]) > 12 * 4 for s in deep["samples"])


def test_task_command_is_generic(ccx_json):
    group = ccx_json("task", "group-composition", "--length", "5", "--group", "S3")
    g = get_group("S3")
    for sample in group["samples"]:
        assert sample["input"][0] == 6 and sample["text"].startswith("#")
        assert sample["answer"] == g.compose([sample["input"][1:]])[0]
    addition = ccx_json("task", "addition", "--length", "4", "--batch", "2")
    assert all(isinstance(s["answer"], list) and s["answer"][-1] == 12 for s in addition["samples"])
    dyck = ccx_json("task", "dyck", "--length", "8", "--param", "reading=half")
    assert dyck["options"] == {"reading": "half"} and len(dyck["samples"][0]["input"]) == 8
    strict = ccx_json("task", "p-hop", "--length", "9", "--hops", "2", "--strict", "true")
    assert strict["options"]["strict"] is True


@pytest.mark.parametrize(
    "args",
    [
        ("task", "p-hop", "--length", "8", "--hops", "5"),
        ("task", "p-hop", "--length", "8", "--hop", "2"),
        ("task", "nosuch", "--length", "8"),
        ("task", "p-hop", "--length", "8", "--batch", "0"),
        ("dfa", "group", "--group", "S9"),
        ("looped", "rounds", "--task", "p-hop", "--length", "8"),
        ("looped", "comm", "--task", "p-hop", "--length", "40", "--hops", "2"),
        ("construct", "--task", "group-composition", "--group", "Q8", "--length", "4"),
    ],
)
def test_bad_input_exits_2_with_one_line(ccx, args):
    code, out, err = ccx(*args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_dfa_group_and_addition(ccx_json):
    out = ccx_json("dfa", "group", "--group", "A5")
    assert out["states"] == out["live_states"] == 60 and out["solvable"] is False
    assert ccx_json("dfa", "group", "--group", "Z7")["states"] == 7
    assert ccx_json("dfa", "addition", "--operands", "32")["states"] == 33


def test_rounds_command(ccx_json):
    out = ccx_json(
        "looped", "rounds", "--task", "p-hop", "--hops", "5", "--length", "64", "--samples", "300"
    )
    assert out["rounds"] == out["rounds_needed"] == 4 and out["accuracy"] == 1.0
    assert out["accuracy_one_round_fewer"] < 1.0
    out = ccx_json(
        "looped",
        "rounds",
        "--task",
        "group-composition",
        "--group",
        "S5",
        "--length",
        "300",
        "--samples",
        "300",
    )
    assert (out["rounds"], out["accuracy"]) == (9, 1.0) and out["accuracy_one_round_fewer"] < 0.1


def test_rounds_draws_p_hop_words_from_the_planted_generator(ccx_json):
    args = ("looped", "rounds", "--task", "p-hop", "--hops", "8", "--length", "40",
            "--samples", "400", "--seed", "3")  # fmt: skip
    planted = ccx_json(*args)
    uniform = ccx_json(*args, "--generator", "uniform")
    assert planted["generator"] == "planted" and uniform["generator"] == "uniform"
    assert planted["accuracy"] == uniform["accuracy"] == 1.0
    # a planted chain makes 8 distinct hops whose symbols differ, so one round short is always
    # wrong; uniform chains often stop at a fixed point, which one round fewer still answers
    assert planted["accuracy_one_round_fewer"] == 0.0
    assert uniform["accuracy_one_round_fewer"] > 0.1
    words = ccx_json(
        "task", "p-hop", "--length", "40", "--hops", "8", "--batch", "400", "--seed", "3"
    )["samples"]
    stats = chain_statistics(np.array([w["input"] for w in words]), 8)
    assert stats["fixed_point_rate"] == 0.0 and stats["bottom_rate"] == 0.0


def test_comm_command(ccx_json):
    out = ccx_json("looped", "comm", "--task", "p-hop", "--length", "8", "--hops", "2")
    assert out["loops_cor2_3"] == 3 and [c["cut"] for c in out["cuts"]] == list(range(1, 8))
    assert all(c["one_way_bits"] >= (c["fooling_bits"] or 0) for c in out["cuts"])
    group = ccx_json(
        "looped", "comm", "--task", "group-composition", "--group", "S3", "--length", "4"
    )
    assert all(c["one_way_bits"] == c["fooling_bits"] == 3 for c in group["cuts"])
    assert ccx_json("looped", "comm", "--task", "addition", "--operands", "8")["dfa_states"] == 9


def test_construct_acceptance_shape_small(ccx_json):
    out = ccx_json(
        "construct",
        "--task",
        "group-composition",
        "--group",
        "S3",
        "--length",
        "20",
        "--samples",
        "50",
        "--seed",
        "0",
    )
    assert out["loops"] == 5 and out["accuracy"] == 1.0
    short = ccx_json(
        "construct",
        "--task",
        "group-composition",
        "--group",
        "S3",
        "--length",
        "20",
        "--loops",
        "4",
        "--samples",
        "50",
        "--seed",
        "0",
    )
    assert short["accuracy"] < 1.0
