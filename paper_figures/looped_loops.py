"""Figure ``looped-loops``: the fewest loops a trained looped model needs, against the proved count.

Two panels, group composition against n and p-hop against p. Each cell (x, L) is the best accuracy
of the stored ``(k ⊗ L)`` looped models (best over learning rates, seeds and evaluations) at that
task size with L loops; a star marks the fewest loops reaching the target, an x a size where no
stored L did. An undecided cell (no run reached the target, one was still improving when its budget
ran out) reads ``0.42?``; where such a cell below the first L reaching the target (or, none
reaching it, any cell) leaves the fewest loops open, it is undecided: a half-filled star with an
arrow down at the L that reached (the fewest is at most that), or at the top when none did (a
half-filled X: nothing is known). The step line is the loop count the paper proves suffices, read
from the claims table: ceil(lg n) (Thm 2.1) and floor(lg p) + 2 (Cor. 2.3); they are also the
rounds of the exact simulators (Algorithm 2, pointer doubling). A trained model may need more loops
(it has to learn the algorithm) or fewer (a wider block can do more per loop).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ccomplexity import claims
from paper_figures import conclusions, fig2, style
from paper_figures.conclusions import Known, Said

NAME = "looped-loops"
PAPER = "looped"
PANELS = (
    ("group-composition", "length", "n, elements composed"),
    ("p-hop", "hops", "p, hops"),
)
TITLES = {"group-composition": "group composition", "p-hop": "p-hop"}
PROVED = {"group-composition": "ceil(lg n), Thm 2.1", "p-hop": "floor(lg p) + 2, Cor. 2.3"}
COLUMNS = ("task", "variant", "x", "loops", "accuracy", "runs", "verdict", "fewest_loops",
           "fewest_loops_at_most", "proved_loops")  # fmt: skip


def _x(run: dict[str, Any], key: str) -> int:
    return run["length"] if key == "length" else run["config"][key]


def _variant(run: dict[str, Any], task: str) -> str:
    """What is held fixed along the panel's x axis: the group, or n and the alphabet."""
    cfg = run["config"]
    if task == "group-composition":
        return f"{cfg.get('group', 'S5')}, k={run['layers']}, width={run['width']}"
    alphabet, width = cfg.get("alphabet", 4), run["width"]
    return f"n={run['length']}, |Σ|={alphabet}, k={run['layers']}, width={width}"


def proved_loops(task: str, run: dict[str, Any]) -> int:
    """Loops the claims table's upper bound for (task, looped models) gives at this run's size."""
    claim = claims.claims(task=task, family="looped", role="upper")[0]
    cfg = run["config"]
    if task == "group-composition":
        return int(claim.bound.value(group=cfg.get("group", "S5"), length=run["length"]))
    return int(claim.bound.value(hops=cfg["hops"]))


Cells = dict[int, tuple[dict[int, tuple[float, int, str]], dict[str, Any]]]
"""{x: ({loops: (best accuracy, runs, verdict)}, one run of that size)} of one variant."""


def grid(runs: list[dict[str, Any]], task: str, key: str, target: float) -> dict[str, Cells]:
    """{variant: cells} of the looped runs on ``task``, each cell's verdict at ``target`` the
    best over its runs (:func:`simulations.verdicts.combine`)."""
    from simulations.verdicts import combine

    out: dict[str, Cells] = defaultdict(dict)
    for run in runs:
        if run["task"] != task or run["arch"] != "looped":
            continue
        by_loops, _ = out[_variant(run, task)].setdefault(_x(run, key), ({}, run))
        loops = run["config"]["loops"]
        best, count, verdict = by_loops.get(loops, (0.0, 0, "plateaued"))
        by_loops[loops] = (
            max(best, run["best_accuracy"]),
            count + 1,
            combine([verdict, style.verdict_of(run, target)]),
        )
    return out


def fewest_loops(
    by_loops: dict[int, tuple[float, int, str]], target: float
) -> tuple[int | str | None, int | None]:
    """(fewest, at most): the smallest L whose best accuracy reaches ``target``, when every
    smaller stored L plateaued below it; "undecided" when a smaller L (or, none reaching it, any
    L) is undecided: still improving, it might have reached it, so the fewest loops is only at
    most the smallest L that did (None when none did). (None, None): no L reached the target
    and none is undecided."""
    passed = [loops for loops, (acc, _, _) in by_loops.items() if acc >= target]
    first = min(passed) if passed else None
    open_below = [
        loops
        for loops, (acc, _, verdict) in by_loops.items()
        if verdict == "undecided" and acc < target and (first is None or loops < first)
    ]
    return ("undecided" if open_below else first), first


