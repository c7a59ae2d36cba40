"""The one validator of plain values against typed configs."""

from __future__ import annotations

import dataclasses

import pytest

from ccomplexity import typed
from ccomplexity.errors import InputError


@dataclasses.dataclass(frozen=True)
class Config:
    name: str
    size: int
    rate: float = 0.5
    flag: bool = False
    extra: int | None = None


def test_from_plain_checks_keys_and_types():
    c = typed.from_plain(Config, {"name": "a", "size": 3, "rate": 1})
    assert c == Config("a", 3, 1.0) and isinstance(c.rate, float)
    assert typed.from_plain(Config, {"name": "a", "size": 3, "extra": None}).extra is None


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([], "must be a table"),
        ({"name": "a"}, "missing field"),
        ({"name": "a", "size": 3, "colour": 1}, "no field"),
        ({"name": "a", "size": True}, "size must be an integer, got True"),
        ({"name": "a", "size": 1.5}, "size must be an integer"),
        ({"name": "a", "size": 1, "rate": "fast"}, "rate must be a number"),
        ({"name": "a", "size": 1, "rate": float("nan")}, "rate must be a number"),
        ({"name": "a", "size": 1, "flag": 1}, "flag must be true or false"),
        ({"name": 3, "size": 1}, "name must be a string"),
        ({"name": "a", "size": 1, "extra": "x"}, "extra must be an integer or None"),
    ],
)
def test_from_plain_refuses_with_one_line(values, message):
    with pytest.raises(InputError, match=message) as err:
        typed.from_plain(Config, values, "Config")
    assert "\n" not in str(err.value)
