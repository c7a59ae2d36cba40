"""Figure ``fig3`` (the paper's Fig. 3): index-lookup accuracy over width x length, as heat maps.

One heat map per recurrent architecture (Mamba, and LSTM for contrast): rows are widths, columns
lengths N, cells the best accuracy over learning rates, seeds and evaluations.  Where the store
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

from paper_figures import style

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


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the heat maps from the store at ``store_path`` into ``out_dir``."""
    runs, missing = style.load_runs(store_path)
    target = style.target_of(runs)
    rows, _ = style.load_thresholds(store_path, target, 32)
    fig, axes = plt.subplots(1, len(ARCHS), figsize=(12, 4.8))
    csv_rows: list[dict[str, Any]] = []
    image = None
    for ax, arch in zip(axes, ARCHS, strict=True):
        found = _grid(rows, arch)
        ax.set_xlabel("sequence length N (tokens)")
        ax.set_ylabel("model width d (hidden units)")
        if found is None:
            missing.append(f"{NAME}: no index-lookup runs of {arch} in the store")
            style.note(ax, f"no index-lookup runs of {arch}")
            ax.set_title(f"{arch} on index lookup")
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        layers, grid = found
        widths = sorted(grid)
        lengths = sorted({n for by_n in grid.values() for n in by_n})
        cells = np.full((len(widths), len(lengths)), np.nan)
        for i, w in enumerate(widths):
            for j, n in enumerate(lengths):
                if n in grid[w]:
                    accuracy, verdict = grid[w][n]
                    cells[i, j] = accuracy
                    csv_rows.append(
                        {"arch": arch, "layers": layers, "width": w, "length": n,
                         "accuracy": accuracy, "verdict": verdict}
                    )  # fmt: skip
                    ax.text(j, i, style.cell_text(accuracy, verdict), ha="center", va="center",
                            fontsize=8, color="white" if accuracy < 0.5 else "black")  # fmt: skip
        image = ax.imshow(cells, origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(len(lengths)), [str(n) for n in lengths])
        ax.set_yticks(range(len(widths)), [str(w) for w in widths])
        ax.set_title(f"{arch} L={layers} on index lookup")
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="best validation accuracy (fraction)")
    if any(r["verdict"] == "undecided" for r in csv_rows):
        fig.legend(handles=[style.undecided_handle(cells=True)], loc="upper center",
                   bbox_to_anchor=(0.45, 0.0), fontsize=8, frameon=False)  # fmt: skip
    fig.suptitle("Index lookup: accuracy over width and length (recurrent models)")
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    caption = (
        f"Best validation accuracy on index lookup for each width d and length N (cells; "
        f"empty where not run), for Mamba and the LSTM; target accuracy {target:g}; '?' after a "
        f"number: undecided, no run there reached the target and one was still improving when "
        f"its budget ran out; guessing "
        f"scores 1/64 ~ 0.016 (64 symbols). Thm 3 says "
        f"a recurrent model needs state size m with m p >= N, so the accuracy frontier should "
        f"move right as the width grows. Training: {style.training_summary(runs)} "
        f"Data: {style.store_label(store_path, profile)}."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}
