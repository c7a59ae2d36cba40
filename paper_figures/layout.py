"""Drawing rules every figure follows, applied and checked by :func:`paper_figures.style.save`.

The rules (``docs/development.md``, "Figures"): no legend box over a plotted point; a figure at
most :data:`MAX_WIDTH_PX` pixels wide as a PNG; labels in words, never an internal id (a bound
id such as ``parrots.thm3_1``, a field name such as ``best_accuracy``); tick labels that do not
run into each other.

:func:`place_legends` moves each legend that covers data: to the free corner or side of its
panel, else outside the panel (right, then below) where no other panel is, else it leaves it
and :func:`problems` reports it. :func:`problems` lists what still breaks a rule; the tests hold
every figure to an empty list.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
from matplotlib import rcParams
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.ticker import NullFormatter
from matplotlib.transforms import Bbox

MAX_WIDTH_PX = 1600
"""The widest PNG a figure is saved as (readable at 100% on a laptop screen)."""
BEST_DPI = 150
"""The PNG resolution of a figure narrow enough to have it."""

PROBLEMS: dict[str, list[str]] = {}
"""Figure name -> what its last save still found wrong (empty when every rule holds), while
:data:`CHECK` is on."""
CHECK = False
"""Whether :func:`paper_figures.style.save` runs :func:`problems` (the tests turn it on; a
figure drawn for a user is placed by the rules all the same)."""

INSIDE = ("upper left", "upper right", "lower left", "lower right", "center left",
          "center right", "upper center", "lower center")  # fmt: skip
"""Places inside a panel a legend may take, in the order they are tried."""

INTERNAL = (
    re.compile(r"\b(separations|parrots|looped|kg)\.[a-z]\w*"),  # bound ids
    re.compile(r"\b(thm|lemma|cor|prop|fact|ex|eq)\d+(_\w+)?\b"),  # bare statement ids
    re.compile(r"\b(Thm|Lemma|Cor|Prop|Fact)\s*\d+_\d+"),  # an id with its prefix capitalised
    re.compile(r"\b[a-z]+_[a-z]+\w*\b"),  # snake_case field names
)
"""Patterns of internal names that a label must not show (outside ``$...$`` mathematics)."""

STEP_PX = 4.0
"""Segments of a curve are sampled every this many pixels when testing a legend against it."""


def _renderer(fig: Figure, draw: bool = False) -> Any:
    """The figure's renderer; ``draw``: lay the figure out first (the layout engine, then each
    panel's ticks and their labels), without painting it. Extents asked of it afterwards
    (legends, tight boxes) are computed on demand."""
    renderer = fig.canvas.get_renderer()
    if draw:
        engine = fig.get_layout_engine()
        if engine is not None:
            engine.execute(fig)
        for ax in fig.axes:
            ax.get_tightbbox(renderer)  # places the ticks and their labels
    return renderer


def _points(ax: Axes) -> np.ndarray:
    """Display coordinates of what ``ax`` plots in data coordinates: the vertices of its curves
    (and points along their segments, every :data:`STEP_PX` pixels) and its markers. Reference
    lines spanning the panel (``axhline``) and notes are not data."""
    chunks = [np.empty((0, 2))]
    for line in ax.lines:
        if not line.get_visible() or not line.get_transform().contains_branch(ax.transData):
            continue
        xy = np.asarray(line.get_xydata(), dtype=float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            continue
        pts = line.get_transform().transform(xy)
        if line.get_linestyle() not in ("None", "", " ", "none") and len(pts) > 1:
            pieces = [pts[:1]]
            for a, b in zip(pts[:-1], pts[1:], strict=True):
                steps = int(min(500, np.hypot(*(b - a)) // STEP_PX)) + 1
                pieces.append(a + (b - a) * np.linspace(0, 1, steps + 1)[1:, None])
            pts = np.concatenate(pieces)
        chunks.append(pts)
    for coll in ax.collections:
        offsets = getattr(coll, "get_offsets", None)
        if not coll.get_visible() or offsets is None or not len(offsets()):
            continue
        transform = coll.get_offset_transform()
        if transform.contains_branch(ax.transData):
            xy = np.asarray(offsets(), dtype=float)
            chunks.append(transform.transform(xy[np.isfinite(xy).all(axis=1)]))
    for patch in ax.patches:
        if patch.get_visible() and patch.get_transform().contains_branch(ax.transData):
            box = patch.get_window_extent()
            corners = [[box.x0, box.y1], [box.x1, box.y1], [box.x0, box.y0], [box.x1, box.y0]]
            chunks.append(np.array([*corners, [(box.x0 + box.x1) / 2, box.y1]]))
    pts = np.concatenate(chunks)
    inside = ax.get_window_extent()
    keep = (
        (pts[:, 0] >= inside.x0 - 1)
        & (pts[:, 0] <= inside.x1 + 1)
        & (pts[:, 1] >= inside.y0 - 1)
        & (pts[:, 1] <= inside.y1 + 1)
    )
    return pts[keep]


def _covered(box: Bbox, pts: np.ndarray) -> int:
    """How many of ``pts`` lie inside ``box``."""
    if not len(pts):
        return 0
    x, y = pts[:, 0], pts[:, 1]
    return int(((x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)).sum())


def _panels(fig: Figure, renderer: Any) -> dict[Axes, Bbox]:
    """Each visible panel of ``fig`` and the box its drawing takes (labels included)."""
    return {ax: ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()}


def _clashes(box: Bbox, panels: dict[Axes, Bbox], own: Axes) -> bool:
    """Whether ``box`` runs into a panel of ``panels`` other than ``own``, or off the figure's
    left edge."""
    return box.x0 < 0 or any(box.overlaps(b) for ax, b in panels.items() if ax is not own)


def _outside(ax: Axes, tight: Bbox) -> list[tuple[str, tuple[float, float]]]:
    """Places just outside ``ax``, whose drawing takes ``tight`` (loc, anchor in axes
    fraction): right of it, then below it (centred, then from its left edge, for a legend wider
    than the panel)."""
    to_axes = ax.transAxes.inverted()
    right = to_axes.transform((tight.x1, 0))[0] + 0.02
    below = to_axes.transform((0, tight.y0))[1] - 0.02
    return [
        ("upper left", (right, 1.0)),
        ("upper center", (0.5, below)),
        ("upper left", (0.0, below)),
    ]


def place_legend(
    legend: Legend, ax: Axes, panels: Callable[[], dict[Axes, Bbox]], renderer: Any
) -> None:
    """Move ``legend`` (of panel ``ax``) off the data: keep it where it is if it covers no
    point, else the first free place of :data:`INSIDE`, else outside the panel where none of
    the other ``panels()`` is; if none is free it stays where it was."""
    pts = _points(ax)
    if _covered(legend.get_window_extent(renderer), pts) == 0:
        if legend._loc == 0:  # "best" is placed again at every draw: at the saved size, elsewhere
            _pin(legend, ax, renderer)
        return
    start_loc, start_anchor = legend._loc, legend._bbox_to_anchor  # restored as they were
    for loc in INSIDE:
        legend.set_bbox_to_anchor(None)
        legend.set_loc(loc)
        if _covered(legend.get_window_extent(renderer), pts) == 0:
            return
    legend.set_visible(False)  # the panel's own box, without the legend being placed
    tight = ax.get_tightbbox(renderer)
    legend.set_visible(True)
    for loc, anchor in _outside(ax, tight):
        legend.set_loc(loc)
        legend.set_bbox_to_anchor(anchor, transform=ax.transAxes)
        if not _clashes(legend.get_window_extent(renderer), panels(), ax):
            return
    legend._loc, legend._bbox_to_anchor = start_loc, start_anchor


def _pin(legend: Legend, ax: Axes, renderer: Any) -> None:
    """Keep ``legend`` where it is drawn now: its lower left corner anchored there in axes
    coordinates, so that a save at another size or resolution does not move it onto data."""
    box = legend.get_window_extent(renderer).transformed(ax.transAxes.inverted())
    legend.set_loc("lower left")
    legend.set_bbox_to_anchor((box.x0, box.y0, box.width, box.height), transform=ax.transAxes)
    legend.borderaxespad = 0.0


def unclutter_ticks(fig: Figure) -> None:
    """Where tick labels of a panel with a log axis run into each other: drop the minor tick
    labels (a log axis spanning less than a decade labels its minor ticks), then slant what is
    left. (Linear axes space their labels themselves; :func:`problems` checks every panel.)"""
    logs = [ax for ax in fig.axes if "log" in (ax.get_xscale(), ax.get_yscale())]
    if not logs:
        return
    renderer = _renderer(fig, draw=True)
    for ax in logs:
        if not _tick_overlaps(ax, renderer):
            continue
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_minor_formatter(NullFormatter())
        renderer = _renderer(fig, draw=True)
        if _tick_overlaps(ax, renderer):
            for label in ax.get_xticklabels():
                label.set_rotation(30)
                label.set_horizontalalignment("right")


def place_legends(fig: Figure) -> None:
    """:func:`unclutter_ticks`, then :func:`place_legend` for the legend of every panel."""
    unclutter_ticks(fig)
    renderer = _renderer(fig)
    cache: dict[Axes, Bbox] = {}

    def panels() -> dict[Axes, Bbox]:  # measured once, when a legend first looks outside
        if not cache:
            cache.update(_panels(fig, renderer))
        return cache

    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            place_legend(legend, ax, panels, renderer)
            if cache:
                cache[ax] = ax.get_tightbbox(renderer)  # with its legend where it now is


def png_dpi(box: Bbox) -> float:
    """The resolution at which a figure saved as ``box`` (:func:`saved_box`) is at most
    :data:`MAX_WIDTH_PX` wide (:data:`BEST_DPI` where that fits)."""
    aim = 0.97 * MAX_WIDTH_PX  # wrapped notes re-wrap at the final resolution: keep a margin
    return min(float(BEST_DPI), aim / max(box.width, 1e-9))


def saved_box(fig: Figure) -> Bbox:
    """The part of ``fig`` that ``bbox_inches="tight"`` would save (inches, padding included),
    computed once: handing it to ``savefig`` spares each save a layout pass of its own."""
    return fig.get_tightbbox(_renderer(fig)).padded(float(rcParams["savefig.pad_inches"]))


def texts(fig: Figure) -> list[Text]:
    """Every visible, non-empty text of ``fig``: titles, axis and tick labels, legend entries,
    annotations, notes."""
    found = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return list(dict.fromkeys(found))


def internal_names(text: str) -> list[str]:
    """The internal names (:data:`INTERNAL`) that ``text`` shows outside ``$...$`` mathematics,
    file paths and quoted commands."""
    plain = re.sub(r"\$[^$]*\$|\S*/\S*|`[^`]*`", " ", text)  # maths, paths, commands
    return [m.group(0) for pattern in INTERNAL for m in pattern.finditer(plain)]


def _tick_overlaps(ax: Axes, renderer: Any) -> list[str]:
    found = []
    for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        labels = [
            t
            for t in (*axis.get_majorticklabels(), *axis.get_minorticklabels())
            if t.get_visible() and t.get_text().strip()
        ]
        inside = ax.get_window_extent()
        boxes = []
        for t in labels:
            box = t.get_window_extent(renderer)
            middle = (box.x0 + box.x1) / 2 if axis_name == "x" else (box.y0 + box.y1) / 2
            low, high = (inside.x0, inside.x1) if axis_name == "x" else (inside.y0, inside.y1)
            if low - 1 <= middle <= high + 1:
                boxes.append((box, t.get_text()))
        key = (lambda b: b[0].x0) if axis_name == "x" else (lambda b: b[0].y0)
        boxes.sort(key=key)
        for (a, ta), (b, tb) in zip(boxes, boxes[1:], strict=False):
            common = Bbox.intersection(a, b)  # None where they do not meet
            if common is not None and common.width > 0.5 and common.height > 0.5:
                found.append(f"{axis_name} tick labels {ta!r} and {tb!r} overlap")
    return found


def problems(fig: Figure, box: Bbox, dpi: float) -> list[str]:
    """What in ``fig`` still breaks a drawing rule: a legend over data, a legend running into
    another panel, an internal name in a label, tick labels that overlap, a PNG wider than
    :data:`MAX_WIDTH_PX` when saved as ``box`` at ``dpi``."""
    renderer = _renderer(fig)
    panels = _panels(fig, renderer)
    found = []
    for ax in fig.axes:
        title = ax.get_title() or ax.get_label()
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            extent = legend.get_window_extent(renderer)
            covered = _covered(extent, _points(ax))
            if covered:
                found.append(f"panel {title!r}: its legend covers {covered} plotted points")
            if _clashes(extent, panels, ax):
                found.append(f"panel {title!r}: its legend runs into another panel")
        found.extend(f"panel {title!r}: {m}" for m in _tick_overlaps(ax, renderer))
    for text in texts(fig):
        for name in internal_names(text.get_text()):
            found.append(f"internal name {name!r} in the label {text.get_text()[:60]!r}")
    width = box.width * dpi
    if width > MAX_WIDTH_PX:
        found.append(f"{width:.0f} px wide, more than {MAX_WIDTH_PX}")
    return found


__all__ = [
    "MAX_WIDTH_PX",
    "PROBLEMS",
    "internal_names",
    "place_legend",
    "place_legends",
    "png_dpi",
    "saved_box",
    "problems",
    "texts",
]
