"""Shared look and plumbing of the paper figures: colours, saving, notes, store summaries.

Every figure uses :data:`ARCH_COLOURS` so that an architecture has one colour everywhere, and
:func:`save` so that each figure writes ``<name>.png``, ``<name>.pdf`` and ``<name>.csv``.

No empty frames: a panel for which the store has no data gets a :func:`note` saying what is
missing; if the note is all it holds (no curve, marker, bar, image or table in data
coordinates), :func:`save` leaves the panel out of the files and records its note in
:data:`LEFT_OUT`, from which :func:`paper_figures.make_figure` tells the caption, and the report,
which command fills it.

Verdicts (:mod:`simulations.verdicts`), one convention in every figure: a point, bar dot or
curve end of a run (or a best over runs) that is ``undecided`` (still improving when its budget
ran out) is drawn with its usual marker half-filled (:func:`verdict_marks`, left half in colour,
right half white); in a grid of numbers its cell reads ``0.42?`` (:func:`cell_text`). Either way
the legend says :data:`UNDECIDED`. A number an undecided run would decide (a threshold, a
capacity, a fewest-loops or smallest-width count) is never drawn as a number: it is drawn as a
one-sided bound (:func:`one_sided`: the half-filled marker at the bound with an arrow pointing
where the number may lie), or not at all. Every figure's CSV has a ``verdict`` column, and
:func:`save` counts the verdicts of the points drawn (:data:`VERDICTS`), which
:func:`paper_figures.make_figure` adds to the caption (:func:`verdict_sentence`).

The module stays whole (about 530 lines): every figure's shared plumbing (colours, saving,
notes, the store's runs and thresholds) in one place, so that no figure invents its own.
"""

from __future__ import annotations

import csv
import textwrap
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

from ccomplexity.files import atomic_open

matplotlib.use("Agg")  # files only, never a window

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

ARCH_COLOURS: dict[str, str] = {
    "transformer": "#1f77b4",
    "lstm": "#d62728",
    "gru": "#ff7f0e",
    "mamba": "#2ca02c",
    "dss": "#9467bd",
    "linear-transformer": "#17becf",
    "retnet": "#8c564b",
}
"""One colour per architecture of ``models.REGISTRY``, the same in every figure."""

OTHER_COLOUR = "#7f7f7f"
MARKERS = {1: "o", 2: "s", 3: "^", 4: "D", 6: "v"}
"""Marker per number of layers."""

plt.rcParams.update(
    {
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.fontsize": 8,
        "figure.dpi": 100,
        "savefig.dpi": 150,
    }
)


def colour(arch: str) -> str:
    """The architecture's fixed colour (grey for one not in :data:`ARCH_COLOURS`)."""
    return ARCH_COLOURS.get(arch, OTHER_COLOUR)


def marker(layers: int) -> str:
    """The marker for a model with ``layers`` layers."""
    return MARKERS.get(layers, "P")


def model_label(arch: str, layers: int, width: int | None = None) -> str:
    """A short legend label in the glossary's words, such as ``lstm layers=1 width=64``."""
    label = f"{arch} layers={layers}"
    return f"{label} width={width}" if width is not None else label


UNDECIDED = "undecided: still improving when its budget ran out"
"""The legend entry of the undecided marker, in every figure."""
HALF_FILLED = {"fillstyle": "left", "markerfacecoloralt": "white"}
"""Marker keywords of an undecided point (``ax.plot``, ``Line2D``)."""

VERDICTS: dict[str, Counter[str]] = {}
"""Figure name -> how many of the points its last :func:`save` drew are reached, plateaued or
undecided."""


