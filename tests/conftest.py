"""Shared fixtures, and the hypothesis profile the suite runs under."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from ccx import main

# Property tests must not fail for timing reasons on a loaded machine (or under pytest-xdist):
# no per-example deadline and no too-slow health check. HYPOTHESIS_PROFILE=default restores
# hypothesis's own settings.
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Under pytest-xdist each worker gets an equal share of the cores for torch's (and BLAS's)
# threads, set before torch is first imported: workers x threads never exceeds the cores.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    _share = str(max(1, (os.cpu_count() or 1) // _WORKERS))
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, _share)

# numba compiles the clique kernel (lower_bounds.clique_kernel) on its first call and caches the
# machine code on disk: about 8 s of one core, against 0.7 s to load it. In a fresh checkout each
# pytest worker, and each CLI subprocess, that got there before the cache existed compiled it
# again (the first kernel test of each worker took 6.5 s and 7.6 s). One process, started before
# the workers, compiles it while they collect (the same two tests: 1.4 s and under 1.1 s).
_WARM_KERNEL = (
    "import numpy as np\n"
    "from ccomplexity.lower_bounds.max_fooling import max_fooling_set\n"
    "max_fooling_set(np.random.default_rng(0).integers(0, 2, (7, 7)))\n"
)
_warming = pytest.StashKey[subprocess.Popen]()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller started it
        return
    config.stash[_warming] = subprocess.Popen(
        [sys.executable, "-c", _WARM_KERNEL],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    warming = config.stash.get(_warming, None)
    if warming is not None:
        try:
            warming.wait(timeout=120)
        except subprocess.TimeoutExpired:
            warming.kill()
            warming.wait()


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


@pytest.fixture(scope="session")
def smoke_sweep(tmp_path_factory) -> tuple[Path, dict]:
    """The smoke profile swept once with the real trainer, from a relative store path
    (``results/smoke.db`` under the folder returned, with the sweep's summary). Tests that use it
    carry ``pytest.mark.xdist_group("smoke")`` so that one worker sweeps it once."""
    from simulations.sweeps import run_sweep

    folder = tmp_path_factory.mktemp("smoke")
    here = os.getcwd()
    os.chdir(folder)
    try:
        summary = run_sweep("smoke", Path("results") / "smoke.db", workers=1, progress=False)
    finally:
        os.chdir(here)
    return folder, summary
