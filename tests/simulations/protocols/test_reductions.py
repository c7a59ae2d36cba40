"""Reductions (Thm 3, Thm 11, Thm 5, Thm 8) run on models: bits, bounds and re-checked failures."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity import bounds
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import is_dyck
from ccomplexity.languages.retrieval import index_value
from simulations.protocols.reductions import run_reduction
from simulations.training import TrainConfig, train


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
    assert r["fooling_set_size"] == 2**5 and r["exhaustive"] and r["fooling_set_complete"]
    assert r["instances"] == 32 + 32 * 31 and r["lower_bound_bits"] == 5
    assert r["protocol_agreement"] == 1.0 and not r["one_way"]
    # Thm 5 rests on the single-output protocol: its count, at the model's grid and 4 symbols
    assert r["variant"] == "single-output"
    assert (
        r["bits_sent"]
        == bounds.thm4_run_bits(4, 1, 12, 6, frac=6, alphabet=4, single_output=True)["total"]
    )
    assert r["claim"] == {
        "task": "dyck",
        "family": "attention",
        "bound_id": "separations.thm5",
        "problem": "separations.lemma1",
    }
    for f in r["failures"]:
        word = np.array(["()[]".index(c) for c in f["word"]])
        assert f["expected"] == int(is_dyck(word[None], 2, 2)[0])


def test_dyck_odd_even_samples_the_fooling_set_past_the_limit():
    r = run_reduction("dyck", "transformer", width=4, length=18, precision=16, seed=0, samples=40)
    assert not r["fooling_set_complete"] and not r["exhaustive"]
    assert r["fooling_set_size"] <= 40 and r["instances"] == r["fooling_set_size"] + 40
    assert r["lower_bound_bits"] == 17 and r["protocol_agreement"] == 1.0


def test_reductions_read_their_claims():
    index = run_reduction("index", "gru", width=2, length=6, precision=8, seed=0, samples=5)
    assert index["claim"]["bound_id"] == "separations.thm3"
    assert index["claim"]["problem"] == "separations.fact3" and index["lower_bound_bits"] == 6
    dfa = run_reduction("dyck", "dfa-rnn", width=3, length=8, precision=3, seed=0, samples=5)
    assert dfa["claim"]["bound_id"] == "separations.lemma4"


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
        {"checkpoint": "no-such-model.pt"},
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


# -- trained checkpoints ---------------------------------------------------------------------------


def _train(folder, task: str, arch: str, length: int, steps: int, layers: int = 1) -> str:
    config = TrainConfig.of(
        task=task,
        arch=arch,
        width=8,
        layers=layers,
        length=length,
        steps=steps,
        batch=32,
        lr=1e-2,
        heads=2,
        eval_every=steps,
        eval_samples=50,
    )
    return train(config, checkpoint_dir=folder, progress=False, device="cpu")["checkpoint"]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("checkpoints")
    return {
        "dyck-transformer": _train(folder, "dyck", "transformer", 8, 40),
        "dyck-transformer-2": _train(folder, "dyck", "transformer", 8, 1, layers=2),
        "dyck-lstm": _train(folder, "dyck", "lstm", 8, 40),
        "index-gru": _train(folder, "index-lookup", "gru", 6, 5),
        "eq-lstm": _train(folder, "eq-random", "lstm", 6, 5),
        "ncp-lstm": _train(folder, "eq-ncp", "lstm", 4, 1),
        "mqar-lstm": _train(folder, "mqar", "lstm", 4, 1),
    }


def test_dyck_on_a_trained_transformer(checkpoints):
    path = checkpoints["dyck-transformer"]
    r = run_reduction("dyck", None, None, None, precision=16, seed=0, samples=50, checkpoint=path)
    assert (r["arch"], r["length"], r["trained_task"], r["trained_length"]) == (
        "transformer",
        8,
        "dyck",
        8,
    )
    assert r["checkpoint"] == path and r["claim"]["bound_id"] == "separations.thm5"
    assert r["exhaustive"] and r["instances"] == 128 + 128 * 127 and r["lower_bound_bits"] == 7
    assert r["protocol_agreement"] == 1.0  # the single-output protocol is the model, exactly
    assert (
        r["bits_sent"]
        == bounds.thm4_run_bits(4, 2, 16, 8, frac=8, alphabet=4, single_output=True)["total"]
    )
    shorter = run_reduction("dyck", None, None, 6, 16, 0, 20, checkpoint=path)
    assert shorter["length"] == 6 and shorter["fooling_set_size"] == 32


def test_dyck_on_a_trained_recurrent_model(checkpoints):
    r = run_reduction("dyck", "lstm", 8, None, 16, 0, 100, checkpoint=checkpoints["dyck-lstm"])
    assert (r["arch"], r["length"], r["state_numel"]) == ("lstm", 8, 16)
    assert r["bits_sent"] == 16 * 16 and r["protocol_agreement"] == 1.0
    assert r["claim"]["bound_id"] == "separations.lemma4" and r["exhaustive"]


def test_index_and_equality_on_trained_recurrent_models(checkpoints):
    index = run_reduction("index", None, None, 4, 12, 0, 10, checkpoint=checkpoints["index-gru"])
    assert index["trained_task"] == "index-lookup" and index["instances"] == 2**4 * 4
    assert index["lower_bound_bits"] == 4 and index["protocol_agreement"] == 1.0
    for f in index["failures"]:  # answers are classes of the 64 symbols; a_i is 0 or 1
        assert len(f["logits"]) == 64
        assert f["expected"] == int(index_value(_bits(f["a"])[None], np.array([f["i"] - 1]))[0])
    eq = run_reduction("equality", None, None, None, 12, 0, 10, checkpoint=checkpoints["eq-lstm"])
    assert eq["length"] == 6 and eq["instances"] == 64 and eq["lower_bound_bits"] == 3
    assert "a [sep] b" in eq["problem"] and eq["protocol_agreement"] == 1.0
    for f in eq["failures"]:  # the trained task's class 1 is "equal"
        assert f["expected"] == int(f["a"] == f["b"])


@pytest.mark.parametrize(
    ("name", "reduction", "kwargs", "needle"),
    [
        ("dyck-transformer", "index", {}, "for attention models; the table has it for recurrent"),
        ("dyck-lstm", "index", {}, "speaks about index-lookup, not a model trained on dyck"),
        ("mqar-lstm", "disjointness", {}, "not a model trained on mqar"),
        ("ncp-lstm", "equality", {}, "predicts symbols"),
        ("dyck-transformer-2", "dyck", {}, "on attention models needs 1 layer"),
        ("dyck-lstm", "dyck", {"length": 10}, "trained up to N = 8"),
        ("dyck-lstm", "dyck", {"arch": "gru"}, "arch 'gru' disagrees"),
    ],
)
def test_checkpoints_that_do_not_fit_are_refused(checkpoints, name, reduction, kwargs, needle):
    args = {"arch": None, "width": None, "length": None, "precision": 12, "seed": 0,
            "samples": 5, "checkpoint": checkpoints[name], **kwargs}  # fmt: skip
    with pytest.raises(InputError, match=needle):
        run_reduction(reduction, **args)
