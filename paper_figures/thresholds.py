"""Figure ``thresholds``: empirical threshold length against model width, next to the bounds.

One panel per task (index lookup, Dyck-(2,2), equality).  Markers: the empirical threshold of
each stored model (largest N with every swept length up to N at the target accuracy, from
``simulations.thresholds``).  Solid lines: each architecture's proved lower bound, the largest
N a model of that width is not ruled out at (``Bound.max_length``), with the region above it
(ruled out) shaded.  A threshold an undecided run would decide (:mod:`simulations.verdicts`:
still improving when its budget ran out) is drawn as a one-sided bound, the half-filled marker at
the largest length reached before it and an arrow up (``style.one_sided``), and its CSV row has
no length, only ``threshold_at_least``.  Dashed black: the construction's width that suffices
for length N.  Both come from the claims table (:mod:`ccomplexity.claims`): its lower-bound
rows and the upper-bound rows whose value is a width (Thm 1 for index lookup, Thm 6 for equality).

A plugin task gets a panel of its own (its two computed bounds in bits, each trained model's bits
at each stored N). The module stays whole (about 520 lines): :func:`make` draws that panel beside
the paper's, into the same figure legend, CSV rows and caption.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

import models
from ccomplexity import bounds, claims
from paper_figures import conclusions, style
from paper_figures.conclusions import Said
from simulations.thresholds import is_plugin_task

NAME = "thresholds"
PRECISION = 32
WIDTHS = [2**k for k in range(2, 14)]
PANELS: dict[str, tuple[str, ...]] = {
    "Index lookup": ("index-lookup",),
    "Dyck-(2,2)": ("dyck",),
    "Equality": ("eq-random", "eq-one", "eq-ncp"),
}
ALPHABETS = {"index-lookup": 64}  # simulations.tasks: index lookup has 64 symbols
TASK_NAMES = {"index-lookup": "index lookup", "dyck": "Dyck-(2,2)", "eq-random": "Eq-random",
              "eq-one": "Eq-one", "eq-ncp": "Eq-ncp"}  # fmt: skip
"""The paper's names of the tasks, for legends."""
TOP = 2**20
"""The longest length the panels show."""
COLUMNS = ("series", "task", "arch", "layers", "width", "length", "bound_id", "m", "p", "H",
           "bits", "threshold_at_least", "verdict")  # fmt: skip
OWN_BOUNDS = {
    "one-way": ("separations.thm2", "one-way bits at the worst cut (Thm 2: recurrent m p >=)"),
    "fooling": ("separations.thm4", "fooling-set bits, prefix:N/2 (Thm 4: 1-layer protocol >=)"),
}
"""The two computed bounds of a panel of your own task: its kind -> (bound id, line label)."""

Curve = tuple[str, str, int | None, float, int]
"""(bound id, arch, layers, m per unit width, H) of one bound line."""


def _representative(family: str) -> str:
    """The first registered model of ``family``: the architecture a bound line is drawn for when
    the store has no model of that family."""
    return next(name for name, fam in models.FAMILIES.items() if fam == family)


def _default_curve(claim: claims.Claim) -> Curve:
    """A bound line for the representative model of the claim's family, m read as the claim
    says (e.g. an LSTM's state is h and c, m = 2d; a transformer with 4 heads has m = d / 4)."""
    arch = _representative(claim.family)
    width, layers = 8, claim.layers or 1
    heads = 4 if models.family(arch) == "attention" else None
    model = models.build(arch, width=width, layers=layers, **({"heads": heads} if heads else {}))
    params = claim.model_params(
        {"width": width, "heads": heads, "state_numel": model.state_numel()}, PRECISION
    )
    return claim.bound_id, arch, claim.layers, params["m"] / width, params["H"]


def _bound_curves(rows: list[dict[str, Any]], tasks: tuple[str, ...]) -> list[Curve]:
    """One line per lower-bound claim on ``tasks``: at the m / width and H of the stored runs
    (the loosest over them), or of the family's representative model where there are none."""
    found: dict[tuple[str, str, int], tuple[float, int]] = {}
    for row in rows:
        params = row["bound_params"]
        if row["bound_id"] is None or params is None:
            continue
        key = (row["bound_id"], row["arch"], row["layers"])
        ratio = params["m"] / row["width"]
        if key not in found or ratio * params["H"] > found[key][0] * found[key][1]:
            found[key] = (ratio, params["H"])
    curves: list[Curve] = [(b, a, n, r, h) for (b, a, n), (r, h) in sorted(found.items())]
    drawn = {b for b, *_ in curves}
    for claim in claims.CLAIMS:
        if claim.task in tasks and claim.role == "lower" and claim.bound_id not in drawn:
            drawn.add(claim.bound_id)
            curves.append(_default_curve(claim))
    return curves


