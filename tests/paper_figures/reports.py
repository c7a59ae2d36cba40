"""One report per store for the figure tests: every figure drawn once, each figure's result
recorded, so that tests looking at one figure read it instead of drawing it again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SHORT_LENGTHS = (8, 16)
"""The lengths at which figure tests measure the protocols of panel (a) of ``protocols``."""

FAKE_REPORT = pytest.mark.xdist_group("fake-report")
EMPTY_REPORT = pytest.mark.xdist_group("empty-report")
"""Marks of the tests reading one report, so that one worker draws it once."""


@dataclass(frozen=True)
class Drawn:
    """A report drawn with the drawing rules checked: its folder, its page, each figure's
    result (as :func:`paper_figures.make_figure` returned it) and what the rules found."""

    out: Path
    html: str
    results: dict[str, dict[str, Any]]
    problems: dict[str, list[str]]


def draw_report(out: Path, store: Path) -> Drawn:
    """Write the HTML report of ``store`` into ``out`` (protocols at :data:`SHORT_LENGTHS`,
    ``layout.CHECK`` on), recording every figure's result on the way."""
    import paper_figures
    from paper_figures import layout, protocols
    from paper_figures.report import write_report

    results: dict[str, dict[str, Any]] = {}
    make_figure = paper_figures.make_figure

    def recording(name: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        results[name] = make_figure(name, *args, **kwargs)
        return results[name]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(protocols, "MEASURED_LENGTHS", SHORT_LENGTHS)
        patch.setattr(layout, "CHECK", True)
        patch.setattr(paper_figures, "make_figure", recording)
        html = write_report(out, store=store).read_text()
        problems = {name: list(layout.PROBLEMS[name]) for name in results}
    assert list(results) == list(paper_figures.FIGURES), "the report draws every figure"
    return Drawn(out, html, results, problems)
