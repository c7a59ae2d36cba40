"""Figure ``bite``: how close to the information-theoretic wall gradient descent gets.

Every model drawn was trained at p bits: it held the numbers its protocol sends on a p-bit grid
while it trained (``ccx train --precision``), so it *is* the protocol of its theorem and the
bound applies with no gap. One panel per task and family of models. Each model (architecture,
width, heads, p) is a marker at its bits (x: the m H p of its bound, m the state numbers of a
recurrent model, the width per head of an attention model) and its empirical threshold N* (y:
the largest N with every swept length up to N at the target, best over learning rates and
seeds, :func:`simulations.thresholds.thresholds`), with the verdict marks of the other figures
(an undecided threshold is one-sided, an arrow up). Its wall, the largest N its own bound
allows at its own m, H and p (the claims table's held row: Thm 3 or 11 for recurrent models,
Thm 5 or 12 for the protocol of a held one-layer transformer, Thm 3.1 counted exactly for the
mixture of parrots' class), is the black line, with the ruled-out side shaded. The CSV gives
each model's reach N* / N_wall; the caption states the reach per panel, computed from the store,
and the title and conclusion (:mod:`paper_figures.conclusions`) whether any model passed its wall
and each panel's reach.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

import models
from paper_figures import conclusions, style
from paper_figures.conclusions import Said

NAME = "bite"
FILL_PROFILE = "bite"
PANELS: dict[tuple[str, str], str] = {
    ("index-lookup", "recurrent"): "Index lookup, recurrent models (Thm 3: m p >= N)",
    ("eq-random", "recurrent"): "Equality, recurrent models (Thm 11: m p >= N / 2)",
    ("dyck", "attention"): "Dyck-(2,2), one-layer transformers (Thm 5, held protocol)",
    ("eq-random", "attention"): "Equality, one-layer transformers (Thm 12, held protocol)",
    ("length2-path", "concat-attention"): "Length-2 path, one-layer MoE (Thm 3.1, exact)",
}
"""(task, family) -> panel title; a panel with no model trained at p bits is left out."""
COLUMNS = ("task", "family", "arch", "width", "heads", "experts", "precision", "bits",
           "threshold", "threshold_at_least", "bound_length", "reach", "verdict", "bound_id",
           "runs")  # fmt: skip


def model_points(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One point per threshold row of a model trained at p bits with a wall: its bits, its
    threshold (a length, or None when the shortest length failed, or "undecided"), its wall
    and its reach (threshold / wall; of the one-sided threshold when undecided)."""
    points = []
    for row in rows:
        params = row.get("bound_params")
        if not row.get("held") or row.get("bound_length") is None or params is None:
            continue
        threshold = row["threshold_length"]
        decided = threshold != "undecided"
        shown = threshold if decided else row.get("threshold_at_least")
        points.append(
            {
                "task": row["task"],
                "family": models.family(row["arch"]),
                "arch": row["arch"],
                "width": row["width"],
                "heads": params["H"],
                "experts": row.get("shape", {}).get("experts", 1),
                "precision": params["p"],
                "bits": params["m"] * params["H"] * params["p"],
                "threshold": threshold if decided else None,
                "threshold_at_least": None if decided else shown,
                "bound_length": row["bound_length"],
                "reach": None if shown is None else shown / row["bound_length"],
                "verdict": _verdict(row),
                "bound_id": row["bound_id"],
                "runs": row["runs"],
            }
        )
    return points


def _verdict(row: dict[str, Any]) -> str:
    """The verdict of a threshold: undecided where an undecided run would decide it, else the
    verdict of the first length not reached (plateaued), or reached when every length was."""
    if row["threshold_length"] == "undecided":
        return "undecided"
    points = sorted(row.get("points", []), key=lambda p: p["length"])
    missed = [p for p in points if p["verdict"] != "reached"]
    return missed[0]["verdict"] if missed else "reached"


WALL_SPAN = 1.18
"""Half-width (a factor on the log axis) of the shaded column above each model's wall."""


