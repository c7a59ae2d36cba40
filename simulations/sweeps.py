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

A ``[sweep]`` table with ``grow = "relations"``, ``grow_by`` and ``grow_to`` makes the spec a
capacity search (:mod:`simulations.capacity`): the grid gives every model at its starting
value of that field, and each model is grown round by round while it passes the target.

Without ``[[grid.include]]`` tables the runs are the product of the ``[grid]`` lists.  With them,
each include is its own sub-grid: its values (a scalar or a list per field) are crossed with
the ``[grid]`` lists it does not name, and the runs are the union of the sub-grids (an empty
include stands for the plain ``[grid]``).  This is how architectures get their own widths and
depths.  Runs that come out identical are kept once.

Everything is checked before the store or the checkpoint folder is touched: the spec file
(size, UTF-8, TOML), unknown tables or keys, unknown tasks or architectures, empty lists, wrong
types, the number of runs (more than ``limits.GRID_RUNS`` needs ``allow_large_grid``), each
run's config as ``TrainConfig`` validates it (the same limits as the ``ccx`` options, its model's
size and its batch's memory), that the store is a results store (or a new file that can be
written) and that the checkpoint folder can be written.

The module stays whole (about 750 lines): a spec's parser and its runner check the same
things in the same order, and reading them side by side is how one sees that nothing a spec can
say reaches the runner unchecked. Progress lines are :mod:`simulations.progress_lines`.

Checkpoints: every trained model is saved as ``{config_hash}.pt`` into a folder beside the store
(``results/quick.db`` -> ``results/quick_checkpoints/``, see :func:`checkpoint_folder`), and the
store's ``checkpoint`` column holds its path as the trainer reports it (relative when the store
path is relative, so ``ccx protocol ... --checkpoint PATH`` works from the same directory).

Running: configs whose hash is already in the results store are skipped, so an interrupted sweep
(even by SIGKILL) is resumed by running it again.  The rest are grouped into ensembles
(:mod:`simulations.ensemble`: configs that differ only in learning rate, seed and target train
together as one batched model, at most ``ensemble`` per group) and run in a local process pool
sized to the machine's cores (inline with ``workers=1``), or on Ray with ``backend="ray"``, each
run under a lease in the store so that sweeps on one store share the work, ensemble members
included (see :mod:`simulations.workers`).  Each result is written to the store as soon as it
arrives, by the parent process only; an ensemble's members arrive one by one as they stop, so a
killed ensemble keeps its finished members.  Pool workers die with the sweep; they are started
with the "spawn" method, so a script that calls :func:`run_sweep` with more than one worker needs
the usual ``if __name__ == "__main__":`` guard.

Spec parsing, validation and the resumable runner stay in one module: they are one file format
and its one reader; the worker processes, ensembles and the capacity search live in their own
modules.
"""

from __future__ import annotations

import importlib.resources
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccomplexity import budget, limits, typed
from ccomplexity.errors import DiskFull, InputError
from ccomplexity.files import check_folder_files, check_output_file, check_output_folder
from ccomplexity.plugins import loaded_files, not_loaded
from simulations import workers as workers_mod
from simulations.progress_lines import ProgressLines
from simulations.store import DEFAULT_STORE, Store, identify, lease_owner
from simulations.workers import EnsembleFn, TrainFn, Unit, default_workers

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

BACKENDS = ("local", "ray")
DEFAULT_ENSEMBLE = 16
"""Most members per ensemble when ``ensemble`` is not given (the real trainer only)."""
_SWEEP_KEYS = ("name", "description", "target", "grow", "grow_by", "grow_to")
_TABLES = ("sweep", "baseline", "grid")


@dataclass(frozen=True)
class Growth:
    """A capacity search (:mod:`simulations.capacity`): each model grows integer config field
    ``field`` by ``by`` from its value in the grid while the best run over its learning rates
    and seeds reaches the target, up to ``to``."""

    field: str
    by: int
    to: int


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: its name, description, target and every run's config, in order."""

    name: str
    description: str
    target: float | None
    source: str
    configs: tuple[Any, ...]
    grow: Growth | None = None

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
        data = limits.read_bytes(path, limits.SPEC_BYTES, "sweep spec file")
        source, name = str(path), path.stem
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError(f"{source}: not UTF-8 text (byte {err.start})") from None
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
        raise InputError(f"{source}: invalid TOML: {' '.join(str(err).split())}") from None
    except RecursionError:
        raise InputError(f"{source}: invalid TOML: nested too deeply") from None


