"""Sweeps: a TOML spec of training runs, validated whole, run in parallel, resumable.

A spec is data (ARCHITECTURE.md, "Sweeps")::

    [sweep]                      # optional
    name = "fig2-index-lookup"
    description = "..."
    target = 0.99                # accuracy target; copied into every run's `target` field

    [baseline]                   # TrainConfig fields shared by every run
    steps = 2000
    eval_samples = 1000

    [grid]                       # lists; the runs are their cartesian product over the baseline
    task = ["index-lookup"]
    arch = ["transformer", "lstm"]
    length = [20, 50, 100]
    lr = [1e-3, 1e-4]

    [[grid.include]]             # optional sub-grids (see below)
    arch = "transformer"
    layers = [1, 2]

Without ``[[grid.include]]`` tables the runs are the product of the ``[grid]`` lists.  With them,
each include is its own sub-grid: its values (a scalar or a list per field) are crossed with
the ``[grid]`` lists it does not name, and the runs are the union of the sub-grids (an empty
include stands for the plain ``[grid]``).  This is how architectures get their own widths and
depths.  Runs that come out identical are kept once.

Everything is checked before the first run starts: unknown tables or keys, unknown tasks or
architectures, empty lists, wrong types, and each run's config as ``TrainConfig`` validates it.

Checkpoints: every trained model is saved as ``{config_hash}.pt`` into a folder beside the store
(``results/quick.db`` -> ``results/quick_checkpoints/``, see :func:`checkpoint_folder`), and the
store's ``checkpoint`` column holds its path as the trainer reports it (relative when the store
path is relative, so ``ccx protocol ... --checkpoint PATH`` works from the same directory).

Running: configs whose hash is already in the results store are skipped, so an interrupted sweep
(even by SIGKILL) is resumed by running it again.  The rest are grouped into ensembles
(:mod:`simulations.ensemble`: configs that differ only in learning rate, seed and target train
together as one batched model, at most ``ensemble`` per group) and run in a local process pool
sized to the machine's cores (inline with ``workers=1``), or on Ray with ``backend="ray"``.  Each
result is written to the store as soon as it arrives, by the parent process only; an ensemble's
members arrive one by one as they stop, so a killed ensemble keeps its finished members.  Pool
workers are started with the "spawn" method (no worker inherits torch's thread pools), so a script
that calls :func:`run_sweep` with more than one worker needs the usual ``if __name__ ==
"__main__":`` guard.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import itertools
import json
import multiprocessing
import os
import queue
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccomplexity import typed
from ccomplexity.errors import InputError
from simulations.store import DEFAULT_STORE, Store

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

BACKENDS = ("local", "ray")
DEFAULT_ENSEMBLE = 16
"""Most members per ensemble when ``ensemble`` is not given (the real trainer only)."""
RAY_TASKS_PER_GPU = 4
"""Ray tasks (runs or ensembles) sharing one GPU of the cluster."""
_SWEEP_KEYS = ("name", "description", "target")
_TABLES = ("sweep", "baseline", "grid")

TrainFn = Callable[..., dict]
"""``train(config, checkpoint_dir=..., progress=False) -> result dict``, as
``simulations.training.train``: it saves the trained model into ``checkpoint_dir`` (a path or
None) and reports where under the result's ``checkpoint`` key (None when nothing was saved)."""

EnsembleFn = Callable[..., list]
"""``ensemble_fn(configs, checkpoint_dir=..., on_result=...) -> [result dict, ...]``, as
``simulations.ensemble.train_ensemble``: one result per config, each also passed to
``on_result`` as soon as that member stops."""


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: its name, description, target and every run's config, in order."""

    name: str
    description: str
    target: float | None
    source: str
    configs: tuple[Any, ...]

    def hashes(self) -> list[str]:
        return [c.config_hash() for c in self.configs]


# -- locating and reading specs ----------------------------------------------------------------


def profiles() -> list[str]:
    """Names of the sweep profiles shipped in ``simulations/profiles``."""
    folder = importlib.resources.files("simulations") / "profiles"
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def _read_toml(name_or_path: str | Path) -> tuple[dict[str, Any], str, str]:
    """The parsed TOML of a spec file, or of a shipped profile named ``name_or_path``, with
    where it came from and a default sweep name (the file's stem or the profile's name)."""
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        if not path.is_file():
            raise InputError(f"no sweep spec file {str(path)!r}")
        text, source, name = path.read_text(encoding="utf-8"), str(path), path.stem
    else:
        name = str(name_or_path)
        resource = importlib.resources.files("simulations") / "profiles" / f"{name}.toml"
        if not resource.is_file():
            raise InputError(
                f"no sweep spec {name!r}: not a file and not a profile "
                f"(profiles: {', '.join(profiles())})"
            )
        text, source = resource.read_text(encoding="utf-8"), f"profile {name}"
    try:
        return tomllib.loads(text), source, name
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{source}: invalid TOML: {err}") from None


