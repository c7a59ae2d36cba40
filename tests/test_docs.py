"""The doc pages run: every example of docs/python-api.md and docs/your-own-task.md is a
doctest, run here in an empty folder, and the names they import are the packages' exports."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def run_page(name: str) -> doctest.TestResults:
    """Every example of ``docs/<name>`` as a doctest, in the current folder."""
    return doctest.testfile(
        str(ROOT / "docs" / name),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )


def test_python_api_page_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_page("python-api.md")
    assert result.attempted > 20
    assert result.failed == 0


def test_your_own_task_page_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_page("your-own-task.md")
    assert result.attempted >= 15
    assert result.failed == 0
    assert (tmp_path / "fig" / "thresholds.png").stat().st_size > 0


@pytest.mark.parametrize("package", ["ccomplexity", "simulations"])
def test_every_export_resolves(package):
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__, key=lambda n: (n != "__version__", n))
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018