# -- validation --------------------------------------------------------------------------------


def _type_name(value: object) -> str:
    return type(value).__name__


def _check_value(where: str, key: str, value: object, expected: Any) -> object:
    """``value`` checked as field ``key`` of type ``expected``, and known task and arch names."""
    name = where if where.endswith(f".{key}") else f"{where} {key}"
    value = typed.check_value(name, value, expected)
    if key == "task":  # a built-in task, or a loaded plugin's (a spec never loads one)
        from simulations.tasks import check_task

        try:
            check_task(value)
        except InputError as err:
            raise InputError(f"{where}: {err}") from None
    if key == "arch":
        import models

        try:
            models.model_class(value)
        except InputError:
            known = models.names()
            raise InputError(f"{where}: {not_loaded('architecture', value, known)}") from None
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
    allow_large_grid: bool = False,
) -> SweepSpec:
    """Validate a parsed spec and expand its grid into configs (see the module docstring).

    ``source`` names the spec in error messages; each point is checked by ``TrainConfig``
    (against the limits of :mod:`ccomplexity.limits`, as the ``ccx`` options are). A grid of
    more than ``limits.GRID_RUNS`` runs needs ``allow_large_grid``; none may have more than
    ``limits.GRID_RUNS_MOST``. Both are counted before any run is expanded.
    """
    from simulations.run_config import flat_types

    types = flat_types()
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
    grow = _growth(f"{source}: [sweep]", sweep, types)
    base = _baseline(source, data, types, target)
    blocks = _blocks(source, data, types)
    _check_grid_size(source, blocks, allow_large_grid)
    spec = SweepSpec(
        name=name,
        description=description,
        target=target,
        source=source,
        configs=_expand(source, blocks, base, types),
        grow=grow,
    )
    if grow is not None:
        from simulations.capacity import check_growth

        check_growth(spec)
    return spec


def _baseline(
    source: str, data: Mapping[str, Any], types: Mapping[str, Any], target: float | None
) -> dict[str, Any]:
    """The spec's [baseline] values, checked by type, with the sweep's target."""
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
    return base


