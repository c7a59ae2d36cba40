"""Figure ``looped-table1``: the addition grid in the shape of the paper's Table 1 (left).

Rows, for each looped model ``(k ⊗ L)`` in the store: the iso-param baseline ``(k ⊗ 1)``, the
looped model ``(k ⊗ L)`` and the iso-FLOP baseline ``(kL ⊗ 1)``; columns the numbers of operands
n evaluated (N/4, N/2, 3N/4 and N: the paper's 8, 16, 24, 32 for N = 32; 3N/4 is never trained
on). Cells: the best accuracy over
learning rates and seeds of the final models (a sum counts only when every digit is right).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from paper_figures import style

NAME = "looped-table1"
PAPER = "looped"
TASK = "addition"
COLUMNS = ("row", "k", "loops", "layers", "arch", "parameters", "operands", "accuracy", "runs")


def _shape(run: dict[str, Any]) -> tuple[int, int]:
    """(block layers k, loops L) of a run: a transformer with k layers is (k ⊗ 1)."""
    loops = run["config"].get("loops") or 1
    return run["layers"], loops if run["arch"] == "looped" else 1


def table(runs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], dict[int, float]]]:
    """[(row label, row facts, {n: best accuracy})] in the order of the paper's Table 1."""
    best: dict[tuple[int, int], dict[int, float]] = {}
    facts: dict[tuple[int, int], dict[str, Any]] = {}
    for run in runs:
        if run["task"] != TASK or run["arch"] not in ("looped", "transformer"):
            continue
        shape = _shape(run)
        cells = best.setdefault(shape, {})
        for n, acc in run["accuracy_by_length"].items():
            cells[n] = max(cells.get(n, 0.0), acc)
        entry = facts.setdefault(shape, {"parameters": run["parameters"], "runs": 0})
        entry["runs"] += 1
        entry.setdefault("archs", set()).add(run["arch"])
    rows = []
    for k, loops in sorted(s for s in best if s[1] > 1):
        for label, shape in (
            (f"({k}⊗1) iso-param", (k, 1)),
            (f"({k}⊗{loops}) looped", (k, loops)),
            (f"({k * loops}⊗1) iso-FLOP", (k * loops, 1)),
        ):
            if shape in best:
                rows.append((label, {"k": shape[0], "loops": shape[1], **facts[shape]},
                             best[shape]))  # fmt: skip
    return rows


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the grid from the store at ``store_path`` into ``out_dir``."""
    runs, missing = style.load_runs(store_path)
    rows = table(runs)
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.6 * max(3, len(rows))))
    csv_rows: list[dict[str, Any]] = []
    if not rows:
        missing.append(f"{NAME}: no looped (k ⊗ L > 1) runs on addition in the store")
        style.note(ax, "no looped runs on addition")
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        operands = sorted({n for _, _, cells in rows for n in cells})
        acc = np.full((len(rows), len(operands)), np.nan)
        for i, (label, row, cells) in enumerate(rows):
            for j, n in enumerate(operands):
                if n not in cells:
                    continue
                acc[i, j] = cells[n]
                ax.text(j, i, f"{100 * cells[n]:.1f}", ha="center", va="center", fontsize=10,
                        color="white" if cells[n] < 0.5 else "black")  # fmt: skip
                csv_rows.append(
                    {"row": label, "k": row["k"], "loops": row["loops"],
                     "layers": row["k"] * row["loops"], "arch": "/".join(sorted(row["archs"])),
                     "parameters": row["parameters"], "operands": n, "accuracy": cells[n],
                     "runs": row["runs"]}
                )  # fmt: skip
        image = ax.imshow(acc, cmap="viridis", vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(len(operands)), [f"n = {n}" for n in operands])
        labels = [f"{label}\n{row['parameters']:,} parameters" for label, row, _ in rows]
        ax.set_yticks(range(len(rows)), labels)
        unseen = [n for n in operands if n not in (2, 4, 8, 16, 32)]
        note = f" ({', '.join(map(str, unseen))} never seen in training)" if unseen else ""
        ax.set_xlabel(f"operands n at evaluation{note}")
        fig.colorbar(image, ax=ax, label="accuracy, whole sum right (cells in %)")
    ax.set_title("Addition of n 3-digit numbers: looped against iso-param and iso-FLOP models")
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    caption = (
        "The paper's Table 1 (left) at this store's scale: accuracy in % of whole sums on fresh "
        "inputs with n operands (trained on a uniform mixture of n in {2, 4, 8, 16, 32} up to the "
        "run's largest n), best over learning rates and seeds of the final models. (k⊗1) has the "
        "parameters of (k⊗L), (kL⊗1) its depth and FLOPs. Guessing a whole 4-5 digit sum scores "
        f"about 0. Training: {style.training_summary(runs)} "
        f"Data: {style.store_label(store_path, profile)}."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}
