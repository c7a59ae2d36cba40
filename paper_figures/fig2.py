"""Figure ``fig2`` (the paper's Fig. 2): accuracy against length, and validation curves.

Top row: best accuracy (over learning rates, seeds and evaluations) against length N on index
lookup and on Dyck-(2,2), one line per model (architecture, layers) at the width swept over
the most lengths.  Bottom row: the validation curve of each model's best run at the length
where the most models were trained (the largest such).  Undecided points and runs (still
improving when their budget ran out) are half-filled (``paper_figures.style``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from paper_figures import style

NAME = "fig2"
TASKS = {"index-lookup": "Index lookup", "dyck": "Dyck-(2,2)"}
COLUMNS = ("series", "task", "arch", "layers", "width", "length", "step", "accuracy", "verdict")


def main_widths(rows: list[dict[str, Any]], task: str) -> list[dict[str, Any]]:
    """The threshold rows of ``task``, one width per (architecture, layers): the width swept
    over the most lengths (ties: the larger width).  Width sweeps belong to ``fig3``."""
    chosen: dict[tuple[str, int], dict[str, Any]] = {}
    for row in rows:
        if row["task"] != task:
            continue
        key = (row["arch"], row["layers"])
        rank = (len(row["lengths"]), row["width"])
        if key not in chosen or rank > (len(chosen[key]["lengths"]), chosen[key]["width"]):
            chosen[key] = row
    return [chosen[k] for k in sorted(chosen)]


def accuracy_panel(
    ax: plt.Axes, rows: list[dict[str, Any]], task: str, title: str, target: float
) -> list[dict[str, Any]]:
    """Plot best accuracy vs length of ``task`` for each model at its main width
    (:func:`main_widths`); return the CSV rows."""
    out = []
    for row in main_widths(rows, task):
        lengths = sorted(row["lengths"])
        acc = [row["lengths"][n] for n in lengths]
        verdicts = {p["length"]: p["verdict"] for p in row.get("points") or []}
        colour, marker = style.colour(row["arch"]), style.marker(row["layers"])
        ax.plot(lengths, acc, color=colour)
        ax.plot([], [], color=colour, marker=marker, ms=6,
                label=style.model_label(row["arch"], row["layers"], row["width"]))  # fmt: skip
        for n, a in zip(lengths, acc, strict=True):
            ax.plot([n], [a], ls="none", marker=marker, ms=6,
                    **style.verdict_marks(verdicts.get(n), colour))  # fmt: skip
        out.extend(
            {
                "series": "best accuracy",
                "task": task,
                "arch": row["arch"],
                "layers": row["layers"],
                "width": row["width"],
                "length": n,
                "accuracy": a,
                "verdict": verdicts.get(n),
            }
            for n, a in zip(lengths, acc, strict=True)
        )
    if any(r["verdict"] == "undecided" for r in out):
        style.add_undecided_entry(ax)
    ax.axhline(target, color="k", ls=":", lw=1, label=f"target {target:g}")
    ax.set_xscale("log")
    ticks = sorted({n for row in rows if row["task"] == task for n in row["lengths"]})
    if ticks:
        ax.set_xticks(ticks, [str(n) for n in ticks])
        ax.minorticks_off()
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("sequence length N (tokens)")
    ax.set_ylabel("best validation accuracy (fraction)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(*style.legend_entries(ax), fontsize=7, loc="lower left")
    return out


def _curve_panel(
    ax: plt.Axes, runs: list[dict[str, Any]], task: str, title: str, target: float
) -> tuple[list[dict[str, Any]], bool]:
    """Validation curves of the best run per model at one length: the length with runs of the
    most models (architecture, layers, width), the largest such."""
    mine = [r for r in runs if r["task"] == task and r["curve"]]
    if not mine:
        return [], False
    lengths: dict[tuple[str, int, int], set[int]] = {}
    for r in mine:
        lengths.setdefault((r["arch"], r["layers"], r["width"]), set()).add(r["length"])
    main: dict[tuple[str, int], int] = {}  # the width swept over the most lengths, as above
    for (arch, layers, width), ns in sorted(lengths.items()):
        old = main.get((arch, layers))
        if old is None or (len(ns), width) > (len(lengths[arch, layers, old]), old):
            main[arch, layers] = width
    mine = [r for r in mine if main[r["arch"], r["layers"]] == r["width"]]
    models_at: dict[int, set[tuple[str, int, int]]] = {}
    for r in mine:
        models_at.setdefault(r["length"], set()).add((r["arch"], r["layers"], r["width"]))
    longest = max(models_at, key=lambda n: (len(models_at[n]), n))
    best: dict[tuple[str, int, int], dict[str, Any]] = {}
    for r in mine:
        key = (r["arch"], r["layers"], r["width"])
        if r["length"] == longest and (
            key not in best or r["best_accuracy"] > best[key]["best_accuracy"]
        ):
            best[key] = r
    out = []
    for (arch, layers, width), r in sorted(best.items()):
        steps, acc = zip(*r["curve"], strict=True)
        lr = r["config"].get("lr")
        verdict = style.verdict_of(r, target)
        ax.plot(steps, acc, marker=style.marker(layers), ms=4, ls="-" if layers == 1 else "--",
                label=f"{style.model_label(arch, layers, width)} lr={lr:g}",
                **style.verdict_marks(verdict, style.colour(arch)))  # fmt: skip
        out.extend(
            {"series": "validation curve", "task": task, "arch": arch, "layers": layers,
             "width": width, "length": longest, "step": s, "accuracy": a, "verdict": verdict}
            for s, a in zip(steps, acc, strict=True)
        )  # fmt: skip
        if verdict == "undecided":
            style.add_undecided_entry(ax)
    ax.axhline(target, color="k", ls=":", lw=1, label=f"target {target:g}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("training step")
    ax.set_ylabel("validation accuracy (fraction)")
    ax.set_title(f"{title}: validation curves at N = {longest}")
    ax.grid(True, alpha=0.3)
    ax.legend(*style.legend_entries(ax), fontsize=7, loc="lower right")
    return out, True


def point_verdicts(csv_rows: list[dict[str, Any]]) -> list[str]:
    """The verdicts of the points drawn: one per best-accuracy point, one per validation curve."""
    curves = {(r["task"], r["arch"], r["layers"], r["width"]): r["verdict"] for r in csv_rows
              if r["series"] == "validation curve"}  # fmt: skip
    points = [r["verdict"] for r in csv_rows if r["series"] == "best accuracy" and r["verdict"]]
    return points + list(curves.values())


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` into ``out_dir``."""
    runs, missing = style.load_runs(store_path)
    target = style.target_of(runs)
    rows, _ = style.load_thresholds(store_path, target, 32)
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    csv_rows: list[dict[str, Any]] = []
    for col, (task, title) in enumerate(TASKS.items()):
        top, bottom = axes[0, col], axes[1, col]
        csv_rows += accuracy_panel(top, rows, task, title, target)
        curves, found = _curve_panel(bottom, runs, task, title, target)
        csv_rows += curves
        if not any(r["task"] == task for r in rows):
            missing.append(f"{NAME}: no runs of {task} in the store")
            style.note(top, f"no runs of {task} in the store")
        if not found:
            missing.append(f"{NAME}: no validation curves of {task} in the store")
            style.note(bottom, f"no validation curves of {task}")
            bottom.set_title(f"{title}: validation curves")
            bottom.set_xlabel("training step")
            bottom.set_ylabel("validation accuracy (fraction)")
    fig.suptitle(f"Accuracy vs length (target accuracy {target:g})")
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS, point_verdicts(csv_rows))
    caption = (
        f"Top: best validation accuracy against length N on index lookup (left) and "
        f"Dyck-(2,2) (right), per model (architecture, layers L, width d; other widths are in "
        f"fig3), the best over evaluations during training, learning rates and seeds; dotted: "
        f"the target accuracy {target:g}; guessing scores 1/64 on index lookup and about 1/2 "
        f"on Dyck-(2,2). Bottom: validation accuracy during training of each "
        f"model's best run at the largest length at which the most models were trained. "
        f"Half-filled markers: undecided (still improving when the budget ran out; a best over "
        f"runs is undecided when none reached the target and one was still improving). "
        f"Training: {style.training_summary(runs)} "
        f"Data: {style.store_label(store_path, profile)}."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}