def fewest_known(by_loops: dict[int, tuple[float, int, str]], target: float) -> Known:
    """The fewest loops reaching ``target`` as a range over the loop counts tried."""
    found, most = fewest_loops(by_loops, target)
    if found == "undecided":
        return Known(None, most)
    if found is None:
        return Known.at_least(max(by_loops) + 1)
    below = [loops for loops in by_loops if loops < found]
    return Known(max(below) + 1 if below else 1, found)


@dataclass(frozen=True)
class Panel:
    """One task's grid: its variant, sizes, cells and the proved and trained loop counts."""

    task: str
    key: str
    xlabel: str
    variant: str
    cells: Cells
    proved: list[int]
    fewest: list[Known]


def load(store_path: str | None) -> tuple[list[dict[str, Any]], list[str], float, list[Panel]]:
    """The store's runs, what is missing, the target and each task's panel (the variant with
    the most cells)."""
    runs, missing = style.load_runs(store_path)
    target = style.target_of(runs)
    panels = []
    for task, key, xlabel in PANELS:
        data = grid(runs, task, key, target)
        if not data:
            missing.append(f"{NAME}: no looped runs on {task} in the store")
            continue
        variant = max(data, key=lambda v: sum(len(c[0]) for c in data[v].values()))
        cells = data[variant]
        xs = sorted(cells)
        panels.append(
            Panel(
                task,
                key,
                xlabel,
                variant,
                cells,
                [proved_loops(task, cells[x][1]) for x in xs],
                [fewest_known(cells[x][0], target) for x in xs],
            )
        )
    return runs, missing, target, panels


def _panel_words(panel: Panel) -> tuple[str, str]:
    """(headline, sentence) on one task: its fewest trained loops against the proved count."""
    xs = sorted(panel.cells)
    name = "n" if panel.task == "group-composition" else "p"
    orders = [
        conclusions.order(f, Known.exactly(p))
        for f, p in zip(panel.fewest, panel.proved, strict=True)
    ]
    each = "; ".join(
        f"{name} = {x}: {f.text()} (proved {p})"
        for x, f, p in zip(xs, panel.fewest, panel.proved, strict=True)
    )
    counts = {o: orders.count(o) for o in ("same", "less", "more", "undecided") if o in orders}
    words = {
        "same": "at the proved count",
        "less": "below it",
        "more": "above it",
        "undecided": "undecided",
    }
    summary = conclusions.series(
        f"{c} of {len(orders)} sizes {words[o]}" for o, c in counts.items()
    )
    title = TITLES[panel.task]
    return f"{title}, {summary}", f"{title} ({panel.variant}): {each}"


