"""``models.constructions.run`` and ``ccx construct``: dispatch, options, one-line errors."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from models.constructions import run


def test_dispatches_each_task():
    assert run("index-lookup", length=40, samples=300)["accuracy"] == 1.0
    dyck = run("dyck", types=2, depth=2, length=16, samples=300)
    assert (dyck["accuracy"], dyck["state_bits"], dyck["exhaustive"]) == (1.0, 3, True)
    eq = run("equality", length=8)
    assert (eq["accuracy"], eq["exhaustive"], eq["samples"]) == (1.0, True, 256)


@pytest.mark.parametrize(
    ("task", "options", "message"),
    [
        ("parity", {}, "unknown construction task 'parity'; known: index-lookup, dyck, equality"),
        ("dyck", {"width": 3}, "task dyck has no option"),
        ("equality", {"length": 9}, "even length in 2..1024, got 9"),
        ("index-lookup", {"length": 2.5}, "option length must be an integer"),
        ("index-lookup", {"samples": 0}, r"samples must be an integer in 1\.\."),
        ("dyck", {"seed": -1}, r"seed must be an integer in 0\.\."),
    ],
)
def test_bad_input_is_one_input_error(task, options, message):
    with pytest.raises(InputError, match=message):
        run(task, **options)


def test_cli_construct(ccx_json, ccx):
    dyck = ccx_json("construct", "--task", "dyck", "--types", "2", "--depth", "2", "--length", "16")
    assert (dyck["accuracy"], dyck["state_bits"], dyck["exhaustive"]) == (1.0, 3, True)
    eq = ccx_json("construct", "--task", "equality", "--length", "10")
    assert (eq["accuracy"], eq["exhaustive"]) == (1.0, True)
    lookup = ccx_json("construct", "--task", "index-lookup", "--length", "60", "--samples", "500")
    assert lookup["accuracy"] == 1.0 and lookup["samples"] == 500 and lookup["precision"] > 0
    code, _, err = ccx("construct", "--task", "equality", "--length", "5")
    assert code == 2 and len(err.strip().splitlines()) == 1
