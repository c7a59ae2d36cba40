"""An ensemble's training batches drawn ahead in worker processes.

On a GPU a captured ensemble step takes 1-3 ms, while drawing 16 members' batches on the host
takes 2-4 ms (``benchmarks/results/gpu_profile.md``): tens of small torch ops per member, which
threads cannot share (they hold the interpreter lock). :class:`BatchFeed` moves that work into a
few processes (``torch.utils.data.DataLoader`` workers), each drawing the batches of a contiguous
slice of the members from their own generators, a few steps ahead of the GPU. The batches are
exactly the ones :func:`simulations.ensemble._batches` draws: the same generators in the same
states, each used by one process only. A member that stops is dropped from every later batch;
its generator, no longer read, may run a few batches ahead.

:func:`feed_workers` decides how many processes: only on a GPU, only for ensembles whose data
take long enough to repay the processes' start (a fork, well under a second), and only out of
the process's share of the cores (``torch.get_num_threads()``, which a sweep's local pool sets
to cores / workers), keeping one core for the process itself.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from torch import Tensor
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

Batch = tuple[Tensor, Tensor, Tensor]

MAX_WORKERS = 4
"""The most processes one ensemble draws its batches in."""
MIN_MEMBER_STEPS = 4000
"""Ensembles with fewer members x steps draw their batches in their own process."""
STEPS_PER_ITEM = 8
"""Steps' batches a worker process hands over at once: each hand-over costs the receiving
process a fraction of a millisecond per tensor (shared memory, file descriptors), so it is
paid once for several steps."""
AHEAD = 2
"""Hand-overs each worker process keeps ready."""


def feed_workers(device: torch.device, members: int, steps: int) -> int:
    """Processes to draw an ensemble's batches in (0: its own process); see the module's note."""
    if device.type != "cuda" or members * steps < MIN_MEMBER_STEPS:
        return 0
    return max(0, min(MAX_WORKERS, members, torch.get_num_threads() - 1))


class _Slices(IterableDataset):
    """In worker ``w`` of ``k``: the batches of members ``bounds[w]:bounds[w + 1]`` for the next
    :data:`STEPS_PER_ITEM` steps, stacked (steps, members, batch, T, ...), for ever."""

    def __init__(
        self, task: Any, batch: int, length: int, states: list[Tensor], bounds: list[int]
    ) -> None:
        self.task, self.batch, self.length = task, batch, length
        self.states, self.bounds = states, bounds

    def __iter__(self) -> Iterator[Batch]:
        info = get_worker_info()
        w = 0 if info is None else info.id
        generators = [
            torch.Generator().set_state(s) for s in self.states[self.bounds[w] : self.bounds[w + 1]]
        ]
        while True:
            steps = []
            for _ in range(STEPS_PER_ITEM):
                parts = [
                    self.task.sample(self.batch, self.length, g, train=True) for g in generators
                ]
                steps.append([torch.stack(t) for t in zip(*parts, strict=True)])
            yield tuple(_narrow(torch.stack(t)) for t in zip(*steps, strict=True))  # type: ignore[misc]


def _narrow(t: Tensor) -> Tensor:
    """Integers as int16 where they fit: the hand-over's cost grows with its bytes (fresh shared
    memory, page by page), and token ids and targets are small."""
    if t.dtype in (torch.int64, torch.int32) and t.numel():
        low, high = torch.aminmax(t)
        if int(low) >= -(2**15) and int(high) < 2**15:
            return t.to(torch.int16)
    return t


class BatchFeed:
    """The members' training batches from ``workers`` processes, in member order, each step's
    as one (members, batch, T) triple on ``device`` (pinned and copied without waiting on a
    GPU). The generators' states are taken now: the caller must not draw from them after."""

    def __init__(
        self, task: Any, batch: int, length: int, generators: Sequence[torch.Generator],
        workers: int, device: torch.device,
    ) -> None:  # fmt: skip
        members = len(generators)
        if not 1 <= workers <= members:
            raise ValueError(f"a feed of {members} members needs 1 to {members} workers")
        bounds = [members * w // workers for w in range(workers + 1)]
        states = [g.get_state() for g in generators]
        probe = task.sample(1, length, torch.Generator().manual_seed(0), train=True)
        self.dtypes = [t.dtype for t in probe]  # what _narrow's int16 goes back to
        loader = DataLoader(
            _Slices(task, batch, length, states, bounds),
            batch_size=None,
            num_workers=workers,
            prefetch_factor=AHEAD,
        )
        with warnings.catch_warnings():  # a fork from a process with CUDA's threads running
            warnings.filterwarnings("ignore", message=".*multi-threaded.*fork", category=Warning)
            self._batches: Iterator[Batch] | None = iter(loader)
        self.workers, self.device = workers, device
        self.rows: Tensor | None = None  # the members still training (None: all)
        self._ready: list[Batch] = []  # each worker's (steps, members, ...) triple
        self._used = STEPS_PER_ITEM

    def next(self) -> Batch:
        """The next step's batches of the members still training."""
        if self._batches is None:
            raise RuntimeError("this feed is closed")
        if self._used == STEPS_PER_ITEM:
            self._ready = [next(self._batches) for _ in range(self.workers)]
            self._used = 0
        step, self._used = self._used, self._used + 1
        batch = tuple(
            (torch.cat([t[step] for t in ts]) if len(ts) > 1 else ts[0][step]).to(dtype)
            for ts, dtype in zip(zip(*self._ready, strict=True), self.dtypes, strict=True)
        )
        if self.rows is not None:
            batch = tuple(t[self.rows] for t in batch)
        if self.device.type == "cuda":
            return tuple(t.pin_memory().to(self.device, non_blocking=True) for t in batch)  # type: ignore[return-value]
        return batch  # type: ignore[return-value]

    def keep(self, index: Tensor) -> None:
        """Keep the members at positions ``index`` (1-d, in order) of those still training."""
        self.rows = index.cpu() if self.rows is None else self.rows[index.cpu()]

    def close(self) -> None:
        """Stop the worker processes (the iterator's shutdown)."""
        self._batches = None
