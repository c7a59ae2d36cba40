"""The mixture-of-parrots training tasks against their exact oracles."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from ccomplexity.languages.memorization import MemorizationSize, gaussian_memorization
from simulations.tasks import get_task


@pytest.mark.parametrize("r", [3, 8])
def test_length2_path_labels_are_the_oracles(r):
    task = get_task("length2-path", 8)
    tokens, targets, mask = task.sample(300, r, torch.Generator().manual_seed(r))
    assert tokens.shape == (300, 2 * r + 5) and mask[:, -1].all() and mask.sum() == 300
    a, b = task.layout.decode(tokens.numpy())
    assert (targets[:, -1].numpy() == graphs.disjointness(a, b)).all()
    middle = tokens[:, r : r + 4] - task.layout.query - 1  # edge ids above the query
    assert (middle >= 0).all()
    again = task.sample(300, r, torch.Generator().manual_seed(r))[0]
    assert torch.equal(again, tokens)


def test_memorize_is_a_fixed_training_set():
    task = get_task("memorize", 40, seq_length=3, dim=4)
    x, targets, mask = task.training_set()
    gx, gy = gaussian_memorization(MemorizationSize(40, 3, 4), 0)
    assert torch.equal(x, torch.from_numpy(gx).float())
    assert (targets[:, -1].numpy() == (gy > 0)).all() and mask[:, -1].all()
    bx, bt, _ = task.sample(16, 40, torch.Generator().manual_seed(0))
    gx32 = gx.astype(np.float32)
    rows = [int(np.flatnonzero((gx32 == row.numpy()[None]).all((1, 2)))[0]) for row in bx]
    assert len(set(rows)) == 16  # distinct training examples, with their labels
    assert (bt[:, -1].numpy() == (gy[rows] > 0)).all()
    assert task.input_dim() == 4 and get_task("length2-path", 4).input_dim() is None
    assert len(task.training_set(10)[0]) == 10


def test_bad_options():
    with pytest.raises(InputError, match="no option"):
        get_task("memorize", 8, middle=2)
    with pytest.raises(InputError, match="middle"):
        get_task("length2-path", 8, middle=-1)


def test_chance_on_a_fixed_set_is_its_majority_label_exactly():
    task = get_task("memorize", 40, seq_length=3, dim=4)
    _, gy = gaussian_memorization(MemorizationSize(40, 3, 4), 0)
    positive = float((gy > 0).mean())
    assert task.chance(40) == {"accuracy": max(positive, 1 - positive), "examples": None}