def verdict_of(
    run: Mapping[str, Any], target: float | None = None, metric: str = "best_accuracy"
) -> str:
    """A stored run's verdict at ``target`` (default: its own): ``reached`` when its ``metric``
    meets the target, else its stored verdict (judged again from its curve at a target other than
    its own, :func:`simulations.verdicts.run_verdict`); a run whose best was at the target but
    whose ``metric`` is not counts as ``plateaued``."""
    from simulations.verdicts import run_verdict

    own = float(run["config"].get("target", 0.99))
    goal = own if target is None else float(target)
    if float(run[metric]) >= goal:
        return "reached"
    judged = run_verdict(dict(run), None if goal == own else goal)
    return "plateaued" if judged == "reached" else judged


def combined(
    runs: Iterable[Mapping[str, Any]], target: float | None = None, metric: str = "best_accuracy"
) -> str:
    """The verdict of a best over ``runs`` (:func:`simulations.verdicts.combine`)."""
    from simulations.verdicts import combine

    return combine([verdict_of(r, target, metric) for r in runs])


def suptitle(fig: Figure, text: str, fontsize: float = 10, **kwargs: Any) -> None:
    """The figure's title (its computed conclusion, :mod:`paper_figures.conclusions`), wrapped to
    the figure's width."""
    per_char = 0.58 * fontsize / 72  # inches: a proportional font's mean width, about 0.58 em
    fig.suptitle(
        textwrap.fill(text, max(40, int(0.92 * fig.get_figwidth() / per_char))),
        fontsize=fontsize,
        **kwargs,
    )


def verdict_marks(verdict: str | None, colour: str) -> dict[str, Any]:
    """Marker keywords for a point of that verdict: filled in ``colour``, half-filled when
    undecided."""
    marks: dict[str, Any] = {"color": colour, "markeredgecolor": colour}
    return {**marks, **HALF_FILLED} if verdict == "undecided" else marks


def undecided_handle(marker: str = "o", colour: str = OTHER_COLOUR, cells: bool = False) -> Line2D:
    """A legend handle saying what the undecided marker (or, ``cells``, the ``?`` of a grid
    cell) means."""
    if cells:
        return Line2D(
            [],
            [],
            ls="none",
            marker="$?$",
            color="black",
            ms=8,
            label=f"0.42? in a cell: {UNDECIDED}",
        )
    return Line2D(
        [],
        [],
        ls="none",
        marker=marker,
        ms=7,
        label=UNDECIDED,
        **verdict_marks("undecided", colour),
    )


def cells_legend(fig: Figure, verdicts: Iterable[str | None]) -> None:
    """Under a figure of grids: what ``0.42?`` in a cell means, when a cell is undecided."""
    if "undecided" in set(verdicts):
        fig.legend(
            handles=[undecided_handle(cells=True)],
            loc="upper center",
            bbox_to_anchor=(0.45, 0.0),
            fontsize=8,
            frameon=False,
        )


def figure_legend(
    fig: Figure,
    axes: Sequence[Axes],
    first: Sequence[str] = (),
    columns: int = 3,
    fontsize: float = 7,
) -> None:
    """One legend below the panels for a figure whose panels share their marks: every panel's
    entries once each, those named in ``first`` ahead of the rest."""
    entries: dict[str, Any] = {}
    for ax in axes:
        handles, labels = legend_entries(ax)
        for handle, label in zip(handles, labels, strict=True):
            entries.setdefault(label, handle)
    order = [k for k in first if k in entries] + [k for k in entries if k not in first]
    if order:
        columns = min(columns, len(order))
        fig.legend(
            [entries[k] for k in order],
            order,
            loc="upper center",
            frameon=False,
            fontsize=fontsize,
            ncol=columns,
            bbox_to_anchor=(0.5, 0.0),
        )


_EXTRA: weakref.WeakKeyDictionary[Axes, list[Line2D]] = weakref.WeakKeyDictionary()
"""Panel -> legend handles drawn by its legend only (not on the panel)."""


def add_undecided_entry(ax: Axes, marker: str = "o") -> None:
    """Add the undecided entry to ``ax``'s legend handles (call before ``ax.legend``)."""
    _EXTRA.setdefault(ax, []).append(undecided_handle(marker))