def _blocks(source: str, data: Mapping[str, Any], types: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The grid's blocks of axes: the shared [grid] axes, each [[grid.include]] over them."""
    grid = dict(_check_table(f"{source}: [grid]", data.get("grid", {})))
    includes = grid.pop("include", None)
    shared = _axes(f"{source}: [grid]", grid, types, lists_only=True)
    if includes is None:
        return [shared]
    if not isinstance(includes, list) or not includes:
        raise InputError(f"{source}: grid.include must be a non-empty array of tables")
    blocks = []
    for i, include in enumerate(includes, 1):
        where = f"{source}: [[grid.include]] #{i}"
        own = _axes(where, _check_table(where, include), types, lists_only=False)
        blocks.append({**shared, **own})
    return blocks


def _expand(
    source: str,
    blocks: list[dict[str, Any]],
    base: Mapping[str, Any],
    types: Mapping[str, Any],
) -> tuple[Any, ...]:
    """Every point of every block over ``base``, each a checked TrainConfig, once each."""
    from simulations.run_config import REQUIRED, TrainConfig

    configs, seen = [], set()
    for block in blocks:
        # the product varies the config's later fields fastest: task, arch, ... length, lr, seed
        block = {k: block[k] for k in types if k in block}
        for point in _points(block):
            fields = {**base, **point}
            missing = [k for k in REQUIRED if k not in fields]
            if missing:
                raise InputError(
                    f"{source}: no value for {missing[0]!r} (set it in [baseline] or [grid])"
                )
            try:
                config = TrainConfig.from_dict(fields)
            except InputError as err:
                raise InputError(f"{source}: run {json.dumps(fields)}: {err}") from None
            key = config.config_hash()
            if key not in seen:
                seen.add(key)
                configs.append(config)
    if not configs:
        raise InputError(f"{source}: the grid has no runs")
    return tuple(configs)


def _growth(where: str, sweep: Mapping[str, Any], types: Mapping[str, Any]) -> Growth | None:
    """The ``grow``, ``grow_by``, ``grow_to`` keys of ``[sweep]``, checked, or None."""
    keys = [k for k in ("grow", "grow_by", "grow_to") if k in sweep]
    if not keys:
        return None
    if len(keys) < 3:
        raise InputError(f"{where}: a capacity search needs grow, grow_by and grow_to together")
    field = _check_value(where, "grow", sweep["grow"], str)
    if field not in types or types[field] not in (int, int | None):
        raise InputError(f"{where}: grow must name an integer TrainConfig field, got {field!r}")
    by = _check_value(where, "grow_by", sweep["grow_by"], int)
    to = _check_value(where, "grow_to", sweep["grow_to"], int)
    if by < 1:
        raise InputError(f"{where}: grow_by must be at least 1, got {by}")
    return Growth(field, by, to)


def _check_grid_size(source: str, blocks: list[dict[str, list[object]]], allow_large: bool) -> None:
    """The number of runs the blocks expand to (before duplicates are dropped), within limits."""
    runs = sum(math.prod(len(values) for values in block.values()) for block in blocks)
    if runs > limits.GRID_RUNS_MOST:
        raise InputError(
            f"{source}: the grid has {runs} runs; the limit is {limits.GRID_RUNS_MOST}; "
            "split it into several sweeps"
        )
    if runs > limits.GRID_RUNS and not allow_large:
        raise InputError(
            f"{source}: the grid has {runs} runs, more than {limits.GRID_RUNS}; "
            "pass --allow-large-grid if that is intended"
        )
    what = f"{source}: planning the grid's {runs} runs (each config checked)"
    budget.check(what, work=budget.planned(runs), instead="split it into several sweeps")


def load_spec(name_or_path: str | Path, allow_large_grid: bool = False) -> SweepSpec:
    """The validated sweep in a TOML file, or in the shipped profile of that name (``smoke``,
    ``quick``, ``paper``); see :func:`parse_spec` for ``allow_large_grid``."""
    data, source, name = _read_toml(name_or_path)
    return parse_spec(data, source, default_name=name, allow_large_grid=allow_large_grid)


# -- running -----------------------------------------------------------------------------------


def checkpoint_folder(store_path: str | Path) -> Path:
    """Where a sweep into ``store_path`` saves its models: ``<store without suffix>_checkpoints``
    beside it (``results/quick.db`` -> ``results/quick_checkpoints``)."""
    path = Path(store_path)
    return path.with_name(f"{path.stem}_checkpoints")


def check_outputs(
    store_path: str | Path, checkpoint_dir: str | Path | None = None, spec: object = None
) -> None:
    """Refuse an unusable store or checkpoint folder before anything is created (the rule of
    :mod:`ccomplexity.files`): neither may be the spec file, an existing store must be one of
    ours (:func:`simulations.store.identify`), a new one must be writable, and the checkpoint
    folder (default :func:`checkpoint_folder`) must be a folder or creatable as one."""
    inputs = [spec] if isinstance(spec, str | Path) and Path(spec).is_file() else []
    folder = checkpoint_folder(store_path) if checkpoint_dir is None else checkpoint_dir
    if os.path.abspath(folder) == os.path.abspath(store_path):
        raise InputError(
            f"checkpoint folder {folder} is the results store's path: give another folder"
        )
    if Path(store_path).exists() or Path(store_path).is_symlink():
        check_output_file(store_path, "results store", inputs=inputs, through_link=True)
        identify(store_path)
    else:
        check_output_file(
            store_path, "results store", create_folder=True, inputs=inputs, through_link=True
        )
    check_output_folder(folder, "checkpoint folder", inputs=inputs)


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


def unit_work(unit: list[tuple[str, Any]]) -> float:
    """Multiply-adds a unit of work trains if no run stops early (:func:`simulations.stacks.work`
    per step, once per loop of a looped block, times steps and members): the order in which a
    sweep with a time limit starts its units, cheapest first, and one with several processes and
    no limit, costliest first."""
    from simulations.stacks import work

    config = unit[0][1]
    return work(config) * (config.model.loops or 1) * config.recipe.steps * len(unit)


OUT_OF_MEMORY = ("OutOfMemoryError", "torch.OutOfMemoryError")
"""How a run that ran out of GPU memory fails (torch's error); with several worker processes
sharing a GPU, its unit is trained again at the end of the sweep with the device to itself."""


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
    allow_large_grid: bool = False,
    extend_undecided: int = 0,
    time_limit: float | None = None,
    take_over_leases: bool = False,
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
    path.  Everything (spec, limits, store, checkpoint folder) is checked before the store or
    the folder is created.  Each run is leased in the store before it trains, so sweeps running
    at once on one store share the work (``shared``: runs another sweep stored).  A run that
    raises is reported in ``failed`` and left out of the store, so running the sweep again
    retries it.  ``extend_undecided``: then up to that many rounds of the runs still improving
    when their steps ran out, with steps doubled (:mod:`simulations.extend`; in a capacity
    search, after each round). ``time_limit``: seconds after which no unit starts (those training
    finish; the rest, counted in ``not_started``, wait for a later sweep on the store), units
    starting cheapest first (:func:`unit_work`); a grid sweep only. Without a limit, several
    processes start the costliest units first (the longest-first rule: the sweep's last minutes
    are not one long unit beside idle workers). Units that ran out of GPU
    memory beside others (:data:`OUT_OF_MEMORY`) are trained again one at a time in this process
    at the end (``retried_alone``: their runs). A run whose lease row is no sweep's (an expiry
    too far ahead, a forged owner) is reported and left (counted in ``not_started``), and one
    leased by a sweep on another host waits for it, unless ``take_over_leases``. Returns a
    JSON-ready summary.
    """
    _check_options(backend, workers, ensemble, extend_undecided, time_limit)
    folder = str(checkpoint_folder(store_path) if checkpoint_dir is None else checkpoint_dir)
    check_outputs(store_path, folder, spec)
    sweep = spec if isinstance(spec, SweepSpec) else load_spec(spec, allow_large_grid)
    options: dict[str, Any] = {
        "workers": workers,
        "backend": backend,
        "train_fn": train_fn,
        "checkpoint_dir": folder,
        "ensemble": ensemble,
        "ensemble_fn": ensemble_fn,
    }
    if sweep.grow is not None:
        if time_limit is not None:
            raise InputError("--time-limit applies to a grid sweep, not to a capacity search")
        from simulations.capacity import run_search

        return run_search(
            sweep, store_path, run_sweep, progress, extend_undecided=extend_undecided, **options
        )
    return _run_grid(
        sweep, store_path, options, time_limit, take_over_leases, extend_undecided, progress
    )


def _run_grid(
    sweep: SweepSpec,
    store_path: str | Path,
    options: dict[str, Any],
    time_limit: float | None,
    take_over_leases: bool,
    extend_undecided: int,
    progress: bool,
) -> dict[str, Any]:
    """:func:`run_sweep` of a grid sweep, its ``options`` checked (workers, backend, train_fn,
    checkpoint_dir, ensemble, ensemble_fn): train the pending runs, then extend the undecided."""
    train_fn, ensemble_fn = options["train_fn"], options["ensemble_fn"]
    if options["ensemble"] is None:
        options["ensemble"] = (
            1 if train_fn is not None and ensemble_fn is None else DEFAULT_ENSEMBLE
        )
    folder, backend = options["checkpoint_dir"], options["backend"]
    start = time.perf_counter()
    job = workers_mod.Job(
        train_fn or workers_mod.train_when_called,
        ensemble_fn or workers_mod.train_ensemble_when_called,
        folder,
    )
    grid = _train_pending(sweep, store_path, job, options, time_limit, take_over_leases, progress)
    if extend_undecided:
        from simulations.extend import extend_undecided as extend

        extended = extend(sweep, store_path, extend_undecided, run_sweep, progress, **options)
        grid["failed"] += [f for r in extended for f in r.pop("failures")]
        grid["extended"] = extended
        with Store(store_path, readonly=True) as store:
            grid["stored_total"] = len(store)
    head = {"sweep": sweep.name, "source": sweep.source, "store": str(store_path)}
    return {
        **head,
        "checkpoints": folder,
        "backend": backend,
        **grid,
        "wall_seconds": round(time.perf_counter() - start, 3),
    }


def _train_pending(
    sweep: SweepSpec,
    store_path: str | Path,
    job: workers_mod.Job,
    options: dict[str, Any],
    time_limit: float | None,
    take_over_leases: bool,
    progress: bool,
) -> dict[str, Any]:
    """Train the runs of ``sweep`` not yet in the store, leased, on the workers; the sweep
    summary's counts (runs, skipped as stored, ran, shared, not started, retried alone, failed,
    stored in all)."""
    folder, backend, ensemble = options["checkpoint_dir"], options["backend"], options["ensemble"]
    ray = _import_ray() if backend == "ray" else None
    deadline = None if time_limit is None else time.monotonic() + time_limit
    owner = lease_owner()
    with Store(store_path) as store, workers_mod.KeepLeases(store_path, owner):
        done = store.done_hashes()
        pending = [
            (h, c) for h, c in zip(sweep.hashes(), sweep.configs, strict=True) if h not in done
        ]
        # no checkpoint is written through a link, nor over the store (by inode)
        check_folder_files(folder, [f"{h}.pt" for h, _ in pending], "checkpoint", [store_path])
        Path(folder).mkdir(parents=True, exist_ok=True)
        store.note_sweep(sweep.name)
        skipped = len(sweep.configs) - len(pending)
        lines = ProgressLines(sweep.configs, [c for _, c in pending], progress)
        delivery = Delivery(store, owner, dict(pending), lines)
        processes = min(options["workers"] or default_workers(), max(1, len(pending)))
        units = _ordered_units(pending, ensemble, processes, backend, deadline)
        shared, not_started, retried = _run_units(
            delivery, units, job, processes, backend, ray, ensemble, deadline, take_over_leases
        )
        return {
            "runs": len(sweep.configs),
            "skipped": skipped,
            "ran": delivery.stored,
            "shared": shared,
            **({"not_started": not_started} if time_limit is not None or not_started else {}),
            **({"retried_alone": len(retried)} if retried else {}),
            "failed": delivery.failed,
            "stored_total": len(store),
        }


def _check_options(
    backend: str,
    workers: int | None,
    ensemble: int | None,
    extend_undecided: int,
    time_limit: float | None,
) -> None:
    """A sweep's options, checked before anything is read or created."""
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r}; known: {', '.join(BACKENDS)}")
    if backend == "ray" and loaded_files():
        raise InputError("plugin files are loaded by the local backend's workers only; use it")
    if workers is not None:
        limits.WORKERS.check(workers, "workers")
    if ensemble is not None:
        limits.ENSEMBLE.check(ensemble, "ensemble")
    limits.EXTEND_ROUNDS.check(extend_undecided, "extend-undecided")
    if time_limit is not None:
        limits.TIME_LIMIT.check(time_limit, "time-limit")
        if extend_undecided:
            raise InputError("--time-limit and --extend-undecided do not go together; run apart")


