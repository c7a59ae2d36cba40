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

The title and conclusion (:mod:`paper_figures.conclusions`) compare each MoE model with the
dense model nearest to it in active parameters (within :data:`MATCHED`): which memorises the
larger n*, or undecided where an open n* leaves it so.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ccomplexity.bounds.parrots import one_layer_parameters
from paper_figures import conclusions, style
from paper_figures.conclusions import Known, Said

NAME = "parrots-memorization"
PAPER = "parrots"
TASK = "memorize"
BITS = 32  # c of Thm 3.5: float32 parameters
MATCHED = 0.1
"""Largest relative difference of active parameters at which a dense and an MoE model are
compared as matched."""
COLUMNS = (
    "series", "width", "mlp_width", "experts", "examples", "best_accuracy", "verdict", "n_star",
    "n_star_at_least", "active_parameters", "total_parameters", "curve", "parameters", "n",
)  # fmt: skip

Model = tuple[int, int, int]
"""(width m, psi width m', experts K)."""


def _runs_of(runs: list[dict[str, Any]]) -> dict[Model, dict[int, list[dict[str, Any]]]]:
    out: dict[Model, dict[int, list[dict[str, Any]]]] = defaultdict(dict)
    for r in runs:
        if r["task"] != TASK or r["arch"] != "concat-transformer":
            continue
        c = r["config"]
        key = (r["width"], c.get("mlp_width") or r["width"], c.get("experts", 1))
        out[key].setdefault(r["length"], []).append(r)
    return out


def models_of(runs: list[dict[str, Any]]) -> dict[Model, dict[int, float]]:
    """{(width m, m', K): {n: best accuracy over learning rates and seeds}} on memorize."""
    return {
        key: {n: max(r["best_accuracy"] for r in rs) for n, rs in by_n.items()}
        for key, by_n in _runs_of(runs).items()
    }


def verdicts_of(runs: list[dict[str, Any]], target: float) -> dict[Model, dict[int, str]]:
    """{model: {n: the verdict at ``target`` of its best over runs}}."""
    return {
        key: {n: style.combined(rs, target) for n, rs in by_n.items()}
        for key, by_n in _runs_of(runs).items()
    }


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


def n_star_known(by_n: dict[int, float], verdicts: dict[int, str], target: float) -> Known:
    """n* as a range: at least the largest n memorised when a larger n is undecided or none
    larger was tried, else up to just below the next n tried (all missed, plateaued)."""
    star, largest = n_star(by_n, verdicts, target)
    return conclusions.on_grid(largest, by_n, star == "undecided")


@dataclass(frozen=True)
class Point:
    """One model as drawn: its parameters, its n* and what the legend and the words call it."""

    model: Model
    active: int
    total: int
    n_star: Known
    undecided: bool  # a larger n missed while still improving leaves n* open
    series: str

    @property
    def name(self) -> str:
        m, hidden, k = self.model
        return f"dense m' = {hidden}" if k == 1 else f"{k} experts of width {hidden}"


@dataclass(frozen=True)
class Data:
    """What the figure draws: the store's memorisation runs, each model's best accuracy and
    verdict per n, each model as a point, and the n tried."""

    runs: list[dict[str, Any]]
    missing: list[str]
    target: float
    best: dict[Model, dict[int, float]]
    verdicts: dict[Model, dict[int, str]]
    points: list[Point]
    tried: list[int]
    label: str


def _series(experts: int, hidden: int) -> str:
    """The legend entry of a model's series: dense models grow their feed-forward width, MoE
    models of expert width ``hidden`` grow their number of experts."""
    if experts == 1:
        return "dense (K = 1), growing its feed-forward width"
    return f"MoE, experts of width {hidden}, growing K"


