"""Figure ``parrots-reasoning`` (mixture of parrots, Sec. 3.1): width needed for length-2 path.

(a) The smallest m H at which a one-layer concat-transformer reaches the target on length-2 path
against |V|, per number of experts K (best over learning rates and seeds), with Thm 3.1's
lower bound at p = 16 as the paper counts it, H (m + 1) p >= |V|, and as the exact-sum protocol
of the finite-precision model counts it (``parrots.thm3_1_exact``), its asymptotic form
|V| / log2 N, and Thm 3.2's construction (m = |V|). (b) Best accuracy against width, per |V|
and K (what (a) is read from).
(c) Cor 3.3: accuracy against K at the total parameters of the dense width-|V| model. (d) The
training curve of the widest model per |V| and K (what a missed target looked like).
Undecided models (none reached the target, one still improving when its budget ran out) are
half-filled; a smallest width they would decide is drawn as a one-sided bound, at most the
width that reached the target (``paper_figures.style``). The title and conclusion say, per
|V|, whether experts lower the smallest width (decided, or undecided where an open width leaves
it so), and how Cor 3.3's parameter-matched models compare with the dense one.

The module stays whole (about 590 lines): the four panels read one :class:`Data` and
share its smallest-width logic, which the title and conclusion are computed from too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from ccomplexity import bounds
from paper_figures import conclusions, style
from paper_figures.conclusions import Known, Said

NAME = "parrots-reasoning"
PAPER = "parrots"
TASK = "length2-path"
PRECISION = 16
COLUMNS = ("panel", "vertices", "experts", "width", "heads", "best_accuracy", "min_mH",
           "at_most", "parameters", "bound", "value", "seed", "step", "accuracy",
           "verdict")  # fmt: skip
K_COLOURS = {1: "#1f77b4", 4: "#ff7f0e", 16: "#2ca02c", 64: "#d62728"}
LINE_STYLES = ["-", "--", ":", "-."]
"""Line style per |V| in panels (b) and (d)."""


def _groups(
    runs: list[dict[str, Any]], paper_psi: bool = False
) -> dict[tuple[int, int, int, int], list[dict[str, Any]]]:
    """{(|V|, K, width, heads): its runs} on length-2 path; with ``paper_psi`` only the runs
    whose psi has the default width m' = m H (those Cor 3.3's parameter count speaks of)."""
    out: dict[tuple[int, int, int, int], list[dict[str, Any]]] = defaultdict(list)
    for r in runs:
        if r["task"] != TASK or r["arch"] != "concat-transformer":
            continue
        if paper_psi and r["config"].get("mlp_width") is not None:
            continue
        out[r["length"], r["config"].get("experts", 1), r["width"], r["heads"] or 1].append(r)
    return out


def best_by_model(
    runs: list[dict[str, Any]], paper_psi: bool = False
) -> dict[tuple[int, int, int, int], float]:
    """{(|V|, K, width, heads): best accuracy over learning rates, seeds and psi widths} on
    length-2 path (``paper_psi``: see :func:`_groups`)."""
    return {k: max(r["best_accuracy"] for r in rs) for k, rs in _groups(runs, paper_psi).items()}


def verdicts_by_model(
    runs: list[dict[str, Any]], target: float, paper_psi: bool = False
) -> dict[tuple[int, int, int, int], str]:
    """{(|V|, K, width, heads): the verdict at ``target`` of its best over runs}."""
    return {k: style.combined(rs, target) for k, rs in _groups(runs, paper_psi).items()}


def min_mh(
    best: dict[tuple[int, int, int, int], float],
    target: float,
    verdicts: dict[tuple[int, int, int, int], str] | None = None,
) -> dict[tuple[int, int], tuple[int | str | None, int | None]]:
    """{(|V|, K): (smallest m H, at most)}: the smallest m H whose best accuracy reaches
    ``target`` when every smaller m H tried plateaued below it (None: none reached it, none
    undecided); "undecided" when a smaller m H (or, none reaching it, any) is undecided, still
    improving when its budget ran out, with the smallest m H that reached it (the smallest width
    is at most that; None when none did)."""
    verdicts = verdicts or {}
    out: dict[tuple[int, int], tuple[int | str | None, int | None]] = {}
    for v, k in sorted({(v, k) for v, k, _, _ in best}):
        here = {w * h: key for key in best for (vv, kk, w, h) in [key] if (vv, kk) == (v, k)}
        passed = [mh for mh, key in here.items() if best[key] >= target]
        first = min(passed) if passed else None
        open_below = [
            mh
            for mh, key in here.items()
            if best[key] < target
            and verdicts.get(key) == "undecided"
            and (first is None or mh < first)
        ]
        out[v, k] = ("undecided" if open_below else first), first
    return out


@dataclass(frozen=True)
class Data:
    """What the figure draws, read once from the store."""

    runs: list[dict[str, Any]]
    missing: list[str]
    target: float
    best: dict[tuple[int, int, int, int], float]
    verdicts: dict[tuple[int, int, int, int], str]
    smallest: dict[tuple[int, int], tuple[int | str | None, int | None]]
    matched: dict[int, list[tuple[int, float, int]]]
    matched_verdicts: dict[tuple[int, int, int, int], str]
    label: str


def load(store_path: str | None, profile: str | None = None) -> Data:
    """The length-2 path runs of the store and what each panel reads from them."""
    runs, missing = style.load_runs(store_path)
    mine = [r for r in runs if r["task"] == TASK]
    target = style.target_of(mine)
    best = best_by_model(mine)
    verdicts = verdicts_by_model(mine, target)
    if runs and not best:
        missing.append(f"{NAME}: no concat-transformer runs on {TASK} in the store")
    return Data(
        mine,
        missing,
        target,
        best,
        verdicts,
        min_mh(best, target, verdicts),
        _parameter_matched(best_by_model(mine, paper_psi=True)),
        verdicts_by_model(mine, target, paper_psi=True),
        style.store_label(store_path, profile),
    )


def smallest_known(data: Data, v: int, k: int) -> Known:
    """The smallest m H reaching the target at |V| = v with K = k, as a range over the widths
    tried: up to the one that reached it from just above the largest smaller one tried (which
    plateaued); at most it when a smaller one is undecided; more than the largest tried when
    none reached it."""
    mh, at_most = data.smallest[v, k]
    tried = sorted(w * h for (vv, kk, w, h) in data.best if (vv, kk) == (v, k))
    if mh == "undecided":
        return Known(None, at_most)
    if mh is None:
        return Known.at_least(tried[-1] + 1)
    below = [t for t in tried if t < mh]
    return Known((below[-1] + 1) if below else 1, mh)


def _vertex_words(data: Data, v: int) -> tuple[str, str]:
    """(headline, sentence) at |V| = v: whether experts lower the smallest m H, K by K."""
    ks = sorted(k for vv, k in data.smallest if vv == v)
    dense = smallest_known(data, v, 1) if 1 in ks else None
    each = "; ".join(f"K = {k}: m H {smallest_known(data, v, k).text()}" for k in ks)
    if dense is None or len(ks) < 2:
        return f"|V| = {v}: no dense and MoE pair", f"|V| = {v}: {each}"
    orders = {k: conclusions.order(smallest_known(data, v, k), dense) for k in ks if k > 1}
    if "less" in orders.values():
        fewer = [k for k, o in orders.items() if o == "less"]
        head = f"experts lower the width (K = {', '.join(map(str, fewer))})"
    elif "undecided" in orders.values():
        head = "whether experts lower the width is undecided"
    else:
        head = "experts do not lower the width"
    return f"at |V| = {v}, {head}", f"|V| = {v}: {each}: {head}"


def _matched_words(data: Data) -> str:
    """Cor 3.3: each parameter-matched MoE model's accuracy against the dense width-|V|
    model's."""
    parts = []
    for v, points in sorted(data.matched.items()):
        (_, dense_acc, dense_w), *moe = points
        dense = conclusions.accuracy(dense_acc, data.matched_verdicts[v, 1, dense_w, 1], 1000)
        for k, acc, w in moe:
            ordered = conclusions.order(
                conclusions.accuracy(acc, data.matched_verdicts[v, k, w, 1], 1000), dense
            )
            words = {
                "less": "below",
                "more": "above",
                "same": "level with",
                "undecided": "undecided against",
            }[ordered]
            parts.append(
                f"|V| = {v}, K = {k} (m = {w}): {acc:.3f}, {words} the dense "
                f"model's {dense_acc:.3f}"
            )
    return "; ".join(parts)


