"""Figure ``kg-capacity``: the largest knowledge graph a trained model answers q-hop queries on,
against its parameters (layer-looping paper, Figure 2), one panel per q.

Points: each model's capacity from the capacity search (:func:`simulations.capacity.capacities`:
the largest T = E R whose best test accuracy over learning rates and seeds reached the target,
every smaller graph passing too); hollow points passed every graph tried (the capacity is at
least that); half-filled points with an arrow up are undecided (the first graph missed was
still improving when its budget ran out: at least that, never a number). Lines, read from the
claims table for ``kg-path`` (nothing here names a bound):
the upper-bound rows' constructions (Thm 5.1 standard, Prop B.13 looped, Thm 5.3 looped-MoE:
the triples a construction with that many parameters holds), and the lower-bound rows (Thm
B.19 for relation product models with L = q layers, Lemma B.18 for any model at log2 E bits per
parameter: the most triples that many parameters can hold). Both axes are logarithmic.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from ccomplexity import claims
from ccomplexity.errors import InputError
from paper_figures import conclusions, style
from paper_figures.conclusions import Known, Said

NAME = "kg-capacity"
PAPER = "kg"
TASK = "kg-path"
FAMILY_COLOURS = {"standard": "#2ca02c", "looped": "#1f77b4", "looped-moe": "#ff7f0e"}
"""Green for the standard model, as in the paper's Figure 2."""
CLAIM_FAMILY = {"standard": "attention", "looped": "looped", "looped-moe": "looped"}
"""The paper's model names -> the model registry's families the claims table speaks of."""
LOWER_STYLES = {"kg.thm_b19": ":", "kg.lemma_b18": "-."}
COLUMNS = ("kind", "family", "hops", "width", "layers", "loops", "experts", "parameters",
           "active_parameters", "flops_per_query", "entities", "relations", "triples",
           "passed_all", "lr", "bound_id", "triples_at_least", "verdict")  # fmt: skip


def _upper_family(claim: claims.Claim) -> str:
    """Which of the paper's models an upper-bound row's construction is: experts or not."""
    if claim.family == "attention":
        return "standard"
    return "looped-moe" if "experts" in claim.reads else "looped"


def bound_line(
    claim: claims.Claim, entities: int, hops: int, most_parameters: float, layers: int | None = None
) -> list[tuple[int, int]]:
    """(parameters, triples) along claim's bound for R = 1, 2, ... until the parameters pass
    ``most_parameters``: the construction's size (upper rows) or the fewest parameters that can
    hold the graph (lower rows: Thm B.19 at ``layers``, Lemma B.18 for R permutations). Thm
    B.19 is drawn only where it applies: R >= 3 (its R >= e) and L <= q; none when L > q."""
    bound = claim.bound
    points = []
    relations = 1
    while True:
        if bound.id == "kg.lemma_b18":
            given = {"entities": entities, "permutations": relations}
        elif bound.id == "kg.thm_b19":
            given = {
                "entities": entities,
                "relations": relations,
                "hops": hops,
                "layers": layers or hops,
            }
        else:
            given = {"entities": entities, "relations": relations, "hops": hops}
        try:
            out = bound.outputs(**given)
        except InputError:  # beyond the range the bound is evaluated for
            break
        parameters = int(out["min_parameters" if claim.role == "lower" else "parameters"])
        if out.get("theorem_applies", True):  # Thm B.19: R >= e and L <= q only
            points.append((parameters, entities * relations))
        elif bound.id == "kg.thm_b19" and given["layers"] > hops:
            break  # L > q: the theorem says nothing at any R
        if parameters > most_parameters:
            break
        relations = max(relations + 1, int(relations * 1.25))
    return points


def _undecided(ax: Any, row: dict[str, Any], x: float, colour: str) -> None:
    """A capacity left open by an undecided miss: the half-filled marker with an arrow up at the
    largest graph passed (on the bottom edge when none was)."""
    if row["triples_at_least"]:
        style.one_sided(ax, x, row["triples_at_least"], colour)
    else:
        ax.plot(
            x,
            0.03,
            "o",
            transform=ax.get_xaxis_transform(),
            clip_on=False,
            **style.verdict_marks("undecided", colour),
        )


