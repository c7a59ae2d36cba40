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
    task = get_task("i-gsm", length, depth=depth, modulus=modulus)
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
    task = get_task("i-gsm", 8, depth=2)
    a, b = task.sample(20, 8, gen(3)), task.sample(20, 8, gen(3))
    assert all(torch.equal(x, y) for x, y in zip(a, b, strict=True))
    assert not torch.equal(a[0], task.sample(20, 8, gen(4))[0])


def test_options_and_limits():
    assert default_length("i-gsm", depth=4) == 8 and default_length("i-gsm", depth=9) == 13
    with pytest.raises(InputError, match="needs --length"):
        default_length("p-hop")
    with pytest.raises(InputError, match="depth \\+ 1"):
        get_task("i-gsm", 3, depth=3)
    with pytest.raises(InputError, match="depth"):
        get_task("i-gsm", 80, depth=65)
    with pytest.raises(InputError, match="prime"):
        get_task("i-gsm", 8, modulus=8)
    with pytest.raises(InputError, match="statements"):
        get_task("i-gsm", 513)
    with pytest.raises(InputError, match="smaller batch"):
        get_task("i-gsm", 512).sample(4096, 512, gen(0))


def test_trains(tmp_path):
    from simulations.training import TrainConfig, train

    config = TrainConfig(task="i-gsm", arch="looped", width=16, layers=1, loops=2, length=4,
                         depth=1, steps=3, batch=8, heads=2, eval_every=3,
                         eval_samples=20)  # fmt: skip
    result = train(config, checkpoint_dir=str(tmp_path), progress=False)
    assert result["steps"] == 3 and 0 <= result["accuracy"] <= 1
    assert result["config"]["depth"] == 1
