"""Figure ``protocols``: bits the model protocols send, measured, and bits trained models use.

(a) Bits sent, measured: Theorem 2's one-way protocol on an LSTM (Alice sends the state after
K = N/2 tokens; :func:`simulations.protocols.rnn.run_rnn_protocol`) and Theorem 4's two
protocols on a one-layer transformer with the odd/even split, two-way and single-output
(:func:`simulations.protocols.attention.run_attention_protocol`), run on seeded models of two
widths at p = :data:`PRECISION` bits over a few lengths. The formulas of ``ccomplexity.bounds``
are drawn as lines beside the measured markers (Thm 2's m p; Thm 4's closed form and itemised
count), with the bits a problem needs (index lookup one way: N; Dyck-(2,2) odd/even: N - 1).

(b) Bits used by trained recurrent models: every recurrent checkpoint in the store trained on
dyck or index-lookup goes through :func:`simulations.protocols.bits_used.bits_used` at a middle
cut (K = N/2, even for Dyck): p * m for the smallest p whose rounded state agrees with the float
model on every test input, log2 of the distinct rounded states at the cut, and the task's exact
one-way lower bound at that cut. Without a store or checkpoints the panel says what is missing.

The title and conclusion (:mod:`paper_figures.conclusions`) say whether every protocol run
reproduced its model, how the measured bits sit against Thm 4's two counts, and, when the store
has recurrent checkpoints, whether the trained models that solve their task carry at least the
bits the task needs at the cut; a store without checkpoints draws (and promises) panel (a) only.

Each panel is measured first (:func:`measure_sent`, :func:`measure_used`: the numbers, no
drawing), then concluded (:func:`conclude`) and drawn. One module for both panels on purpose
(about 720 lines): they share the figure's layout, its CSV and its conclusion.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import torch
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from ccomplexity import bounds
from paper_figures import conclusions, style
from paper_figures.conclusions import Said

NAME = "protocols"
PRECISION = 22
"""Bits per number in panel (a): the finite-precision mode is exact in float64 up to 23 bits
for an LSTM of width 64, and the softmax sum Z <= N needs N * 2^(p // 2) < 2^(p - 1)."""
WIDTHS = (16, 64)
HEADS = 4
MEASURED_LENGTHS = (8, 16, 32, 64, 128, 256)
LINE_LENGTHS = [2**k for k in range(3, 14)]
SAMPLES = 4
"""Random inputs per measured protocol run (every run sends the same number of bits)."""
SEED = 0
BITS_SAMPLES = 128
"""Test inputs per checkpoint in panel (b)."""
SOLVED = 0.9
"""Panel (b) draws models at or above this accuracy on the test inputs: a lower bound on the
bits a state must carry says nothing about a model that does not do the task."""
BITS_PRECISIONS = range(2, 25)
BITS_TASKS = ("dyck", "index-lookup")
TASK_MARKERS = {"dyck": "o", "index-lookup": "s"}
WIDTH_STYLES = {16: "-", 64: "--"}
COLUMNS = (
    "panel",
    "series",
    "kind",
    "arch",
    "task",
    "variant",
    "width",
    "heads",
    "layers",
    "length",
    "cut",
    "p",
    "bits",
    "samples",
    "agreement",
    "logits_exact",
    "task_accuracy",
    "state_numel",
    "checkpoint",
    "verdict",
)


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure into ``out_dir``: panel (a) from seeded runs, (b) from the store's
    recurrent checkpoints (a note when there are none)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        sent = measure_sent()
        used, missing = measure_used(store_path)
    finally:
        torch.set_num_threads(threads)
    said = conclude(sent, used, store_path)
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(13.5, 6.4))
    _draw_sent(ax_a, sent)
    caption_b = _draw_used(ax_b, used, missing, store_path)
    style.suptitle(fig, said.title, fontsize=12)
    fig.tight_layout()
    rows = sent + used
    files = style.save(fig, out_dir, NAME, rows, COLUMNS, _drawn_verdicts(rows))
    caption = _caption(sent, caption_b)
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)


