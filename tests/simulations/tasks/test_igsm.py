"""The i-GSM sampler: every row's answer and depth by the exact evaluator, padding, seeding,
option limits, and that a run trains on it."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages import igsm
from simulations.tasks import default_length, get_task


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize(("depth", "length", "modulus"), [(1, 4, 7), (2, 6, 7), (4, 8, 23)])
def test_rows_are_exact(depth, length, modulus):
    task = get_task("i-gsm", length, query_depth=depth, modulus=modulus)
    tokens, targets, mask = task.sample(100, length, gen(depth))
    assert tokens.shape == (100, task.max_tokens) and int(mask.sum()) == 100
    assert task.n_out == modulus and int(tokens.max()) < task.vocab_size
    for row, target, m in zip(tokens.tolist(), targets.tolist(), mask.tolist(), strict=True):
        kept = [t for t in row if t != task.pad]
        assert kept == row[: len(kept)]  # padded after
        at = m.index(True)
        assert at == len(kept) - 1  # the answer sits at '?'
        solved = igsm.solve(kept, length, modulus)
        assert (solved["answer"], solved["depth"]) == (target[at], depth)


def test_seeded():
    task = get_task("i-gsm", 8, query_depth=2)
    a, b = task.sample(20, 8, gen(3)), task.sample(20, 8, gen(3))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    assert not torch.equal(a[0], task.sample(20, 8, gen(4))[0])


def test_options_and_limits():
    assert default_length("i-gsm", query_depth=4) == 8
    assert default_length("i-gsm", query_depth=9) == 13
    with pytest.raises(InputError, match="needs --length"):
        default_length("p-hop")
    with pytest.raises(InputError, match="query_depth \\+ 1"):
        get_task("i-gsm", 3, query_depth=3)
    with pytest.raises(InputError, match="query_depth"):
        get_task("i-gsm", 80, query_depth=65)
    for call in (lambda: get_task("i-gsm", 8, depth=2), lambda: default_length("i-gsm", depth=2)):
        with pytest.raises(InputError, match="the model's depth is layers"):
            call()
    with pytest.raises(InputError, match="prime"):
        get_task("i-gsm", 8, modulus=8)
    with pytest.raises(InputError, match="statements"):
        get_task("i-gsm", 513)
    with pytest.raises(InputError, match="smaller batch"):
        get_task("i-gsm", 512).sample(4096, 512, gen(0))


def test_trains(tmp_path):
    from simulations.training import TrainConfig, train

    config = TrainConfig.of(
        task="i-gsm",
        arch="looped",
        width=16,
        layers=1,
        loops=2,
        length=4,
        query_depth=1,
        steps=3,
        batch=8,
        heads=2,
        eval_every=3,
        eval_samples=20,
    )
    result = train(config, checkpoint_dir=str(tmp_path), progress=False)
    assert result["steps"] == 3 and 0 <= result["accuracy"] <= 1
    assert result["config"]["query_depth"] == 1 and "depth" not in result["config"]


# A run stored before query_depth existed: its config and hash, as the store holds them.
LEGACY = {"task": "i-gsm", "arch": "transformer", "width": 32, "layers": 4, "length": 6,
          "steps": 1200, "lr": 0.003, "seed": 0, "batch": 64, "heads": 4, "target": 0.99,
          "eval_every": 200, "eval_samples": 500, "experts": 1, "top_k": 1, "gate": "",
          "balance": 0.0, "mlp_width": None, "expert": "", "depth": 2}  # fmt: skip
LEGACY_HASH = "3eb73d55d35e6eac"  # computed before the rename


def test_query_depth_keeps_stored_hashes():
    from simulations.training import TrainConfig

    stored = TrainConfig.from_dict(LEGACY)
    assert stored.task.query_depth == 2 and stored.task.depth is None
    assert stored.config_hash() == LEGACY_HASH
    renamed = {k: v for k, v in LEGACY.items() if k != "depth"} | {"query_depth": 2}
    assert TrainConfig.from_dict(renamed) == stored
    assert TrainConfig.from_dict(stored.to_dict()).config_hash() == LEGACY_HASH
    other = TrainConfig.from_dict({**renamed, "query_depth": 3})
    assert other.config_hash() != LEGACY_HASH
    assert stored.make_task().query_depth == 2
    with pytest.raises(InputError, match="give query_depth only"):
        TrainConfig.from_dict({**LEGACY, "query_depth": 2})
    var = TrainConfig.of(
        task="var-assign", arch="transformer", width=8, layers=1, length=6, depth=2
    )
    assert var.task.depth == 2 and var.task.query_depth is None  # var-assign keeps its own depth
