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
    result (as :func:`paper_figures.make_figure` returned it), what the rules found, and which
    figures the report itself drew (the others, which it lists as without data, drawn here
    after it into ``out/alone`` so that every figure is held to the rules)."""

    out: Path
    html: str
    results: dict[str, dict[str, Any]]
    problems: dict[str, list[str]]
    in_report: list[str]

    def folder(self, name: str) -> Path:
        """Where figure ``name``'s files are."""
        return self.out if name in self.in_report else self.out / "alone"


def draw_report(out: Path, store: Path) -> Drawn:
    """Write the HTML report of ``store`` into ``out`` (protocols at :data:`SHORT_LENGTHS`,
    ``layout.CHECK`` on), recording every figure's result on the way, then draw the figures it
    left out for lack of data on their own."""
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
        in_report = list(results)
        for name in paper_figures.FIGURES:
            if name not in results:
                results[name] = make_figure(name, out / "alone", store=store)
        problems = {name: list(layout.PROBLEMS[name]) for name in results}
    drawn = [n for n in paper_figures.FIGURES if paper_figures.has_data(n, str(store))]
    assert in_report == drawn, "the report draws the figures its store has data for"
    return Drawn(out, html, results, problems, in_report)