def legend_entries(ax: Axes) -> tuple[list[Any], list[str]]:
    """``ax.get_legend_handles_labels()`` with duplicates dropped and the entries of
    :func:`add_undecided_entry` at the end."""
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    for handle in _EXTRA.get(ax, []):
        unique.setdefault(handle.get_label(), handle)
    return list(unique.values()), list(unique.keys())


def one_sided(
    ax: Axes,
    x: float,
    y: float,
    colour: str,
    marker: str = "o",
    up: bool = True,
    label: str | None = None,
    **marks: Any,
) -> None:
    """A bound an undecided run leaves one-sided: the half-filled ``marker`` at (x, y) and an
    arrow pointing up (the number is at least y) or down (at most y)."""
    ax.plot(
        [x],
        [y],
        ls="none",
        marker=marker,
        ms=marks.pop("ms", 8),
        zorder=6,
        **verdict_marks("undecided", colour),
        **({"label": label} if label else {}),
        **marks,
    )
    ax.annotate(
        "",
        xy=(x, y),
        xytext=(0, 20 if up else -20),
        textcoords="offset points",
        arrowprops={"arrowstyle": "<|-", "color": colour, "lw": 1.4, "shrinkA": 0, "shrinkB": 6},
    )


def cell_text(value: float, verdict: str | None, digits: int = 2) -> str:
    """A grid cell's number, ``?`` appended when its verdict is undecided."""
    return f"{value:.{digits}f}" + ("?" if verdict == "undecided" else "")


def verdict_sentence(counts: Mapping[str, int]) -> str:
    """The caption's sentence on the verdicts of the points drawn ("" when none has one)."""
    total = sum(counts.values())
    if not total:
        return ""
    undecided = counts.get("undecided", 0)
    were = "was" if undecided == 1 else "were"
    return (
        f"Verdicts of the {total} trained points drawn: {counts.get('reached', 0)} reached the "
        f"target, {counts.get('plateaued', 0)} plateaued below it (within noise of chance, or "
        f"no rise over the last half of the budget beyond noise), and {undecided} "
        f"{were} undecided, still improving when the budget ran out (half-filled markers, "
        "'?' in grid cells; a number such a run would decide is drawn as a one-sided bound, "
        "an arrow)."
    )


_NOTES: weakref.WeakKeyDictionary[Axes, str] = weakref.WeakKeyDictionary()
"""Panel -> its note (what the store lacks for it)."""

LEFT_OUT: dict[str, list[str]] = {}
"""Figure name -> the notes of the panels its last :func:`save` left out for lack of data."""


def note(ax: Axes, text: str) -> None:
    """Write ``text`` in the middle of ``ax``: what the store lacks for this panel. A panel
    that holds nothing else is left out when the figure is saved (:func:`save`)."""
    _NOTES[ax] = " ".join(text.split())
    ax.text(
        0.5,
        0.5,
        text,
        transform=ax.transAxes,
        ha="center",
        va="center",
        wrap=True,
        fontsize=9,
        color="#444444",
        bbox={"boxstyle": "round", "facecolor": "#fff3cd", "edgecolor": "#c9a227"},
    )


REFERENCE = "reference"
"""The ``gid`` of a curve that is drawn beside the data but is not data (a bound, a
construction's line): ``ax.plot(..., gid=style.REFERENCE)``. A panel holding only such curves
and a :func:`note` is left out like an empty one."""


def holds_data(ax: Axes) -> bool:
    """Whether ``ax`` shows data: an image, a table, or a curve, marker set, bar or region placed
    in data coordinates (reference lines and spans such as ``axhline``, curves marked
    :data:`REFERENCE`, and notes, do not)."""
    if ax.images or ax.tables:
        return True

    def in_data(artist: Any) -> bool:
        if artist.get_gid() == REFERENCE:
            return False
        if artist.get_transform().contains_branch(ax.transData):
            return True
        offsets = getattr(artist, "get_offset_transform", None)
        return (
            offsets is not None
            and len(artist.get_offsets()) > 0
            and offsets().contains_branch(ax.transData)
        )

    return any(in_data(a) for a in (*ax.lines, *ax.collections, *ax.patches))