# -- validation --------------------------------------------------------------------------------


def _train_config_class() -> type:
    from simulations.training import TrainConfig

    return TrainConfig


def _type_name(value: object) -> str:
    return type(value).__name__


def _check_value(where: str, key: str, value: object, expected: Any) -> object:
    """``value`` checked as field ``key`` of type ``expected``, and known task and arch names."""
    name = where if where.endswith(f".{key}") else f"{where} {key}"
    value = typed.check_value(name, value, expected)
    if key == "task":
        from simulations.tasks import TASKS

        if value not in TASKS:
            raise InputError(f"{where}: unknown task {value!r}; known: {', '.join(TASKS)}")
    if key == "arch":
        from models import REGISTRY

        if value not in REGISTRY:
            raise InputError(
                f"{where}: unknown architecture {value!r}; known: {', '.join(REGISTRY)}"
            )
    return value


def _check_keys(where: str, table: Mapping[str, Any], known: Sequence[str]) -> None:
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r}; known: {', '.join(known)}")


def _check_table(where: str, value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where} must be a table, got {_type_name(value)}")
    return value


def _axes(
    where: str, table: Mapping[str, Any], types: Mapping[str, Any], lists_only: bool
) -> dict[str, list[object]]:
    """Grid axes: each key's values as a checked, non-empty list without repeats."""
    _check_keys(where, table, list(types))
    axes = {}
    for key, values in table.items():
        if not isinstance(values, list):
            if lists_only:
                raise InputError(f"{where}.{key} must be a list, got {values!r}")
            values = [values]
        if not values:
            raise InputError(f"{where}.{key} is an empty list")
        checked = [_check_value(f"{where}.{key}", key, v, types[key]) for v in values]
        if len(set(map(repr, checked))) != len(checked):
            raise InputError(f"{where}.{key} lists a value twice: {values!r}")
        axes[key] = checked
    return axes


def _points(axes: Mapping[str, list[object]]) -> Iterator[dict[str, object]]:
    keys = list(axes)
    for values in itertools.product(*(axes[k] for k in keys)):
        yield dict(zip(keys, values, strict=True))


def parse_spec(
    data: Mapping[str, Any],
    source: str = "spec",
    default_name: str = "sweep",
) -> SweepSpec:
    """Validate a parsed spec and expand its grid into configs (see the module docstring).

    ``source`` names the spec in error messages; each point is checked by ``TrainConfig``.
    """
    config_cls = _train_config_class()
    types = typed.field_types(config_cls)
    _check_keys(source, data, _TABLES)
    sweep = _check_table(f"{source}: [sweep]", data.get("sweep", {}))
    _check_keys(f"{source}: [sweep]", sweep, _SWEEP_KEYS)
    name = _check_value(f"{source}: [sweep]", "name", sweep.get("name", default_name), str)
    description = _check_value(
        f"{source}: [sweep]", "description", sweep.get("description", ""), str
    )
    target = sweep.get("target")
    if target is not None:
        target = _check_value(f"{source}: [sweep]", "target", target, float)
        if not 0 < target <= 1:
            raise InputError(f"{source}: [sweep] target must be in (0, 1], got {target}")

    baseline = _check_table(f"{source}: [baseline]", data.get("baseline", {}))
    _check_keys(f"{source}: [baseline]", baseline, list(types))
    base = {k: _check_value(f"{source}: [baseline]", k, v, types[k]) for k, v in baseline.items()}
    if target is not None:
        if "target" in base and base["target"] != target:
            raise InputError(
                f"{source}: [sweep] target {target} disagrees with "
                f"[baseline] target {base['target']}"
            )
        base["target"] = target

    grid = dict(_check_table(f"{source}: [grid]", data.get("grid", {})))
    includes = grid.pop("include", None)
    shared = _axes(f"{source}: [grid]", grid, types, lists_only=True)
    if includes is None:
        blocks = [shared]
    else:
        if not isinstance(includes, list) or not includes:
            raise InputError(f"{source}: grid.include must be a non-empty array of tables")
        blocks = []
        for i, include in enumerate(includes, 1):
            where = f"{source}: [[grid.include]] #{i}"
            own = _axes(where, _check_table(where, include), types, lists_only=False)
            blocks.append({**shared, **own})

    required = [f.name for f in dataclasses.fields(config_cls) if typed.required(f)]
    configs, seen = [], set()
    for block in blocks:
        # the product varies the config's later fields fastest: task, arch, ... length, lr, seed
        block = {k: block[k] for k in types if k in block}
        for point in _points(block):
            fields = {**base, **point}
            missing = [k for k in required if k not in fields]
            if missing:
                raise InputError(
                    f"{source}: no value for {missing[0]!r} (set it in [baseline] or [grid])"
                )
            try:
                config = config_cls(**fields)
            except InputError as err:
                raise InputError(f"{source}: run {json.dumps(fields)}: {err}") from None
            key = config.config_hash()
            if key not in seen:
                seen.add(key)
                configs.append(config)
    if not configs:
        raise InputError(f"{source}: the grid has no runs")
    return SweepSpec(
        name=name,
        description=description,
        target=target,
        source=source,
        configs=tuple(configs),
    )