def _panel(ax: Any, points: list[dict[str, Any]], title: str) -> None:
    """One panel: each model's wall (a black bar, the ruled-out side above it shaded, the bars
    joined in order of bits) and its threshold."""
    walls = sorted({(p["bits"], p["bound_length"]) for p in points})
    reached = [p["threshold"] or p["threshold_at_least"] or 1 for p in points]
    top = max([w for _, w in walls] + reached) * 3
    ax.plot([b for b, _ in walls], [w for _, w in walls], color="black", lw=1, alpha=0.5)
    for i, (bits, wall) in enumerate(walls):
        span = [bits / WALL_SPAN, bits * WALL_SPAN]
        ax.plot(
            span,
            [wall, wall],
            color="black",
            lw=2.2,
            label="its wall: the largest N its own bound allows" if i == 0 else None,
        )
        ax.fill_between(
            span,
            [wall, wall],
            [top, top],
            color="black",
            alpha=0.1,
            lw=0,
            label="ruled out at that model's m, H and p" if i == 0 else None,
        )
    colours = _kind_colours(points)
    for p in points:
        colour = colours[_kind(p)]
        y = p["threshold"] if p["threshold"] is not None else p["threshold_at_least"]
        if p["verdict"] == "undecided":  # at least y (the bottom edge when nothing was reached)
            style.one_sided(ax, p["bits"], y or 1, colour)
        elif y is None:  # the shortest length tried was not reached: on the bottom edge
            ax.plot([p["bits"]], [1], ls="none", marker="x", ms=8, color=colour)
        else:
            ax.plot(
                [p["bits"]],
                [y],
                ls="none",
                marker="o",
                ms=8,
                **style.verdict_marks(p["verdict"], colour),
            )
    for kind, colour in colours.items():  # one entry per architecture (K): its colour
        ax.plot([], [], ls="none", marker="s", ms=7, color=colour, label=kind)
    if any(p["threshold"] for p in points):
        ax.plot([], [], ls="none", marker="o", ms=7, color="black", label="N*: longest N reached")
    if any(p["threshold"] is None and p["verdict"] != "undecided" for p in points):
        ax.plot([], [], ls="none", marker="x", ms=7, color="black", label="shortest N not reached")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    lo, hi = min(b for b, _ in walls), max(b for b, _ in walls)
    ax.set_xlim(lo / 1.6, hi * 1.6)
    ax.set_ylim(0.8, top)
    ax.set_xlabel("model bits m H p (m: state numbers, or width per head)")
    ax.set_ylabel("length N (x: the shortest tried was not reached)")
    ax.set_title(title, fontsize=10)
    if any(p["verdict"] == "undecided" for p in points):
        style.add_undecided_entry(ax)
    ax.legend(*style.legend_entries(ax), fontsize=7)


def reach_sentence(points: list[dict[str, Any]]) -> str:
    """Per panel and architecture: the models' reach N* / N_wall (decided thresholds), how many
    stayed below the shortest length tried, how many are undecided; computed from the points
    drawn."""
    parts = []
    for (task, family), title in PANELS.items():
        here = [p for p in points if (p["task"], p["family"]) == (task, family)]
        if here:
            kinds = dict.fromkeys(_kind(p) for p in here)
            said = [_kind_sentence(k, [p for p in here if _kind(p) == k]) for k in kinds]
            parts.append(f"{title.split(' (')[0]}: {'; '.join(said)}")
    return ". ".join(parts)


def _kind(point: dict[str, Any]) -> str:
    """The architecture a point is counted under (a mixture of experts: with its K)."""
    experts = int(point.get("experts") or 1)
    return (
        f"{point['arch']} K={experts}" if point["family"] == "concat-attention" else point["arch"]
    )