def capacity(row: dict[str, Any]) -> Known:
    """A model's capacity (triples) as a range: at least the largest graph passed when its
    first miss is undecided or it passed every graph tried, else up to just below the first
    graph missed."""
    if row["verdict"] == "undecided":
        return Known.at_least(row["triples_at_least"] or 0)
    if row["passed_all"]:
        return Known.at_least(row["triples"])
    missed = row["tried"] * row["entities"]  # the first graph missed, plateaued
    return conclusions.on_grid(row["triples"], [row["triples"], missed], False)


def _q_words(rows: list[dict[str, Any]], q: int) -> tuple[str, str]:
    """(headline, sentence) at q hops: each looped-MoE and looped model against the standard
    model nearest in parameters (within 10%)."""
    here = [r for r in rows if r["hops"] == q]
    standard = [r for r in here if r["family"] == "standard"]
    parts, orders = [], []
    for r in (r for r in here if r["family"] != "standard"):
        near = min(standard, key=lambda s: abs(s["parameters"] - r["parameters"]), default=None)
        if near is None or abs(near["parameters"] - r["parameters"]) > 0.1 * max(
            near["parameters"], r["parameters"]
        ):
            continue
        ordered = conclusions.order(capacity(r), capacity(near))
        orders.append((r["family"], ordered))
        parts.append(
            f"{r['family']} d = {r['width']} ({r['parameters']:,} parameters, "
            f"{_triples(capacity(r))}) {ORDER_WORDS[ordered]} standard d = "
            f"{near['width']} ({near['parameters']:,}, "
            f"{_triples(capacity(near))})"
        )
    open_ = sum(o == "undecided" for _, o in orders)
    decided = [f"{fam} {ORDER_WORDS[o]} standard" for fam, o in orders if o != "undecided"]
    head = ", ".join(dict.fromkeys(decided)) or "every comparison undecided"
    if decided and open_:
        head += f" ({open_} of {len(orders)} undecided)"
    if not orders:
        head = "no looped model matched to a standard one in parameters"
    return f"q = {q}: {head}", f"q = {q}: " + ("; ".join(parts) or head)


def _triples(known: Known) -> str:
    if known.high is None and not known.low:
        return "undecided from the first graph"
    return f"{known.text()} triples"


ORDER_WORDS = {"more": "holds more than", "less": "holds less than",
               "same": "holds as much as", "undecided": "undecided against"}  # fmt: skip


