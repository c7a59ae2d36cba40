"""Figure ``fig4`` (the paper's Fig. 4): accuracy against length on the equality tasks.

One panel per task (Eq-random, Eq-one, Eq-ncp), one line per model, best accuracy over learning
rates, seeds and evaluations, as in ``fig2``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from paper_figures import style
from paper_figures.fig2 import COLUMNS, accuracy_panel, point_verdicts

NAME = "fig4"
FILL_PROFILE = "paper"
"""Eq-one and Eq-ncp run only in the ``paper`` (and ``gpu``) profiles, not in ``quick``."""
TASKS = {"eq-random": "Eq-random", "eq-one": "Eq-one", "eq-ncp": "Eq-ncp (copying)"}


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` into ``out_dir``."""
    runs, missing = style.load_runs(store_path)
    target = style.target_of(runs)
    rows, _ = style.load_thresholds(store_path, target, 32)
    fig, axes = plt.subplots(1, len(TASKS), figsize=(15, 4.8))
    csv_rows: list[dict[str, Any]] = []
    for ax, (task, title) in zip(axes, TASKS.items(), strict=True):
        csv_rows += accuracy_panel(ax, rows, task, title, target)
        if not any(r["task"] == task for r in rows):
            missing.append(f"{NAME}: no runs of {task} in the store")
            style.note(ax, f"no runs of {task} in the store")
    fig.suptitle(f"Equality tasks: accuracy vs length (target accuracy {target:g})")
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS, point_verdicts(csv_rows))
    caption = (
        f"Best validation accuracy against length N on the equality tasks, per model "
        f"(architecture, layers L, width d), best over evaluations, learning rates and seeds; "
        f"dotted: the target {target:g}; half-filled markers: undecided (still improving when "
        f"the budget ran out). Thm 11: a recurrent model needs m p >= N/2; Thm 6: a "
        f"two-layer transformer of width O(log N) suffices. Training: "
        f"{style.training_summary(runs)} Data: {style.store_label(store_path, profile)}."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}