def _caption(sent: list[dict[str, Any]], caption_b: str) -> str:
    worst = _agreement(sent)
    exact = (
        "every run reproduced the model's prediction and logits bit for bit on every input"
        if worst == (1.0, 1.0)
        else f"smallest agreement {worst[0]:g}, bit-exact logits {worst[1]:g}"
    )
    return (
        f"(a) Bits sent, measured (markers) by running the protocols on seeded models "
        f"(init seed {SEED}) at precision p = {PRECISION} bits (p // 2 fractional, floor "
        f"rounding) on {SAMPLES} uniformly random inputs per length N in "
        f"{', '.join(map(str, MEASURED_LENGTHS))}: an LSTM of width d in "
        f"{{{', '.join(map(str, WIDTHS))}}} sends its whole state (m = 2d numbers: h and c) "
        f"after K = N/2 tokens (Thm 2); a one-layer transformer of the same widths with "
        f"H = {HEADS} heads (m = d/H per head) is split odd/even (Thm 4), both parties "
        f"outputting (two-way, squares) or only the holder of N (single-output, diamonds: the "
        f"protocol the widths of Thm 5 and Thm 12 rest on); {exact}. Lines: "
        f"Thm 2's m p (the LSTM markers lie on it), Thm 4's closed form 3m(p + log2 N)H and "
        f"its itemised count dp + H(2p + 2(p + log2 N) + 4mp). The implementation sends "
        f"ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2H m (p + p/2) bits two-way and "
        f"ceil(log2 V) + 2Hp + H(p + ceil(log2 N)) + Hp + H m (p + p/2) single-output (V = 8 "
        f"symbols; ccomplexity.bounds.thm4_run_bits); {_versus_formulas(sent)}. "
        f"Black: bits any protocol needs (index lookup one way: N; Dyck-(2,2) odd/even: "
        f"N - 1); past the N where a protocol line falls below one, that model cannot solve "
        f"the problem. (b) {caption_b}"
    )


def _agreement(sent: list[dict[str, Any]]) -> tuple[float, float]:
    """The smallest agreement and bit-exact-logits fractions over the measured runs."""
    measured = [r for r in sent if r["kind"] == "measured"]
    return (
        min((r["agreement"] for r in measured), default=1.0),
        min((r["logits_exact"] for r in measured), default=1.0),
    )


def conclude(
    sent: list[dict[str, Any]], used: list[dict[str, Any]], store_path: str | None = None
) -> Said:
    """(a) whether the protocols reproduce their models, and where the measured bits sit
    against Thm 4's counts; (b) whether each trained model that solves its task uses at least
    the bits the task's one-way bound needs at the cut (only when panel (b) has models)."""
    worst = _agreement(sent)
    if worst == (1.0, 1.0):
        a = "every protocol run reproduces its model bit for bit"
    else:
        a = f"the protocols reproduce their models on {worst[0]:.1%} of the inputs"
    a_words = f"{a}; {_versus_formulas(sent)}"
    solved = _solved_models(used)
    if not solved:
        why = (
            "no model of the store solves its task"
            if used
            else "no recurrent checkpoints in the store"
            if store_path
            else "no store given"
        )
        return Said(
            f"The proofs' protocols run on real models: {a} (bits trained models use: "
            f"{why}, not drawn)",
            f"(a) {a_words}. (b) Not drawn: {why}.",
        )
    above = [r for r in solved if r["bits"] is not None and r["bits"] >= r["bound"]]
    unresolved = [r for r in solved if r["bits"] is None]
    below = [r for r in solved if r["bits"] is not None and r["bits"] < r["bound"]]
    if below:
        b = (
            f"{len(below)} of {len(solved)} trained models that solve their task use fewer "
            "bits than the task's one-way bound needs: the bound or the count is wrong"
        )
    else:
        b = (
            f"each of the {len(solved) - len(unresolved)} trained models that solve their "
            "task uses at least the bits its one-way bound needs at the cut (smallest margin "
            f"{min((r['bits'] / r['bound'] for r in above if r['bound']), default=0):.1f}x)"
        )
        if unresolved:
            b += f"; {len(unresolved)} more agree with their float model at no p tried"
    return Said(
        f"The proofs' protocols run on real models: {a}; (b) {b.split(' (')[0]}",
        f"(a) {a_words}. (b) {b}.",
    )