def conclude(rows: list[dict[str, Any]], fitted: list[dict[str, Any]]) -> Said:
    """Per q, looped-MoE and looped capacities against the standard model's at matched
    parameters, and how many capacities an undecided miss leaves open."""
    subject = "Knowledge-graph capacity at matched parameters"
    if not rows:
        return conclusions.no_data(subject, f"no {TASK} capacity runs")
    open_ = sum(r["verdict"] == "undecided" for r in rows)
    words = [_q_words(rows, q) for q in sorted({r["hops"] for r in rows})]
    ratios = [s for s in fitted if "ratio" in s and s["ratio"] is not None]
    slope = (
        f" Fitted looped-MoE / standard slope ratios: {_slopes_text(ratios)}."
        if ratios
        else " No slope ratio is fitted (too few decided capacities)."
    )
    return Said(
        f"{subject} ({open_} of {len(rows)} capacities undecided): "
        + "; ".join(h for h, _ in words),
        ". ".join(s for _, s in words) + "." + slope,
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    from simulations.capacity import capacities, slopes

    rows = capacities(store_path) if style.load_runs(store_path)[0] else []
    return conclude(rows, slopes(rows))


def _trained(ax: Any, here: list[dict[str, Any]], csv_rows: list[dict[str, Any]]) -> None:
    """Each family's models: capacities, set apart along the parameter axis by family."""
    for i, (fam, colour) in enumerate(FAMILY_COLOURS.items()):
        mine = sorted((r for r in here if r["family"] == fam), key=lambda r: r["parameters"])
        if not mine:
            continue
        nudge = 1.05 ** (i - 1)  # matched models would hide each other at one x
        learned = [r for r in mine if isinstance(r["triples"], int) and r["triples"]]
        ax.plot(
            [r["parameters"] * nudge for r in learned],
            [r["triples"] for r in learned],
            "-",
            color=colour,
            alpha=0.6,
        )
        for r in mine:
            csv_rows.append({"kind": "trained", **r})
            x = r["parameters"] * nudge
            if r["verdict"] == "undecided":  # a one-sided bound, never a number
                _undecided(ax, r, x, colour)
            elif not r["triples"]:  # missed the first graph: an x on the bottom edge
                ax.plot(
                    x,
                    0.03,
                    "x",
                    color=colour,
                    markersize=9,
                    mew=2,
                    transform=ax.get_xaxis_transform(),
                    clip_on=False,
                )
            else:
                ax.plot(
                    x,
                    r["triples"],
                    "o",
                    color=colour,
                    markerfacecolor="white" if r["passed_all"] else colour,
                )
        ax.plot([], [], "o-", color=colour, label=f"{fam} (trained)")
    grey = style.OTHER_COLOUR
    if any(r["passed_all"] and r["triples"] for r in here):
        ax.plot(
            [],
            [],
            "o",
            color=grey,
            markerfacecolor="white",
            label="hollow: passed every graph tried (capacity at least T)",
        )
    if any(not r["triples"] for r in here):
        ax.plot(
            [], [], "x", color=grey, mew=2, label="x on the bottom edge: missed the first graph"
        )
    if any(r["verdict"] == "undecided" for r in here):
        ax.plot(
            [],
            [],
            "o",
            color=grey,
            **style.HALF_FILLED,
            label=f"{style.UNDECIDED}: capacity at least T (arrow)",
        )


def _bounds(ax: Any, here: list[dict[str, Any]], q: int, csv_rows: list[dict[str, Any]]) -> None:
    """The claims table's constructions (dashed) and lower bounds (black) at these sizes."""
    entities = here[0]["entities"]
    most = 2 * max(r["parameters"] for r in here)
    layers = next((r["layers"] for r in here if r["family"] == "standard"), q)
    for claim in claims.claims(task=TASK):
        fam = _upper_family(claim) if claim.role == "upper" else None
        points = bound_line(claim, entities, q, most, layers)
        if not points:
            continue
        style_ = "--" if claim.role == "upper" else LOWER_STYLES.get(claim.bound_id, ":")
        colour = FAMILY_COLOURS[fam] if fam else "black"
        what = f"{fam} construction" if fam else "most triples P parameters can hold"
        ax.plot(
            *zip(*points, strict=True),
            style_,
            color=colour,
            linewidth=1.3,
            label=f"{claim.bound.name.split(' (')[0]} ({what})",
        )
        csv_rows += [
            {
                "kind": claim.role,
                "family": fam or claim.family,
                "hops": q,
                "parameters": p,
                "entities": entities,
                "triples": t,
                "bound_id": claim.bound_id,
            }
            for p, t in points
        ]
    ax.set_xlim(min(r["parameters"] for r in here) / 2, most)


def _panel(ax: Any, rows: list[dict[str, Any]], q: int, csv_rows: list[dict[str, Any]]) -> None:
    here = [r for r in rows if r["hops"] == q]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("parameters")
    ax.set_ylabel("largest graph answered, triples T")
    hops = f"q = {q} hop{'s' if q > 1 else ''}"
    if not here:
        ax.set_title(hops)
        style.note(ax, "no capacity runs")
        return
    _trained(ax, here, csv_rows)
    _bounds(ax, here, q, csv_rows)
    ax.set_title(f"{hops}, E = {here[0]['entities']} entities")


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw one panel per q from the capacity runs in the store at ``store_path``, two panels
    to a row."""
    from simulations.capacity import capacities, slopes

    found, missing = style.load_runs(store_path)
    rows = capacities(store_path) if found else []
    if found and not rows:
        missing.append(f"{NAME}: no {TASK} runs with a relations option in the store")
    fitted = slopes(rows)
    said = conclude(rows, fitted)
    hops = sorted({r["hops"] for r in rows}) or [1]
    columns = min(2, len(hops))
    lines = -(-len(hops) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(6.4 * columns, 5.0 * lines), squeeze=False)
    panels = [ax for line in axes for ax in line]
    csv_rows: list[dict[str, Any]] = []
    for ax, q in zip(panels, hops, strict=False):
        _panel(ax, rows, q, csv_rows)
    for ax in panels[len(hops) :]:
        ax.remove()
    first = [f"{fam} (trained)" for fam in FAMILY_COLOURS]
    style.figure_legend(fig, panels[: len(hops)], first, columns=2, fontsize=8)
    style.suptitle(fig, said.title, fontsize=12)
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS)
    target = style.target_of(found, 0.97)
    caption = (
        f"Points: each model's largest graph (T = E R triples) whose q-hop queries it answers "
        f"with best test accuracy >= {target:g} (best over learning rates and seeds, every "
        "smaller graph passing too; each graph trained from scratch); hollow: it passed every "
        "graph tried, so its capacity is at least that; x on the bottom edge: it missed the "
        "first graph; half-filled with an arrow up: undecided, the first graph missed was "
        "still being learned when the budget ran out (no run reached the target, one still "
        "improving), so the capacity is at least the T drawn and is left out of the fits. The "
        "families are set slightly apart along the parameter axis, so that matched models do "
        "not hide each other. Dashed: the hand-wired constructions of the claims table's "
        "upper-bound rows (Thm 5.1 standard, Prop B.13 looped, Thm 5.3 looped-MoE), the "
        "triples they hold with that many parameters at b = ceil(log2 c) bits per code. "
        "Black: the claims table's lower bounds on parameters, drawn as the most triples P "
        "parameters can hold (a ceiling on every model's capacity), Thm B.19 (dotted; relation "
        "product models with L = q layers, Assumption B.17: at most P / q triples at constant "
        "1; drawn only where the theorem applies, R >= 3 relations and L <= q) and Lemma B.18 "
        "(dash-dot; any model at log2 E bits per parameter). Fitted slopes (triples per "
        f"parameter) next to the paper's: {_slopes_text(fitted)}. Parameters compared: "
        f"{_parameters_text(rows)}. Training: {style.training_summary(found)} Data: "
        f"{style.store_label(store_path, profile)}."
    )
    return conclusions.say(
        said, name=NAME, files=files, caption=caption, missing=missing, slopes=fitted
    )


def _parameters_text(rows: list[dict[str, Any]]) -> str:
    """Per q and family, the parameter counts (and widths) of the models drawn."""
    parts = []
    for q in sorted({r["hops"] for r in rows}):
        fams = []
        for fam in FAMILY_COLOURS:
            sizes = sorted(
                {
                    (r["parameters"], r["width"])
                    for r in rows
                    if r["hops"] == q and r["family"] == fam
                }
            )
            if sizes:
                fams.append(f"{fam} " + ", ".join(f"{p:,} (d = {w})" for p, w in sizes))
        parts.append(f"q = {q}: " + "; ".join(fams))
    return " | ".join(parts) or "none"


def _slopes_text(fitted: list[dict[str, Any]]) -> str:
    parts = []
    for s in fitted:
        if "ratio" in s:
            paper = f" (paper: {s['paper_ratio']:g}x)" if s["paper_ratio"] else ""
            if s["ratio"] is None:
                parts.append(f"looped-MoE / standard at q = {s['hops']}: no ratio ({s['why']})")
                continue
            parts.append(f"looped-MoE / standard at q = {s['hops']}: {s['ratio']:.2f}x{paper}")
        elif s["slope"] is not None:
            paper = f" (paper {s['paper_slope']:g})" if s["paper_slope"] else ""
            parts.append(f"{s['family']} q = {s['hops']}: {s['slope']:.3f}{paper}")
    return "; ".join(parts) or "none (fewer than two model sizes per family and q)"