def conclude(panels: list[Panel], target: float) -> Said:
    """Per task, the fewest trained loops reaching the target against the loops proved to
    suffice."""
    subject = "Fewest loops a trained looped transformer needs"
    if not panels:
        return conclusions.no_data(subject, "no looped runs on group composition or p-hop")
    words = [_panel_words(p) for p in panels]
    return Said(
        f"{subject} at {target:g}, against the proved count: " + "; ".join(h for h, _ in words),
        ". ".join(s for _, s in words) + ". The proved counts are upper bounds for a "
        "construction: a trained model may need more or fewer.",
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    _, _, target, panels = load(store_path)
    return conclude(panels, target)


def _cells_image(ax: Any, panel: Panel, csv_rows: list[dict[str, Any]]) -> Any:
    """The grid of best accuracies with their numbers; returns the image."""
    xs = sorted(panel.cells)
    top = max(max(by_loops) for by_loops, _ in panel.cells.values())
    acc = np.full((top, len(xs)), np.nan)
    for j, x in enumerate(xs):
        by_loops, _ = panel.cells[x]
        fewest = panel.fewest[j]
        for loops, (best, count, verdict) in by_loops.items():
            acc[loops - 1, j] = best
            ax.text(
                j,
                loops,
                style.cell_text(best, verdict),
                ha="center",
                va="center",
                fontsize=7,
                color="white" if best < 0.5 else "black",
            )
            csv_rows.append(
                {
                    "task": panel.task,
                    "variant": panel.variant,
                    "x": x,
                    "loops": loops,
                    "accuracy": best,
                    "runs": count,
                    "verdict": verdict,
                    "fewest_loops": _fewest_cell(fewest),
                    "fewest_loops_at_most": fewest.high if fewest.low is None else None,
                    "proved_loops": panel.proved[j],
                }
            )
    return ax.imshow(
        acc,
        origin="lower",
        cmap="viridis",
        vmin=0,
        vmax=1,
        aspect="auto",
        extent=(-0.5, len(xs) - 0.5, 0.5, top + 0.5),
    )


def _fewest_cell(fewest: Known) -> int | str | None:
    """The CSV's fewest loops: the count, "undecided", or empty when none reached it."""
    if fewest.low is None:
        return "undecided"
    return None if fewest.high is None else int(fewest.high)


def _marks(ax: Any, panel: Panel, target: float) -> None:
    """The proved steps, the stars of the fewest loops and their one-sided or missing marks."""
    xs = sorted(panel.cells)
    top = max(max(by_loops) for by_loops, _ in panel.cells.values())
    steps = np.arange(len(xs) + 1) - 0.5
    ax.stairs(
        np.array(panel.proved) - 0.5,
        steps,
        color="black",
        linewidth=2.5,
        baseline=None,
        label="proved to suffice: the loops on and above the line",
    )
    hit = [(j - 0.33, f.high) for j, f in enumerate(panel.fewest) if f.closed]
    if hit:
        ax.plot(
            *zip(*hit, strict=True),
            "*",
            color="#d62728",
            markersize=14,
            markeredgecolor="white",
            label=f"fewest trained loops reaching {target:g}",
        )
    for j, f in enumerate(panel.fewest):
        if f.low is None and f.high is not None:
            style.one_sided(
                ax,
                j - 0.33,
                f.high,
                "#d62728",
                "*",
                up=False,
                ms=14,
                label="fewest loops undecided: at most this (a smaller L still improving)",
            )
        elif f.low is None:  # none reached it, one still improving: nothing is known
            ax.plot(
                [j - 0.33],
                [top],
                "X",
                color="#d62728",
                ms=11,
                **style.HALF_FILLED,
                label=f"none reaches {target:g}, one still improving",
            )
    miss = [j for j, f in enumerate(panel.fewest) if f.low is not None and f.high is None]
    if miss:
        ax.plot(
            [j - 0.33 for j in miss],
            [top] * len(miss),
            "x",
            color="#d62728",
            markersize=10,
            mew=2.5,
            label=f"no stored loop count reaches {target:g}",
        )
    bound = PROVED[panel.task]
    ax.set_xticks(range(len(xs)), [str(x) for x in xs])
    ax.set_yticks(range(1, top + 1))
    ax.set_ylim(0.5, top + 0.5)
    ax.set_title(f"{TITLES[panel.task]}: proved {bound}\n{panel.variant}", fontsize=10)


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw both panels from the store at ``store_path`` into ``out_dir``."""
    runs, missing, target, panels = load(store_path)
    said = conclude(panels, target)
    fig, axes = plt.subplots(1, len(PANELS), figsize=(12, 5.8))
    csv_rows: list[dict[str, Any]] = []
    image = None
    drawn = {p.task: p for p in panels}
    for ax, (task, _, xlabel) in zip(axes, PANELS, strict=True):
        ax.set_xlabel(xlabel)
        ax.set_ylabel("loops L of the block")
        if task not in drawn:
            style.note(ax, f"no looped runs on {task}")
            ax.set_title(task)
            continue
        image = _cells_image(ax, drawn[task], csv_rows)
        _marks(ax, drawn[task], target)
        if any(r["verdict"] == "undecided" for r in csv_rows if r["task"] == task):
            ax.plot(
                [],
                [],
                ls="none",
                marker="$?$",
                color="black",
                label=f"0.42? in a cell: {style.UNDECIDED}",
            )
    style.figure_legend(fig, axes, fontsize=8)  # both panels' marks mean the same things
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="best accuracy at that size and loop count")
    style.suptitle(fig, said.title)
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    caption = _caption(runs, target, store_path, profile)
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)


def _caption(
    runs: list[dict[str, Any]], target: float, store_path: str | None, profile: str | None
) -> str:
    return (
        "Cells: best accuracy (fresh examples, best over evaluations, learning rates and seeds) "
        "of looped transformers (k ⊗ L) with the block width d shown, for each task size and "
        f"loop count L; star: the fewest loops reaching the target {target:g}; x: none of the "
        "stored loop counts reached it; '?' after a number: undecided (no run reached the "
        "target and one was still improving when its budget ran out); a half-filled star with "
        "an arrow down: the fewest loops is undecided, at most the L drawn, since a smaller L "
        "was still improving; a half-filled X: no loop count reached the target and one was "
        "still improving, so nothing is known. Black steps: the loops the paper proves "
        "suffice, ceil(lg n) for group composition (Thm 2.1, also Algorithm 2's rounds) and "
        "floor(lg p) + 2 for p-hop (Cor. 2.3, also the pointer-doubling simulator's rounds); "
        "they are upper bounds for a construction, not lower bounds for trained models. "
        f"{fig2.chance_text(runs, TITLES)}"
        f". Training: {style.training_summary(runs)} "
        f"Data: {style.store_label(store_path, profile)}."
    )
