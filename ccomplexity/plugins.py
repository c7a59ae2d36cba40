"""Plugins: a user's own task (a word function) or model (the zoo's interface), brought in by
an installed package's entry points or by ``ccx --plugin FILE.py``.

A task is a plain definition (:func:`task`): a numpy word function on a batch of words
``(batch, N)`` of symbols ``0..alphabet-1`` returning one value per word, its alphabet, its
output kind (accept/reject, or ``labels`` classes) and the lengths it is defined for;
optionally a sampler of training inputs and a DFA when the language is regular. From it the
toolkit derives the two-party problem of the exact core (:func:`problem`: the function on
``[alphabet]^N`` split by a partition, Def. 1 of the separations paper) and, in
:mod:`simulations.tasks.plugin`, the torch task that trains. A model is a class with the zoo's
interface (:mod:`models.base`), registered by :func:`model`.

A plugin is the user's own code, run only on request: :func:`load_file` executes one file,
:func:`load_entry_points` the groups ``ccomplexity.tasks`` and ``ccomplexity.models`` of the
installed packages, and only once the user opted in (``ccx --entry-points``, or
``CCX_ENTRY_POINTS=1`` in the environment: :func:`entry_points_allowed`). Entry points are read
from installed distributions only, never from the working folder: the folders searched are
``sys.path`` without the working folder, and the module an entry point names is imported with
the working folder off the path (:func:`installed_paths`). Data files (sweep specs, stores,
certificates) only *name* a plugin's task or model: a name no loaded plugin defines is refused
in one line, and no code is looked for because a data file asked.

Code of a plugin that raises when it is called (its word function, sampler, model) is named by
:func:`culprit`, so that ``ccx`` reports it in one line: the plugin, its function and the
exception. A certificate about a plugin task
records the plugin's source (its file name) and the SHA-256 of that source
(:attr:`TaskDefinition.sha256`), and is re-checked only against the same bytes.

This module never imports torch: a model plugin's class is registered as the object given.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int

TASK_GROUP = "ccomplexity.tasks"
MODEL_GROUP = "ccomplexity.models"
PLUGIN_BYTES = 1 << 20
"""Largest plugin file that :func:`load_file` reads (1 MiB)."""
_NAME = re.compile(r"[a-z][a-z0-9-]{0,47}")


@dataclass(frozen=True, eq=False)
class TaskDefinition:
    """A user's task: ``function`` maps words (batch, N) of int64 symbols in ``0..alphabet-1``
    to one value per word, 0/1 (accept/reject) or a class in ``0..labels-1``; defined for
    ``lengths[0] <= N <= lengths[1]``. ``sampler(batch, length, rng)`` (optional) returns
    training words (batch, N) from a numpy Generator; ``dfa`` (optional) is an
    :class:`ccomplexity.automata.DFA` accepting exactly the task's language;
    ``fooling(length, alice, most)`` (optional) constructs a fooling set under the partition
    whose 0-based positions ``alice`` Alice holds: at most ``most`` words (an array (S, N)), each
    one pair (Alice's symbols, Bob's), or None where it has none (checked by the toolkit, which
    never trusts it). ``source`` and ``sha256`` name the code the definition came from."""

    name: str
    function: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    alphabet: int
    lengths: tuple[int, int]
    labels: tuple[str, ...] | None = None
    sampler: Callable[..., np.ndarray] | None = field(default=None, repr=False)
    dfa: Any = field(default=None, repr=False)
    fooling: Callable[..., Any] | None = field(default=None, repr=False)
    source: str = ""
    sha256: str = ""

    @property
    def classes(self) -> int:
        """Output classes: 2 for accept/reject, else the number of labels."""
        return 2 if self.labels is None else len(self.labels)

    @property
    def accept_reject(self) -> bool:
        return self.labels is None

    def check_length(self, length: int) -> int:
        lo, hi = self.lengths
        n = check_int(length, f"{self.name}: --length", 1)
        if not lo <= n <= hi:
            raise InputError(f"{self.name} is defined for lengths {lo}..{hi}, got {n}")
        return n

    def evaluate(self, words: np.ndarray) -> np.ndarray:
        """The word function on ``words`` (batch, N), checked: one integer value per word, each
        0/1 or a label; anything else is an InputError naming the plugin."""
        w = np.ascontiguousarray(words, dtype=np.int64)
        out = np.asarray(self.function(w.copy()))
        if out.shape != (len(w),):
            raise InputError(
                f"task {self.name} ({self.source}): the word function returned shape "
                f"{out.shape} for {len(w)} words; it must return one value per word"
            )
        if out.dtype == bool:
            out = out.astype(np.int8)
        if not np.issubdtype(out.dtype, np.integer):
            raise InputError(f"task {self.name} ({self.source}): values must be integers")
        if out.size and (out.min() < 0 or out.max() >= self.classes):
            raise InputError(
                f"task {self.name} ({self.source}): values must lie in 0..{self.classes - 1}"
            )
        return out.astype(np.int8)

    def __call__(self, words: np.ndarray) -> np.ndarray:
        return self.evaluate(words)

    def describe(self) -> dict[str, Any]:
        return {
            "task": self.name,
            "alphabet": self.alphabet,
            "lengths": list(self.lengths),
            "output": "accept/reject" if self.labels is None else list(self.labels),
            "sampler": "own" if self.sampler is not None else "balanced rejection",
            "dfa": self.dfa is not None,
            "fooling": "own" if self.fooling is not None else None,
            "source": self.source,
            "sha256": self.sha256,
        }


@dataclass(frozen=True, eq=False)
class ModelDefinition:
    """A user's model: ``cls`` has the zoo's interface (a typed ``config`` argument, ``forward``
    and, for recurrent models, ``initial_state``, ``step`` and ``state_numel``)."""

    name: str
    cls: Any = field(repr=False)
    family: str
    source: str = ""
    sha256: str = ""


@dataclass
class _Registry:
    tasks: dict[str, TaskDefinition] = field(default_factory=dict)
    models: dict[str, ModelDefinition] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    entry_points_loaded: bool = False
    code: dict[str, str] = field(default_factory=dict)
    """Code file name (as its frames name it) -> the plugin it belongs to, for :func:`culprit`."""


_REGISTRY = _Registry()
_LOADING: list[tuple[str, str]] = []
"""(source name, sha256) of the file :func:`load_file` is executing, innermost last."""


def _check_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InputError(
            f"plugin {what} name {name!r} must be lowercase letters, digits and '-' (at most 48)"
        )
    if name in _BUILT_IN[what]:
        raise InputError(f"plugin {what} {name!r} would shadow the built-in {what} of that name")
    return name


def _check_family(name: str, family: Any) -> None:
    known = _BUILT_IN["family"]
    if not isinstance(family, str) or not _NAME.fullmatch(family):
        raise InputError(f"model {name}: family must be the name of a model family")
    if known and family not in known:
        raise InputError(f"model {name}: family must be one of {', '.join(sorted(known))}")


_BUILT_IN: dict[str, set[str]] = {"task": set(), "model": set(), "family": set()}
"""What the built-in registries of the floors above declared (:func:`declare`): task and
model names no plugin may take, and the model families a plugin model may declare."""


def declare(kind: str, names: Iterable[str]) -> None:
    """A built-in registry declares its ``names`` of ``kind`` ("task", "model" or "family") as
    it is imported (``ccomplexity.problems``, ``ccomplexity.claims``, ``simulations.tasks``,
    ``models``), so that this floor names nothing of the floors above. A plugin registered
    before the registry was imported, and now shadowing a name or declaring an unknown family,
    is refused now; ``ccx`` imports every registry before it loads a plugin."""
    if kind not in _BUILT_IN:
        raise ValueError(f"kind must be one of {', '.join(_BUILT_IN)}")
    names = set(names)
    _BUILT_IN[kind] |= names
    if kind == "family":
        for definition in _REGISTRY.models.values():
            _check_family(definition.name, definition.family)
        return
    table = _REGISTRY.tasks if kind == "task" else _REGISTRY.models
    for name in sorted(names & set(table)):
        raise InputError(
            f"plugin {kind} {name!r} ({table[name].source}) would shadow the built-in {kind} "
            "of that name"
        )


def built_in(kind: str) -> frozenset[str]:
    """The names of ``kind`` the registries imported so far declared (:func:`declare`)."""
    return frozenset(_BUILT_IN[kind])


def _source_of(obj: Any) -> tuple[str, str]:
    """(source name, sha256) of the code defining ``obj``: the file being loaded, else the file
    of its module, else its own source text."""
    if _LOADING:
        return _LOADING[-1]
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    path = getattr(module, "__file__", None)
    if path and os.path.isfile(path):
        data = Path(path).read_bytes()
        return Path(path).name, hashlib.sha256(data).hexdigest()
    try:
        text = inspect.getsource(obj)
    except (OSError, TypeError):
        raise InputError(f"plugin {obj!r}: its source cannot be found to hash") from None
    return f"{getattr(obj, '__module__', '?')}:{obj.__qualname__}", hashlib.sha256(
        text.encode()
    ).hexdigest()


def _register(kind: str, definition: Any) -> None:
    table = _REGISTRY.tasks if kind == "task" else _REGISTRY.models
    old = table.get(definition.name)
    if old is not None and old.source != definition.source:
        raise InputError(
            f"plugin {kind} {definition.name!r} is defined twice: in {old.source} and in "
            f"{definition.source}"
        )
    table[definition.name] = definition


def task(
    name: str,
    alphabet: int,
    lengths: tuple[int, int],
    labels: int | Sequence[str] | None = None,
    sampler: Callable[..., np.ndarray] | None = None,
    dfa: Any = None,
    fooling: Callable[..., Any] | None = None,
) -> Callable[[Callable[[np.ndarray], np.ndarray]], TaskDefinition]:
    """Decorator registering a word function as the task ``name`` (see :class:`TaskDefinition`).

    ``labels``: None for accept/reject (values 0/1), a number of classes, or their names.
    ``sampler(batch, length, rng) -> words``: training inputs (default: balanced positives and
    negatives drawn by rejection, :mod:`simulations.tasks.plugin`). ``dfa``: a DFA of the
    language (accept/reject tasks only). ``fooling(length, alice, most) -> words``: a fooling-set
    construction (see :class:`TaskDefinition`). Returns the :class:`TaskDefinition`, itself
    callable on words."""
    _check_name(name, "task")
    a = check_int(alphabet, f"task {name}: alphabet", 1, limits.ALPHABET.most)
    if not (isinstance(lengths, tuple | list) and len(lengths) == 2):
        raise InputError(f"task {name}: lengths must be a pair (least, most)")
    lo = check_int(lengths[0], f"task {name}: least length", 1, limits.LENGTH.most)
    hi = check_int(lengths[1], f"task {name}: most length", lo, limits.LENGTH.most)
    names: tuple[str, ...] | None
    if labels is None:
        names = None
    elif isinstance(labels, int) and not isinstance(labels, bool):
        names = tuple(str(i) for i in range(check_int(labels, f"task {name}: labels", 2, 1024)))
    else:
        names = tuple(str(s) for s in labels)
        check_int(len(names), f"task {name}: number of labels", 2, 1024)
    if dfa is not None:
        from ccomplexity.automata import DFA

        if names is not None:
            raise InputError(f"task {name}: a DFA needs an accept/reject task (no labels)")
        if not isinstance(dfa, DFA) or dfa.alphabet_size != a:
            raise InputError(
                f"task {name}: dfa must be a ccomplexity.automata.DFA over {a} symbols"
            )
    if sampler is not None and not callable(sampler):
        raise InputError(f"task {name}: sampler must be a function (batch, length, rng)")
    if fooling is not None and not callable(fooling):
        raise InputError(f"task {name}: fooling must be a function (length, alice, most)")

    def register(function: Callable[[np.ndarray], np.ndarray]) -> TaskDefinition:
        if not callable(function):
            raise InputError(f"task {name}: @task decorates a word function")
        source, sha = _source_of(function)
        definition = TaskDefinition(
            name, function, a, (lo, hi), names, sampler, dfa, fooling, source, sha
        )
        _register("task", definition)
        return definition

    return register


def model(name: str, family: str = "recurrent") -> Callable[[type], type]:
    """Class decorator registering a model class of the zoo's interface as ``name``, of
    ``family`` (recurrent models are what Thm 2's one-way protocol runs on). Sets the class's
    ``name`` attribute and returns the class."""
    _check_name(name, "model")
    _check_family(name, family)

    def register(cls: type) -> type:
        if not isinstance(cls, type):
            raise InputError(f"model {name}: @model decorates a class")
        cls.name = name  # type: ignore[attr-defined]
        source, sha = _source_of(cls)
        _register("model", ModelDefinition(name, cls, family, source, sha))
        return cls

    return register


# ------------------------------------------------------------------------------ loading


def load_file(path: str | os.PathLike[str]) -> list[str]:
    """Execute the plugin file ``path`` (the user's own code, run on request) and return the
    names it newly registered (a model as ``model:NAME``). Its bytes are read once, hashed and
    executed as they were read; an error in it is one line naming the file."""
    p = Path(path)
    if p.suffix != ".py":
        raise InputError(f"--plugin {p}: a plugin is a Python file ending in .py")
    data = limits.read_bytes(p, PLUGIN_BYTES, "plugin file")
    sha = hashlib.sha256(data).hexdigest()
    module_name = f"ccomplexity_plugin_{re.sub(r'[^0-9a-zA-Z_]', '_', p.stem)}_{sha[:12]}"
    before = set(_REGISTRY.tasks) | {f"model:{m}" for m in _REGISTRY.models}
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(module_name, None))
    module.__file__ = str(p.resolve())
    sys.modules[module_name] = module  # dataclasses of the plugin look their module up here
    _LOADING.append((p.name, sha))
    _REGISTRY.code[str(p)] = str(p)
    try:
        exec(compile(data, str(p), "exec"), module.__dict__)  # noqa: S102 - run on request
    except InputError:
        raise
    except (Exception, SystemExit) as err:  # the user's code: one line, not a traceback
        raise InputError(f"plugin {p} failed: {type(err).__name__}: {err}") from None
    finally:
        _LOADING.pop()
    resolved = str(p.resolve())
    if resolved not in _REGISTRY.files:
        _REGISTRY.files.append(resolved)
    after = set(_REGISTRY.tasks) | {f"model:{m}" for m in _REGISTRY.models}
    return sorted(after - before)


ENTRY_POINTS_ENV = "CCX_ENTRY_POINTS"
"""Set to 1 to let the installed packages' entry points be loaded (``ccx --entry-points`` sets
it for its call): in this process and in a sweep's worker processes, which inherit it."""


def entry_points_allowed() -> bool:
    """Whether the user opted in to entry points (:data:`ENTRY_POINTS_ENV` is 1)."""
    return os.environ.get(ENTRY_POINTS_ENV, "") == "1"


def installed_paths() -> list[str]:
    """``sys.path`` without the working folder (``""``, ``"."`` or the current directory):
    where installed distributions are looked for."""
    here = os.path.realpath(os.getcwd())
    return [p for p in sys.path if p not in ("", ".") and os.path.realpath(p) != here]


@contextlib.contextmanager
def _without_working_folder() -> Iterator[None]:
    """``sys.path`` without the working folder for the block (an entry point's module is
    imported from installed code only)."""
    saved = list(sys.path)
    sys.path[:] = installed_paths()
    try:
        yield
    finally:
        sys.path[:] = saved


def load_entry_points() -> None:
    """Load the ``ccomplexity.tasks`` and ``ccomplexity.models`` entry points of the installed
    distributions, once per process, when the user opted in (:func:`entry_points_allowed`;
    otherwise nothing is looked up). An entry point names a module (its decorators register), a
    :class:`TaskDefinition` or a decorated model class; it is read from the distributions on
    :func:`installed_paths` and imported with the working folder off the path."""
    if _REGISTRY.entry_points_loaded or not entry_points_allowed():
        return
    _REGISTRY.entry_points_loaded = True
    from importlib.metadata import distributions

    seen: set[str] = set()
    points = []
    for dist in distributions(path=installed_paths()):
        name = (dist.metadata["Name"] or "").lower()
        if name in seen:  # the first on the path wins, as for imports
            continue
        seen.add(name)
        points += [p for p in dist.entry_points if p.group in (TASK_GROUP, MODEL_GROUP)]
    for point in points:
        with _without_working_folder():
            try:
                loaded = point.load()
            except InputError:
                raise
            except (Exception, SystemExit) as err:  # an installed package's code: one line
                raise InputError(
                    f"entry point {point.name} of {point.group} failed: {type(err).__name__}: {err}"
                ) from None
        module = sys.modules.get(point.module)
        if getattr(module, "__file__", None):
            _REGISTRY.code[module.__file__] = f"entry point {point.name} ({point.module})"
        if isinstance(loaded, TaskDefinition):
            _register("task", loaded)


def culprit(trace: Any) -> tuple[str, str] | None:
    """(plugin, function) of the innermost frame of traceback ``trace`` that runs a loaded
    plugin's code, or None when no plugin code is on it: who raised an exception at call time."""
    found = None
    while trace is not None:
        code = trace.tb_frame.f_code
        plugin = _REGISTRY.code.get(code.co_filename)
        if plugin is not None:
            found = (plugin, code.co_name)
        trace = trace.tb_next
    return found


def loaded_files() -> list[str]:
    """The plugin files loaded in this process (resolved paths), in order: what a worker
    process loads again before it trains."""
    return list(_REGISTRY.files)


@contextlib.contextmanager
def scope() -> Iterator[None]:
    """Plugins registered inside the block are forgotten after it (one ``ccx`` call)."""
    saved = (dict(_REGISTRY.tasks), dict(_REGISTRY.models), list(_REGISTRY.files))
    try:
        yield
    finally:
        _REGISTRY.tasks, _REGISTRY.models, _REGISTRY.files = saved[0], saved[1], saved[2]


# ------------------------------------------------------------------------------ lookup


def task_definition(name: str) -> TaskDefinition | None:
    """The plugin task ``name`` (entry points are loaded on the first miss), or None."""
    if name not in _REGISTRY.tasks and name not in _BUILT_IN["task"]:
        load_entry_points()
    return _REGISTRY.tasks.get(name)


def model_definition(name: str) -> ModelDefinition | None:
    """The plugin model ``name`` (entry points are loaded on the first miss), or None."""
    if name not in _REGISTRY.models and name not in _BUILT_IN["model"]:
        load_entry_points()
    return _REGISTRY.models.get(name)


def task_names() -> list[str]:
    return sorted(_REGISTRY.tasks)


def model_names() -> list[str]:
    return sorted(_REGISTRY.models)


def require_task(name: str) -> TaskDefinition:
    """The plugin task ``name``; InputError naming it when no loaded plugin defines it."""
    found = task_definition(name)
    if found is None:
        raise InputError(not_loaded("task", name, task_names()))
    return found


def not_loaded(kind: str, name: str, known: Sequence[str]) -> str:
    """The one line that refuses a ``kind`` (task, model, architecture) ``name`` that nothing
    defines, listing the ``known`` names."""
    how = (
        "or install its package"
        if entry_points_allowed()
        else "or install its package and opt in with ccx --entry-points ..."
    )
    return (
        f"unknown {kind} {name!r}; known: {', '.join(known) or 'none'} (no loaded plugin "
        f"defines it: load one with ccx --plugin FILE.py ..., {how})"
    )
