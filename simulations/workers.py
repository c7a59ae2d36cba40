"""Where a sweep's runs train: inline or in a pool of worker processes that die with the sweep,
each run under a lease in the results store.

- :func:`run_leased` claims each pending run in the store (:meth:`simulations.store.Store.claim`)
  just before it starts, at most one per free worker, so that sweeps running at once on one
  store share the work; runs another live sweep holds are looked at again until it stores them
  or dies. :class:`KeepLeases` renews this sweep's leases from a thread while it runs.
- :class:`_Pool` workers are started with the "spawn" method (no worker inherits torch's thread
  pools; a script that runs a sweep with more than one worker needs the usual
  ``if __name__ == "__main__":`` guard) and die with the sweep, however it ends (``kill -9``
  included): :func:`_die_with_parent`. Their checkpoints are written atomically
  (:func:`ccomplexity.files.atomic_open`), so two writers of one path never mix their bytes.
"""

from __future__ import annotations

import abc
import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from simulations.store import Store

TrainFn = Callable[..., dict]
"""``train(config, checkpoint_dir=..., progress=False) -> result dict``, as
``simulations.training.train``: it saves the trained model into ``checkpoint_dir`` (a path or
None) and reports where under the result's ``checkpoint`` key (None when nothing was saved)."""
Outcome = tuple[str, Any, dict | BaseException]
"""A finished run: its config hash, its config, and its result or the exception it raised."""
Finish = Callable[[str, Any, dict | BaseException], None]

LEASE_SECONDS = 60.0
"""A run's lease lasts this long unless renewed; a sweep renews its leases three times as often.
A lease of a process that has died on this host is void at once."""
POLL_SECONDS = 1.0
"""How often a sweep whose remaining runs are all leased by other sweeps looks again."""


def default_workers() -> int:
    """Cores this process may use (its CPU affinity where the OS reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def train_one(train_fn: TrainFn, config: Any, checkpoint_dir: str | None) -> dict:
    return train_fn(config, checkpoint_dir=checkpoint_dir, progress=False)


def runner(processes: int, train_fn: TrainFn, checkpoint_dir: str) -> _Runner:
    """Inline for one process, else a pool of ``processes`` workers."""
    if processes == 1:
        return _Inline(train_fn, checkpoint_dir)
    return _Pool(processes, train_fn, checkpoint_dir)


def run_leased(
    store: Store, owner: str, pending: list[tuple[str, Any]], runner: _Runner, finish: Finish
) -> int:
    """Claim each pending run (a lease) and start it while the runner has room; runs that
    another live sweep holds are left to it and looked at again until that sweep stores them
    or dies. Returns how many pending runs other sweeps stored."""
    queue, shared = list(pending), 0
    while queue or runner.busy:
        waiting = []
        for key, config in queue:
            state = "waiting" if runner.full else store.claim(key, owner, LEASE_SECONDS)
            if state == "claimed":
                runner.start(key, config)
            elif state == "stored":
                shared += 1
            else:
                waiting.append((key, config))
        queue = waiting
        if runner.busy:
            for key, config, outcome in runner.collect(POLL_SECONDS if queue else None):
                finish(key, config, outcome)
        elif queue:
            time.sleep(POLL_SECONDS)  # every remaining run is another sweep's for now
    return shared


class _Runner(abc.ABC):
    """Where runs train: :class:`_Inline` (this process) or :class:`_Pool` (worker processes).
    ``busy``: runs started and not yet collected; ``full``: no room to start another."""

    def __enter__(self) -> _Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    @property
    @abc.abstractmethod
    def busy(self) -> bool: ...

    @property
    @abc.abstractmethod
    def full(self) -> bool: ...

    @abc.abstractmethod
    def start(self, key: str, config: Any) -> None:
        """Start training ``config`` (the run ``key``)."""

    @abc.abstractmethod
    def collect(self, timeout: float | None) -> list[Outcome]:
        """Runs finished within ``timeout`` seconds (None: at least one), with their outcome."""


class _Inline(_Runner):
    """Each run trains in this process as soon as it is started."""

    def __init__(self, train_fn: TrainFn, checkpoint_dir: str) -> None:
        self.train_fn, self.checkpoint_dir = train_fn, checkpoint_dir
        self.done: list[Outcome] = []

    @property
    def busy(self) -> bool:
        return bool(self.done)

    @property
    def full(self) -> bool:
        return bool(self.done)

    def start(self, key: str, config: Any) -> None:
        try:
            outcome: dict | BaseException = train_one(self.train_fn, config, self.checkpoint_dir)
        except Exception as err:  # noqa: BLE001 - reported in the summary, retried later
            outcome = err
        self.done.append((key, config, outcome))

    def collect(self, timeout: float | None) -> list[Outcome]:
        done, self.done = self.done, []
        return done


class _Pool(_Runner):
    """A local process pool (spawn start method, so that no worker inherits torch's threads) of
    workers that die with this process, at most one run per worker in flight."""

    def __init__(self, workers: int, train_fn: TrainFn, checkpoint_dir: str) -> None:
        threads = max(1, default_workers() // workers)
        context = multiprocessing.get_context("spawn")
        self.workers, self.train_fn, self.checkpoint_dir = workers, train_fn, checkpoint_dir
        self.pool = ProcessPoolExecutor(workers, context, _worker_init, (threads, os.getpid()))
        self.futures: dict[Future, tuple[str, Any]] = {}

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.pool.shutdown(wait=exc_type is None, cancel_futures=True)

    @property
    def busy(self) -> bool:
        return bool(self.futures)

    @property
    def full(self) -> bool:
        return len(self.futures) >= self.workers

    def start(self, key: str, config: Any) -> None:
        future = self.pool.submit(train_one, self.train_fn, config, self.checkpoint_dir)
        self.futures[future] = (key, config)

    def collect(self, timeout: float | None) -> list[Outcome]:
        finished, _ = wait(self.futures, timeout, return_when=FIRST_COMPLETED)
        out = []
        for future in finished:
            key, config = self.futures.pop(future)
            error = future.exception()
            out.append((key, config, error if error is not None else future.result()))
        return out


class KeepLeases:
    """Renews ``owner``'s leases in the store every third of :data:`LEASE_SECONDS` from a
    thread (with its own connection) while a sweep runs; gives them all up at the end."""

    def __init__(self, store_path: str | Path, owner: str) -> None:
        self.store_path, self.owner = store_path, owner
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._renew, daemon=True)

    def _renew(self) -> None:
        with Store(self.store_path) as store:
            while not self.stop.wait(LEASE_SECONDS / 3):
                store.renew(self.owner, LEASE_SECONDS)

    def __enter__(self) -> KeepLeases:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        with Store(self.store_path) as store:
            store.release(self.owner)


def _worker_init(threads: int, parent: int) -> None:
    """Pool initializer: die with the sweep, and take this worker's share of the cores (before
    torch is imported)."""
    _die_with_parent(parent)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """End this process when process ``parent`` ends, however it ends (``kill -9`` included):
    on Linux the kernel sends SIGKILL (``prctl(PR_SET_PDEATHSIG)``), elsewhere a watchdog
    thread polls the parent. A parent already gone ends this process at once."""
    armed = False
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        threading.Thread(target=watch_parent, args=(parent,), daemon=True).start()


def watch_parent(parent: int, interval: float = 1.0) -> None:
    """Poll until this process is orphaned (its parent is no longer ``parent``), then exit."""
    while os.getppid() == parent:
        time.sleep(interval)
    os._exit(1)
