"""The paper's figures, one short module per figure, each with ``make(store, out_dir, profile)``.

``make`` writes ``<name>.png``, ``<name>.pdf`` and ``<name>.csv`` (the plotted numbers) into
``out_dir`` and returns ``{"name", "files", "caption", "missing", "title", "conclusion"}``: the
title and the conclusion are computed from the store's decided results
(:mod:`paper_figures.conclusions`). A figure drawn from an empty or partial store lists what it
lacks in ``missing`` (and on the figure) instead of failing. :func:`make_figure` is the entry
point of ``ccx figure`` and of the HTML report, which draws a figure only when
:func:`has_data` says the store has something for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from ccomplexity.errors import InputError
from ccomplexity.files import check_folder_files, check_output_folder
from simulations.store import identify


class FigureRegistry(Mapping[str, ModuleType]):
    """Figure name -> its module, imported on first use: listing the names (``ccx figure
    --help``, the report's contents) imports no plotting library."""

    def __init__(self, modules: Mapping[str, str]) -> None:
        self._modules = dict(modules)

    def __getitem__(self, name: str) -> ModuleType:
        return importlib.import_module(f"{__name__}.{self._modules[name]}")

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


FIGURES: Mapping[str, ModuleType] = FigureRegistry(
    {
        "bite": "bite",
        "thresholds": "thresholds",
        "bounds": "bounds",
        "fig2": "fig2",
        "fig3": "fig3",
        "fig4": "fig4",
        "protocols": "protocols",
        "parrots-reasoning": "parrots_reasoning",
        "parrots-memorization": "parrots_memorization",
        "looped-loops": "looped_loops",
        "looped-table1": "looped_table1",
        "looped-regularizer": "looped_regularizer",
        "kg-capacity": "kg_capacity",
    }
)
"""Figure name -> module with ``make(store_path, out_dir, profile) -> dict``; the one list of
figures (``ccx figure``, its help and ``ccx report`` read it)."""

NEEDS_STORE = frozenset(
    {
        "bite",
        "thresholds",
        "fig2",
        "fig3",
        "fig4",
        "protocols",
        "parrots-reasoning",
        "parrots-memorization",
        "looped-loops",
        "looped-table1",
        "looped-regularizer",
        "kg-capacity",
    }
)
"""Figures drawn from training runs (protocols: its panel (b)); the others need no store."""

STANDALONE = frozenset({"bounds", "protocols"})
"""Figures drawn whatever the store holds: bounds needs none, protocols measures its panel (a)
on seeded models."""

RESULTS_DIR = Path("results")


PROFILE_OF_PAPER: dict[str, str] = {
    "separations": "quick",
    "parrots": "parrots",
    "looped": "looped",
    "kg": "kg",
}
"""The CPU sweep profile whose runs each paper's figures draw (``simulations/profiles/``)."""


def has_data(name: str, store_path: str | None) -> bool:
    """Whether the store at ``store_path`` has data for figure ``name`` (its conclusion, from
    the store alone, is not "no data"); always for :data:`STANDALONE` figures."""
    if name in STANDALONE:
        return True
    return bool(FIGURES[name].summary(store_path).data)


FIGURE_FILES = ("png", "pdf", "csv")
"""What each figure writes: ``<name>.png``, ``<name>.pdf`` and ``<name>.csv``."""


def figure_files(name: str) -> list[str]:
    """The names of the files figure ``name`` writes into its folder (checked before it is
    drawn: no link, no input of the command in their way)."""
    return [f"{name}.{suffix}" for suffix in FIGURE_FILES]


def fill_command(name: str) -> str:
    """The command that fills figure ``name``'s panels: run its paper's profile (or the
    figure's own ``FILL_PROFILE``, where its paper's CPU profile lacks some panels), then draw."""
    profile = getattr(FIGURES[name], "FILL_PROFILE", PROFILE_OF_PAPER[paper_of(name)])
    return f"ccx figure {name} --profile {profile}"


def paper_of(name: str) -> str:
    """The paper a figure belongs to: its module's ``PAPER`` (default ``separations``)."""
    return getattr(FIGURES[name], "PAPER", "separations")


def profile_store(profile: str) -> Path:
    """The default store of a sweep profile: ``results/<profile>.db``."""
    return RESULTS_DIR / f"{profile}.db"


def prepare_store(
    store: str | Path | None, profile: str | None, workers: int | None = None
) -> str | None:
    """The store to plot from.  ``store`` given: that store, nothing is run (InputError if it
    does not exist).  Only ``profile`` given: run (or resume) that profile's sweep into
    ``results/<profile>.db`` first (runs already stored are skipped).  Neither: None."""
    if store is not None:
        if not Path(store).exists():
            raise InputError(f"no results store at {str(store)!r}; run `ccx sweep` first")
        identify(store)  # one of ours, or a one-line refusal before anything is drawn
        return str(store)
    if profile is None:
        return None
    from simulations.sweeps import profiles, run_sweep

    if profile not in profiles():
        raise InputError(f"unknown profile {profile!r}; known: {', '.join(profiles())}")
    path = profile_store(profile)
    summary = run_sweep(profile, path, workers=workers)
    if summary["failed"]:
        first = summary["failed"][0]
        raise InputError(
            f"sweep {profile}: {len(summary['failed'])} runs failed (first: {first}); "
            "run it again to retry them"
        )
    return str(path)


def make_figure(
    name: str,
    out_dir: str | Path,
    store: str | Path | None = None,
    profile: str | None = None,
) -> dict[str, Any]:
    """Draw figure ``name`` into ``out_dir``; see :func:`prepare_store` for store and profile.

    The output folder and a given store are checked before anything is run or drawn. Figures
    that need no store (bounds) never run a sweep. Panels without data are left out of the
    files (:mod:`paper_figures.style`); the result then lists their notes under ``left_out``,
    and the caption says which command fills them (``fill_command``). The caption also says how
    many of the trained points drawn reached, plateaued and are undecided (``verdicts``).
    """
    if name not in FIGURES:
        raise InputError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    check_output_folder(out_dir, "figure folder")
    check_folder_files(out_dir, figure_files(name), "figure file", inputs=[store])
    if name in NEEDS_STORE:
        store_path = prepare_store(store, profile)
    else:
        store_path = prepare_store(store, None)
    result = FIGURES[name].make(store_path, Path(out_dir), profile)
    from paper_figures.style import LEFT_OUT, VERDICTS, verdict_sentence

    counts = VERDICTS.pop(name, None)
    if counts:
        result["verdicts"] = {v: counts.get(v, 0) for v in ("reached", "plateaued", "undecided")}
        result["caption"] += " " + verdict_sentence(counts)
    left_out = LEFT_OUT.pop(name, [])
    if left_out:
        command = fill_command(name)
        them = "it" if len(left_out) == 1 else "them"
        result["caption"] += (
            f" Left out for lack of data: {'; '.join(left_out)}; `{command}` fills {them}."
        )
        result.update(left_out=left_out, fill_command=command)
    return result


__all__ = [
    "FIGURES",
    "NEEDS_STORE",
    "STANDALONE",
    "PROFILE_OF_PAPER",
    "FigureRegistry",
    "figure_files",
    "fill_command",
    "has_data",
    "make_figure",
    "paper_of",
    "prepare_store",
    "profile_store",
]