def _constructions(tasks: tuple[str, ...]) -> list[tuple[str, list[tuple[int, int]]]]:
    """(label, [(width, N)]) of each upper-bound claim on ``tasks`` whose value is a width."""
    lengths = [2**k for k in range(1, 21)]
    out, seen = [], set()
    for claim in claims.CLAIMS:
        bound = claim.bound
        if claim.task not in tasks or claim.role != "upper" or not bound.value_is_width:
            continue
        if bound.id in seen:
            continue
        seen.add(bound.id)
        extra = {"alphabet": ALPHABETS[claim.task]} if claim.task in ALPHABETS else {}
        extra = {k: v for k, v in extra.items() if k in bound.params}
        points = [(int(bound.value(length=n, **extra)), n) for n in lengths]
        layers = f"{claim.layers}-layer " if claim.layers else ""
        short = bounds.short_name(bound.id)
        out.append((f"{short} construction ({layers}{claim.family}): width that suffices", points))
    return out


def row_verdict(row: dict[str, Any]) -> str:
    """The verdict of a threshold: ``undecided`` when an undecided length decides it,
    ``reached`` when every swept length reached the target (the threshold is then only a lower
    estimate), else ``plateaued`` (decided by a plateaued miss)."""
    if row["threshold_length"] == "undecided":
        return "undecided"
    points = row.get("points") or []
    return "reached" if points and all(p["verdict"] == "reached" for p in points) else "plateaued"


def model_name(row: dict[str, Any]) -> str:
    """A model's legend entry in words: its task (in a panel of several) and architecture."""
    depth = f"{row['layers']} layer{'s' if row['layers'] > 1 else ''}"
    return f"{TASK_NAMES.get(row['task'], row['task'])}: {row['arch']}, {depth}"


def _nudged(rows: list[dict[str, Any]]) -> dict[int, float]:
    """{id(row): x}: each model's width, models of one panel set apart along the width axis in
    a fixed order so that equal thresholds at one width do not hide each other."""
    keys = sorted({(r["task"], r["arch"], r["layers"]) for r in rows})
    spread = {k: 1.22 ** (i - (len(keys) - 1) / 2) for i, k in enumerate(keys)}
    return {id(r): r["width"] * spread[r["task"], r["arch"], r["layers"]] for r in rows}


def _empirical(ax: Any, row: dict[str, Any], x: float, csv_rows: list[dict[str, Any]]) -> None:
    """One model's threshold at width position ``x``: a filled marker at its length (hollow at
    the shortest length when it fails there), a one-sided bound when undecided, and, when it is
    undecided at the shortest length (nothing known), a half-filled marker on the bottom edge,
    never at a length."""
    n, tested = row["threshold_length"], sorted(row["lengths"])
    verdict = row_verdict(row)
    colour, marker = style.colour(row["arch"]), style.marker(row["layers"])
    label = model_name(row)
    if verdict == "undecided" and row.get("threshold_at_least") is not None:
        style.one_sided(
            ax,
            x,
            row["threshold_at_least"],
            colour,
            marker,
            label=f"{label} (undecided: at least this)",
        )
    elif verdict == "undecided":  # undecided at the shortest length: nothing is known
        ax.plot(
            [x],
            [0.03],
            ls="none",
            marker=marker,
            ms=8,
            zorder=5,
            clip_on=False,
            transform=ax.get_xaxis_transform(),
            label=f"{label} (undecided at the shortest N: on the bottom edge)",
            **style.verdict_marks("undecided", colour),
        )
    else:
        failed = n is None
        ax.plot(
            [x],
            [tested[0] if failed else n],
            ls="none",
            marker=marker,
            ms=8,
            zorder=5,
            color=colour,
            mfc="none" if failed else colour,
            mew=1.5,
            label=label + (" (fails at the shortest N)" if failed else ""),
        )
    csv_rows.append(
        {
            "series": "empirical",
            "task": row["task"],
            "arch": row["arch"],
            "layers": row["layers"],
            "width": row["width"],
            "length": n if isinstance(n, int) else None,
            "bound_id": row["bound_id"],
            "threshold_at_least": row.get("threshold_at_least"),
            "verdict": verdict,
        }
    )


