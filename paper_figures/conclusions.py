"""Titles and conclusions written from the store's decided results (ARCHITECTURE.md, "Verdicts").

A figure says in its title, and in one conclusion sentence, what its runs decide and nothing the
data do not: both are computed from the store each time the figure is drawn, never written
beforehand. The mechanism is small and every figure uses it the same way:

* :class:`Known`: a number read from runs, known to lie in ``[low, high]``. A number the runs
  decide is one value or, on a grid of tried sizes, the range up to the next size missed; a run
  still improving when its budget ran out leaves one side open (``high`` None: at least ``low``,
  as a threshold an undecided miss may still raise; ``low`` None: at most ``high``, as a smallest
  width an undecided smaller one may still lower). :func:`accuracy` makes one from a best
  accuracy and its verdict;
* :func:`order` compares two: ``"more"``, ``"less"``, ``"same"`` (neither open and the data do
  not tell them apart: the same grid range, or overlapping intervals) or ``"undecided"`` (one is
  open where the other lies, or an undecided run leaves it open inside its range);
* :class:`Said`: the title and the conclusion. :func:`say` puts the title on the figure and both
  into the figure's result, which ``ccx figure ... --json`` prints beside the caption and the
  report shows above it. :func:`no_data` is what a figure says when its store holds nothing for
  it; :func:`ranking` and :func:`series` turn orders into words, :func:`threshold` and
  :func:`threshold_text` read and say the thresholds of :mod:`simulations.thresholds`.

A figure module keeps three steps apart: ``load`` reads what it plots from the store, ``conclude``
turns that into a :class:`Said` without drawing (so tests hold each figure's words to stores
built to decide each way), and ``make`` draws, saves and returns ``say(...)``'s result;
``summary(store_path)`` runs the first two alone (``ccx report`` asks it whether a store has
data for the figure). A new figure (``bite``, say) does the same: read its numbers as
:class:`Known` values, compare them with :func:`order`, build its title and sentence from the
orders (a fixed clause only for what it plots, never for what the data show; :func:`no_data`
when the store has none), give the module ``summary``, and end ``make`` with
``style.suptitle(fig, said.title)`` before saving and ``return say(said, name=..., files=...,
caption=..., missing=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ORDERS = ("more", "less", "same", "undecided")
RELATION = {"more": "above", "less": "below", "same": "level with",
            "undecided": "undecided against"}  # fmt: skip
"""An order of two accuracies in words ("{a} above {b}")."""


@dataclass(frozen=True)
class Known:
    """A number known from runs to lie in [low, high]; None leaves that side open, and
    ``undecided`` says that an undecided run leaves it open within the range (a threshold
    undecided at N = 20 but plateaued at 50 lies in [0, 49], yet is not a range the data
    decide)."""

    low: float | None
    high: float | None
    undecided: bool = False

    @classmethod
    def exactly(cls, value: float) -> Known:
        return cls(value, value)

    @classmethod
    def at_least(cls, value: float) -> Known:
        return cls(value, None)

    @classmethod
    def at_most(cls, value: float) -> Known:
        return cls(None, value)

    @property
    def closed(self) -> bool:
        """Whether no run leaves it open."""
        return self.low is not None and self.high is not None and not self.undecided

    @property
    def decided(self) -> bool:
        """Whether it is one number."""
        return self.closed and self.low == self.high

    def text(self, fmt: str = "{:,g}") -> str:
        """``512``, ``at least 512``, ``at most 8`` or ``256 to 511``."""
        if self.low is None and self.high is None:
            return "undecided"
        if self.low is None:
            return "at most " + fmt.format(self.high)
        if self.high is None:
            return "at least " + fmt.format(self.low)
        if self.low == self.high:
            return fmt.format(self.low)
        return f"{fmt.format(self.low)} to {fmt.format(self.high)}"


def order(a: Known, b: Known) -> str:
    """How ``a`` compares with ``b``: "more" or "less" when their ranges do not meet, "same"
    when they meet and neither is open, "undecided" when they meet and one is open."""
    if a.low is not None and b.high is not None and a.low > b.high:
        return "more"
    if a.high is not None and b.low is not None and a.high < b.low:
        return "less"
    return "same" if a.closed and b.closed else "undecided"


def on_grid(passed: int | None, tried: Iterable[int], open_above: bool) -> Known:
    """A largest passing size on a grid of tried sizes: at least ``passed`` when nothing larger
    decides it (the largest tried passed, or a larger miss is undecided: ``open_above``), else
    from ``passed`` to just below the next size tried (0 when none passed)."""
    low = passed or 0
    above = [n for n in tried if n > low]
    if open_above or not above:
        return Known.at_least(low)
    return Known(low, min(above) - 1)


def accuracy(best: float, verdict: str, examples: int) -> Known:
    """A best accuracy as a range: its 95% Wilson interval, open above when the run (or the
    best over runs) is undecided: it was still improving."""
    from simulations.verdicts import wilson

    lo, hi = wilson(best, examples)
    return Known(lo, None if verdict == "undecided" else hi)


def threshold(row: Mapping[str, Any]) -> Known:
    """A threshold row of :func:`simulations.thresholds.thresholds` as a range (see
    :func:`grid_threshold`)."""
    points = row.get("points") or [
        {"length": n, "verdict": "reached" if n <= (row["threshold_length"] or 0) else "plateaued"}
        for n in row["lengths"]
    ]  # a row without points: its threshold decided
    return grid_threshold({p["length"]: p["verdict"] for p in points})


def grid_threshold(verdicts: Mapping[int, str]) -> Known:
    """The largest length N with every length up to it reached, from the verdict at each length
    tried, as a range: from the last length reached before the first one missed up to just
    below the first length that plateaued (open above when none did: every length reached, or
    only undecided misses). An undecided miss leaves the lengths from it open, a plateaued one
    closes the range whatever comes before it."""
    lengths = sorted(verdicts)
    missed = [n for n in lengths if verdicts[n] != "reached"]
    passed = max((n for n in lengths if not missed or n < missed[0]), default=0)
    plateaued = [n for n in missed if verdicts[n] == "plateaued"]
    open_ = bool(missed) and verdicts[missed[0]] == "undecided"
    return Known(passed, plateaued[0] - 1 if plateaued else None, open_)


def threshold_text(row: Mapping[str, Any]) -> str:
    """A threshold row in words: "N >= 50", "N = 20 (50 missed, best 0.62)", "below N = 20
    (best 0.12)", "undecided at N = 20 (best 0.12, still improving)"."""
    known = threshold(row)
    missed = next(
        (
            p
            for p in sorted(row.get("points") or [], key=lambda p: p["length"])
            if p["verdict"] != "reached"
        ),
        None,
    )
    best = f"best {missed['best_accuracy']:.3g}" if missed and "best_accuracy" in missed else ""
    if missed is not None and missed["verdict"] == "undecided":
        reached = f"N >= {known.low:,g}, " if known.low else ""
        below = f", below N = {known.high + 1:,g}" if known.high is not None else ""
        return f"{reached}undecided at N = {missed['length']:,} ({best}, still improving){below}"
    if known.high is None:
        return f"N >= {known.low:,g}"
    if not known.low:
        return f"below N = {known.high + 1:,g} ({best})"
    return f"N = {known.low:,g} ({known.high + 1:,g} missed, {best})"