def load_spec(name_or_path: str | Path) -> SweepSpec:
    """The validated sweep in a TOML file, or in the shipped profile of that name (``smoke``,
    ``quick``, ``paper``)."""
    data, source, name = _read_toml(name_or_path)
    return parse_spec(data, source, default_name=name)


# -- running -----------------------------------------------------------------------------------


def default_workers() -> int:
    """Cores this process may use (its CPU affinity where the OS reports one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _limit_threads(threads: int) -> None:
    """Give a pool worker its share of the cores (before torch is imported)."""
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def checkpoint_folder(store_path: str | Path) -> Path:
    """Where a sweep into ``store_path`` saves its models: ``<store without suffix>_checkpoints``
    beside it (``results/quick.db`` -> ``results/quick_checkpoints``)."""
    path = Path(store_path)
    return path.with_name(f"{path.stem}_checkpoints")


def _writable_folder(folder: str) -> None:
    """Create ``folder`` (and its parents) or raise InputError if models cannot be saved there."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the checkpoint folder {folder}: {err.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot write checkpoints into {folder}: permission denied")


_WORKER_QUEUE: Any = None
"""In a pool worker: the queue on which finished ensemble members go to the parent."""


def _init_worker(threads: int, results: Any) -> None:
    """Pool initializer: the worker's share of the cores, and the queue for members' results."""
    global _WORKER_QUEUE
    _limit_threads(threads)
    _WORKER_QUEUE = results


def _to_parent(result: dict) -> None:
    _WORKER_QUEUE.put(result)


def _train_unit(
    train_fn: TrainFn,
    ensemble_fn: EnsembleFn | None,
    configs: list[Any],
    checkpoint_dir: str | None,
    on_result: Callable[[dict], None] | None = None,
) -> list[dict]:
    """One unit of work: a single run (``train_fn``) or an ensemble (``ensemble_fn``), whose
    members go to ``on_result`` as they stop."""
    if len(configs) == 1:
        return [train_fn(configs[0], checkpoint_dir=checkpoint_dir, progress=False)]
    return ensemble_fn(configs, checkpoint_dir=checkpoint_dir, on_result=on_result)


def _checked(result: dict, config: Any, expected_hash: str) -> dict:
    """The trainer's result, its config and hash filled in or checked against the plan."""
    if not isinstance(result, dict):
        raise TypeError(f"train function returned {type(result).__name__}, not a dict")
    result = dict(result)
    result.setdefault("config", config.to_dict())
    result.setdefault("config_hash", expected_hash)
    if result["config_hash"] != expected_hash:
        raise RuntimeError(
            f"trainer reported config hash {result['config_hash']} for a run planned as "
            f"{expected_hash}; the store would never see this run as done"
        )
    return result


