"""Training looped models and the looped-paper tasks: the new config fields keep old hashes,
learning happens, checkpoints round-trip, addition reports every evaluated n."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from simulations.checkpoints import load_checkpoint
from simulations.training import TrainConfig, train

BASE = {"width": 32, "heads": 2, "batch": 32, "lr": 3e-3, "eval_every": 50, "eval_samples": 200}


def test_unused_fields_stay_out_of_the_hash():
    plain = TrainConfig.of(task="index-lookup", arch="transformer", width=64, layers=1, length=20)
    assert "loops" not in plain.to_dict() and "hops" not in plain.to_dict()
    assert plain.config_hash() == "ce80ff9dc85d60be"  # as stored before these fields existed
    assert TrainConfig.from_dict(plain.to_dict()) == plain


def test_looped_and_task_fields():
    config = TrainConfig.of(task="p-hop", arch="looped", length=16, layers=1, hops=2, **BASE)
    assert config.model.loops == 1 and config.to_dict()["hops"] == 2  # loops default to 1
    assert config.make_task().hops == 2
    with pytest.raises(InputError, match="looped architectures"):
        TrainConfig.of(task="dyck", arch="transformer", width=8, layers=1, length=8, loops=2)
    with pytest.raises(InputError, match="no option"):
        TrainConfig.of(task="dyck", arch="lstm", width=8, layers=1, length=8, hops=2)
    with pytest.raises(InputError, match="both"):
        TrainConfig.of(task="dyck", arch="transformer", width=8, layers=4, length=8, reg_block=2)
    with pytest.raises(InputError, match="into >= 2 blocks"):
        TrainConfig.of(
            task="dyck",
            arch="transformer",
            width=8,
            layers=3,
            length=8,
            reg_lambda=1.0,
            reg_block=2,
        )


def test_a_looped_model_learns_composition_and_round_trips(tmp_path):
    config = TrainConfig.of(
        task="group-composition",
        arch="looped",
        layers=1,
        loops=1,
        length=2,
        group="S3",
        steps=400,
        target=0.98,
        **BASE,
    )
    result = train(config, checkpoint_dir=tmp_path, progress=False)
    assert result["best_accuracy"] >= 0.98  # chance is 1/6
    model, loaded = load_checkpoint(result["checkpoint"])
    assert loaded == config and model.config.loops == 1 and model.name == "looped"


def test_addition_reports_every_evaluated_operand_count():
    config = TrainConfig.of(
        task="addition", arch="looped", layers=1, loops=2, length=8, steps=2, **BASE
    )
    result = train(config, progress=False)
    assert sorted(result["accuracy_by_length"]) == [2, 4, 6, 8]


def test_regulariser_pulls_the_blocks_together():
    common = dict(
        task="p-hop",
        arch="transformer",
        layers=4,
        length=8,
        hops=1,
        steps=20,
        **{**BASE, "eval_samples": 50},
    )
    free = train(TrainConfig.of(**common, reg_lambda=1e-9, reg_block=2), progress=False)
    tied = train(TrainConfig.of(**common, reg_lambda=10.0, reg_block=2), progress=False)
    assert min(tied["block_cosine"].values()) > max(free["block_cosine"].values()) + 0.2
    # the Figs. 2-3 diagnostic: every pair of layers per group, its k-apart pairs averaging R(k)
    sims = tied["layer_similarity"]
    assert set(sims) == set(tied["block_cosine"]) and len(sims["ff_w1"]) == 4
    for group, matrix in sims.items():
        pairs = [matrix[j][j + 2] for j in range(2)]
        assert sum(pairs) / 2 == pytest.approx(tied["block_cosine"][group], abs=1e-5)
    assert "layer_similarity" not in train(
        TrainConfig.of(**{**common, "layers": 1}), progress=False
    )