def ranking(named: Mapping[str, Known], more: tuple[str, str], same: str, undecided: str) -> str:
    """Which of the named numbers is largest, in words: "{leaders} {more} {the others}" (the
    leader and those the data do not tell apart from it; ``more`` is the verb for one leader and
    for several), with "; against {others} undecided" where an open number leaves it so; "{all}
    {same}" when none is told apart; else ``undecided``."""
    if len(named) < 2:
        return ""
    leader = max(named, key=lambda k: (named[k].low or 0, named[k].high is None))
    rest = {k: order(named[leader], v) for k, v in named.items() if k != leader}
    top = [leader, *(k for k, o in rest.items() if o == "same")]
    beaten = [k for k, o in rest.items() if o == "more"]
    open_ = [k for k, o in rest.items() if o == "undecided"]
    if not beaten:
        return f"{series(top)} {same}" if not open_ else undecided
    words = f"{series(top)} {more[len(top) > 1]} {series(beaten)}"
    return words + (f"; against {series(open_)} undecided" if open_ else "")


def series(parts: Iterable[str], last: str = "and") -> str:
    """Parts joined as prose: "a", "a and b", "a, b and c"."""
    items = [p for p in parts if p]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


@dataclass(frozen=True)
class Said:
    """A figure's title and conclusion sentence, computed from its data; ``data`` False when
    the store holds nothing the figure draws (``ccx report`` then lists it instead)."""

    title: str
    conclusion: str
    data: bool = True


def no_data(subject: str, missing: str) -> Said:
    """What a figure says when the store holds nothing it draws from."""
    return Said(f"{subject}: no data in the store", f"Nothing to conclude: {missing}.", False)


def say(said: Said, **result: Any) -> dict[str, Any]:
    """A figure's result (``name``, ``files``, ``caption``, ``missing`` and anything more it
    reports) with its ``title`` and ``conclusion``."""
    return {**result, "title": said.title, "conclusion": said.conclusion}


__all__ = [
    "ORDERS",
    "RELATION",
    "Known",
    "Said",
    "accuracy",
    "no_data",
    "on_grid",
    "order",
    "ranking",
    "say",
    "series",
    "grid_threshold",
    "threshold",
    "threshold_text",
]