class Delivery:
    """Where a sweep's results go: each run is stored once as it arrives (an ensemble's members
    one by one), a run that failed is reported and its lease released, and each is reported on
    a progress line. ``stored`` and ``failed`` are the sweep's counts."""

    def __init__(
        self, store: Store, owner: str, planned: dict[str, Any], report: ProgressLines
    ) -> None:
        self.store, self.owner, self.planned, self.report = store, owner, planned, report
        self.stored = 0
        self.finished: set[str] = set()
        self.failed: list[dict[str, str]] = []

    def finish(self, key: str, config: Any, outcome: dict | BaseException) -> None:
        """One run's end: its result stored, or its error reported."""
        if key in self.finished:
            return
        self.finished.add(key)
        if isinstance(outcome, DiskFull):  # every later run would fail so: stop here
            raise outcome
        if isinstance(outcome, BaseException):
            message = f"{type(outcome).__name__}: {outcome}".splitlines()[0]
            self.failed.append({"config_hash": key, "config": config.to_dict(), "error": message})
            self.store.release(self.owner, key)
            self.report(config, None, f"FAILED {message}")
            return
        self.stored += self.store.add_run(_checked(outcome, config, key))
        self.report(config, outcome)

    def member(self, result: dict) -> None:
        """An ensemble member that stopped: stored at once."""
        key = result.get("config_hash") if isinstance(result, dict) else None
        if key in self.planned:
            self.finish(key, self.planned[key], result)

    def deliver(self, unit: Unit, outcome: list | BaseException) -> None:
        """A unit's end: every member not yet finished gets its result or the error."""
        if not isinstance(outcome, BaseException) and len(unit) == 1:
            self.finish(*unit[0], outcome[0])
            return
        results = {}
        if not isinstance(outcome, BaseException):
            results = {r.get("config_hash"): r for r in outcome if isinstance(r, dict)}
        for key, config in unit:
            missing = RuntimeError("the ensemble returned no result for this run")
            self.finish(
                key,
                config,
                outcome if isinstance(outcome, BaseException) else results.get(key, missing),
            )

    def forget(self, keys: list[str]) -> None:
        """Runs to be trained again: no longer failed, not yet finished."""
        self.failed[:] = [f for f in self.failed if f["config_hash"] not in keys]
        self.finished.difference_update(keys)


