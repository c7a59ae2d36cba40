"""Figure ``looped-table1``: the paper's Table 1, addition (left) and p-hop (middle), and its
Table 2, i-GSM (right), as three grids.

Rows, for each looped model ``(k ⊗ L)`` of the store whose iso-FLOP baseline is there too (every
looped model when none has it): the iso-param baseline ``(k ⊗ 1)``, the looped model ``(k ⊗ L)``
and the iso-FLOP baseline ``(kL ⊗ 1)``. Columns: for addition the numbers of operands n
evaluated (N/4, N/2, 3N/4 and N: the paper's 8, 16, 24, 32 for N = 32; 3N/4 is never trained
on), for p-hop the hops p, for i-GSM the query depth of its one problem distribution (the
paper's Table 2 varies the *model's* depth: the rows). Cells: the best accuracy over learning
rates and seeds of the final models (a sum counts only when every digit is right). Each task
shows one setting (operand digits, N and width; n, |Σ|, width and heads; statements, query
depth, P and width): the one with the most runs. A row whose best is undecided (none of its
runs reached its target and one was still improving when its budget ran out) reads ``0.421?``
(``paper_figures.style``): its accuracy is a budget's, not a finding.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from paper_figures import conclusions, style
from paper_figures.conclusions import Known, Said

NAME = "looped-table1"
PAPER = "looped"
TASKS = ("addition", "p-hop", "i-gsm")
COLUMNS = ("task", "setting", "row", "k", "loops", "layers", "arch", "parameters", "x",
           "accuracy", "runs", "seeds", "lrs", "verdict")  # fmt: skip

Row = tuple[str, dict[str, Any], dict[int, float]]
"""(row label, row facts, {column: best accuracy})."""


def _shape(run: dict[str, Any]) -> tuple[int, int]:
    """(block layers k, loops L) of a run: a transformer with k layers is (k ⊗ 1)."""
    loops = run["config"].get("loops") or 1
    return run["layers"], loops if run["arch"] == "looped" else 1


def setting(run: dict[str, Any]) -> str:
    """What is held fixed across one task's grid."""
    cfg = run["config"]
    if run["task"] == "addition":
        order = "sum most significant digit first, as the paper"
        if cfg.get("reverse"):
            order = "reversed sum (least significant digit first: a variant, not the paper's)"
        digits = cfg.get("digits", 3)
        return f"N={run['length']}, {digits}-digit operands, {order}, width={run['width']}"
    if run["task"] == "i-gsm":
        depth = cfg.get("query_depth", cfg.get("depth", 1))  # "depth": its name before
        return (
            f"N={run['length']} statements, query depth {depth}, "
            f"P={cfg.get('modulus', 7)}, width={run['width']}"
        )
    alphabet = cfg.get("alphabet", 4)
    return f"n={run['length']}, |Σ|={alphabet}, width={run['width']}, heads={run['heads']}"


def _cells(run: dict[str, Any]) -> dict[int, float]:
    """{column: final accuracy}: per operand count for addition, at the run's p for p-hop, at
    the query depth for i-GSM."""
    if run["task"] == "addition":
        return dict(run["accuracy_by_length"])
    if run["task"] == "i-gsm":
        return {run["config"].get("query_depth", run["config"].get("depth", 1)): run["accuracy"]}
    return {run["config"]["hops"]: run["accuracy"]}


def table(runs: list[dict[str, Any]], task: str) -> tuple[str | None, list[Row]]:
    """(setting, rows) of ``task`` in the order of the paper's Table 1."""
    eligible = [
        r
        for r in runs
        if r["task"] == task
        and r["arch"] in ("looped", "transformer")
        and r["config"].get("reg_lambda") is None
    ]
    if not eligible:
        return None, []
    counts: dict[str, int] = defaultdict(int)
    for run in eligible:
        counts[setting(run)] += 1
    chosen = max(counts, key=lambda s: counts[s])
    best: dict[tuple[int, int], dict[int, float]] = {}
    facts: dict[tuple[int, int], dict[str, Any]] = {}
    for run in (r for r in eligible if setting(r) == chosen):
        shape = _shape(run)
        cells = best.setdefault(shape, {})
        entry = facts.setdefault(
            shape,
            {
                "parameters": run["parameters"],
                "runs": 0,
                "archs": set(),
                "seeds": set(),
                "lrs": set(),
                "verdicts": {},
                "reached": {},
                "examples": 0,
                "count": {},
            },
        )
        target = float(run["config"].get("target", 0.99))
        for x, acc in _cells(run).items():
            cells[x] = max(cells.get(x, 0.0), acc)
            entry["verdicts"].setdefault(x, []).append(style.verdict_of(run))  # per cell
            entry["reached"][x] = entry["reached"].get(x, 0) + (acc >= target)
            entry["count"][x] = entry["count"].get(x, 0) + 1
        entry["examples"] = max(entry["examples"], int(run["config"].get("eval_samples", 1000)))
        entry["runs"] += 1
        entry["archs"].add(run["arch"])
        entry["seeds"].add(run["seed"])
        entry["lrs"].add(run["lr"])
    looped = sorted(s for s in best if s[1] > 1)
    complete = [s for s in looped if (s[0] * s[1], 1) in best]
    rows: list[Row] = []
    for k, loops in complete or looped:
        for label, shape in (
            (f"({k}⊗1) iso-param", (k, 1)),
            (f"({k}⊗{loops}) looped", (k, loops)),
            (f"({k * loops}⊗1) iso-FLOP", (k * loops, 1)),
        ):
            if shape in best and not any(r[0] == label for r in rows):
                rows.append(
                    (label, {"k": shape[0], "loops": shape[1], **facts[shape]}, best[shape])
                )
    return chosen, rows