class _Reporter:
    """One line per finished run on stderr when ``progress`` is on."""

    def __init__(self, total: int, skipped: int, enabled: bool) -> None:
        self.total, self.done, self.enabled = total, skipped, enabled
        self.start = time.perf_counter()

    def __call__(self, config: Any, result: dict | None, error: str | None = None) -> None:
        self.done += 1
        if not self.enabled:
            return
        what = f"{config.task} {config.arch} w={config.width} L={config.layers} N={config.length}"
        outcome = error or f"best acc {result['best_accuracy']:.3f}"  # type: ignore[index]
        elapsed = time.perf_counter() - self.start
        print(
            f"[{self.done}/{self.total}] {what} lr={config.lr:g} seed={config.seed}: "
            f"{outcome} ({elapsed:.0f}s)",
            file=sys.stderr,
            flush=True,
        )


def run_sweep(
    spec: str | Path | SweepSpec,
    store_path: str | Path = DEFAULT_STORE,
    workers: int | None = None,
    backend: str = "local",
    train_fn: TrainFn | None = None,
    progress: bool = True,
    checkpoint_dir: str | Path | None = None,
    ensemble: int | None = None,
    ensemble_fn: EnsembleFn | None = None,
) -> dict[str, Any]:
    """Run every config of ``spec`` (a file, a profile name or a SweepSpec) not yet in the store.

    ``workers``: processes for the local backend (default: the cores available; 1 runs inline
    in this process).  ``train_fn`` defaults to ``simulations.training.train``; it is called as
    ``train_fn(config, checkpoint_dir=..., progress=False)`` and must be importable by name
    (pool workers unpickle it).  ``ensemble`` caps the members of one ensemble (1: every run
    alone; default :data:`DEFAULT_ENSEMBLE`, or 1 with a custom ``train_fn`` and no
    ``ensemble_fn``); ensembles train through ``ensemble_fn``, by default
    ``simulations.ensemble.train_ensemble``.  Models are saved into ``checkpoint_dir``, by
    default :func:`checkpoint_folder` of the store, and the store records each run's checkpoint
    path.  A run that raises is reported in ``failed`` and left out of the store, so running the
    sweep again retries it.  Returns a JSON-ready summary.
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise InputError(f"workers must be an integer >= 1, got {workers!r}")
    if ensemble is not None and (
        isinstance(ensemble, bool) or not isinstance(ensemble, int) or ensemble < 1
    ):
        raise InputError(f"ensemble must be an integer >= 1, got {ensemble!r}")
    sweep = spec if isinstance(spec, SweepSpec) else load_spec(spec)
    if backend == "ray":
        ray = _import_ray()
    if ensemble is None:
        ensemble = 1 if train_fn is not None and ensemble_fn is None else DEFAULT_ENSEMBLE
    if train_fn is None:
        from simulations.training import train as train_fn
    if ensemble_fn is None:
        from simulations.ensemble import train_ensemble as ensemble_fn

    folder = str(checkpoint_folder(store_path) if checkpoint_dir is None else checkpoint_dir)
    _writable_folder(folder)  # before any run trains (and before the store is created)
    start = time.perf_counter()
    failed: list[dict[str, str]] = []
    with Store(store_path) as store:
        done = store.done_hashes()
        pending = [
            (h, c) for h, c in zip(sweep.hashes(), sweep.configs, strict=True) if h not in done
        ]
        skipped = len(sweep.configs) - len(pending)
        report = _Reporter(len(sweep.configs), skipped, progress)
        stored = 0

        finished: set[str] = set()
        planned = dict(pending)

        def finish(key: str, config: Any, outcome: dict | BaseException) -> None:
            nonlocal stored
            if key in finished:
                return
            finished.add(key)
            if isinstance(outcome, BaseException):
                message = f"{type(outcome).__name__}: {outcome}".splitlines()[0]
                failed.append({"config_hash": key, "config": config.to_dict(), "error": message})
                report(config, None, f"FAILED {message}")
                return
            stored += store.add_run(_checked(outcome, config, key))
            report(config, outcome)

        def member(result: dict) -> None:
            """An ensemble member that stopped: stored at once."""
            key = result.get("config_hash") if isinstance(result, dict) else None
            if key in planned:
                finish(key, planned[key], result)

        def deliver(unit: list[tuple[str, Any]], outcome: list | BaseException) -> None:
            """A unit's end: every member not yet finished gets its result or the error."""
            if not isinstance(outcome, BaseException) and len(unit) == 1:
                finish(*unit[0], outcome[0])
                return
            results = {}
            if not isinstance(outcome, BaseException):
                results = {r.get("config_hash"): r for r in outcome if isinstance(r, dict)}
            for key, config in unit:
                missing = RuntimeError("the ensemble returned no result for this run")
                finish(key, config, outcome if isinstance(outcome, BaseException)
                       else results.get(key, missing))  # fmt: skip

        processes = min(workers or default_workers(), len(pending))
        from simulations.ensemble import plan_units

        units = plan_units(pending, ensemble, processes if backend == "local" else 1)
        if pending and backend == "ray":
            _run_ray(ray, units, train_fn, ensemble_fn, folder, member, deliver)
        elif processes == 1:
            for unit in units:
                try:
                    outcome: list | BaseException = _train_unit(
                        train_fn, ensemble_fn, [c for _, c in unit], folder, member
                    )
                except Exception as err:  # noqa: BLE001 - reported in the summary, retried later
                    outcome = err
                deliver(unit, outcome)
        elif processes > 1:
            _run_pool(processes, units, train_fn, ensemble_fn, folder, member, deliver)
        total_stored = len(store)

    return {
        "sweep": sweep.name,
        "source": sweep.source,
        "store": str(store_path),
        "checkpoints": folder,
        "backend": backend,
        "runs": len(sweep.configs),
        "skipped": skipped,
        "ran": stored,
        "failed": failed,
        "stored_total": total_stored,
        "wall_seconds": round(time.perf_counter() - start, 3),
    }


