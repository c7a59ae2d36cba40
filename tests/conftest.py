"""Shared fixtures, and the hypothesis profile the suite runs under."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, settings

from ccx import main

# Property tests must not fail for timing reasons on a loaded machine (or under pytest-xdist):
# no per-example deadline and no too-slow health check. HYPOTHESIS_PROFILE=default restores
# hypothesis's own settings.
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