def _panel(ax: Any, task: str, chosen: str | None, rows: list[Row], csv_rows: list[dict]) -> Any:
    """One task's grid on ``ax``; returns the image (None when the store has no runs)."""
    if not rows:
        style.note(ax, f"no looped runs on {task}")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(task)
        return None
    from simulations.verdicts import combine

    xs = sorted({x for _, _, cells in rows for x in cells})
    acc = np.full((len(rows), len(xs)), np.nan)
    for i, (label, row, cells) in enumerate(rows):
        for j, x in enumerate(xs):
            if x not in cells:
                continue
            verdict = combine(row["verdicts"][x])  # the runs behind this cell
            acc[i, j] = cells[x]
            ax.text(
                j,
                i,
                style.cell_text(cells[x], verdict, 3),
                ha="center",
                va="center",
                fontsize=10,
                color="white" if cells[x] < 0.5 else "black",
            )
            csv_rows.append(
                {
                    "task": task,
                    "setting": chosen,
                    "row": label,
                    "k": row["k"],
                    "loops": row["loops"],
                    "layers": row["k"] * row["loops"],
                    "arch": "/".join(sorted(row["archs"])),
                    "parameters": row["parameters"],
                    "x": x,
                    "accuracy": cells[x],
                    "runs": row["runs"],
                    "seeds": " ".join(map(str, sorted(row["seeds"]))),
                    "lrs": " ".join(f"{lr:g}" for lr in sorted(row["lrs"])),
                    "verdict": verdict,
                }
            )
    image = ax.imshow(acc, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    labels = [f"{label}\n{row['parameters']:,} parameters" for label, row, _ in rows]
    ax.set_yticks(range(len(rows)), labels)
    if task == "addition":
        ax.set_xticks(range(len(xs)), [f"n = {x}" for x in xs])
        unseen = [x for x in xs if x not in (2, 4, 8, 16, 32)]
        note = f" ({', '.join(map(str, unseen))} never seen in training)" if unseen else ""
        ax.set_xlabel(f"operands n at evaluation{note}")
        ax.set_title(f"Addition: whole sum right\n{chosen}", fontsize=10)
    elif task == "i-gsm":
        ax.set_xticks(range(len(xs)), [f"query depth {x}" for x in xs])
        ax.set_xlabel("one problem distribution (guessing 0: about 1/4)")
        ax.set_title(f"i-GSM (Table 2): rows by model depth\n{chosen}", fontsize=10)
    else:
        ax.set_xticks(range(len(xs)), [f"p = {x}" for x in xs])
        ax.set_xlabel("hops p (guessing: 1/|Σ|)")
        ax.set_title(f"p-hop induction\n{chosen}", fontsize=10)
    return image


def _row_known(row: dict[str, Any], cells: dict[int, float], x: int) -> Known:
    """A row's best accuracy at column ``x`` as a range (its Wilson interval, open above when
    the cell is undecided)."""
    from simulations.verdicts import combine

    return conclusions.accuracy(cells[x], combine(row["verdicts"][x]), row["examples"])


def _task_words(task: str, rows: list[Row]) -> tuple[str, str]:
    """(headline, sentence): each looped row against its iso-FLOP and iso-param rows, column
    by column, with how many of each row's runs reached the target there."""
    by_shape = {(r["k"], r["loops"]): (r, cells) for _, r, cells in rows}
    heads, parts = [], []
    for (k, loops), (row, cells) in sorted(by_shape.items()):
        if loops == 1:
            continue
        for other, name in (((k * loops, 1), "iso-FLOP"), ((k, 1), "iso-param")):
            if other not in by_shape:
                continue
            o_row, o_cells = by_shape[other]
            xs = sorted(set(cells) & set(o_cells))
            orders = [
                conclusions.order(_row_known(row, cells, x), _row_known(o_row, o_cells, x))
                for x in xs
            ]
            relation = ORDER_WORDS[orders[0]] if len(set(orders)) == 1 else "mixed against"
            heads.append(f"({k}⊗{loops}) {relation} {name}")
            parts.append(
                f"({k}⊗{loops}) looped against ({other[0]}⊗1) {name}: "
                + ", ".join(
                    f"{_column(task, x)} {cells[x]:.3f} ({_reached(row, x)}) vs {o_cells[x]:.3f} "
                    f"({_reached(o_row, x)}), {ORDER_WORDS[o]}"
                    for x, o in zip(xs, orders, strict=True)
                )
            )
    title = TITLES[task]
    if not heads:
        return f"{title}: no looped row with its baselines", f"{title}: no looped row stored"
    return f"{title}: {', '.join(heads)}", f"{title}: " + "; ".join(parts)


ORDER_WORDS = conclusions.RELATION
TITLES = {"addition": "addition", "p-hop": "p-hop", "i-gsm": "i-GSM"}


def _reached(row: dict[str, Any], x: int) -> str:
    return f"{row['reached'].get(x, 0)} of {row['count'].get(x, 0)} runs at the target"


def _column(task: str, x: int) -> str:
    return {"addition": f"n = {x}", "i-gsm": f"query depth {x}"}.get(task, f"p = {x}")


def conclude(tables: dict[str, tuple[str | None, list[Row]]]) -> Said:
    """Per task, each looped model against its iso-FLOP and iso-param baselines (best over
    runs, each within its Wilson interval; open above where undecided)."""
    subject = "Looped (k⊗L) against iso-param (k⊗1) and iso-FLOP (kL⊗1)"
    filled = {t: rows for t, (_, rows) in tables.items() if rows}
    if not filled:
        return conclusions.no_data(subject, "no looped runs on addition, p-hop or i-GSM")
    words = [_task_words(task, rows) for task, rows in filled.items()]
    return Said(
        f"{subject}: " + "; ".join(h for h, _ in words), ". ".join(s for _, s in words) + "."
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    runs, _ = style.load_runs(store_path)
    tasks = [t for t in TASKS if t != "i-gsm" or any(r["task"] == t for r in runs)]
    return conclude({task: table(runs, task) for task in tasks})


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the grids from the store at ``store_path`` into ``out_dir`` (i-GSM's only when the
    store has i-GSM runs)."""
    runs, missing = style.load_runs(store_path)
    tasks = [t for t in TASKS if t != "i-gsm" or any(r["task"] == t for r in runs)]
    tables = {task: table(runs, task) for task in tasks}
    said = conclude(tables)
    height = max(3, *(len(rows) for _, rows in tables.values()))
    fig, axes = plt.subplots(
        1, len(tasks), figsize=(7.5 * len(tasks), 1.6 + 0.7 * height), gridspec_kw={"wspace": 0.6}
    )
    csv_rows: list[dict[str, Any]] = []
    image = None
    for ax, task in zip(axes, tasks, strict=True):
        chosen, rows = tables[task]
        if not rows:
            missing.append(f"{NAME}: no looped (k ⊗ L > 1) runs on {task} in the store")
        image = _panel(ax, task, chosen, rows, csv_rows) or image
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="accuracy (fraction correct)")
    style.cells_legend(fig, (r["verdict"] for r in csv_rows))
    style.suptitle(fig, said.title, fontsize=12)
    verdicts = {(r["task"], r["row"], r["x"]): r["verdict"] for r in csv_rows}  # one per cell
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS, verdicts.values())
    caption = (
        "The paper's Tables 1 and 2 at this store's scale: accuracy (fraction correct; the paper "
        "writes %) on fresh inputs, best over "
        "learning rates and seeds of the final models. Addition (left): whole sums of n operands "
        "(trained on a uniform mixture of n in {2, 4, 8, 16, 32} up to the run's largest N); "
        "guessing a whole sum scores about 0. p-hop (right): the symbol p hops back; guessing "
        "scores 1/|Σ|. i-GSM (right, Table 2): one problem distribution, the model's depth "
        "varied (the rows); answering 0 scores about 1/4 (products by 0). (k⊗1) has the "
        "parameters of (k⊗L), (kL⊗1) its depth and FLOPs. '?' after a number: that cell is "
        "undecided, none of its runs reached its target and one was still improving when its "
        "budget ran out (or its curve has too few evaluations to show a plateau), so it measures "
        "the budget, not the model. "
        f"Parameters compared: {_parameters_text(tables)}. "
        f"Training: {style.training_summary(runs)} "
        f"Data: {style.store_label(store_path, profile)}."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)


def _parameters_text(tables: dict[str, tuple[str | None, list[Row]]]) -> str:
    """Per task, each row's parameter count."""
    parts = [
        f"{task}: " + ", ".join(f"{label} {row['parameters']:,}" for label, row, _ in rows)
        for task, (_, rows) in tables.items()
        if rows
    ]
    return "; ".join(parts) or "none"