def leave_out_empty_panels(fig: Figure) -> list[str]:
    """Remove from ``fig`` every panel that holds a :func:`note` and no data; return their notes.
    If no panel is left, the figure says so in words instead of showing empty frames."""
    left_out = []
    for ax in list(fig.axes):
        if ax in _NOTES and not holds_data(ax):
            left_out.append(_NOTES[ax])
            ax.remove()
    title = getattr(fig, "_suptitle", None)  # matplotlib keeps the suptitle artist here
    if left_out and fig.axes and title is not None:  # centre it over what is left
        left = min(ax.get_position().x0 for ax in fig.axes)
        right = max(ax.get_position().x1 for ax in fig.axes)
        title.set_x((left + right) / 2)
    if left_out and not fig.axes:
        fig.text(
            0.5,
            0.5,
            "No data for this figure in the store:\n" + "\n".join(left_out),
            ha="center",
            va="center",
            fontsize=11,
            color="#444444",
        )
    return left_out


def _title_above_panels(fig: Figure) -> None:
    """Put the figure's title just above its highest panel (its title included), so that a
    title wrapped to several lines never runs into a panel's."""
    title = getattr(fig, "_suptitle", None)  # matplotlib keeps the suptitle artist here
    if title is None or not fig.axes:
        return
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]  # None: a hidden panel
    tops = [box.y1 for box in boxes if box is not None]
    if not tops:
        return
    top = max(tops)
    y = fig.transFigure.inverted().transform((0, top))[1]
    title.set_verticalalignment("bottom")
    title.set_y(y + 0.01)


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """Write ``rows`` (dicts) to ``path`` with a header of ``columns`` (missing keys empty),
    atomically (:func:`ccomplexity.files.atomic_open`)."""
    with atomic_open(path, what="figure file") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})


def save(
    fig: Figure,
    out_dir: Path,
    name: str,
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    verdicts: Iterable[str] | None = None,
) -> list[str]:
    """Save ``fig`` as PNG and PDF and ``rows`` as CSV in ``out_dir``; return the three paths.
    Panels without data are left out first (:func:`leave_out_empty_panels`, recorded in
    :data:`LEFT_OUT` under ``name``), every legend is moved off the data
    (:func:`paper_figures.layout.place_legends`), the PNG's resolution is chosen so that it is
    at most :data:`~paper_figures.layout.MAX_WIDTH_PX` wide, and (while
    :data:`~paper_figures.layout.CHECK` is on) what the drawing rules still find wrong is
    recorded in :data:`~paper_figures.layout.PROBLEMS` under ``name``. ``verdicts``: those of
    the trained points drawn (default: the ``verdict`` of every row that has one), counted in
    :data:`VERDICTS` under ``name``."""
    from paper_figures import layout

    if verdicts is None:
        verdicts = [str(r["verdict"]) for r in rows if r.get("verdict")]
    VERDICTS[name] = Counter(verdicts)

    LEFT_OUT[name] = leave_out_empty_panels(fig)
    _title_above_panels(fig)
    layout.place_legends(fig)
    box = layout.saved_box(fig)
    dpi = layout.png_dpi(box)
    if layout.CHECK:
        layout.PROBLEMS[name] = layout.problems(fig, box, dpi)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [out_dir / f"{name}.png", out_dir / f"{name}.pdf", out_dir / f"{name}.csv"]
    for path in files[:2]:
        with atomic_open(path, "wb", what="figure file") as handle:
            fig.savefig(handle, format=path.suffix[1:], bbox_inches=box, dpi=dpi)
    plt.close(fig)
    write_csv(files[2], rows, columns)
    return [str(f) for f in files]