def _solved_models(used: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per trained model that solves its task (accuracy at least :data:`SOLVED`): its bits used
    (None: no p agreed) and its task's one-way bound at the cut."""
    bound = {(r["checkpoint"]): r["bits"] for r in used if r["kind"] == "one_way_lower_bound"}
    return [
        {"bits": r["bits"], "bound": bound[r["checkpoint"]], **r}
        for r in used
        if r["kind"] == "bits_used" and r["task_accuracy"] >= SOLVED
    ]


# ------------------------------------------------------------------------------ (a) bits sent


def measure_sent() -> list[dict[str, Any]]:
    """The rows of panel (a): Thm 2's and Thm 4's formulas at every line length, the protocols
    run on seeded models at every measured length, and the bits the problems need."""
    rows = []
    for d in WIDTHS:
        rows += _formula_rows(d) + _measured_rows(d)
    for series, needed in NEEDS:
        rows += [_row(series, "formula", length=n, bits=needed(n)) for n in LINE_LENGTHS]
    return rows


def _row(series: str, kind: str, **values: Any) -> dict[str, Any]:
    """One CSV row of panel (a)."""
    return {"panel": "a", "series": series, "kind": kind, **values}


def _formula_rows(d: int) -> list[dict[str, Any]]:
    """Thm 2's m p for an LSTM of width ``d`` and Thm 4's closed form and itemised count for a
    one-layer transformer of width ``d``, at every line length."""
    p, m_rnn, m_tf = PRECISION, 2 * d, d // HEADS
    rnn_bits = float(bounds.get("separations.thm2").value(width=m_rnn, precision=p))
    rows = [
        _row(
            f"Thm 2: m p, LSTM d = {d} (m = {m_rnn})",
            "formula",
            arch="lstm",
            width=d,
            length=n,
            p=p,
            bits=rnn_bits,
            state_numel=m_rnn,
        )
        for n in LINE_LENGTHS
    ]
    transformer = {"arch": "transformer", "width": d, "heads": HEADS, "p": p}
    rows += [
        _row(
            f"Thm 4 closed form, d = {d}",
            "formula",
            length=n,
            **transformer,
            bits=bounds.thm4_closed_form(m_tf, p, n, HEADS),
        )
        for n in LINE_LENGTHS
    ]
    rows += [
        _row(
            f"Thm 4 itemised, d = {d}",
            "formula",
            length=n,
            **transformer,
            bits=bounds.thm4_itemised(m_tf, d, p, n, HEADS).total,
        )
        for n in LINE_LENGTHS
    ]
    return rows


def _measured_rows(d: int) -> list[dict[str, Any]]:
    """The bits sent by Thm 2's protocol on a seeded LSTM of width ``d`` and by Thm 4's two
    protocols on a seeded one-layer transformer of width ``d``, at every measured length."""
    from simulations.protocols.attention import run_attention_protocol
    from simulations.protocols.requests import AttentionProtocolRequest, RnnProtocolRequest
    from simulations.protocols.rnn import run_rnn_protocol

    rows, p = [], PRECISION
    for arch, variant in (
        ("lstm", None),
        ("transformer", "two-way"),
        ("transformer", "single-output"),
    ):
        for n in MEASURED_LENGTHS:
            if arch == "lstm":
                request = RnnProtocolRequest(
                    arch="lstm",
                    width=d,
                    length=n,
                    cut=n // 2,
                    precision=p,
                    samples=SAMPLES,
                    seed=SEED,
                )
                r = run_rnn_protocol(request)
                extra = {"cut": n // 2, "state_numel": r["state_numel"]}
            else:
                request = AttentionProtocolRequest(
                    width=d,
                    heads=HEADS,
                    length=n,
                    partition="odd-even",
                    precision=p,
                    samples=SAMPLES,
                    seed=SEED,
                    variant=variant,
                )
                r = run_attention_protocol(request)
                extra = {"heads": HEADS, "variant": variant}
            rows.append(
                _row(
                    f"measured {arch} {variant or ''} d = {d}",
                    "measured",
                    arch=arch,
                    width=d,
                    layers=1,
                    length=n,
                    p=p,
                    bits=r["bits_sent"],
                    samples=SAMPLES,
                    agreement=r["agreement"],
                    logits_exact=r["logits_exact"],
                    **extra,
                )
            )
    return rows


NEEDS = (
    ("needed one way: index lookup, N bits (Thm 3)", lambda n: float(n)),
    ("needed: Dyck-(2,2) odd/even, N - 1 bits (Thm 5)", lambda n: n - 1.0),
)
"""The bits any protocol needs, per problem, at length N."""
NEED_STYLES = (":", (0, (5, 1, 1, 1)))
MARKS = {(None, "lstm"): "o", ("two-way", "transformer"): "s",
         ("single-output", "transformer"): "D"}  # fmt: skip


def _draw_sent(ax: Axes, rows: list[dict[str, Any]]) -> None:
    """Panel (a): the formulas as lines, the measured bits as markers (hollow at the wider
    width), the bits needed in black."""
    for series in dict.fromkeys(r["series"] for r in rows if r["kind"] == "formula"):
        here = [r for r in rows if r["series"] == series]
        first = here[0]
        if "arch" not in first:  # what a problem needs
            ls = NEED_STYLES[[s for s, _ in NEEDS].index(series)]
            ax.plot(LINE_LENGTHS, [r["bits"] for r in here], ls=ls, color="k", lw=1.6, label=series)
            continue
        d, arch = first["width"], first["arch"]
        itemised = "itemised" in series
        ls = (":" if d == WIDTHS[0] else "-.") if itemised else WIDTH_STYLES[d]
        ax.plot(
            LINE_LENGTHS,
            [r["bits"] for r in here],
            ls=ls,
            color=style.colour(arch),
            lw=1.4,
            alpha=0.55 if itemised else 1.0,
            label=series,
        )
    for series in dict.fromkeys(r["series"] for r in rows if r["kind"] == "measured"):
        here = [r for r in rows if r["series"] == series]
        first = here[0]
        d, arch, variant = first["width"], first["arch"], first.get("variant")
        colour = style.colour(arch)
        ax.plot(
            [r["length"] for r in here],
            [r["bits"] for r in here],
            ls="none",
            marker=MARKS[variant, arch],
            ms=7 if d == WIDTHS[0] else 9,
            mfc=colour if d == WIDTHS[0] else "white",
            mec=colour,
            mew=1.6,
            label=f"measured: {arch}{f' {variant}' if variant else ''} d = {d}",
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("sequence length N (tokens)")
    ax.set_ylabel("bits communicated")
    ax.set_title(f"(a) Bits sent by the protocols, p = {PRECISION}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.13), frameon=False)


def _versus_formulas(rows: list[dict[str, Any]]) -> str:
    """How the measured transformer bits compare with Thm 4's two formulas, per protocol and
    width."""
    formula = {
        (r["series"].split(",")[0], r["width"], r["length"]): r["bits"]
        for r in rows
        if r["panel"] == "a" and r["kind"] == "formula" and r.get("arch") == "transformer"
    }
    parts = []
    for variant in ("two-way", "single-output"):
        for d in WIDTHS:
            measured = [
                r
                for r in rows
                if r["kind"] == "measured" and r.get("variant") == variant and r["width"] == d
            ]
            closed = [r["bits"] > formula[("Thm 4 closed form", d, r["length"])] for r in measured]
            item = [r["bits"] < formula[("Thm 4 itemised", d, r["length"])] for r in measured]
            where = "above" if all(closed) else "below" if not any(closed) else "on both sides of"
            under = "below" if all(item) else "not always below"
            parts.append(
                f"{variant} at d = {d}: {where} the closed form and {under} the itemised count"
            )
    return "; ".join(parts)


# ------------------------------------------------------------------------------ (b) bits used


def _checkpoints(store_path: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The best run per (task, arch, layers, length) of the store with a recurrent checkpoint
    on dyck or index-lookup, at the width swept over the most lengths, its path resolved; and
    what is missing."""
    import models
    from simulations.sweeps import checkpoint_folder

    runs, missing = style.load_runs(store_path)
    if not runs:
        return [], [f"{NAME}: {m}" for m in missing]
    assert store_path is not None
    best: dict[tuple, dict[str, Any]] = {}
    absent = 0
    for run in runs:
        if run["task"] not in BITS_TASKS or not run["checkpoint"]:
            continue
        if run["arch"] not in models.REGISTRY or not models.model_class(run["arch"]).recurrent:
            continue
        path = Path(run["checkpoint"])
        if not path.is_file():  # a relative path from another directory: look beside the store
            path = checkpoint_folder(store_path) / path.name
        if not path.is_file():
            absent += 1
            continue
        key = (run["task"], run["arch"], run["layers"], run["width"], run["length"])
        if key not in best or run["best_accuracy"] > best[key]["best_accuracy"]:
            best[key] = {**run, "checkpoint": str(path)}
    # One width per (task, arch, layers): the one swept over the most lengths (ties: the
    # larger), as in fig2; the other widths are fig3's and would crowd the panel.
    lengths: dict[tuple, set[int]] = {}
    for task, arch, layers, width, n in best:
        lengths.setdefault((task, arch, layers, width), set()).add(n)
    main: dict[tuple, int] = {}
    for (task, arch, layers, width), ns in sorted(lengths.items()):
        kind = (task, arch, layers)
        if kind not in main or (len(ns), width) > (len(lengths[(*kind, main[kind])]), main[kind]):
            main[kind] = width
    best = {k: v for k, v in best.items() if main[k[:3]] == k[3]}
    missing = []
    if absent:
        missing.append(f"{NAME}: {absent} recurrent checkpoints named in the store are not on disk")
    if not best:
        missing.append(
            f"{NAME}: no recurrent dyck or index-lookup checkpoints in {store_path} (sweeps save "
            "them beside the store; run the sweep into a new store)"
        )
    return [best[k] for k in sorted(best)], missing


def _drawn_verdicts(rows: list[dict[str, Any]]) -> list[str]:
    """The verdicts of the trained models panel (b) draws (those that solve the task)."""
    return [
        r["verdict"] for r in rows if r.get("kind") == "bits_used" and r["task_accuracy"] >= SOLVED
    ]


def _cut(task: str, length: int) -> int:
    half = length // 2
    return half - half % 2 if task == "dyck" else half


def measure_used(store_path: str | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of panel (b): per recurrent checkpoint of the store (:func:`_checkpoints`), its
    bits used, log2 of its distinct rounded states and its task's one-way bound at the cut; and
    what is missing."""
    from simulations.protocols.bits_used import bits_used

    runs, missing = _checkpoints(store_path)
    rows: list[dict[str, Any]] = []
    for run in runs:
        task, n = run["task"], run["length"]
        r = bits_used(
            cut=_cut(task, n),
            samples=BITS_SAMPLES,
            checkpoint=run["checkpoint"],
            precisions=list(BITS_PRECISIONS),
        )
        common = {
            "panel": "b",
            "arch": run["arch"],
            "task": task,
            "width": run["width"],
            "layers": run["layers"],
            "length": n,
            "cut": r["cut"],
            "samples": r["samples"],
            "task_accuracy": r["task_accuracy"],
            "state_numel": r["state_numel"],
            "checkpoint": run["checkpoint"],
            "verdict": style.verdict_of(run),
        }
        rows += [
            {
                **common,
                "series": "bits used: smallest full-agreement p x m",
                "kind": "bits_used",
                "p": r["smallest_full_agreement_precision"],
                "bits": r["bits_used"],
            },
            {
                **common,
                "series": "log2 distinct rounded states at the cut",
                "kind": "log2_distinct_states",
                "p": r["distinct_states_precision"],
                "bits": r["log2_distinct_states"],
            },
            {
                **common,
                "series": f"one-way lower bound, {task}",
                "kind": "one_way_lower_bound",
                "bits": r["one_way_lower_bound_bits"],
            },
        ]
    return rows, missing


def _draw_used(
    ax: Axes, rows: list[dict[str, Any]], missing: list[str], store_path: str | None
) -> str:
    """Panel (b) from :func:`measure_used`'s rows; returns its caption (a note and the reason
    when there is nothing to draw)."""
    ax.set_title("(b) Bits used by trained recurrent models, cut K = N/2")
    if not rows:
        ax.set_axis_off()
        why = "; ".join(m.removeprefix(f"{NAME}: ") for m in missing)
        style.note(ax, why.replace("; ", "\n"))
        return f"Bits used by trained models: nothing to show ({why})."
    used = [r for r in rows if r["kind"] == "bits_used"]
    solved = [r for r in used if r["task_accuracy"] >= SOLVED]
    kinds = sorted({(r["task"], r["arch"]) for r in used})
    # Equal values (e.g. log2 of the distinct states, capped by the sample count) would hide
    # each other: each (task, architecture) is drawn slightly apart along the log N axis.
    nudge = {k: 1.05 ** (i - (len(kinds) - 1) / 2) for i, k in enumerate(kinds)}
    capped = _draw_used_points(ax, rows, nudge)
    handles = _used_handles(rows, solved, capped)
    lengths = sorted({r["length"] for r in used})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(lengths, [str(n) for n in lengths])
    ax.minorticks_off()
    ax.set_xlim(lengths[0] / 1.4, lengths[-1] * 1.4)
    ax.set_xlabel("sequence length N the model was trained and tested at")
    ax.set_ylabel("bits")
    ax.grid(True, alpha=0.3)
    ax.legend(
        handles=handles,
        fontsize=7,
        ncol=2,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        frameon=False,
    )
    if not solved:
        style.note(
            ax,
            f"no trained recurrent model reaches {SOLVED:g} accuracy: bits used are "
            "drawn only for models that do the task",
        )
    unsolved = [
        f"{r['arch']} on {r['task']} at N = {r['length']} (acc {r['task_accuracy']:.2f})"
        for r in used
        if r["task_accuracy"] < SOLVED
    ]
    return _used_caption(len(used), store_path) + (f": {'; '.join(unsolved)}." if unsolved else ".")


def _draw_used_points(ax: Axes, rows: list[dict[str, Any]], nudge: dict) -> bool:
    """The markers of the models that solve their task and the bound lines of their tasks;
    returns whether a state count is at the sample's cap."""
    cap, capped = math.log2(BITS_SAMPLES), False
    solved = {
        r["checkpoint"] for r in rows if r["kind"] == "bits_used" and r["task_accuracy"] >= SOLVED
    }
    bound: dict[str, dict[int, float]] = {}
    for r in (r for r in rows if r["checkpoint"] in solved):
        x, colour, mark = (
            r["length"] * nudge[r["task"], r["arch"]],
            style.colour(r["arch"]),
            TASK_MARKERS[r["task"]],
        )
        if r["kind"] == "bits_used":
            y = r["bits"] if r["bits"] is not None else BITS_PRECISIONS[-1] * r["state_numel"]
            marks = style.verdict_marks(r["verdict"], colour) if r["bits"] else {"color": colour}
            ax.plot(x, y, ls="none", marker=mark if r["bits"] else "^", ms=8, **marks)
            ax.annotate(
                f"acc {r['task_accuracy']:.2f}",
                (x, y),
                xytext=(5, 3),
                textcoords="offset points",
                fontsize=7,
                color=colour,
            )
        elif r["kind"] == "log2_distinct_states" and r["bits"] > 0:
            at_cap = r["bits"] >= cap - 1e-9  # as many states as test prefixes: at least that
            ax.plot(
                x,
                r["bits"],
                ls="none",
                marker=6 if at_cap else mark,
                ms=8,
                mfc="white",
                mec=colour,
                mew=1.5,
            )
            capped |= at_cap
        elif r["kind"] == "one_way_lower_bound":
            bound.setdefault(r["task"], {})[r["length"]] = r["bits"]
    for task, by_n in bound.items():
        xs = sorted(by_n)
        ax.plot(
            xs,
            [by_n[x] for x in xs],
            color="k",
            lw=1.4,
            marker=TASK_MARKERS[task],
            ms=5,
            ls=":" if task == "index-lookup" else "--",
        )
    if capped:
        ax.axhline(cap, color="#999999", lw=0.8, ls="-.")
    return capped


USED_MARKS = {
    "bits": (
        "none",
        "o",
        {"ms": 7},
        "bits used: smallest p agreeing on every input x state size m",
    ),
    "states": (
        "none",
        "o",
        {"mfc": "white", "ms": 7, "mew": 1.5},
        "log2 distinct rounded states at the cut",
    ),
    "unresolved": (
        "none",
        "^",
        {"ms": 8},
        f"no p <= {BITS_PRECISIONS[-1]} agrees on every input (at {BITS_PRECISIONS[-1]} m)",
    ),
    "cap": (
        "-.",
        6,
        {"mfc": "white", "mec": "#555555", "color": "#999999"},
        f"cap of the sample, log2 {BITS_SAMPLES} = {math.log2(BITS_SAMPLES):g}: a state "
        "count there is at least that",
    ),
}
"""Panel (b)'s legend entries: line style, marker, their keywords and the words."""


def _used_handles(
    rows: list[dict[str, Any]], solved: list[dict[str, Any]], capped: bool
) -> list[Line2D]:
    """Panel (b)'s legend: what each marker shape, fill and line means."""
    shown = ["bits", "states"]
    shown += ["cap"] if capped else []
    shown += ["unresolved"] if any(r["bits"] is None for r in solved) else []
    handles = []
    for key in shown:
        ls, marker, marks, label = USED_MARKS[key]
        handles.append(
            Line2D(
                [],
                [],
                ls=ls,
                marker=marker,
                label=label,
                **{"color": "#555555", "mec": "#555555", **marks},
            )
        )
    for t in sorted({r["task"] for r in solved}):
        line = "--" if t == "dyck" else ":"
        mark = TASK_MARKERS[t]
        handles.append(
            Line2D([], [], ls=line, color="k", marker=mark, ms=5, label=f"one-way lower bound, {t}")
        )
        handles.append(
            Line2D(
                [],
                [],
                ls="none",
                marker=mark,
                color="#555555",
                ms=7,
                label=f"task {t} (marker shape)",
            )
        )
    for a in sorted({r["arch"] for r in solved}):
        handles.append(Line2D([], [], ls="-", lw=4, color=style.colour(a), label=a))
    if "undecided" in _drawn_verdicts(rows):
        handles.append(style.undecided_handle())
    return handles


def _used_caption(count: int, store_path: str | None) -> str:
    ps = list(BITS_PRECISIONS)
    return (
        f"Bits used by {count} trained recurrent checkpoints of {store_path} (the best run "
        f"per task, architecture, size and N), at the cut K = N/2 (even for Dyck): filled "
        f"(half-filled: the run was undecided, still improving when its budget ran out), "
        f"p x m for the smallest p in {ps[0]}..{ps[-1]} (round to nearest) whose rounded state "
        f"gives the float model's prediction on all {BITS_SAMPLES} test inputs of the training "
        f"task at length N; hollow, log2 of the distinct rounded states at the cut (over all "
        f"|Sigma|^K prefixes while that is at most 65536, else over the test prefixes, so at most "
        f"log2 {BITS_SAMPLES} = {math.log2(BITS_SAMPLES):g}); black, the task's exact one-way "
        f"lower bound at that cut (Dyck-(2,2): the DFA count, at most 3 bits; index lookup: "
        f"6K bits, Alice's K symbols of 64). 'acc' next to a filled marker: the model's "
        f"accuracy on those test inputs; the bound binds only models that solve the task, so "
        f"models below {SOLVED:g} accuracy are not drawn (their numbers are in the CSV)"
    )
