"""Fixtures shared by the training and sweep tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from simulations.store import stored_count


@pytest.fixture
def one_thread():
    """Tiny models run fastest on one torch thread, above all on a busy machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def stored_runs() -> Callable[[Path], int]:
    """Rows in a results store's ``runs`` table (0 before the store or its table exists), read
    with a connection of its own while another process writes."""

    return stored_count


TINY_SWEEP = """
[baseline]
task = "index-lookup"
width = 8
layers = 1
heads = 2
steps = 30
batch = 16
eval_every = 10
eval_samples = 50

[grid]
arch = ["transformer", "lstm"]
length = [6]
lr = [3e-3, 1e-2]
seed = [0, 1]
"""


@pytest.fixture
def tiny_sweep(tmp_path) -> Path:
    """A spec of 8 real runs of seconds each: 2 architectures, each 2 learning rates x 2 seeds."""
    path = tmp_path / "spec.toml"
    path.write_text(TINY_SWEEP)
    return path