def conclude(data: Data) -> Said:
    """Per |V|, whether experts lower the smallest width x heads reaching the target (Thm 3.1
    says they cannot below its bound), and Cor 3.3's parameter-matched accuracies."""
    subject = "Mixture of parrots, length-2 path"
    if not data.best:
        return conclusions.no_data(subject, f"no {TASK} runs in the store")
    vertices = sorted({v for v, _ in data.smallest})
    words = [_vertex_words(data, v) for v in vertices]
    matched = _matched_words(data)
    conclusion = ". ".join(s for _, s in words) + "."
    if matched:
        conclusion += f" Parameter-matched MoE (Cor 3.3): {matched}."
    return Said(
        f"{subject}, smallest m H at accuracy {data.target:g}: " + "; ".join(h for h, _ in words),
        conclusion,
    )


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(load(store_path))


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the four panels from the store at ``store_path`` into ``out_dir``."""
    data = load(store_path, profile)
    said = conclude(data)
    rows: list[dict[str, Any]] = []
    fig, ((ax_a, ax_b), (ax_c, ax_d)) = plt.subplots(2, 2, figsize=(13, 10))
    _panel_a(ax_a, data, rows)
    _panel_b(ax_b, data, rows)
    _panel_c(ax_c, data, rows)
    _panel_d(ax_d, data, rows)
    style.suptitle(fig, said.title)
    fig.subplots_adjust(hspace=0.75, wspace=0.3)  # panel (a)'s legend sits between the rows
    points = [r["verdict"] for r in rows if r["panel"] == "b"]  # one per model tried
    files = style.save(fig, out_dir, NAME, rows, COLUMNS, points)
    caption = _caption(data)
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=data.missing)


def _panel_a_bounds(ax: Any, vs: list[int], rows: list[dict[str, Any]]) -> None:
    """Thm 3.1 (the paper's count and the exact one), its asymptotic form and Thm 3.2's
    construction against |V|."""
    thm31, thm32 = bounds.get("parrots.thm3_1"), bounds.get("parrots.thm3_2")
    exact = bounds.get("parrots.thm3_1_exact")
    lower = [thm31.min_width(v, PRECISION, 1) for v in vs]
    proved = [exact.value(vertices=v, precision=PRECISION) for v in vs]
    asym = [thm31.value(vertices=v) for v in vs]
    upper = [thm32.value(vertices=v) for v in vs]
    ax.plot(vs, upper, "k--", label="Thm 3.2 construction: m = |V| (H = 1)")
    ax.plot(vs, lower, "k-", label=f"Thm 3.1, paper's count: (m+1)p >= |V|, p = {PRECISION}")
    ax.plot(
        vs,
        proved,
        "-",
        color="#7f7f7f",
        label="Thm 3.1, exact sums: (p-1+c) + m(p+c) >= |V|, c = ceil(log2 |V|)",
    )
    ax.plot(vs, asym, "k:", label="Thm 3.1 asymptotic: |V| / log2 N")
    ax.fill_between(
        vs, 0.5, proved, color="#dddddd", label=f"ruled out for the p = {PRECISION} model (any K)"
    )
    ax.fill_between(
        vs,
        proved,
        lower,
        where=[p < lo for p, lo in zip(proved, lower, strict=True)],
        facecolor="none",
        edgecolor="#bbbbbb",
        hatch="//",
        label="ruled out by the paper's count only",
    )
    for v, lo, ex, a, u in zip(vs, lower, proved, asym, upper, strict=True):
        rows += [
            {"panel": "a", "vertices": v, "bound": name, "value": value}
            for name, value in (
                ("thm3_1_min_width", lo),
                ("thm3_1_exact_min_width", ex),
                ("thm3_1_asymptotic", a),
                ("thm3_2_width", u),
            )
        ]


def _panel_a(ax: Any, data: Data, rows: list[dict[str, Any]]) -> None:
    """(a) the smallest m H reaching the target against |V|, per K, beside the bounds."""
    _panel_a_bounds(ax, _vertex_axis(sorted({v for v, *_ in data.best})), rows)
    ks = sorted({k for _, k, _, _ in data.best})

    def shifted(v: int, k: int) -> float:  # K's markers set slightly apart: equal values show
        return v * 2 ** (0.08 * (ks.index(k) - (len(ks) - 1) / 2))

    def top(v: int, k: int) -> int:  # the largest m H tried
        return max(w * h for (vv, kk, w, h) in data.best if (vv, kk) == (v, k))

    by_k: dict[int, list[tuple[int, int]]] = defaultdict(list)
    legend = set()
    for (v, k), (mh, at_most) in sorted(data.smallest.items()):
        colour = K_COLOURS.get(k, style.OTHER_COLOUR)
        verdict = "undecided" if mh == "undecided" else "reached" if mh else "plateaued"
        rows.append(
            {
                "panel": "a",
                "vertices": v,
                "experts": k,
                "min_mH": mh if isinstance(mh, int) else None,
                "at_most": at_most if mh == "undecided" else None,
                "verdict": verdict,
            }
        )
        if isinstance(mh, int):
            by_k[k].append((v, mh))
        elif mh is None:  # none reached it, every miss decided
            ax.plot([shifted(v, k)], [top(v, k)], "v", color=colour, mfc="none")
            legend.add("unreached")
        elif at_most:  # undecided: at most the m H that reached it
            style.one_sided(ax, shifted(v, k), at_most, colour, "o", up=False)
            legend.add("at most")
        else:  # none reached it, one still improving: nothing is known
            ax.plot([shifted(v, k)], [top(v, k)], "v", **style.verdict_marks("undecided", colour))
            legend.add("open")
    for k, points in sorted(by_k.items()):
        ax.plot(
            [shifted(v, k) for v, _ in points],
            [mh for _, mh in points],
            "o-",
            color=K_COLOURS.get(k, style.OTHER_COLOUR),
            label=f"trained, K = {k}",
        )
    labels = {
        "unreached": ("v", {"mfc": "none"}, "target not reached (largest m H tried)"),
        "open": (
            "v",
            style.HALF_FILLED,
            "target not reached, one still improving (largest m H tried)",
        ),
        "at most": (
            "o",
            style.HALF_FILLED,
            "undecided: a smaller m H still improving; at most this",
        ),
    }
    for key in sorted(legend):
        mark, marks, label = labels[key]
        ax.plot([], [], f"k{mark}", label=label, **marks)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("vertices |V| (items besides s and d)")
    ax.set_ylabel("width x heads, m H")
    ax.set_title(f"(a) smallest m H reaching {data.target:g} on length-2 path")
    ax.legend(loc="upper center", bbox_to_anchor=(0.45, -0.2), fontsize=7, ncol=2)


def _panel_b(ax: Any, data: Data, rows: list[dict[str, Any]]) -> None:
    """(b) best accuracy against m H, per |V| (line style) and K (colour)."""
    curves: dict[tuple[int, int], list[tuple[int, float]]] = defaultdict(list)
    for (v, k, w, h), acc in sorted(data.best.items()):
        curves[v, k].append((w * h, acc))
        rows.append(
            {
                "panel": "b",
                "vertices": v,
                "experts": k,
                "width": w,
                "heads": h,
                "best_accuracy": acc,
                "verdict": data.verdicts[v, k, w, h],
            }
        )
    by_mh = {(v, k, w * h): verdict for (v, k, w, h), verdict in data.verdicts.items()}
    sizes = sorted({v for v, _ in curves})
    for (v, k), points in sorted(curves.items()):
        ls = LINE_STYLES[sizes.index(v) % len(LINE_STYLES)]
        colour = K_COLOURS.get(k, style.OTHER_COLOUR)
        ax.plot(*zip(*points, strict=True), ls=ls, color=colour)
        ax.plot([], [], marker="o", ls=ls, color=colour, label=f"|V| = {v}, K = {k}")
        for mh, acc in points:
            ax.plot(
                [mh], [acc], ls="none", marker="o", **style.verdict_marks(by_mh[v, k, mh], colour)
            )
    if "undecided" in data.verdicts.values():
        style.add_undecided_entry(ax)
    ax.axhline(data.target, color="k", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("width x heads, m H")
    ax.set_ylabel("best accuracy (fresh instances)")
    ax.set_title(
        f"(b) accuracy against width at |V| = {sizes[0]} (colour: K)"
        if len(sizes) == 1
        else "(b) accuracy against width (colour: K, line: |V|)"
    )
    if curves:
        ax.legend(*style.legend_entries(ax), fontsize=7)
    else:
        style.note(ax, f"no {TASK} runs in the store")


def _panel_c(ax: Any, data: Data, rows: list[dict[str, Any]]) -> None:
    """(c) Cor 3.3: accuracy of parameter-matched MoE models against K."""
    exact = bounds.get("parrots.thm3_1_exact")
    for v, points in sorted(data.matched.items()):
        ks, accs, widths = zip(*points, strict=True)
        counts = ", ".join(f"{_paper_params(w, k):,}" for k, _, w in points)
        (line,) = ax.plot(ks, accs, "-")
        ax.plot(
            [],
            [],
            "o-",
            color=line.get_color(),
            label=f"|V| = {v} (widths {', '.join(map(str, widths))}; parameters {counts})",
        )
        need = exact.value(vertices=v, precision=PRECISION)
        for k, acc, w in points:
            verdict = data.matched_verdicts[v, k, w, 1]
            ax.plot(
                [k], [acc], ls="none", marker="o", **style.verdict_marks(verdict, line.get_color())
            )
            rows.append(
                {
                    "panel": "c",
                    "vertices": v,
                    "experts": k,
                    "width": w,
                    "best_accuracy": acc,
                    "verdict": verdict,
                    "parameters": _paper_params(w, k),
                }
            )
            ax.annotate(
                f"m={w}" + (" (ruled out)" if w < need else ""),
                (k, acc),
                textcoords="offset points",
                xytext=(4, 4),
                fontsize=7,
            )
    ax.axhline(data.target, color="k", lw=0.8)
    ax.margins(x=0.25)  # room for the width labels beside the last point
    ax.set_xscale("log", base=2)
    ax.set_xlabel("experts K (total parameters matched to the dense width-|V| model)")
    ax.set_ylabel("best accuracy")
    ax.set_title("(c) Cor 3.3: parameter-matched MoE against K")
    if data.matched:
        if any(r["verdict"] == "undecided" for r in rows if r["panel"] == "c"):
            style.add_undecided_entry(ax)
        ax.legend(*style.legend_entries(ax), fontsize=7)
    else:
        style.note(ax, "no parameter-matched runs (dense width |V| with MoE of equal size)")
        if data.runs:
            data.missing.append(f"{NAME}: no parameter-matched MoE runs")


def _panel_d(ax: Any, data: Data, rows: list[dict[str, Any]]) -> None:
    """(d) the training curve of the widest model per |V| and K."""
    widest = _widest_runs(data.runs)
    sizes = sorted({v for v, _ in widest})
    for (v, k), run in sorted(widest.items()):
        steps, accs = zip(*run["curve"], strict=True) if run["curve"] else ((), ())
        colour, verdict = K_COLOURS.get(k, style.OTHER_COLOUR), style.verdict_of(run, data.target)
        ax.plot(
            steps,
            accs,
            ls=LINE_STYLES[sizes.index(v) % len(LINE_STYLES)],
            color=colour,
            label=f"|V| = {v}, K = {k}, m = {run['width']} (seed {run['seed']})",
        )
        if steps and verdict == "undecided":  # its end: still improving when the budget ran out
            ax.plot(
                steps[-1:], accs[-1:], ls="none", marker="o", **style.verdict_marks(verdict, colour)
            )
            style.add_undecided_entry(ax)
        rows += [
            {
                "panel": "d",
                "vertices": v,
                "experts": k,
                "width": run["width"],
                "heads": run["heads"] or 1,
                "seed": run["seed"],
                "step": step,
                "accuracy": acc,
                "verdict": verdict,
            }
            for step, acc in run["curve"]
        ]
    ax.axhline(data.target, color="k", lw=0.8)
    ax.set_xlabel("training step")
    ax.set_ylabel("accuracy (fresh instances)")
    ax.set_title("(d) training curves: the widest model per |V| and K, best seed")
    if widest:
        ax.legend(*style.legend_entries(ax), fontsize=7)
    else:
        style.note(ax, f"no {TASK} runs in the store")


def _caption(data: Data) -> str:
    return (
        "Length-2 path (equivalently DISJ_|V|) on one-layer concat-transformers of the paper's "
        f"class (dense psi, K = 1, or K experts with top-{_routing(data.runs)} routing). (a) "
        f"The smallest width x heads reaching {data.target:g} against |V|; grey: ruled out for "
        f"every K, for the model run at p = {PRECISION} bits with exact attention sums, by Thm "
        "3.1's one-way protocol counted exactly as the toolkit runs it (parrots.thm3_1_exact: "
        "each sum of |V| grid values takes ceil(log2 |V|) bits more than p); hatched: ruled out "
        "only by the paper's count H (m + 1) p >= |V| (parrots.thm3_1), which gives every sum p "
        f"bits (at |V| = 256, p = 16: width 15 against 10); dashed: Thm 3.2's width-|V| "
        "construction; open triangles: no width tried reached the target (each plateaued below "
        "it); half-filled with an arrow down: undecided, a smaller width was still improving "
        "when its budget ran out, so the smallest width is at most the one drawn; half-filled "
        "points in (b) to (d): undecided runs. The trained models are float32 (24-bit "
        "significands, sums rounded in the order torch adds them), not the p-bit model either "
        "count speaks of: the shaded regions are what is proved at p = 16, drawn for scale. "
        "(b) Best accuracy against m H. (c) Cor 3.3: accuracy of MoE models whose total "
        "parameters (paper count, m' = m H) match the dense width-|V| model, against K; "
        "'ruled out' marks a width below the exact count; parameters compared: "
        f"{_matched_text(data.matched)}. (d) Accuracy during training of the widest model "
        "tried per |V| and K (its best seed): where the target was missed, whether the model "
        f"was still climbing or on a plateau. {style.training_summary(data.runs)} Data: "
        f"{data.label}."
    )


def _routing(runs: list[dict[str, Any]]) -> str:
    """The top-k routing of the MoE runs drawn ("1" or "1 or 2" ...)."""
    chosen = sorted(
        {r["config"].get("top_k", 1) for r in runs if r["config"].get("experts", 1) > 1}
    )
    return " or ".join(map(str, chosen)) or "1"


def _vertex_axis(trained: list[int]) -> list[int]:
    """The |V| at which panel (a) draws its bounds: the trained ones and the powers of two from
    half the smallest to four times the largest (4 to 256 without runs)."""
    low, high = (trained[0] / 2, trained[-1] * 4) if trained else (4, 256)
    powers = {2**k for k in range(1, 20) if low <= 2**k <= high}
    return sorted(set(trained) | powers)


def _widest_runs(runs: list[dict[str, Any]]) -> dict[tuple[int, int], dict[str, Any]]:
    """{(|V|, K): the run of the largest m H, then the most training steps, then the best
    accuracy} among the concat-transformer runs on length-2 path."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for r in runs:
        if r["task"] != TASK or r["arch"] != "concat-transformer":
            continue
        key = (r["length"], r["config"].get("experts", 1))
        rank = (r["width"] * (r["heads"] or 1), r["config"]["steps"], r["best_accuracy"])
        old = out.get(key)
        if old is None or rank > (
            old["width"] * (old["heads"] or 1),
            old["config"]["steps"],
            old["best_accuracy"],
        ):
            out[key] = r
    return out


def _paper_params(width: int, experts: int) -> int:
    from ccomplexity.bounds.parrots import one_layer_parameters

    return one_layer_parameters(width, 1, None, experts)["paper_total"]


def _parameter_matched(
    best: dict[tuple[int, int, int, int], float],
) -> dict[int, list[tuple[int, float, int]]]:
    """Per |V|: (K, best accuracy, width) of the dense width-|V| model and every MoE model whose
    width is Cor 3.3's parameter-matched one (one head)."""
    from ccomplexity.bounds.parrots import moe_matched_width

    out: dict[int, list[tuple[int, float, int]]] = {}
    for v in sorted({v for v, *_ in best}):
        if (v, 1, v, 1) not in best:
            continue
        points = [(1, best[v, 1, v, 1], v)]
        for k in sorted({k for vv, k, _, _ in best if vv == v and k > 1}):
            w = moe_matched_width(v, k)
            if (v, k, w, 1) in best:
                points.append((k, best[v, k, w, 1], w))
        if len(points) > 1:
            out[v] = points
    return out


def _matched_text(matched: dict[int, list[tuple[int, float, int]]]) -> str:
    """Per |V|, each parameter-matched model's K, width and paper parameter count."""
    return (
        "; ".join(
            f"|V| = {v}: "
            + ", ".join(f"K = {k}, m = {w}: {_paper_params(w, k):,}" for k, _, w in pts)
            for v, pts in sorted(matched.items())
        )
        or "none in the store"
    )