def load(store_path: str | None, profile: str | None = None) -> Data:
    """The memorisation runs of the store at ``store_path`` and the points they make."""
    runs, missing = style.load_runs(store_path)
    mine = [r for r in runs if r["task"] == TASK]
    target = style.target_of(mine, 1.0)
    best, verdicts = models_of(mine), verdicts_of(mine, target)
    if runs and not best:
        missing.append(f"{NAME}: no concat-transformer runs on {TASK} in the store")
    top_k = {
        key: max(r["config"].get("top_k", 1) for rs in by_n.values() for r in rs)
        for key, by_n in _runs_of(mine).items()
    }
    points = []
    moe_base = {h for (_, h, k) in best if k > 1}
    for (m, hidden, k), by_n in sorted(best.items()):
        counts = one_layer_parameters(m, 1, hidden, k, top_k[m, hidden, k])
        star = n_star(by_n, verdicts[m, hidden, k], target)[0]
        known = n_star_known(by_n, verdicts[m, hidden, k], target)
        series = [_series(k, hidden)]
        if k == 1 and hidden in moe_base:  # also the K = 1 start of that MoE series
            series.append(_series(2, hidden))
        for name in series:
            points.append(
                Point(
                    (m, hidden, k),
                    counts["active"],
                    counts["total"],
                    known,
                    star == "undecided",
                    name,
                )
            )
    tried = sorted({n for by_n in best.values() for n in by_n}) or [128]
    label = style.store_label(store_path, profile)
    return Data(mine, missing, target, best, verdicts, points, tried, label)


def matched_pairs(points: list[Point]) -> list[tuple[Point, Point]]:
    """(MoE, dense) pairs: each MoE model with the dense model nearest to it in active
    parameters, when they differ by at most :data:`MATCHED` of the larger."""
    dense = [p for p in points if p.model[2] == 1 and p.series.startswith("dense")]
    pairs = []
    for moe in (p for p in points if p.model[2] > 1):
        near = min(dense, key=lambda d: abs(d.active - moe.active), default=None)
        if near is not None and abs(near.active - moe.active) <= MATCHED * max(
            near.active, moe.active
        ):
            pairs.append((moe, near))
    return pairs


def star_text(known: Known) -> str:
    """n* in words: "at least 1,024", "256 (1,024 missed)", "none of the n tried"."""
    if known.high is None:
        return known.text()
    if not known.low:
        return "none of the n tried"
    return f"{known.low:,g} ({known.high + 1:,g} missed)"


def _pair_words(moe: Point, dense: Point) -> tuple[str, str, str]:
    """(order of the MoE model's n* against the dense one's, a short phrase, the sentence)."""
    ordered = conclusions.order(moe.n_star, dense.n_star)
    short = {
        "more": f"{moe.name} memorise more than {dense.name}",
        "less": f"{dense.name} memorises more than {moe.name}",
        "same": f"{moe.name} and {dense.name} memorise the same n",
        "undecided": f"{moe.name} against {dense.name} undecided",
    }[ordered]
    a = f"{moe.name} ({moe.active:,} active parameters): n* {star_text(moe.n_star)}"
    b = f"{dense.name} ({dense.active:,}): n* {star_text(dense.n_star)}"
    verdict = {
        "more": "the experts memorise more",
        "less": "the dense model memorises more",
        "same": "the same n within the n tried",
        "undecided": "undecided, a larger n was still improving",
    }[ordered]
    return ordered, short, f"{a}; {b}: {verdict}"


