"""Typed configs from plain values: the one validator for every config read from outside.

Model configs, training configs, sweep specs and checkpoints all arrive as plain dicts (JSON,
TOML, a CLI). :func:`from_plain` checks one against a dataclass before anything is built: a dict,
no unknown keys, every required key present, and every value of its field's type (int, float,
str, bool, None and unions of them; a bool is not an int, an int is accepted for a float and
stored as one, so that equal configs hash equally). Errors are one-line :class:`InputError` s
naming where the value came from.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from ccomplexity.errors import InputError

T = TypeVar("T")


def field_types(cls: type) -> dict[str, Any]:
    """{field name: resolved type hint} of dataclass ``cls``, in field order."""
    return dict(_field_types(cls))


@functools.cache
def _field_types(cls: type) -> tuple[tuple[str, Any], ...]:
    """Resolved once per class: resolving the hints costs more than checking a value."""
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def matches(value: object, hint: Any) -> bool:
    """Whether a plain value fits a type hint (int, float, bool, str, None, unions of them)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return any(matches(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(float(value))
        )
    if hint is str:
        return isinstance(value, str)
    return False


_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def _name(hint: Any) -> str:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return " or ".join(_name(h) for h in typing.get_args(hint))
    return "None" if hint is type(None) else _NAMES.get(hint, getattr(hint, "__name__", str(hint)))


def check_value(where: str, value: object, hint: Any) -> object:
    """``value`` if it fits ``hint`` (an int becomes a float for a float field); else InputError."""
    if not matches(value, hint):
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise InputError(f"{where} must be {_name(hint)}, got {shown} ({type(value).__name__})")
    if hint is float and isinstance(value, int):
        return float(value)
    return value


def check_fields(obj: object) -> None:
    """Type-check every field of dataclass instance ``obj`` in place (for ``__post_init__``)."""
    cls = type(obj)
    for name, hint in field_types(cls).items():
        value = check_value(f"{cls.__name__}.{name}", getattr(obj, name), hint)
        object.__setattr__(obj, name, value)


def from_plain(cls: type[T], values: object, where: str | None = None) -> T:
    """An instance of dataclass ``cls`` from a plain dict, every key and type checked first."""
    where = where or cls.__name__
    if not isinstance(values, Mapping):
        raise InputError(f"{where} must be a table of fields, got {type(values).__name__}")
    hints = field_types(cls)
    unknown = sorted(str(k) for k in values if k not in hints)
    if unknown:
        raise InputError(
            f"{where} has no field(s) {', '.join(unknown)}; known: {', '.join(sorted(hints))}"
        )
    needed = [f.name for f in dataclasses.fields(cls) if required(f)]
    missing = [name for name in needed if name not in values]
    if missing:
        raise InputError(f"{where} is missing field(s) {', '.join(missing)}")
    checked = {k: check_value(f"{where}.{k}", v, hints[k]) for k, v in values.items()}
    return cls(**checked)


def required(f: dataclasses.Field[Any]) -> bool:
    """Whether a dataclass field has no default."""
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
