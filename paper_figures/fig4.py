"""Figure ``fig4`` (the paper's Fig. 4): accuracy against length on the equality tasks.

One panel per task (Eq-random, Eq-one, Eq-ncp), one line per model, best accuracy over learning
rates, seeds and evaluations, as in ``fig2``; the title and conclusion say, per task, which model
holds the target to the longest N (:func:`paper_figures.fig2.task_words`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from paper_figures import conclusions, fig2, style
from paper_figures.conclusions import Said
from paper_figures.fig2 import COLUMNS, accuracy_panel, point_verdicts

NAME = "fig4"
FILL_PROFILE = "paper"
"""Eq-one and Eq-ncp run only in the ``paper`` (and ``gpu``) profiles, not in ``quick``."""
TASKS = {"eq-random": "Eq-random", "eq-one": "Eq-one", "eq-ncp": "Eq-ncp (copying)"}


def conclude(data: style.ThresholdData) -> Said:
    """Per equality task, which model holds the target to the longest N."""
    said = fig2.conclude(data, TASKS)
    title = said.title.replace("Accuracy against length", "Equality tasks")
    return Said(title, said.conclusion, said.data)


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(fig2.load(store_path, None))


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` into ``out_dir``."""
    data = fig2.load(store_path, profile)
    said = conclude(data)
    missing = list(data.missing)
    fig, axes = plt.subplots(1, len(TASKS), figsize=(15, 4.8))
    csv_rows: list[dict[str, Any]] = []
    for ax, (task, title) in zip(axes, TASKS.items(), strict=True):
        csv_rows += accuracy_panel(ax, data.rows, task, title, data.target)
        if not any(r["task"] == task for r in data.rows):
            missing.append(f"{NAME}: no runs of {task} in the store")
            style.note(ax, f"no runs of {task} in the store")
    style.suptitle(fig, said.title)
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS, point_verdicts(csv_rows))
    caption = (
        "Best validation accuracy against length N on the equality tasks, per model "
        "(architecture, layers L, width d), best over evaluations, learning rates and seeds; "
        f"dotted: the target {data.target:g}; half-filled markers: undecided (still improving "
        f"when the budget ran out); {fig2.chance_text(data.runs, TASKS)}. Thm 11: a recurrent "
        "model needs m p >= N/2; Thm 6: a two-layer transformer of width O(log N) suffices. "
        f"Training: {style.training_summary(data.runs)} Data: {data.label}."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)
