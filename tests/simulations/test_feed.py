"""The batch feed: worker processes draw exactly the batches an ensemble's own process draws."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from simulations import ensemble, feed
from simulations.checkpoints import load_checkpoint
from simulations.ensemble import _batches, train_ensemble
from simulations.feed import BatchFeed, feed_workers
from simulations.tasks import get_task
from simulations.training import TrainConfig

BASE = TrainConfig(
    task="index-lookup", arch="transformer", width=8, layers=2, length=6, heads=2, steps=12,
    eval_every=4, eval_samples=40, batch=8,
)  # fmt: skip
CPU = torch.device("cpu")


def generators(seeds) -> list[torch.Generator]:
    return [torch.Generator().manual_seed(s) for s in seeds]


@pytest.mark.filterwarnings("ignore:This DataLoader will create")  # 3 workers on 2 cores
@pytest.mark.parametrize("workers", [1, 2, 3])
def test_the_feed_draws_the_batches_of_the_members_own_generators(workers):
    task, seeds = get_task("index-lookup", 6), [0, 5, 7]
    own, fed = generators(seeds), generators(seeds)
    source = BatchFeed(task, 8, 6, fed, workers, CPU)
    try:
        for step in range(5):
            if step == 3:  # the middle member stops: later batches have the other two only
                source.keep(torch.tensor([0, 2]))
                own = [own[0], own[2]]
            expected = _batches(task, BASE, 8, own, CPU, train=True)
            got = source.next()
            assert all(torch.equal(a, b) for a, b in zip(got, expected, strict=True)), step
        source.keep(torch.tensor([1]))  # positions among those still training: the last member
        expected = _batches(task, BASE, 8, own[1:], CPU, train=True)
        assert all(torch.equal(a, b) for a, b in zip(source.next(), expected, strict=True))
    finally:
        source.close()
    with pytest.raises(RuntimeError, match="closed"):
        source.next()


def test_a_feed_needs_one_to_members_workers():
    task = get_task("index-lookup", 6)
    for workers in (0, 3):
        with pytest.raises(ValueError, match="1 to 2 workers"):
            BatchFeed(task, 8, 6, generators([0, 1]), workers, CPU)


def test_only_long_ensembles_on_a_gpu_draw_in_workers_out_of_their_cores(monkeypatch):
    cuda = torch.device("cuda")
    monkeypatch.setattr(torch, "get_num_threads", lambda: 16)
    assert feed_workers(CPU, 16, 10_000) == 0
    assert feed_workers(cuda, 16, feed.MIN_MEMBER_STEPS // 16 - 1) == 0
    assert feed_workers(cuda, 16, 10_000) == feed.MAX_WORKERS
    assert feed_workers(cuda, 2, 10_000) == 2  # never more workers than members
    monkeypatch.setattr(torch, "get_num_threads", lambda: 1)  # one of a pool's many workers
    assert feed_workers(cuda, 16, 10_000) == 0
    monkeypatch.setattr(torch, "get_num_threads", lambda: 3)
    assert feed_workers(cuda, 16, 10_000) == 2  # one core stays with the training process


def test_an_ensemble_fed_by_workers_trains_as_one_that_draws_its_own(monkeypatch, tmp_path):
    """Same curves, steps and weights, with a member that stops early (the feed drops it)."""
    configs = [
        dataclasses.replace(BASE, lr=lr, seed=seed, target=target)
        for lr, seed, target in ((3e-3, 0, 1.0), (1e-2, 1, 0.01), (1e-3, 2, 1.0))
    ]
    own = train_ensemble(configs, checkpoint_dir=tmp_path / "own", device="cpu")
    monkeypatch.setattr(ensemble, "feed_workers", lambda device, members, steps: 2)
    fed = train_ensemble(configs, checkpoint_dir=tmp_path / "fed", device="cpu")
    assert [r["steps"] for r in fed] == [12, 4, 12]
    for a, b in zip(own, fed, strict=True):
        assert (a["steps"], a["curve"]) == (b["steps"], b["curve"])
        weights_a = load_checkpoint(a["checkpoint"])[0].state_dict()
        weights_b = load_checkpoint(b["checkpoint"])[0].state_dict()
        assert all(torch.equal(weights_b[n], v) for n, v in weights_a.items())


def test_a_feed_that_cannot_start_leaves_the_drawing_to_the_process(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("daemonic processes are not allowed to have children")

    monkeypatch.setattr(ensemble, "feed_workers", lambda device, members, steps: 2)
    monkeypatch.setattr(ensemble, "BatchFeed", refuse)
    configs = [dataclasses.replace(BASE, seed=s) for s in (0, 1)]
    with pytest.warns(RuntimeWarning, match="drawing the batches in this process"):
        fed = train_ensemble(configs, device="cpu")
    assert [r["steps"] for r in fed] == [12, 12]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_on_the_gpu_a_fed_ensemble_learns_as_one_that_draws_its_own(monkeypatch):
    configs = [dataclasses.replace(BASE, steps=48, eval_every=16, seed=s) for s in (0, 1, 2)]
    own = train_ensemble(configs, device="cuda")
    monkeypatch.setattr(ensemble, "feed_workers", lambda device, members, steps: 2)
    fed = train_ensemble(configs, device="cuda")
    for a, b in zip(own, fed, strict=True):
        assert a["steps"] == b["steps"]
        for (step_a, acc_a), (step_b, acc_b) in zip(a["curve"], b["curve"], strict=True):
            assert step_a == step_b and abs(acc_a - acc_b) <= 0.05


def test_integers_travel_as_int16_only_where_they_fit():
    small, large = torch.tensor([[-(2**15), 2**15 - 1]]), torch.tensor([[0, 2**15]])
    assert feed._narrow(small).dtype == torch.int16
    assert torch.equal(feed._narrow(small).long(), small)
    assert feed._narrow(large) is large
    vectors = torch.randn(2, 3)
    assert feed._narrow(vectors) is vectors