def load_runs(
    store_path: str | None, held: bool | None = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """The current runs of the store (those not superseded by a longer run of the same config,
    :func:`simulations.verdicts.current`; empty if there is none) and what is missing because of
    that: its float runs (``held`` False: a figure drawn against bounds at a precision the runs
    were not trained at), its runs trained at p bits (True), or all (None)."""
    from simulations.store import runs
    from simulations.verdicts import current

    if store_path is None:
        return [], ["no results store given (use --store DB or --profile NAME)"]
    if not Path(store_path).is_file():
        return [], [f"no results store at {store_path}"]
    found = current(runs(store_path))
    if not found:
        return [], [f"the results store {store_path} has no runs"]
    if held is None:
        return found, []
    kept = [r for r in found if (r["config"].get("precision") is not None) == held]
    if not kept:
        n = len(found)
        why = (
            f"has no runs trained at p bits: its {n} are float runs"
            if held
            else f"has no float runs: its {n} are trained at p bits (`ccx figure bite` draws them)"
        )
        return [], [f"the results store {store_path} {why}"]
    return kept, []


def load_thresholds(
    store_path: str | None, target: float, precision: int, held: bool = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """``simulations.thresholds.thresholds`` rows of the store (empty if there is none): of the
    float runs (their bounds at ``precision``), or with ``held`` of the runs trained at p bits
    (each bound at its own p; the ``bite`` figure's)."""
    from simulations.thresholds import thresholds

    found, missing = load_runs(store_path, held)
    if not found:
        return [], missing
    assert store_path is not None
    rows = thresholds(store_path, target=target, precision=precision)
    return [r for r in rows if bool(r.get("held")) == held], []


@dataclass(frozen=True)
class ThresholdData:
    """What the threshold figures read: the store's current runs, what is missing, the target
    they were trained to, their threshold rows (:func:`simulations.thresholds.thresholds`) and
    where the numbers come from."""

    runs: list[dict[str, Any]]
    missing: list[str]
    target: float
    rows: list[dict[str, Any]]
    label: str


def threshold_data(
    store_path: str | None, profile: str | None, precision: int, held: bool = False
) -> ThresholdData:
    """The store's runs and thresholds at its runs' own target, bounds at ``precision``: of the
    float runs, or with ``held`` of the runs trained at p bits (:func:`load_thresholds`)."""
    runs, missing = load_runs(store_path, held)
    target = target_of(runs)
    rows, _ = load_thresholds(store_path, target, precision, held)
    return ThresholdData(runs, missing, target, rows, store_label(store_path, profile))


def _values(runs: Iterable[Mapping[str, Any]], key: str) -> list[Any]:
    return sorted({r["config"].get(key) for r in runs if r["config"].get(key) is not None})


def _fmt(values: list[Any]) -> str:
    if not values:
        return "?"
    if len(values) == 1:
        return f"{values[0]:g}" if isinstance(values[0], float) else str(values[0])
    shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
    return "{" + shown + "}"


def training_summary(runs: Sequence[Mapping[str, Any]]) -> str:
    """One sentence on how the runs were trained: steps, batch, learning rates, seeds, eval."""
    if not runs:
        return "No training runs."
    return (
        f"{len(runs)} runs; at most {_fmt(_values(runs, 'steps'))} steps of batch "
        f"{_fmt(_values(runs, 'batch'))} (early stop at the target), learning rate "
        f"{_fmt(_values(runs, 'lr'))}, seeds {_fmt(_values(runs, 'seed'))}; accuracy on "
        f"{_fmt(_values(runs, 'eval_samples'))} fresh examples at exactly length N, best over "
        "evaluations, then best over learning rates and seeds."
    )


def target_of(runs: Sequence[Mapping[str, Any]], default: float = 0.99) -> float:
    """The accuracy target the runs were trained to (the first stored one), else ``default``."""
    targets = _values(runs, "target")
    return float(targets[0]) if targets else default


def store_label(store_path: str | None, profile: str | None) -> str:
    """A short 'where the numbers come from' phrase for captions."""
    where = f"store {store_path}" if store_path else "no store"
    return f"{where} (profile {profile})" if profile else where