def conclude(data: Data) -> Said:
    """The title and conclusion: per matched pair, which memorises more (see the module)."""
    subject = "Mixture of parrots: largest n memorised"
    if not data.points:
        return conclusions.no_data(subject, f"no {TASK} runs in the store")
    pairs = matched_pairs(data.points)
    if not pairs:
        return Said(
            f"{subject} against parameters (no dense and MoE model matched in active parameters)",
            "No MoE model has a dense model within "
            f"{MATCHED:.0%} of its active parameters to compare with.",
        )
    said = [_pair_words(moe, dense) for moe, dense in pairs]
    decided = [(o, short) for o, short, _ in said if o != "undecided"]
    orders = {o for o, _ in decided}
    if not decided:
        headline = "whether experts memorise more than a dense model is undecided"
    elif len(decided) == 1:
        headline = decided[0][1]
    elif orders == {"more"}:
        headline = "experts memorise more than dense models"
    elif orders == {"less"}:
        headline = "dense models memorise more than experts"
    elif orders == {"same"}:
        headline = "dense and MoE models memorise the same n"
    else:
        headline = "experts memorise more in some pairs, less or the same in others"
    open_ = len(said) - len(decided)
    rest = f" ({open_} of {len(said)} pairs undecided)" if decided and open_ else ""
    sentences = "; ".join(f"({i}) {long}" for i, (_, _, long) in enumerate(said, start=1))
    return Said(
        f"{subject}, matched active parameters: {headline}{rest}",
        f"MoE models against the dense model nearest in active parameters (within "
        f"{MATCHED:.0%}): {sentences}.",
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(load(store_path))


def _draw_series(ax: Any, index: int, series: str, ps: list[Point], ceiling: int) -> None:
    """One series' n* against parameters (``index`` 0: active, 1: total): a line through the
    models that memorised some n (a triangle at the grid's ceiling, at least that many), an x on
    the bottom edge for one that memorised none (no n is claimed for it), and a one-sided bound
    for an undecided n*."""
    dense = series.startswith("dense")
    colour = "#1f77b4" if dense else "#ff7f0e"
    some = [p for p in ps if p.n_star.low]
    x_of = (lambda p: p.active) if index == 0 else (lambda p: p.total)
    ax.plot([x_of(p) for p in some], [p.n_star.low for p in some], "-", color=colour, label=series)
    for p in ps:
        x, y = x_of(p), p.n_star.low
        text = f"width {p.model[1]}" if dense else f"K={p.model[2]}"
        if not y:  # none memorised: below every n tried, so on the edge, not at the smallest n
            edge = ax.get_xaxis_transform()
            ax.plot(x, 0.03, "x", color=colour, mew=2, clip_on=False, transform=edge)
            ax.annotate(
                text,
                (x, 0.03),
                xycoords=edge,
                textcoords="offset points",
                xytext=(5, 2 if dense else 9),
                fontsize=7,
                color=colour,
            )
            continue
        if p.undecided:
            style.one_sided(ax, x, y, colour)
        else:
            ax.plot(x, y, "^" if y >= ceiling else "o", color=colour)
        ax.annotate(
            text,
            (x, y),
            textcoords="offset points",
            xytext=(3, -10) if dense else (3, 5),
            fontsize=7,
            color=colour,
        )


def _draw_references(ax: Any, index: int, m: int, w: np.ndarray, rows: list[dict]) -> None:
    """Thm 3.5's counting bound and the A.11 (and, against active parameters, A.12)
    constructions, with their numbers in ``rows``."""
    label = ("active", "total")[index]
    free = w - 3 * m * m  # the attention's 3 m^2 carry no examples in A.11 / A.12
    ax.plot(
        w,
        free / (m + 2),
        "k--",
        lw=0.9,
        gid=style.REFERENCE,
        label="A.11 construction: n = (W - 3m^2)/(m+2)",
    )
    ax.plot(
        w, BITS * w, "k:", lw=0.9, label=f"Thm 3.5: n <= {BITS} W (counting)", gid=style.REFERENCE
    )
    if index == 0:
        k = 16
        ax.plot(
            w,
            np.maximum(k * (free - m * k) / (m + 2), 1),
            "k-.",
            lw=0.9,
            label=f"A.12 construction, K = {k}: n = K(W - 3m^2 - mK)/(m+2)",
            gid=style.REFERENCE,
        )
    rows.extend(
        {"curve": f"a11_{label}", "parameters": float(x), "n": float(y)}
        for x, y in zip(w, free / (m + 2), strict=True)
    )


def _panel(ax: Any, index: int, data: Data, rows: list[dict]) -> None:
    """Panel (a) (``index`` 0, active parameters) or (b) (1, total)."""
    label = ("active", "total")[index]
    ceiling = data.tried[-1]  # a model passing it might hold more: drawn as a one-sided bound
    by_series: dict[str, list[Point]] = defaultdict(list)
    for p in data.points:
        by_series[p.series].append(p)
    for series, ps in sorted(by_series.items()):
        _draw_series(ax, index, series, sorted(ps, key=lambda p: p.active), ceiling)
    if any(not p.n_star.low for p in data.points):
        ax.plot(
            [],
            [],
            "x",
            color="#555555",
            mew=2,
            label="x on the bottom edge: none of the n tried memorised",
        )
    if any(p.undecided for p in data.points):
        ax.plot(
            [],
            [],
            "o",
            color="#555555",
            **style.HALF_FILLED,
            label="undecided: a larger n still improving; n* at least this",
        )
    ax.axhline(ceiling, color="#999999", lw=0.6, ls="--")
    ax.text(
        0.99,
        ceiling,
        f">= {ceiling}: the largest n tried ",
        transform=ax.get_yaxis_transform(),
        ha="right",
        va="bottom",
        fontsize=7,
        color="#666666",
    )
    m = data.points[0].model[0] if data.points else 16
    w_max = max([p.total for p in data.points], default=4000) * 1.5
    _draw_references(ax, index, m, np.geomspace(max(3 * m * m, 100), w_max, 50), rows)
    ax.set_xscale("log")
    ax.set_yscale("log", base=2)
    ax.set_ylim(data.tried[0] / 1.5, None)
    ax.set_xlabel(f"{label} parameters W (no embedding layer: inputs are the vectors)")
    ax.set_title(f"({'ab'[index]}) largest n memorised against {label} parameters")
    if not data.points:
        style.note(ax, f"no {TASK} runs in the store")


def _rows(data: Data) -> list[dict[str, Any]]:
    """One CSV row per model and n tried."""
    rows = []
    for p in data.points:
        if p.series.startswith("MoE") and p.model[2] == 1:
            continue  # the dense start of an MoE series: its row is the dense one
        star = p.n_star
        for n, acc in sorted(data.best[p.model].items()):
            rows.append(
                {
                    "series": p.series,
                    "width": p.model[0],
                    "mlp_width": p.model[1],
                    "experts": p.model[2],
                    "examples": n,
                    "best_accuracy": acc,
                    "verdict": data.verdicts[p.model][n],
                    "n_star": None if p.undecided else star.low,
                    "n_star_at_least": star.low if p.undecided else None,
                    "active_parameters": p.active,
                    "total_parameters": p.total,
                }
            )
    return rows


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw n* against active and total parameters from the store at ``store_path``."""
    data = load(store_path, profile)
    said = conclude(data)
    rows = _rows(data)
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    for index, ax in enumerate(axes):
        _panel(ax, index, data, rows)
    axes[0].set_ylabel(f"n* (largest n with accuracy {data.target:g} on the training set)")
    axes[0].legend(fontsize=7, loc="upper left")
    if any(p.undecided for p in data.points):
        axes[1].legend(handles=[style.undecided_handle()], fontsize=7, loc="lower right")
    style.suptitle(fig, said.title)
    files = style.save(fig, out_dir, NAME, rows, COLUMNS)  # a verdict per (model, n) tried
    caption = _caption(data)
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=data.missing)


def _caption(data: Data) -> str:
    m = data.points[0].model[0] if data.points else 16
    tried, ceiling = ", ".join(map(str, data.tried)), data.tried[-1]
    return (
        f"Memorisation of n Gaussian sequences (width m = {m} = input dimension; no embedding "
        "layer) with random labels by one-layer concat-transformers: n* is the largest n "
        f"whose training-set accuracy reaches {data.target:g} (x on the bottom edge, off the "
        f"n axis: none of the n tried ({tried}) memorised; a triangle on the dashed line at "
        f"{ceiling}: the largest n tried was memorised, so n* is at least that; half-filled "
        "with an arrow up: undecided, a larger n was missed while still improving when its "
        "budget ran out, so n* is at least the n drawn). Dense models grow the feed-forward "
        "width m'; MoE models keep m' per expert (so active parameters stay fixed) and grow the "
        "number of experts K. Dashed: the A.11 construction's n = W/(m+2) for the parameters "
        "beyond the attention; dash-dot: A.12 with 16 experts (even loads); dotted: Thm 3.5's "
        f"counting bound at {BITS} bits per parameter. Parameters compared (active / total): "
        f"{_counts_text(data.points)}. {style.training_summary(data.runs)} Data: {data.label}."
    )


def _counts_text(points: list[Point]) -> str:
    """Per series, each model's active / total parameters (and its K or m')."""
    parts = []
    by_series: dict[str, list[Point]] = defaultdict(list)
    for p in points:
        by_series[p.series].append(p)
    for series, ps in sorted(by_series.items()):
        dense = series.startswith("dense")
        models = ", ".join(
            f"{'m' + chr(39) if dense else 'K'} = "
            f"{p.model[1] if dense else p.model[2]}: {p.active:,} / {p.total:,}"
            for p in sorted(ps, key=lambda p: p.active)
        )
        parts.append(f"{series}: {models}")
    return "; ".join(parts) or "none in the store"