def _run_pool(
    workers: int,
    units: list[list[tuple[str, Any]]],
    train_fn: TrainFn,
    ensemble_fn: EnsembleFn,
    checkpoint_dir: str,
    member: Callable[[dict], None],
    deliver: Callable[[list[tuple[str, Any]], list | BaseException], None],
) -> None:
    """Local process pool; spawn start method, so that no worker inherits torch's threads.
    Ensemble members come back on a queue as they stop, the rest with their unit's end."""
    threads = max(1, default_workers() // workers)
    context = multiprocessing.get_context("spawn")
    results = context.Queue()

    def drain() -> None:
        while True:
            try:
                member(results.get_nowait())
            except queue.Empty:
                return

    with ProcessPoolExecutor(workers, context, _init_worker, (threads, results)) as pool:
        futures: dict[Future, list[tuple[str, Any]]] = {
            pool.submit(_train_unit, train_fn, ensemble_fn, [c for _, c in unit], checkpoint_dir,
                        _to_parent): unit
            for unit in units
        }  # fmt: skip
        try:
            while futures:
                done, _ = wait(futures, timeout=0.5, return_when=FIRST_COMPLETED)
                drain()
                for future in done:
                    unit = futures.pop(future)
                    error = future.exception()
                    deliver(unit, error if error is not None else future.result())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _import_ray():
    try:
        import ray
    except ImportError:
        raise InputError("backend 'ray' needs Ray: pip install 'ccomplexity[ray]'") from None
    return ray


def _run_ray(
    ray: Any,
    units: list[list[tuple[str, Any]]],
    train_fn: TrainFn,
    ensemble_fn: EnsembleFn,
    checkpoint_dir: str,
    member: Callable[[dict], None],
    deliver: Callable[[list[tuple[str, Any]], list | BaseException], None],
) -> None:
    """Ray tasks on the cluster ``ray.init()`` connects to (RAY_ADDRESS, else a local one).
    Ensemble members come back through a Ray queue as they stop, the rest with their task. On a
    cluster with GPUs each task asks for 1 / RAY_TASKS_PER_GPU of one (Ray hides the GPUs from
    tasks that ask for none)."""
    if not ray.is_initialized():
        ray.init()
    results = None
    if any(len(unit) > 1 for unit in units):
        from ray.util.queue import Queue

        results = Queue()
    if ray.cluster_resources().get("GPU", 0):
        remote = ray.remote(num_gpus=1 / RAY_TASKS_PER_GPU)(_train_unit)
    else:
        remote = ray.remote(_train_unit)
    refs = {
        remote.remote(train_fn, ensemble_fn, [c for _, c in unit], checkpoint_dir,
                      None if results is None else results.put): unit
        for unit in units
    }  # fmt: skip
    while refs:
        if results is None:
            ready, _ = ray.wait(list(refs), num_returns=1)
        else:
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=0.5)
            while not results.empty():
                member(results.get())
        for ref in ready:
            unit = refs.pop(ref)
            try:
                outcome: list | BaseException = ray.get(ref)
            except Exception as err:  # noqa: BLE001 - a failed task is reported, not fatal
                outcome = err
            deliver(unit, outcome)
