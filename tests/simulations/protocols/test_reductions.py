"""Reductions (Thm 3, Thm 11, Thm 5, Thm 8) run on models: bits, bounds and re-checked failures."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import is_dyck
from ccomplexity.languages.retrieval import index_value
from simulations.protocols.reductions import run_reduction


def _bits(text: str) -> np.ndarray:
    return np.array([int(c) for c in text], dtype=np.int64)


def test_random_small_lstm_fails_index_and_failures_are_real():
    r = run_reduction("index", "lstm", width=2, length=12, precision=8, seed=0, samples=10)
    assert r["exhaustive"] and r["instances"] == 2**12 * 12
    assert r["bits_sent"] == r["state_numel"] * 8 == 32 and r["lower_bound_bits"] == 12
    assert r["protocol_agreement"] == 1.0 and r["solved_fraction"] < 1.0
    assert r["errors"] > 0 and 0 < len(r["failures"]) <= 5
    for f in r["failures"]:
        truth = int(index_value(_bits(f["a"])[None], np.array([f["i"] - 1]))[0])
        assert f["expected"] == truth
        best = max(f["logits"])
        assert f["logits"][truth] < best or f["logits"].count(best) > 1  # a real error
    forced = r["forced_failure"]  # 4096 inputs, fewer distinct messages: pigeonhole
    assert r["distinct_messages"] < r["alice_inputs"] == 4096 and forced is not None
    assert _bits(forced["a"])[forced["i"] - 1] != _bits(forced["a_other"])[forced["i"] - 1]


def test_dfa_rnn_solves_dyck_at_the_contiguous_split():
    r = run_reduction("dyck", "dfa-rnn", width=3, length=16, precision=3, seed=0, samples=600)
    assert r["solved_fraction"] == 1.0 and r["errors"] == 0 and r["failures"] == []
    assert r["state_numel"] == 3 and r["bits_sent"] == 9 and r["one_way"]
    assert r["lower_bound_bits"] == 3 and r["distinct_messages"] <= 8
    assert 0 < r["members"] < r["instances"]


def test_dyck_odd_even_transformer_scores_against_the_oracle():
    r = run_reduction("dyck", "transformer", width=4, length=6, precision=12, seed=1, samples=50)
    assert r["fooling_set_size"] == 2**5 and r["exhaustive"]
    assert r["instances"] == 32 + 32 * 31 and r["lower_bound_bits"] == 5
    assert r["protocol_agreement"] == 1.0 and not r["one_way"]
    for f in r["failures"]:
        word = np.array(["()[]".index(c) for c in f["word"]])
        assert f["expected"] == int(is_dyck(word[None], 2, 2)[0])


def test_equality_and_disjointness_report_bounds_and_errors():
    eq = run_reduction("equality", "gru", width=2, length=8, precision=6, seed=0, samples=10)
    assert eq["lower_bound_bits"] == 4 and eq["instances"] == 256 and eq["exhaustive"]
    for f in eq["failures"]:
        assert f["expected"] == int(f["a"] != f["b"])
    dj = run_reduction("disjointness", "lstm", width=2, length=8, precision=6, seed=0, samples=10)
    assert dj["lower_bound_bits"] == 4 and dj["instances"] == 256
    assert dj["protocol_agreement"] == 1.0 and dj["recall_fraction"] < 1.0
    for f in dj["failures"]:
        assert f["expected"] == int((_bits(f["a"]) & _bits(f["b"])).any())


@pytest.mark.parametrize(
    "kwargs",
    [
        {"name": "sorting"},
        {"checkpoint": "model.pt"},
        {"length": 7, "name": "equality"},
        {"arch": "transformer"},
        {"arch": "dfa-rnn", "name": "dyck", "precision": 2},
    ],
)
def test_user_errors(kwargs):
    args = {"name": "index", "arch": "lstm", "width": 2, "length": 8, "precision": 8, "seed": 0,
            "samples": 5, **kwargs}  # fmt: skip
    with pytest.raises(InputError):
        run_reduction(**args)
