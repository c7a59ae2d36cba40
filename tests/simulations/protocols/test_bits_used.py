"""Bits a float recurrent model uses at a cut: agreement by precision, distinct states, bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccomplexity import lower_bounds
from ccomplexity.errors import InputError
from simulations.protocols.bits_used import bits_used
from simulations.training import TrainConfig, train


def test_agreement_grows_with_precision_and_reaches_one():
    r = bits_used(
        "linear-transformer",
        width=32,
        length=12,
        cut=6,
        seed=0,
        samples=500,
        precisions=[2, 4, 8, 16, 24],
    )
    agree = r["agreement_by_precision"]
    assert agree[2] < 1.0 and agree[16] == agree[24] == 1.0
    assert agree[2] <= agree[4] <= agree[8] + 1e-12
    p = r["smallest_full_agreement_precision"]
    assert p is not None and r["bits_used"] == p * r["state_numel"]
    assert r["reference_majority_fraction"] < 1.0


def test_distinct_states_are_bounded_by_the_prefixes():
    r = bits_used("lstm", width=4, length=10, cut=5, seed=0, samples=200, precisions=range(2, 13))
    assert r["exhaustive"] and r["prefixes_at_cut"] == 4**5
    counts = r["distinct_states_by_precision"]
    assert all(1 <= c <= 4**5 for c in counts.values())
    assert counts[2] <= counts[12] <= r["distinct_float_states"] <= 4**5
    assert r["one_way_lower_bound_bits"] == 2  # depth after 5 symbols is odd: 1, or dead
    assert r["claim"]["bound_id"] == "separations.lemma4"  # the DFA-RNN realises the bound


def test_index_task_bound_is_the_cut():
    r = bits_used(
        "gru", width=4, length=10, cut=7, seed=0, task="index", samples=100, precisions=[4, 20]
    )
    assert r["one_way_lower_bound_bits"] == 7 and r["prefixes_at_cut"] == 2**7
    # the claims table's row: Thm 3 on recurrent models, its problem Index (Fact 3) at K bits
    assert (r["claim"]["bound_id"], r["claim"]["problem"]) == (
        "separations.thm3",
        "separations.fact3",
    )
    assert r["distinct_states_at_cut"] <= 2**7


@pytest.mark.parametrize(
    "kwargs",
    [
        {"task": "copy"},
        {"cut": 12},
        {"precisions": [1]},
        {"checkpoint": "x"},
        {"arch": "transformer"},
    ],
)
def test_user_errors(kwargs):
    with pytest.raises(InputError):
        bits_used(**{"arch": "lstm", "width": 2, "length": 12, "cut": 4, "seed": 0, **kwargs})


# -- trained checkpoints ---------------------------------------------------------------------------


def _train(folder: Path, task: str, arch: str, length: int, steps: int) -> str:
    config = TrainConfig.of(
        task=task,
        arch=arch,
        width=8,
        layers=1,
        length=length,
        steps=steps,
        batch=32,
        lr=1e-2,
        heads=2,
        eval_every=steps,
        eval_samples=50,
    )
    result = train(config, checkpoint_dir=folder, progress=False, device="cpu")
    return result["checkpoint"]


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("checkpoints")
    return {
        "dyck-lstm": _train(folder, "dyck", "lstm", 8, 30),
        "index-gru": _train(folder, "index-lookup", "gru", 4, 5),
        "dyck-transformer": _train(folder, "dyck", "transformer", 8, 1),
        "eq-lstm": _train(folder, "eq-random", "lstm", 4, 1),
    }


def test_trained_lstm_on_dyck(checkpoints):
    r = bits_used(cut=4, seed=1, samples=300, checkpoint=checkpoints["dyck-lstm"])
    assert (r["arch"], r["task"], r["length"], r["width"]) == ("lstm", "dyck", 8, 8)
    assert r["state_numel"] == 16  # h and c of one layer of width 8
    agree = r["agreement_by_precision"]
    assert sorted(agree) == list(range(2, 25))
    assert all(0.0 <= a <= 1.0 for a in agree.values())
    p = r["smallest_full_agreement_precision"]
    assert p is not None, "float64 rounded to 24 bits agrees with the float model"
    assert r["bits_used"] == p * r["state_numel"]
    assert all(agree[q] < 1.0 for q in agree if q < p)
    assert r["one_way_lower_bound_bits"] == lower_bounds.one_way_bits_dyck(2, 2, 8, 4).bits
    assert r["exhaustive"] and r["prefixes_at_cut"] == 4**4
    assert 1 <= r["distinct_states_at_cut"] <= 4**4
    assert 0.0 <= r["task_accuracy"] <= 1.0 and r["samples"] == 300
    assert r["checkpoint"] == checkpoints["dyck-lstm"]


def test_trained_index_lookup_bound_is_six_bits_per_symbol(checkpoints):
    path = checkpoints["index-gru"]
    small = bits_used(cut=2, samples=50, precisions=[8, 24], checkpoint=path)
    assert small["one_way_lower_bound_bits"] == 12 and small["alphabet_at_cut"] == 64
    assert small["exhaustive"] and small["prefixes_at_cut"] == 64**2
    whole = bits_used(cut=4, samples=50, precisions=[8, 24], checkpoint=path)
    assert whole["one_way_lower_bound_bits"] == 24  # 64^4 rows, all distinct
    assert not whole["exhaustive"] and whole["prefixes_at_cut"] == 50


def test_cli_bits_used_on_a_checkpoint(ccx_json, checkpoints):
    path = checkpoints["dyck-lstm"]
    r = ccx_json("protocol", "bits-used", "--checkpoint", path, "--cut", "2", "--samples", "100")
    assert (r["arch"], r["length"], r["cut"], r["samples"]) == ("lstm", 8, 2, 100)
    assert r["one_way_lower_bound_bits"] == lower_bounds.one_way_bits_dyck(2, 2, 8, 2).bits


@pytest.mark.parametrize(
    ("name", "kwargs", "needle"),
    [
        ("dyck-transformer", {}, "holds a transformer, not a recurrent model"),
        ("eq-lstm", {}, "trained on eq-random; bits_used supports dyck, index-lookup"),
        ("dyck-lstm", {"cut": 8}, "1 <= K <= 7"),
        ("dyck-lstm", {"length": 10}, "length 10 disagrees with checkpoint"),
        ("dyck-lstm", {"arch": "gru"}, "arch 'gru' disagrees"),
    ],
)
def test_checkpoint_user_errors(checkpoints, name, kwargs, needle):
    with pytest.raises(InputError, match=needle):
        bits_used(**{"cut": 4, "samples": 10, "checkpoint": checkpoints[name], **kwargs})


def test_cli_bits_used_needs_a_model_or_a_checkpoint(ccx):
    code, _, err = ccx("protocol", "bits-used", "--cut", "4", "--width", "4")
    assert code == 2 and "give --arch and --length, or --checkpoint PATH" in err
