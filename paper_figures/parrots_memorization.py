"""Figure ``parrots-memorization`` (mixture of parrots, Sec. 3.2): what experts buy.

The largest number n* of Gaussian sequences a one-layer concat-transformer memorises (every sign
of its training set right), for dense models of growing psi width and for MoE models whose
experts keep the active parameters fixed, against (a) active and (b) total parameters; with
Thm 3.5's counting bound (n <= c W at c = 32 bits per parameter) and Thm 3.4's constructions
(A.11: n = W / (m + 2) neurons of m + 2 parameters; A.12 at K experts:
n = K (W - m K) / (m + 2) active parameters, the loads taken as even).
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
    "series", "width", "mlp_width", "experts", "examples", "best_accuracy", "n_star",
    "active_parameters", "total_parameters", "curve", "parameters", "n",
)  # fmt: skip


def models_of(runs: list[dict[str, Any]]) -> dict[tuple[int, int, int], dict[int, float]]:
    """{(width m, m', K): {n: best accuracy over learning rates and seeds}} on memorize."""
    out: dict[tuple[int, int, int], dict[int, float]] = defaultdict(dict)
    for r in runs:
        if r["task"] != TASK or r["arch"] != "concat-transformer":
            continue
        c = r["config"]
        key = (r["width"], c.get("mlp_width") or r["width"], c.get("experts", 1))
        out[key][r["length"]] = max(out[key].get(r["length"], 0.0), r["best_accuracy"])
    return out


def largest_memorised(by_n: dict[int, float], target: float) -> int:
    """The largest n whose training set reaches ``target`` (0 if none): smaller n are not
    required to pass too, since one learning rate and seed may miss one by optimisation."""
    return max((n for n, acc in by_n.items() if acc >= target), default=0)


def _series(experts: int, hidden: int) -> str:
    """The legend entry of a model's series: dense models grow their feed-forward width, MoE
    models of expert width ``hidden`` grow their number of experts."""
    if experts == 1:
        return "dense (K = 1), growing its feed-forward width"
    return f"MoE, experts of width {hidden}, growing K"


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw n* against active and total parameters from the store at ``store_path``."""
    runs, missing = style.load_runs(store_path)
    mine = [r for r in runs if r["task"] == TASK]
    target = style.target_of(mine, 1.0)
    found = models_of(mine)
    if runs and not found:
        missing.append(f"{NAME}: no concat-transformer runs on {TASK} in the store")
    rows: list[dict[str, Any]] = []
    points: dict[str, list[tuple[int, int, int, int, int]]] = defaultdict(list)
    for (m, hidden, k), by_n in sorted(found.items()):
        counts = one_layer_parameters(m, 1, hidden, k)
        n_star = largest_memorised(by_n, target)
        series = _series(k, hidden)
        points[series].append((counts["active"], counts["total"], n_star, k, hidden))
        for n, acc in sorted(by_n.items()):
            rows.append({"series": series, "width": m, "mlp_width": hidden, "experts": k,
                         "examples": n, "best_accuracy": acc, "n_star": n_star,
                         "active_parameters": counts["active"],
                         "total_parameters": counts["total"]})  # fmt: skip
    moe_base = {h for (_, h, k) in found if k > 1}
    for (m, hidden, k), by_n in found.items():  # the K = 1 member of each MoE series
        if k == 1 and hidden in moe_base:
            counts = one_layer_parameters(m, 1, hidden, 1)
            points[_series(2, hidden)].append(
                (counts["active"], counts["total"], largest_memorised(by_n, target), 1, hidden)
            )
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    m = next(iter(found))[0] if found else 16
    every = [p for ps in points.values() for p in ps]
    w_max = max([p[1] for p in every], default=4000) * 1.5
    w = np.geomspace(max(3 * m * m, 100), w_max, 50)
    tried = sorted({n for by_n in found.values() for n in by_n}) or [128]
    floor = tried[0] / 2  # where "none of the n tried" is drawn
    ceiling = tried[-1]  # a model passing it might hold more: drawn as a one-sided bound
    for ax, index, label in ((axes[0], 0, "active"), (axes[1], 1, "total")):
        for series, ps in sorted(points.items()):
            ps = sorted(ps)
            dense = series.startswith("dense")
            colour = "#1f77b4" if dense else "#ff7f0e"
            ys = [p[2] if p[2] else floor for p in ps]
            ax.plot([p[index] for p in ps], ys, "-", color=colour, label=series)
            for p, y in zip(ps, ys, strict=True):  # at the grid's ceiling: at least that many
                ax.plot(p[index], y, "^" if y >= ceiling else "o", color=colour)
            for p, y in zip(ps, ys, strict=True):
                text = f"width {p[4]}" if dense else f"K={p[3]}"
                offset = (3, -10) if dense else (3, 5)
                ax.annotate(text, (p[index], y), textcoords="offset points", xytext=offset,
                            fontsize=7, color=colour)  # fmt: skip
        ax.axhline(floor, color="#999999", lw=0.6)
        ax.text(0.99, floor, "none of the n tried ", transform=ax.get_yaxis_transform(),
                ha="right", va="bottom", fontsize=7, color="#666666")  # fmt: skip
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
        ax.set_ylim(floor / 1.5, None)
        ax.set_xlabel(f"{label} parameters W (no embedding layer: inputs are the vectors)")
        ax.set_title(f"({'ab'[index]}) largest n memorised against {label} parameters")
        if not every:
            style.note(ax, f"no {TASK} runs in the store")
    axes[0].set_ylabel(f"n* (largest n with accuracy {target:g} on the training set)")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Mixture of parrots: experts add memorisation at fixed active parameters "
                 f"({style.store_label(store_path, profile)})", fontsize=10)  # fmt: skip
    files = style.save(fig, out_dir, NAME, rows, COLUMNS)
    caption = (
        f"Memorisation of n Gaussian sequences (width m = {m} = input dimension; no embedding "
        "layer) with random labels by one-layer concat-transformers: n* is the largest n "
        f"whose training-set accuracy reaches {target:g} (drawn on the grey line when no n "
        f"tried ({', '.join(map(str, tried))}) is memorised; a triangle on the dashed line at "
        f"{ceiling}: the largest n tried was memorised, so n* is at least that). Dense "
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


def _counts_text(points: dict[str, list[tuple[int, int, int, int, int]]]) -> str:
    """Per series, each model's active / total parameters (and its K or m')."""
    parts = []
    for series, ps in sorted(points.items()):
        dense = series.startswith("dense")
        models = ", ".join(f"{'m' + chr(39) if dense else 'K'} = {h if dense else k}: "
                           f"{a:,} / {t:,}" for a, t, _, k, h in sorted(ps))  # fmt: skip
        parts.append(f"{series}: {models}")
    return "; ".join(parts) or "none in the store"
