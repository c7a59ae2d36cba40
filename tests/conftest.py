"""Shared fixtures."""

from __future__ import annotations

import json

import pytest

from simulations.cli import main


@pytest.fixture
def ccx(capsys):
    """Run ``ccx`` in-process: returns (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture
def ccx_json(ccx):
    """Run ``ccx ... --json`` and parse the single JSON object it prints."""

    def run(*args: str) -> dict:
        code, out, err = ccx(*args, "--json")
        assert code == 0, err
        lines = out.strip().splitlines()
        assert len(lines) == 1, out
        return json.loads(lines[0])

    return run
