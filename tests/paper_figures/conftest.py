"""Figure tests measure the protocols of panel (a) of ``protocols`` at two short lengths only:
the bit counts are checked against the formulas all the same, in a fraction of the time.

A report draws every figure; tests that look at one figure from the fake store or from an empty
one read it from one report per store (:mod:`tests.paper_figures.reports`)."""

from __future__ import annotations

import pytest

from tests.paper_figures.reports import SHORT_LENGTHS, Drawn, draw_report


@pytest.fixture(autouse=True)
def _short_protocol_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from paper_figures import protocols

    monkeypatch.setattr(protocols, "MEASURED_LENGTHS", SHORT_LENGTHS)


@pytest.fixture(scope="session")
def empty_report(tmp_path_factory: pytest.TempPathFactory) -> Drawn:
    """The report of an empty store (mark users ``xdist_group("empty-report")``)."""
    from simulations.store import Store

    folder = tmp_path_factory.mktemp("empty-report")
    Store(folder / "empty.db").close()
    return draw_report(folder / "report", folder / "empty.db")