MIXTURE_COLOURS = ("#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
"""Colours of the mixtures of experts with K > 1, in order of K (K = 1: the architecture's)."""


def _kind_colours(points: list[dict[str, Any]]) -> dict[str, str]:
    """Each architecture's colour (:func:`paper_figures.style.colour`); a mixture of experts with
    K > 1 takes one of :data:`MIXTURE_COLOURS` by its rank among the Ks drawn, so K tells apart."""
    kinds = sorted({(_kind(p), p["arch"], int(p.get("experts") or 1)) for p in points},
                   key=lambda k: (k[1], k[2]))  # fmt: skip
    ks = sorted({k for _, _, k in kinds if k > 1})
    return {
        kind: style.colour(arch) if k == 1 else MIXTURE_COLOURS[ks.index(k) % len(MIXTURE_COLOURS)]
        for kind, arch, k in kinds
    }


def _kind_sentence(kind: str, models: list[dict[str, Any]]) -> str:
    decided = sorted(p["reach"] for p in models if p["verdict"] != "undecided" and p["reach"])
    below = sum(1 for p in models if p["threshold"] is None and p["verdict"] != "undecided")
    undecided = sum(1 for p in models if p["verdict"] == "undecided")
    pieces = []
    if decided:
        low, high = decided[0], decided[-1]
        pieces.append(f"reach {low:.2f}" if low == high else f"reach {low:.2f}-{high:.2f}")
    if below:
        pieces.append(f"{below} below its shortest length")
    if undecided:
        least = sorted(p["reach"] for p in models if p["verdict"] == "undecided" and p["reach"])
        text = f"{undecided} undecided"
        if least:
            span = f"{least[0]:.2f}" + (f"-{least[-1]:.2f}" if least[-1] != least[0] else "")
            some = f" for the {len(least)} that reached a length" if len(least) < undecided else ""
            text += f" (reach at least {span}{some})"
        pieces.append(text)
    n = len(models)
    return f"{kind} ({n} model{'s' if n > 1 else ''}) {', '.join(pieces)}"


def conclude(points: list[dict[str, Any]]) -> Said:
    """Whether any model trained at p bits passed its wall (it errs on inputs its evaluation
    did not draw, or something is wrong: ``ccx threshold --check`` says which), and each
    panel's reach."""
    subject = "Models trained at p bits against their proved walls"
    if not points:
        return conclusions.no_data(subject, "no model trained at p bits in the store")
    beyond = [p for p in points if p["threshold"] and p["threshold"] > p["bound_length"]]
    verdict = (
        f"{len(beyond)} beyond the wall (see ccx threshold --check)"
        if beyond
        else "none beyond its wall"
    )
    return Said(f"{subject}: {verdict}", f"{reach_sentence(points)}.")


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    data = style.threshold_data(store_path, None, 32, held=True)
    return conclude(model_points(data.rows))


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` into ``out_dir``."""
    data = style.threshold_data(store_path, profile, 32, held=True)
    runs, missing = data.runs, list(data.missing)
    points = model_points(data.rows)
    said = conclude(points)
    drawn = {k: t for k, t in PANELS.items() if any((p["task"], p["family"]) == k for p in points)}
    absent = [
        f"no {family} model trained at p bits on {task}"
        for (task, family) in PANELS
        if (task, family) not in drawn
    ]
    cols = min(3, max(1, len(drawn)))
    rows_of_panels = -(-max(1, len(drawn)) // cols)
    fig, axes = plt.subplots(
        rows_of_panels, cols, figsize=(5.4 * cols, 4.8 * rows_of_panels), squeeze=False
    )
    for ax, ((task, family), title) in zip(axes.flat, drawn.items(), strict=False):
        _panel(ax, [p for p in points if (p["task"], p["family"]) == (task, family)], title)
    for ax in list(axes.flat)[len(drawn) :]:
        ax.set_visible(False)
    if not drawn:
        axes.flat[0].set_visible(True)
        style.note(axes.flat[0], "no model trained at p bits in the store")
    style.suptitle(fig, said.title, fontsize=12)
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, points, COLUMNS)
    if drawn:  # the panels not drawn at all, said as the panels a save leaves out are
        style.LEFT_OUT[NAME] = [*style.LEFT_OUT.get(NAME, []), *absent]
    caption = (
        "Each model trained at p bits (it holds the numbers its protocol sends on a p-bit grid, "
        "so it is that protocol) at its bits m H p and its threshold N* (largest N with every "
        "swept length up to N at the target, best over learning rates and seeds); black: the "
        "largest N its own bound allows at its m, H and p, the shaded side ruled out. "
        f"Measured: {reach_sentence(points) or 'no model trained at p bits'}. "
        f"Training: {style.training_summary(runs)} "
        f"Data: {data.label}."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)