def _bound_lines(
    ax: Any, tasks: tuple[str, ...], rows: list[dict[str, Any]], csv_rows: list[dict[str, Any]]
) -> None:
    """The lower bounds of the claims table on ``tasks`` (each with the region it rules out
    shaded) and the constructions' widths."""
    for bound_id, arch, layers, ratio, heads in _bound_curves(rows, tasks):
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
        depth = f" layers={layers}" if layers else ""
        ax.plot(
            WIDTHS,
            curve,
            color=c,
            lw=1.8,
            gid=style.REFERENCE,
            label=f"{bounds.short_name(bound_id)} bound, {arch}{depth}",
        )
        ax.fill_between(WIDTHS, curve, TOP, color=c, alpha=0.08, gid=style.REFERENCE)
    for label, points in _constructions(tasks):
        ax.plot(*zip(*points, strict=True), "k--", lw=1.2, label=label, gid=style.REFERENCE)
        csv_rows.extend(
            {"series": "construction", "task": "/".join(tasks), "width": w, "length": n}
            for w, n in points
        )


def _task_panel(
    ax: Any,
    panel: str,
    tasks: tuple[str, ...],
    rows: list[dict[str, Any]],
    csv_rows: list[dict[str, Any]],
    missing: list[str],
) -> None:
    """One paper task's panel: bounds, constructions and every stored model's threshold."""
    _bound_lines(ax, tasks, rows, csv_rows)
    xs = _nudged(rows)
    for row in rows:
        _empirical(ax, row, xs[id(row)], csv_rows)
    if not rows:
        what = f"no runs of {', '.join(tasks)} in the store"
        missing.append(f"{NAME}: {what}")
        style.note(ax, what)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_ylim(1, TOP)
    ax.set_xlim(WIDTHS[0], WIDTHS[-1])
    ax.set_xlabel("model width d (hidden units)")
    ax.set_ylabel("sequence length N (tokens)")
    ax.set_title(panel)
    ax.grid(True, which="major", alpha=0.3)
    if any(row_verdict(r) == "undecided" for r in rows):
        style.add_undecided_entry(ax)


