"""Figure ``thresholds``: empirical threshold length against model width, next to the bounds.

One panel per task (index lookup, Dyck-(2,2), equality).  Markers: the empirical threshold of
each stored model (largest N with every swept length up to N at the target accuracy, from
``simulations.thresholds``).  Solid lines: each architecture's proved lower bound, the largest
N a model of that width is not ruled out at (``Bound.max_length``), with the region above it
(ruled out) shaded.  Dashed black: the construction's width that suffices for length N
(Thm 1 for index lookup, Thm 6 for equality).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from ccomplexity import bounds
from paper_figures import style

NAME = "thresholds"
PRECISION = 32
WIDTHS = [2**k for k in range(2, 14)]
PANELS: dict[str, tuple[str, ...]] = {
    "Index lookup": ("index-lookup",),
    "Dyck-(2,2)": ("dyck",),
    "Equality": ("eq-random", "eq-one", "eq-ncp"),
}
# Bound drawn when the store has no model of that task: (bound id, arch, layers, m/width, H).
# m is what the stored runs use (simulations.thresholds): a one-layer LSTM's state is h and c,
# m = 2d; a one-layer transformer with H = 4 heads has m = d / 4 per head.
DEFAULT_BOUNDS: dict[str, list[tuple[str, str, int, float, int]]] = {
    "Index lookup": [("separations.thm3", "lstm", 1, 2.0, 1)],
    "Dyck-(2,2)": [("separations.thm5", "transformer", 1, 0.25, 4)],
    "Equality": [("separations.thm11", "lstm", 1, 2.0, 1)],
}
INDEX_ALPHABET = 64  # simulations.tasks: index lookup has 64 symbols
COLUMNS = ("series", "task", "arch", "layers", "width", "length", "bound_id", "m", "p", "H")


def _bound_curves(rows: list[dict[str, Any]], panel: str) -> list[tuple[str, str, int, float, int]]:
    """(bound id, arch, layers, m per unit width, H) for every bounded model kind in ``rows``."""
    found: dict[tuple[str, str, int], tuple[float, int]] = {}
    for row in rows:
        params = row["bound_params"]
        if row["bound_id"] is None or params is None:
            continue
        key = (row["bound_id"], row["arch"], row["layers"])
        ratio = params["m"] / row["width"]
        # The loosest bound over the stored runs (the largest m H per unit width).
        if key not in found or ratio * params["H"] > found[key][0] * found[key][1]:
            found[key] = (ratio, params["H"])
    if not found:
        return DEFAULT_BOUNDS[panel]
    return [(b, a, n, r, h) for (b, a, n), (r, h) in sorted(found.items())]


def _construction(panel: str) -> tuple[str, list[tuple[int, int]]] | None:
    """(label, [(width, N)]) of the construction that solves the task at width for length N."""
    lengths = [2**k for k in range(1, 21)]
    if panel == "Index lookup":
        thm1 = bounds.get("separations.thm1")
        points = [(int(thm1.value(length=n, alphabet=INDEX_ALPHABET)), n) for n in lengths]
        return "Thm 1 construction (1-layer TF): width that suffices", points
    if panel == "Equality":
        thm6 = bounds.get("separations.thm6")
        points = [(int(thm6.value(length=n)), n) for n in lengths]
        return "Thm 6 construction (2-layer TF): width that suffices", points
    return None


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` (None: bounds only) into ``out_dir``."""
    runs, missing = style.load_runs(store_path)
    target = style.target_of(runs)
    rows, _ = style.load_thresholds(store_path, target, PRECISION)
    fig, axes = plt.subplots(1, len(PANELS), figsize=(15, 5.2))
    csv_rows: list[dict[str, Any]] = []
    for ax, (panel, tasks) in zip(axes, PANELS.items(), strict=True):
        panel_rows = [r for r in rows if r["task"] in tasks]
        top = 2**20
        for bound_id, arch, layers, ratio, heads in _bound_curves(panel_rows, panel):
            bound = bounds.get(bound_id)
            curve = []
            for w in WIDTHS:
                m = max(1, round(ratio * w))
                curve.append(bound.max_length(m, PRECISION, heads))
                csv_rows.append(
                    {
                        "series": "bound",
                        "task": "/".join(tasks),
                        "arch": arch,
                        "layers": layers,
                        "width": w,
                        "length": curve[-1],
                        "bound_id": bound_id,
                        "m": m,
                        "p": PRECISION,
                        "H": heads,
                    }
                )
            c = style.colour(arch)
            short = bound_id.split(".")[-1].replace("thm", "Thm ")
            ax.plot(WIDTHS, curve, color=c, lw=1.8, label=f"{short} bound, {arch} L={layers}")
            ax.fill_between(WIDTHS, curve, top, color=c, alpha=0.08)
        construction = _construction(panel)
        if construction is not None:
            label, points = construction
            ax.plot(*zip(*points, strict=True), "k--", lw=1.2, label=label)
            for w, n in points:
                csv_rows.append(
                    {"series": "construction", "task": "/".join(tasks), "width": w, "length": n}
                )
        for row in panel_rows:
            n = row["threshold_length"]
            tested = sorted(row["lengths"])
            failed = n is None
            y = tested[0] if failed else n
            # Nudge architectures sideways so that equal points do not hide each other.
            nudge = 1.07 ** (list(style.ARCH_COLOURS).index(row["arch"]) - 3)
            ax.scatter(
                [row["width"] * (nudge if row["arch"] in style.ARCH_COLOURS else 1)],
                [y],
                s=60,
                marker=style.marker(row["layers"]),
                facecolors="none" if failed else style.colour(row["arch"]),
                edgecolors=style.colour(row["arch"]),
                linewidths=1.5,
                zorder=5,
                label=f"{row['task']} {style.model_label(row['arch'], row['layers'])}"
                + (" (fails at shortest N)" if failed else ""),
            )
            csv_rows.append(
                {
                    "series": "empirical",
                    "task": row["task"],
                    "arch": row["arch"],
                    "layers": row["layers"],
                    "width": row["width"],
                    "length": n,
                    "bound_id": row["bound_id"],
                }
            )
        if not panel_rows:
            what = f"no runs of {', '.join(tasks)} in the store"
            missing.append(f"{NAME}: {what}")
            style.note(ax, f"{what}:\nbounds only")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=10)
        ax.set_ylim(1, top)
        ax.set_xlim(WIDTHS[0], WIDTHS[-1])
        ax.set_xlabel("model width d (hidden units)")
        ax.set_ylabel("sequence length N (tokens)")
        ax.set_title(panel)
        ax.grid(True, which="major", alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        unique = dict(zip(labels, handles, strict=True))
        ax.legend(unique.values(), unique.keys(), loc="upper left", fontsize=7)
    fig.suptitle(
        f"Empirical threshold length vs proved bounds (target accuracy {target:g}, "
        f"bounds at p = {PRECISION} bits)"
    )
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    caption = (
        f"Threshold length vs model width per task. Markers: the largest swept length N such "
        f"that the model reaches accuracy {target:g} at every swept length up to N (hollow: it "
        f"fails already at the shortest); a threshold equal to the longest length swept is "
        f"only a lower estimate. Solid lines: the largest N each architecture's lower bound "
        f"does not rule out at precision p = {PRECISION} bits (Thm 3 / Thm 11: m p >= N, "
        f"resp. N/2, with m the number of values in the recurrent state, e.g. m = 2d for an "
        f"LSTM of width d (h and c), taken from the stored runs and assumed for an LSTM where "
        f"a task has none; Thm 5: m H >= (N-1)/(3(p + log2 N)) with m = d / H per head); the "
        f"shaded region above a line is ruled out. Dashed: the "
        f"width the paper's construction needs for length N (Thm 1, k = ceil(128 ln 2N)). "
        f"Training: {style.training_summary(runs)} Data: {style.store_label(store_path, profile)}."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}
