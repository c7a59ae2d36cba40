"""The knowledge-graph commands, with the issue's acceptance commands exactly as written."""

from __future__ import annotations

import json

import pytest


def test_bound_acceptance(ccx_json):
    b18 = ccx_json("bound", "--theorem", "kg.lemma_b18", "--entities", "128", "--permutations", "8")
    assert isinstance(b18["bits"], float) and b18["min_parameters"] == 817
    b19 = ccx_json(
        "bound",
        "--theorem",
        "kg.thm_b19",
        "--entities",
        "128",
        "--relations",
        "8",
        "--hops",
        "3",
        "--layers",
        "2",
    )
    assert (b19["min_monomials"], b19["min_parameters"]) == (46, 128 * 46)


def test_construct_acceptance(ccx_json):
    dense = ccx_json(
        "construct",
        "--task",
        "kg-path",
        "--entities",
        "32",
        "--relations",
        "4",
        "--hops",
        "4",
        "--samples",
        "500",
        "--seed",
        "0",
    )
    assert dense["accuracy"] == 1.0 and dense["lookup_parameters"] == 2432
    assert dense["exhaustive_accuracy"] == 1.0 and dense["exhaustive_queries"] == 32 * 4**4
    assert (dense["vocabulary"], dense["code_bits"], dense["experts"]) == (41, 6, 11)
    moe = ccx_json(
        "construct",
        "--task",
        "kg-path",
        "--entities",
        "64",
        "--relations",
        "8",
        "--hops",
        "3",
        "--experts",
        "23",
        "--samples",
        "500",
        "--seed",
        "0",
    )
    assert moe["accuracy"] == 1.0 and moe["experts"] == 23
    assert moe["active_lookup_parameters"] == 23 * 8 + 24 * 22 < moe["lookup_parameters"]


def test_dfa_split_products_and_sample(ccx_json, ccx):
    dfa = ccx_json("dfa", "kg", "--entities", "32", "--relations", "4", "--seed", "0")
    assert (dfa["states"], dfa["live_states"]) == (35, 34)
    assert (
        ccx_json("dfa", "kg", "--entities", "8", "--relations", "2", "--hops", "3")["states"] == 35
    )
    split = ccx_json(
        "kg", "split", "--entities", "32", "--relations", "4", "--hops", "4", "--cut", "2"
    )
    assert (split["method"], split["distinct_rows"], split["one_way_bits"]) == ("dense", 32, 5)
    assert (split["fooling_size"], split["fooling_verified"], split["fooling_bits"]) == (
        32,
        True,
        5,
    )
    products = ccx_json("kg", "products", "--entities", "128", "--relations", "8", "--hops", "4")
    assert products["distinct_products"] == [8, 64, 512, 4096] and products["all_distinct"]
    code, out, _ = ccx("kg", "sample", "--entities", "8", "--relations", "2", "--hops", "2")
    assert code == 0 and len(out.strip().splitlines()) == 3 and "[y1] [and] [y1]" in out


def test_split_certificate_is_verified(ccx_json, ccx, tmp_path):
    path = tmp_path / "kg.json"
    out = ccx_json(
        "kg",
        "split",
        "--entities",
        "300",
        "--relations",
        "16",
        "--hops",
        "5",
        "--cut",
        "3",
        "--certificate",
        str(path),
    )
    assert out["method"] == "symbolic" and out["one_way_bits"] == 9 == out["fooling_bits"]
    assert json.loads(path.read_text())["kind"] == "fooling_set"
    code, text, _ = ccx("verify", str(path))
    assert code == 0 and "at least 9 bits" in text


@pytest.mark.parametrize(
    "args",
    [
        (
            "construct",
            "--task",
            "kg-path",
            "--entities",
            "8",
            "--relations",
            "2",
            "--hops",
            "2",
            "--experts",
            "9",
        ),
        ("construct", "--task", "kg-path", "--length", "10"),
        ("construct", "--task", "dyck", "--entities", "4"),
        ("bound", "--theorem", "kg.thm_b19", "--entities", "8", "--relations", "2", "--hops", "2"),
        ("dfa", "kg", "--entities", "4096", "--relations", "2"),
        ("kg", "split", "--entities", "8", "--relations", "2", "--hops", "2", "--cut", "3"),
        ("kg", "products", "--entities", "64", "--relations", "16", "--hops", "6"),
    ],
)
def test_bad_input_is_one_line_and_status_2(ccx, args):
    code, out, err = ccx(*args, "--json")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
