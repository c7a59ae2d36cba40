"""Hand-wired models that realise the upper bounds, each verified by running it.

- ``index-lookup``: Theorem 1, a one-layer transformer of width O(log N) (``index_lookup``).
- ``dyck``: a ReLU RNN on the binary code of the minimal DFA of Dyck-(n,k) (``dfa_rnn``).
- ``equality``: Theorem 6, a two-layer transformer of width O(log N) (``equality``).
- ``kg-path``: Thm 5.1, Prop B.13 and Thm 5.3 of the layer-looping paper, q-hop path queries over
  a matching knowledge graph, standard, looped and looped with experts (``kg``).
- ``length2-path``: mixture of parrots Thm 3.2, a dense one-layer model of width |V|
  (``parrots``).
- ``memorize``: mixture of parrots Thm A.11 (dense) and A.12 (experts), memorisers (``parrots``).
- ``group-composition``: looped-reasoning Thm 2.1, one layer looped ceil(lg n) times
  (``group_composition``).

Each construction's module is imported when its task runs.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int

TASKS: dict[str, str] = {
    "index-lookup": "models.constructions.index_lookup:verify_index_lookup",
    "dyck": "models.constructions.dfa_rnn:verify_dyck_rnn",
    "equality": "models.constructions.equality:verify_equality",
    "kg-path": "models.constructions.kg:verify_kg_path",
    "length2-path": "models.constructions.parrots:verify_length2_path",
    "memorize": "models.constructions.parrots:verify_memorize",
    "group-composition": "models.constructions.group_composition:verify_group_composition",
}

DEFAULTS: dict[str, dict[str, Any]] = {
    "index-lookup": {"length": 100, "samples": 10_000, "seed": 0},
    "dyck": {"types": 2, "depth": 2, "length": 16, "samples": 10_000, "seed": 0},
    "equality": {"length": 16, "samples": 3_000, "seed": 0},
    "kg-path": {"entities": 32, "relations": 4, "hops": 4, "samples": 500, "seed": 0},
    "length2-path": {"vertices": 20, "samples": 2_000, "seed": 0},
    "memorize": {"examples": 1000, "dim": 128, "trials": 20, "seed": 0},
    "group-composition": {"group": "S5", "length": 64, "samples": 1_000, "seed": 0, "loops": None},
}


def run(task: str, **options: Any) -> dict[str, Any]:
    """Build the construction for ``task``, verify it and return its JSON-ready report.

    Options are the keyword arguments of the task's ``verify_*`` function (defaults in
    ``DEFAULTS``); an unknown task or option, or a size outside a function's limits, raises
    InputError.
    """
    if task not in TASKS:
        raise InputError(f"unknown construction task {task!r}; known: {', '.join(TASKS)}")
    module, name = TASKS[task].split(":")
    verify = getattr(importlib.import_module(module), name)
    known = inspect.signature(verify).parameters
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InputError(
            f"task {task} has no option(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    for key, value in options.items():
        _check_option(key, value)
    return verify(**{**DEFAULTS[task], **options})


_LIMITS = {
    "length": limits.LENGTH,
    "samples": limits.SAMPLES,
    "seed": limits.SEED,
    "types": limits.TYPES,
    "vertices": limits.VERTICES,
    "examples": limits.EXAMPLES,
    "dim": limits.DIM,
    "trials": limits.TRIALS,
    "entities": limits.ENTITIES,
    "relations": limits.RELATIONS,
    "hops": limits.HOPS,
    "experts": limits.EXPERTS,
}
"""Options with a limit of :mod:`ccomplexity.limits` (each construction has tighter ones of its
own where its method needs them)."""


def _check_option(key: str, value: Any) -> None:
    """Integers everywhere; ``eta`` may be any real number, ``k``, ``eta``, ``experts`` and
    ``loops`` may be None and ``group`` is a name."""
    if value is None and key in ("k", "eta", "experts", "loops"):
        return
    if key == "group":
        if not isinstance(value, str):
            raise InputError(f"option group must be a group name such as S5, got {value!r}")
        return
    kinds = (int, float) if key == "eta" else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        kind = "a number" if key == "eta" else "an integer"
        raise InputError(f"option {key} must be {kind}, got {value!r}")
    if key in _LIMITS:
        _LIMITS[key].check(value, key)
    elif key != "eta":
        check_int(value, key, 0)
