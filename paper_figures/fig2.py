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

from paper_figures import conclusions, style
from paper_figures.conclusions import Said

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
    (:func:`main_widths`); return the CSV rows. Models are set slightly apart along N so that
    equal accuracies do not hide each other; with one length in the store each point is
    labelled with its accuracy."""
    out = []
    drawn = main_widths(rows, task)
    ticks = sorted({n for row in drawn for n in row["lengths"]})
    for i, row in enumerate(drawn):
        lengths = sorted(row["lengths"])
        acc = [row["lengths"][n] for n in lengths]
        verdicts = {p["length"]: p["verdict"] for p in row.get("points") or []}
        colour, marker = style.colour(row["arch"]), style.marker(row["layers"])
        xs = [n * 1.04 ** (i - (len(drawn) - 1) / 2) for n in lengths]
        ax.plot(xs, acc, color=colour)
        ax.plot(
            [],
            [],
            color=colour,
            marker=marker,
            ms=6,
            label=style.model_label(row["arch"], row["layers"], row["width"]),
        )
        for x, a, n in zip(xs, acc, lengths, strict=True):
            ax.plot(
                [x],
                [a],
                ls="none",
                marker=marker,
                ms=6,
                **style.verdict_marks(verdicts.get(n), colour),
            )
            if len(ticks) == 1:
                ax.annotate(
                    f"{a:.3f}",
                    (x, a),
                    textcoords="offset points",
                    xytext=(7, -3),
                    fontsize=7,
                    color=colour,
                )
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
    if ticks:
        ax.set_xticks(ticks, [str(n) for n in ticks])
        ax.minorticks_off()
    if len(ticks) == 1:  # one length: the panel says so rather than draw a lone column
        ax.set_xlim(ticks[0] / 1.6, ticks[0] * 1.6)
        title = f"{title}, one length in the store (N = {ticks[0]})"
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
        ax.plot(
            steps,
            acc,
            marker=style.marker(layers),
            ms=4,
            ls="-" if layers == 1 else "--",
            label=f"{style.model_label(arch, layers, width)} lr={lr:g}",
            **style.verdict_marks(verdict, style.colour(arch)),
        )
        out.extend(
            {
                "series": "validation curve",
                "task": task,
                "arch": arch,
                "layers": layers,
                "width": width,
                "length": longest,
                "step": s,
                "accuracy": a,
                "verdict": verdict,
            }
            for s, a in zip(steps, acc, strict=True)
        )
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
    curves = {
        (r["task"], r["arch"], r["layers"], r["width"]): r["verdict"]
        for r in csv_rows
        if r["series"] == "validation curve"
    }
    points = [r["verdict"] for r in csv_rows if r["series"] == "best accuracy" and r["verdict"]]
    return points + list(curves.values())


def task_words(rows: list[dict[str, Any]], task: str, title: str) -> tuple[str, str]:
    """(headline, sentence) on ``task``: which model holds the target to the longest N, from
    the thresholds of the models drawn (:func:`main_widths`), each decided or left open."""
    drawn = main_widths(rows, task)
    if not drawn:
        return f"{title}: no runs", f"{title}: no runs in the store"
    known = {
        style.model_label(r["arch"], r["layers"], r["width"]): conclusions.threshold(r)
        for r in drawn
    }
    lengths = sorted({n for r in drawn for n in r["lengths"]})
    if len(lengths) == 1:
        best = {
            style.model_label(r["arch"], r["layers"], r["width"]): r["lengths"][lengths[0]]
            for r in drawn
        }
        said = ", ".join(f"{k} {v:.3f}" for k, v in best.items())
        return (
            f"{title}: one length (N = {lengths[0]})",
            f"{title}: one length in the store, N = {lengths[0]} (best accuracy {said}), "
            "so no model's threshold beyond it is known",
        )
    headline = conclusions.ranking(
        known,
        ("holds the target to longer N than", "hold the target to longer N than"),
        "hold the target to the same N",
        "which model holds the target longest is undecided",
    )
    each = "; ".join(
        f"{style.model_label(r['arch'], r['layers'], r['width'])} {conclusions.threshold_text(r)}"
        for r in drawn
    )
    return f"{title}, {headline}", f"{title}: {each}: {headline}"


def load(store_path: str | None, profile: str | None) -> style.ThresholdData:
    """The store's runs and thresholds (bounds at 32 bits, not drawn here)."""
    return style.threshold_data(store_path, profile, 32)


def conclude(data: style.ThresholdData, tasks: dict[str, str] | None = None) -> Said:
    """Per task, which model holds the target to the longest N (see :func:`task_words`)."""
    tasks = TASKS if tasks is None else tasks
    subject = "Accuracy against length"
    if not any(r["task"] in tasks for r in data.rows):
        return conclusions.no_data(subject, f"no runs of {', '.join(tasks)} in the store")
    words = [task_words(data.rows, task, title) for task, title in tasks.items()]
    return Said(
        f"{subject} (target {data.target:g}): " + "; ".join(h for h, _ in words),
        ". ".join(s for _, s in words) + ".",
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(load(store_path, None))


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` into ``out_dir``."""
    data = load(store_path, profile)
    said = conclude(data)
    missing = list(data.missing)
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    csv_rows: list[dict[str, Any]] = []
    for col, (task, title) in enumerate(TASKS.items()):
        top, bottom = axes[0, col], axes[1, col]
        csv_rows += accuracy_panel(top, data.rows, task, title, data.target)
        curves, found = _curve_panel(bottom, data.runs, task, title, data.target)
        csv_rows += curves
        if not any(r["task"] == task for r in data.rows):
            missing.append(f"{NAME}: no runs of {task} in the store")
            style.note(top, f"no runs of {task} in the store")
        if not found:
            missing.append(f"{NAME}: no validation curves of {task} in the store")
            style.note(bottom, f"no validation curves of {task}")
            bottom.set_title(f"{title}: validation curves")
            bottom.set_xlabel("training step")
            bottom.set_ylabel("validation accuracy (fraction)")
    style.suptitle(fig, said.title)
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS, point_verdicts(csv_rows))
    caption = (
        f"Top: best validation accuracy against length N on index lookup (left) and "
        f"Dyck-(2,2) (right), per model (architecture, layers L, width d; other widths are in "
        f"fig3), the best over evaluations during training, learning rates and seeds; dotted: "
        f"the target accuracy {data.target:g}; {chance_text(data.runs, TASKS)}. Bottom: "
        "validation accuracy during training of each model's best run at the largest length "
        "at which the most models were trained. Half-filled markers: undecided (still "
        "improving when the budget ran out; a best over runs is undecided when none reached "
        f"the target and one was still improving). Training: {style.training_summary(data.runs)}"
        f" Data: {data.label}."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)


def chance_text(runs: list[dict[str, Any]], tasks: dict[str, str]) -> str:
    """What guessing scores on each task, as the runs recorded it (their task's chance level,
    :meth:`simulations.tasks.Task.chance`)."""
    parts = []
    for task, title in tasks.items():
        levels = [
            r["diagnostics"]["chance"]["accuracy"]
            for r in runs
            if r["task"] == task and isinstance((r.get("diagnostics") or {}).get("chance"), dict)
        ]
        if levels:
            low, high = min(levels), max(levels)
            span = f"{low:.3f}" if high - low < 0.0005 else f"{low:.3f}-{high:.3f}"
            parts.append(f"{title} {span}")
    return (
        "guessing (the most frequent answer) scores " + ", ".join(parts)
        if parts
        else "the runs record no chance level"
    )