def _ordered_units(
    pending: list[tuple[str, Any]],
    ensemble: int,
    processes: int,
    backend: str,
    deadline: float | None,
) -> list[Unit]:
    """The units of work (:func:`simulations.units.plan_units`) in the order they start: a
    stretch with a deadline does the cheapest first (as many as it has time for); several
    processes start the costliest first (so that no long unit starts last)."""
    from simulations.units import plan_units

    units = plan_units(pending, ensemble, processes if backend == "local" else 1)
    if deadline is not None:
        units.sort(key=unit_work)
    elif processes > 1:
        units.sort(key=unit_work, reverse=True)
    return units


def _run_units(
    delivery: Delivery,
    units: list[Unit],
    job: Any,
    processes: int,
    backend: str,
    ray: Any,
    ensemble: int,
    deadline: float | None,
    take_over: bool = False,
) -> tuple[int, int, list[str]]:
    """Train ``units`` under leases (``take_over``: also those another host or a forged row
    holds); then, with several local processes, the units that ran out of GPU memory beside
    others again, one at a time. (runs another sweep stored, units not started before the
    deadline or left to a lease, the runs trained again alone)."""
    from simulations.units import plan_units

    if not units:
        return 0, 0, []
    store, owner = delivery.store, delivery.owner
    with workers_mod.runner(backend, processes, job, delivery.member, ray) as runner:
        shared, not_started = workers_mod.run_leased(
            store, owner, units, runner, delivery.deliver, deadline, take_over
        )
    retried = [f["config_hash"] for f in delivery.failed if f["error"].startswith(OUT_OF_MEMORY)]
    if not retried or processes == 1 or backend != "local":
        return shared, not_started, []
    delivery.forget(retried)
    again = plan_units([(k, delivery.planned[k]) for k in retried], ensemble, 1)
    with workers_mod.runner(backend, 1, job, delivery.member, ray) as runner:
        more_shared, more_left = workers_mod.run_leased(
            store, owner, again, runner, delivery.deliver, deadline, take_over
        )
    return shared + more_shared, not_started + more_left, retried


def _import_ray():
    try:
        import ray
    except ImportError:
        raise InputError("backend 'ray' needs Ray: pip install 'ccomplexity[ray]'") from None
    return ray
