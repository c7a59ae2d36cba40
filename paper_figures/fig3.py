"""Figure ``fig3`` (the paper's Fig. 3): index-lookup accuracy over width x length, as heat maps.

One heat map per recurrent architecture (Mamba, and LSTM for contrast): rows are widths, columns
lengths N, cells the best accuracy over learning rates, seeds and evaluations, coloured on a log
scale from the task's chance level to 1.  Where the store
has several depths of an architecture, the depth with the most widths is shown.  A cell whose
best is undecided (no run reached the target and one was still improving when its budget ran
out) reads ``0.42?`` (``paper_figures.style``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm

from paper_figures import conclusions, style
from paper_figures.conclusions import Said

NAME = "fig3"
ARCHS = ("mamba", "lstm")
COLUMNS = ("arch", "layers", "width", "length", "accuracy", "verdict")


Grid = dict[int, dict[int, tuple[float, str]]]
"""{width: {N: (best accuracy, verdict)}}."""


def _grid(rows: list[dict[str, Any]], arch: str) -> tuple[int, Grid] | None:
    """(layers, {width: {N: (best accuracy, verdict)}}) of ``arch`` on index lookup, or None."""
    mine = [r for r in rows if r["task"] == "index-lookup" and r["arch"] == arch]
    if not mine:
        return None
    layers = Counter(r["layers"] for r in mine).most_common(1)[0][0]
    return layers, {
        r["width"]: {p["length"]: (p["best_accuracy"], p["verdict"]) for p in r["points"]}
        for r in mine
        if r["layers"] == layers
    }


def _widths_words(arch: str, layers: int, grid: Grid, target: float) -> tuple[str, str]:
    """(headline, sentence) for one architecture: whether any width reaches the target, and
    whether the longest N reached grows with the width (Thm 3: m p >= N)."""
    name = style.model_label(arch, layers)
    best = max((acc, w, n) for w, by_n in grid.items() for n, (acc, _) in by_n.items())
    known = {w: _width_threshold(by_n) for w, by_n in sorted(grid.items())}
    verdicts = [v for by_n in grid.values() for _, v in by_n.values()]
    if "reached" not in verdicts and "undecided" not in verdicts:
        return (
            f"{name} at {target:g} at no width or length tried",
            f"{name}: no width reaches {target:g} at any N tried, every miss decided "
            f"(best {best[0]:.3f}, at d = {best[1]}, N = {best[2]})",
        )
    each = ", ".join(f"d = {w}: {_threshold_words(k)}" for w, k in known.items())
    widths = list(known)
    steps = [
        conclusions.order(known[b], known[a]) for a, b in zip(widths, widths[1:], strict=False)
    ]
    if "undecided" in steps:
        trend = "whether its reach grows with width is undecided"
    elif "less" in steps:
        trend = "its reach does not grow with width"
    elif "more" in steps:
        trend = "its reach grows with width"
    else:
        trend = "its reach is the same at every width"
    return f"{name}: {trend}", f"{name}: {each}: {trend} (best {best[0]:.3f})"


def _width_threshold(by_n: dict[int, tuple[float, str]]) -> conclusions.Known:
    """The longest N one width holds the target to, every shorter N too, as a range."""
    return conclusions.grid_threshold({n: verdict for n, (_, verdict) in by_n.items()})


def _threshold_words(known: conclusions.Known) -> str:
    if known.undecided:
        below = f", below N = {known.high + 1:,g}" if known.high is not None else ""
        return f"undecided{below}"
    if known.high is None:
        return f"N >= {known.low:,g}" if known.low else "undecided"
    if not known.low:
        return f"below N = {known.high + 1:,g}"
    return f"N = {known.low:,g}" if known.decided else f"N {known.low:,g} to {known.high:,g}"


def conclude(data: style.ThresholdData) -> Said:
    """Per recurrent architecture: any width at the target, and does its reach grow with
    width."""
    subject = "Index lookup, recurrent models over width and length"
    found = {arch: _grid(data.rows, arch) for arch in ARCHS}
    words = [_widths_words(arch, *grid, data.target) for arch, grid in found.items() if grid]
    if not words:
        return conclusions.no_data(subject, f"no index-lookup runs of {', '.join(ARCHS)}")
    return Said(
        f"{subject}: " + "; ".join(h for h, _ in words), ". ".join(s for _, s in words) + "."
    )


def _heat_map(
    ax: Any, arch: str, found: tuple[int, Grid], chance: float, csv_rows: list[dict[str, Any]]
) -> Any:
    """One architecture's cells: best accuracy per width and length, on a log colour scale
    from chance to 1 so that accuracies near chance are told apart."""
    layers, grid = found
    widths = sorted(grid)
    lengths = sorted({n for by_n in grid.values() for n in by_n})
    cells = np.full((len(widths), len(lengths)), np.nan)
    norm = LogNorm(vmin=chance, vmax=1)
    for i, w in enumerate(widths):
        for j, n in enumerate(lengths):
            if n not in grid[w]:
                continue
            accuracy, verdict = grid[w][n]
            cells[i, j] = max(accuracy, chance)
            csv_rows.append(
                {
                    "arch": arch,
                    "layers": layers,
                    "width": w,
                    "length": n,
                    "accuracy": accuracy,
                    "verdict": verdict,
                }
            )
            dark = norm(max(accuracy, chance)) < 0.5
            ax.text(
                j,
                i,
                style.cell_text(accuracy, verdict),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "black",
            )
    image = ax.imshow(cells, origin="lower", cmap="viridis", norm=norm, aspect="auto")
    ax.set_xticks(range(len(lengths)), [str(n) for n in lengths])
    ax.set_yticks(range(len(widths)), [str(w) for w in widths])
    ax.set_title(f"{style.model_label(arch, layers)} on index lookup")
    return image


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(style.threshold_data(store_path, None, 32))


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the heat maps from the store at ``store_path`` into ``out_dir``."""
    data = style.threshold_data(store_path, profile, 32)
    said = conclude(data)
    missing = list(data.missing)
    chance = _chance(data.runs)
    fig, axes = plt.subplots(1, len(ARCHS), figsize=(12, 4.8))
    csv_rows: list[dict[str, Any]] = []
    image = None
    for ax, arch in zip(axes, ARCHS, strict=True):
        ax.set_xlabel("sequence length N (tokens)")
        ax.set_ylabel("model width d (hidden units)")
        found = _grid(data.rows, arch)
        if found is None:
            missing.append(f"{NAME}: no index-lookup runs of {arch} in the store")
            style.note(ax, f"no index-lookup runs of {arch}")
            ax.set_title(f"{arch} on index lookup")
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        image = _heat_map(ax, arch, found, chance, csv_rows)
    if image is not None:
        bar = fig.colorbar(image, ax=list(axes), label="best validation accuracy (log scale)")
        ticks = [t for t in (0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if t >= chance]
        bar.set_ticks([chance, *ticks], labels=[f"{chance:.3f} chance", *map(str, ticks)])
    style.cells_legend(fig, (r["verdict"] for r in csv_rows))
    style.suptitle(fig, said.title)
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    caption = (
        f"Best validation accuracy on index lookup for each width d and length N (cells; "
        f"empty where not run), for Mamba and the LSTM; target accuracy {data.target:g}; '?' "
        "after a number: undecided, no run there reached the target and one was still "
        f"improving when its budget ran out. Colours on a log scale from chance ({chance:.3f}, "
        "the most frequent answer's accuracy as the runs recorded it) to 1, so that cells near "
        "chance are told apart. Thm 3 says a recurrent model needs state size m with m p >= N, "
        "so the accuracy frontier should move right as the width grows. Training: "
        f"{style.training_summary(data.runs)} Data: {data.label}."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)


def _chance(runs: list[dict[str, Any]]) -> float:
    """The smallest chance level the index-lookup runs recorded (1/64 when none did)."""
    levels = [
        r["diagnostics"]["chance"]["accuracy"]
        for r in runs
        if r["task"] == "index-lookup"
        and isinstance((r.get("diagnostics") or {}).get("chance"), dict)
    ]
    return min([lv for lv in levels if lv > 0], default=1 / 64)
