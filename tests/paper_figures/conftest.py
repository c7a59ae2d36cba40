"""Figure tests measure the protocols of panel (a) of ``protocols`` at two short lengths only:
the bit counts are checked against the formulas all the same, in a fraction of the time."""

import pytest


@pytest.fixture(autouse=True)
def _short_protocol_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from paper_figures import protocols

    monkeypatch.setattr(protocols, "MEASURED_LENGTHS", (8, 16))