def conclude(data: style.ThresholdData) -> Said:
    """Whether every threshold lies below its proved bound, and how far below."""
    subject = "Empirical thresholds against proved bounds"
    drawn = {t for tasks in PANELS.values() for t in tasks}  # and your own tasks' panels
    rows = [r for r in data.rows if r["task"] in drawn or is_plugin_task(r["task"])]
    if not rows:
        return conclusions.no_data(subject, "no runs of the separations paper's tasks or yours")
    bounded = [r for r in rows if isinstance(r.get("bound_length"), int)]
    beyond = [r for r in bounded if (conclusions.threshold(r).low or 0) > r["bound_length"]]
    undecided = sum(row_verdict(r) == "undecided" for r in rows)
    counts = (
        f"{len(rows)} models, {undecided} of their thresholds undecided"
        if undecided
        else f"{len(rows)} models, every threshold decided"
    )
    if beyond:
        names = conclusions.series(f"{model_name(r)} width={r['width']}" for r in beyond)
        return Said(
            f"{subject}: {len(beyond)} beyond their bound, an error to report",
            f"{counts}; {names} passed the length its lower bound rules out: the "
            "bound or the model's reading of it is wrong.",
        )
    if not bounded:
        return Said(
            f"{subject}: no bound drawn against these models",
            f"{counts}; no lower bound of the claims table applies to them.",
        )
    longest = max(bounded, key=lambda r: conclusions.threshold(r).low or 0)
    nearest = min(bounded, key=lambda r: r["bound_length"])
    if not conclusions.threshold(longest).low:
        return Said(
            f"{subject} (p = {PRECISION}): every threshold below its bound",
            f"{counts}; none of the {len(bounded)} models a lower bound speaks of reaches the "
            "target even at its shortest length, far below the lengths the bounds rule out "
            f"(from N = {nearest['bound_length']:,}).",
        )
    reached = conclusions.threshold(longest).low or 0
    return Said(
        f"{subject} (p = {PRECISION}): every threshold below its bound",
        f"{counts}; every one lies below the length its lower bound rules out: the longest of "
        f"those a bound speaks of, {model_name(longest)} width={longest['width']} at N >= "
        f"{reached:,}, against "
        f"bounds that bite from N = {nearest['bound_length']:,} on ({model_name(nearest)} "
        f"width={nearest['width']}): the trained models fail far below where the bounds forbid.",
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(style.threshold_data(store_path, None, PRECISION))


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure from the store at ``store_path`` (None: bounds only) into ``out_dir``."""
    data = style.threshold_data(store_path, profile, PRECISION)
    said = conclude(data)
    missing = list(data.missing)
    paper_tasks = {t for tasks in PANELS.values() for t in tasks}
    own_tasks = sorted({r["task"] for r in data.rows if is_plugin_task(r["task"])})
    # A store of your own tasks only: their panels alone.
    panels = {} if own_tasks and not {r["task"] for r in data.rows} & paper_tasks else PANELS
    count = len(panels) + len(own_tasks)
    fig, axes = plt.subplots(1, count, figsize=(5 * count, 5.2), squeeze=False)
    axes = list(axes[0])
    csv_rows: list[dict[str, Any]] = []
    for ax, task in zip(axes[len(panels) :], own_tasks, strict=True):
        rows = [r for r in data.rows if r["task"] == task]
        missing.extend(_own_task_panel(ax, task, rows, data.target, csv_rows))
    for ax, (panel, tasks) in zip(axes[: len(panels)], panels.items(), strict=True):
        _task_panel(
            ax, panel, tasks, [r for r in data.rows if r["task"] in tasks], csv_rows, missing
        )
    style.figure_legend(fig, axes)
    style.suptitle(fig, said.title, fontsize=12)
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    caption = _caption(data, own_tasks)
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)


def _caption(data: style.ThresholdData, own_tasks: list[str]) -> str:
    target = data.target
    caption = (
        f"Threshold length vs model width per task. Markers: the largest swept length N such "
        f"that the model reaches accuracy {target:g} at every swept length up to N (hollow: it "
        f"fails already at the shortest); a threshold equal to the longest length swept is only "
        f"a lower estimate; half-filled with an arrow up: undecided, the first length missed was"
        f" still improving when its budget ran out, so the threshold is at least the length "
        f"drawn (no number is claimed); half-filled on the bottom edge: undecided already at "
        f"the shortest length, nothing is known. Models of one panel are set slightly apart "
        f"along the width axis. Solid lines: the largest N each lower bound of the "
        f"claims table does not rule out at precision p = {PRECISION} bits (Thm 3 / Thm 11: m p "
        f">= N, resp. N/2, with m the number of values in the recurrent state, e.g. m = 2d for "
        f"an LSTM of width d (h and c), taken from the stored runs and from the family's first "
        f"model where a task has none; Thm 5 / Thm 12: the single-output Thm 4 protocol, 2 + "
        f"H(4p + ceil(log2 N) + 2mp) bits, must reach N - 1, resp. N/2, with m = d / H per "
        f"head); the shaded region above a line is ruled out. Dashed: the width the paper's "
        f"construction needs for length N (Thm 1, Thm 6 with k = ceil(128 ln 2N)). "
        f"Training: {style.training_summary(data.runs)} Data: {data.label}."
    )
    if own_tasks:
        caption += (
            f" Panels of your own tasks ({', '.join(own_tasks)}): x the length N, y bits, both "
            "computed at the stored lengths only. Solid: the most one-way bits over the cuts at "
            "N (Thm 2: a recurrent model solving the task at N has m p at least that). Dashed: "
            "ceil(log2 S) of a verified fooling set under prefix:N/2 (Fact 4; by Thm 4 a "
            "one-layer transformer gives a protocol under any partition, so the bits of the "
            "single-output protocol of ccx protocol attention must reach it). Each marker a "
            "trained model at a stored N: a recurrent one at its m p, a one-layer transformer "
            f"at its protocol's bits (filled: accuracy {target:g} reached; hollow: plateaued "
            "below it; half-filled: undecided)."
        )
    return caption


def _own_task_panel(
    ax: Any, task: str, rows: list[dict[str, Any]], target: float, csv_rows: list[dict[str, Any]]
) -> list[str]:
    """A plugin task's panel: its two computed bounds (:data:`OWN_BOUNDS`) at the stored lengths,
    and each trained model at each stored N as a marker at the bits its claim compares (m p for
    a recurrent model, the protocol's bits for a one-layer transformer), filled where it
    reached ``target``. Returns a line for each length whose bound was not computed (and why).
    Its legend entries go to the figure's one legend (:func:`paper_figures.style.figure_legend`)."""
    from ccomplexity import plugins

    notes: list[str] = []
    refused: set[int] = set()
    if plugins.task_definition(task) is None:
        if any(r.get("bound_params") for r in rows):  # the trained points alone
            ax.text(
                0.02,
                0.02,
                "bounds not drawn: load its plugin (ccx --plugin FILE.py figure ...)",
                transform=ax.transAxes,
                fontsize=7,
                va="bottom",
            )
        else:
            style.note(ax, f"{task}: load its plugin (ccx --plugin FILE.py figure ...)")
    else:
        notes, refused = _own_task_bounds(ax, task, rows, csv_rows)
    undecided = _own_task_points(ax, task, rows, target, csv_rows)
    if refused:
        shown = ", ".join(str(n) for n in sorted(refused))
        ax.text(
            0.98,
            0.02,
            f"a bound not computed at N = {shown} (over the budget)",
            transform=ax.transAxes,
            fontsize=7,
            va="bottom",
            ha="right",
        )
    ax.set_yscale("log", base=2)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("sequence length N (tokens)")
    ax.set_ylabel("bits")
    ax.set_title(f"{task} (your task)")
    ax.grid(True, which="major", alpha=0.3)
    if undecided:
        style.add_undecided_entry(ax)
    return notes


def _own_task_bounds(
    ax: Any, task: str, rows: list[dict[str, Any]], csv_rows: list[dict[str, Any]]
) -> tuple[list[str], set[int]]:
    """A loaded plugin task's two computed bounds as lines over the stored lengths; returns a
    line for each length whose bound was not computed, and those lengths."""
    from simulations.thresholds import plugin_bound

    swept = tuple(sorted({n for r in rows for n in r["lengths"]}))
    notes: list[str] = []
    refused: set[int] = set()
    for kind, (bound_id, label) in OWN_BOUNDS.items():
        computed = plugin_bound(task, kind, swept)
        bits = {n: c["bits"] for n, c in computed.items() if "bits" in c}
        for n, c in computed.items():
            if "refused" in c:
                refused.add(n)
                notes.append(f"{NAME}: {task} {kind} bound not computed at N = {n}: {c['refused']}")
        if bits:  # the two lines often coincide: the fooling bound thinner, on top
            colour, line, width = {"one-way": ("k", "-", 3.0), "fooling": ("0.55", "--", 1.5)}[kind]
            ax.plot(
                list(bits),
                list(bits.values()),
                color=colour,
                ls=line,
                lw=width,
                marker=".",
                label=label,
            )
        csv_rows.extend(
            {"series": "bound", "task": task, "length": n, "bound_id": bound_id, "bits": b}
            for n, b in bits.items()
        )
    return notes, refused


def _own_task_points(
    ax: Any, task: str, rows: list[dict[str, Any]], target: float, csv_rows: list[dict[str, Any]]
) -> bool:
    """Each trained model of a plugin task at each stored N, a marker at the bits its claim
    compares (filled: reached; hollow: plateaued; half-filled: undecided); returns whether one
    is undecided."""
    undecided = False
    for row in (r for r in rows if r.get("bound_params") is not None):
        params, model_bits = row["bound_params"], row.get("model_bits") or {}
        verdicts = {p["length"]: p["verdict"] for p in row.get("points") or []}
        colour = style.colour(row["arch"])
        name = style.model_label(row["arch"], row["layers"], row["width"])
        side = "m p" if row["bound_id"] == "separations.thm2" else "protocol bits"
        for n, accuracy in row["lengths"].items():
            verdict = verdicts.get(n, "reached" if accuracy >= target else "plateaued")
            marks = style.verdict_marks(verdict, colour)
            if verdict == "plateaued":
                marks["mfc"] = "none"
            ax.plot(
                [n],
                [model_bits[n]],
                ls="none",
                ms=8,
                marker=style.marker(row["layers"]),
                mew=1.5,
                zorder=5,
                label=f"{name}: {side}",
                **marks,
            )
            undecided = undecided or verdict == "undecided"
            csv_rows.append(
                {
                    "series": "empirical",
                    "task": task,
                    "arch": row["arch"],
                    "layers": row["layers"],
                    "width": row["width"],
                    "length": n,
                    "bound_id": row["bound_id"],
                    "m": params["m"],
                    "p": params["p"],
                    "H": params["H"],
                    "bits": model_bits[n],
                    "verdict": verdict,
                }
            )
    return undecided
