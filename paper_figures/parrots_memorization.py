"""Figure ``parrots-memorization`` (mixture of parrots, Sec. 3.2): what experts buy.

The largest number n* of Gaussian sequences a one-layer concat-transformer memorises (every sign
of its training set right), for dense models of growing psi width and for MoE models whose
experts keep the active parameters fixed, against (a) active and (b) total parameters; with
Thm 3.5's counting bound (n <= c W at c = 32 bits per parameter) and Thm 3.4's constructions
(A.11: n = W / (m + 2) neurons of m + 2 parameters; A.12 at K experts:
n = K (W - m K) / (m + 2) active parameters, the loads taken as even). A model that memorised
none of the n tried is an x on the bottom edge (no n is claimed for it); an n* that a larger n,
missed while still improving when its budget ran out (undecided), leaves open is drawn as a
one-sided bound (``paper_figures.style``).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ccomplexity.bounds.parrots import one_layer_parameters
from paper_figures import style

NAME = "parrots-memorization"
PAPER = "parrots"
TASK = "memorize"
BITS = 32  # c of Thm 3.5: float32 parameters
COLUMNS = (
    "series", "width", "mlp_width", "experts", "examples", "best_accuracy", "verdict", "n_star",
    "n_star_at_least", "active_parameters", "total_parameters", "curve", "parameters", "n",
)  # fmt: skip


Model = tuple[int, int, int]
"""(width m, psi width m', experts K)."""


def models_of(runs: list[dict[str, Any]]) -> dict[Model, dict[int, float]]:
    """{(width m, m', K): {n: best accuracy over learning rates and seeds}} on memorize."""
    return {key: {n: max(r["best_accuracy"] for r in rs) for n, rs in by_n.items()}
            for key, by_n in _runs_of(runs).items()}  # fmt: skip


def _runs_of(runs: list[dict[str, Any]]) -> dict[Model, dict[int, list[dict[str, Any]]]]:
    out: dict[Model, dict[int, list[dict[str, Any]]]] = defaultdict(dict)
    for r in runs:
        if r["task"] != TASK or r["arch"] != "concat-transformer":
            continue
        c = r["config"]
        key = (r["width"], c.get("mlp_width") or r["width"], c.get("experts", 1))
        out[key].setdefault(r["length"], []).append(r)
    return out


def verdicts_of(runs: list[dict[str, Any]], target: float) -> dict[Model, dict[int, str]]:
    """{model: {n: the verdict at ``target`` of its best over runs}}."""
    return {key: {n: style.combined(rs, target) for n, rs in by_n.items()}
            for key, by_n in _runs_of(runs).items()}  # fmt: skip


def largest_memorised(by_n: dict[int, float], target: float) -> int:
    """The largest n whose training set reaches ``target`` (0 if none): smaller n are not
    required to pass too, since one learning rate and seed may miss one by optimisation."""
    return max((n for n, acc in by_n.items() if acc >= target), default=0)


def n_star(
    by_n: dict[int, float], verdicts: dict[int, str], target: float
) -> tuple[int | str, int]:
    """(n*, at least): :func:`largest_memorised`, or "undecided" when a larger n missed it while
    still improving (its verdict undecided: it might have been memorised with more steps), with
    the largest n memorised as the one-sided bound (0: none)."""
    largest = largest_memorised(by_n, target)
    open_above = [n for n, verdict in verdicts.items() if n > largest and verdict == "undecided"]
    return ("undecided" if open_above else largest), largest


def _series(experts: int, hidden: int) -> str:
    """The legend entry of a model's series: dense models grow their feed-forward width, MoE
    models of expert width ``hidden`` grow their number of experts."""
    if experts == 1:
        return "dense (K = 1), growing its feed-forward width"
    return f"MoE, experts of width {hidden}, growing K"


def _draw_series(
    ax: Any, index: int, series: str, ps: list[tuple[int, int, int, int, int, bool]], ceiling: int
) -> None:
    """One series' n* against parameters (``index`` 0: active, 1: total): a line through the
    models that memorised some n (a triangle at the grid's ceiling, at least that many), an x on
    the bottom edge for one that memorised none (no n is claimed for it), and a one-sided bound
    for an undecided n*."""
    dense = series.startswith("dense")
    colour = "#1f77b4" if dense else "#ff7f0e"
    some = [p for p in ps if p[2]]
    ax.plot([p[index] for p in some], [p[2] for p in some], "-", color=colour, label=series)
    for p in ps:
        x, y, undecided = p[index], p[2], p[5]
        text = f"width {p[4]}" if dense else f"K={p[3]}"
        if not y:  # none memorised: below every n tried, so on the edge, not at the smallest n
            edge = ax.get_xaxis_transform()
            ax.plot(x, 0.03, "o" if undecided else "x", color=colour, mew=2, clip_on=False,
                    transform=edge, **(style.HALF_FILLED if undecided else {}))  # fmt: skip
            ax.annotate(text, (x, 0.03), xycoords=edge, textcoords="offset points",
                        xytext=(5, 2 if dense else 9), fontsize=7, color=colour)  # fmt: skip
            continue
        if undecided:
            style.one_sided(ax, x, y, colour)
        else:
            ax.plot(x, y, "^" if y >= ceiling else "o", color=colour)
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(3, -10) if dense else (3, 5),
                    fontsize=7, color=colour)  # fmt: skip


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw n* against active and total parameters from the store at ``store_path``."""
    runs, missing = style.load_runs(store_path)
    mine = [r for r in runs if r["task"] == TASK]
    target = style.target_of(mine, 1.0)
    found = models_of(mine)
    verdicts = verdicts_of(mine, target)
    if runs and not found:
        missing.append(f"{NAME}: no concat-transformer runs on {TASK} in the store")
    rows: list[dict[str, Any]] = []
    points: dict[str, list[tuple[int, int, int, int, int, bool]]] = defaultdict(list)
    for (m, hidden, k), by_n in sorted(found.items()):
        counts = one_layer_parameters(m, 1, hidden, k)
        star, at_least = n_star(by_n, verdicts[m, hidden, k], target)
        series = _series(k, hidden)
        points[series].append((counts["active"], counts["total"], at_least, k, hidden,
                               star == "undecided"))  # fmt: skip
        for n, acc in sorted(by_n.items()):
            rows.append({"series": series, "width": m, "mlp_width": hidden, "experts": k,
                         "examples": n, "best_accuracy": acc,
                         "verdict": verdicts[m, hidden, k][n],
                         "n_star": star if isinstance(star, int) else None,
                         "n_star_at_least": at_least if star == "undecided" else None,
                         "active_parameters": counts["active"],
                         "total_parameters": counts["total"]})  # fmt: skip
    moe_base = {h for (_, h, k) in found if k > 1}
    for (m, hidden, k), by_n in found.items():  # the K = 1 member of each MoE series
        if k == 1 and hidden in moe_base:
            counts = one_layer_parameters(m, 1, hidden, 1)
            star, at_least = n_star(by_n, verdicts[m, hidden, k], target)
            points[_series(2, hidden)].append(
                (counts["active"], counts["total"], at_least, 1, hidden, star == "undecided")
            )
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    m = next(iter(found))[0] if found else 16
    every = [p for ps in points.values() for p in ps]
    w_max = max([p[1] for p in every], default=4000) * 1.5
    w = np.geomspace(max(3 * m * m, 100), w_max, 50)
    tried = sorted({n for by_n in found.values() for n in by_n}) or [128]
    ceiling = tried[-1]  # a model passing it might hold more: drawn as a one-sided bound
    for ax, index, label in ((axes[0], 0, "active"), (axes[1], 1, "total")):
        for series, ps in sorted(points.items()):
            _draw_series(ax, index, series, sorted(ps), ceiling)
        if any(not p[2] for ps in points.values() for p in ps):
            ax.plot([], [], "x", color="#555555", mew=2,
                    label="x on the bottom edge: none of the n tried memorised")  # fmt: skip
        if any(p[5] for ps in points.values() for p in ps):
            ax.plot([], [], "o", color="#555555", **style.HALF_FILLED,
                    label="undecided: a larger n still improving; n* at least this")  # fmt: skip
        ax.axhline(ceiling, color="#999999", lw=0.6, ls="--")
        ax.text(0.99, ceiling, f">= {ceiling}: the largest n tried ",
                transform=ax.get_yaxis_transform(), ha="right", va="bottom", fontsize=7,
                color="#666666")  # fmt: skip
        free = w - 3 * m * m  # the attention's 3 m^2 carry no examples in A.11 / A.12
        ax.plot(
            w,
            free / (m + 2),
            "k--",
            lw=0.9,
            label="A.11 construction: n = (W - 3m^2)/(m+2)",
            gid=style.REFERENCE,
        )
        ax.plot(
            w,
            BITS * w,
            "k:",
            lw=0.9,
            label=f"Thm 3.5: n <= {BITS} W (counting)",
            gid=style.REFERENCE,
        )
        if index == 0:
            k = 16
            ax.plot(w, np.maximum(k * (free - m * k) / (m + 2), 1), "k-.", lw=0.9,
                    label=f"A.12 construction, K = {k}: n = K(W - 3m^2 - mK)/(m+2)",
                    gid=style.REFERENCE)  # fmt: skip
        for x, y, curve in zip(w, free / (m + 2), ["a11"] * len(w), strict=True):
            rows.append({"curve": f"{curve}_{label}", "parameters": float(x), "n": float(y)})
        ax.set_xscale("log")
        ax.set_yscale("log", base=2)
        ax.set_ylim(tried[0] / 1.5, None)
        ax.set_xlabel(f"{label} parameters W (no embedding layer: inputs are the vectors)")
        ax.set_title(f"({'ab'[index]}) largest n memorised against {label} parameters")
        if not every:
            style.note(ax, f"no {TASK} runs in the store")
    axes[0].set_ylabel(f"n* (largest n with accuracy {target:g} on the training set)")
    axes[0].legend(fontsize=7, loc="upper left")
    if any(p[5] for ps in points.values() for p in ps):
        axes[1].legend(handles=[style.undecided_handle()], fontsize=7, loc="lower right")
    fig.suptitle("Mixture of parrots: experts add memorisation at fixed active parameters "
                 f"({style.store_label(store_path, profile)})", fontsize=10)  # fmt: skip
    files = style.save(fig, out_dir, NAME, rows, COLUMNS)  # a verdict per (model, n) tried
    caption = (
        f"Memorisation of n Gaussian sequences (width m = {m} = input dimension; no embedding "
        "layer) with random labels by one-layer concat-transformers: n* is the largest n "
        f"whose training-set accuracy reaches {target:g} (x on the bottom edge, off the "
        f"n axis: none of the n tried ({', '.join(map(str, tried))}) memorised; a triangle on "
        f"the dashed line at {ceiling}: the largest n tried was memorised, so n* is at least "
        f"that; half-filled with an arrow up: undecided, a larger n was missed while still "
        f"improving when its budget ran out, so n* is at least the n drawn). Dense "
        "models grow the feed-forward width m'; MoE models keep m' per expert (so active "
        "parameters stay "
        "fixed) and grow the number of experts K. Dashed: the A.11 construction's n = W/(m+2) "
        "for the parameters beyond the attention; dash-dot: A.12 with 16 experts (even loads); "
        f"dotted: Thm 3.5's counting bound at {BITS} bits per parameter. Parameters "
        f"compared (active / total): {_counts_text(points)}. "
        + style.training_summary(mine)
        + f" Data: {style.store_label(store_path, profile)}."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}


def _counts_text(points: dict[str, list[tuple[int, int, int, int, int, bool]]]) -> str:
    """Per series, each model's active / total parameters (and its K or m')."""
    parts = []
    for series, ps in sorted(points.items()):
        dense = series.startswith("dense")
        models = ", ".join(f"{'m' + chr(39) if dense else 'K'} = {h if dense else k}: "
                           f"{a:,} / {t:,}" for a, t, _, k, h, *_ in sorted(ps))  # fmt: skip
        parts.append(f"{series}: {models}")
    return "; ".join(parts) or "none in the store"
