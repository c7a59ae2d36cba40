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

One module for both panels on purpose (a little over 500 lines): panel (a) runs the protocols
while drawing and panel (b) reads checkpoints, and both share the figure's layout and CSV.
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
from paper_figures import style

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
    rows: list[dict[str, Any]] = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(13.5, 6.4))
        agreement = _panel_sent(ax_a, rows)
        missing, used = _panel_used(ax_b, rows, store_path)
    finally:
        torch.set_num_threads(threads)
    fig.suptitle("The proofs' protocols run on real models: bits sent against the bounds (a), "
                 "and the bits trained models use (b)")  # fmt: skip
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, rows, COLUMNS, _drawn_verdicts(rows))
    exact = (
        "every run reproduced the model's prediction and logits bit for bit on every input"
        if agreement == (1.0, 1.0)
        else f"smallest agreement {agreement[0]:g}, bit-exact logits {agreement[1]:g}"
    )
    caption = (
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
        f"symbols; ccomplexity.bounds.thm4_run_bits); {_versus_formulas(rows)}. "
        f"Black: bits any protocol needs (index lookup one way: N; Dyck-(2,2) odd/even: "
        f"N - 1); past the N where a protocol line falls below one, that model cannot solve "
        f"the problem. (b) {used}"
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": missing}


# ------------------------------------------------------------------------------ (a) bits sent


def _panel_sent(ax: Axes, rows: list[dict[str, Any]]) -> tuple[float, float]:
    """Measured protocol bits and their formulas; returns the smallest agreement and
    bit-exact-logits fractions over all runs."""
    from simulations.protocols.attention import run_attention_protocol
    from simulations.protocols.requests import AttentionProtocolRequest, RnnProtocolRequest
    from simulations.protocols.rnn import run_rnn_protocol

    p = PRECISION
    lstm, tf = style.colour("lstm"), style.colour("transformer")
    measured = (("lstm", None, lstm, "o"), ("transformer", "two-way", tf, "s"),
                ("transformer", "single-output", tf, "D"))  # fmt: skip
    thm2 = bounds.get("separations.thm2")
    handles: list[Any] = []
    worst = [1.0, 1.0]

    for d in WIDTHS:
        ls = WIDTH_STYLES[d]
        m_rnn, m_tf = 2 * d, d // HEADS
        rnn_bits = float(thm2.value(width=m_rnn, precision=p))
        (h,) = ax.plot(
            LINE_LENGTHS,
            [rnn_bits] * len(LINE_LENGTHS),
            ls=ls,
            color=lstm,
            lw=1.4,
            label=f"Thm 2: m p, LSTM d = {d} (m = {m_rnn})",
        )
        handles.append(h)
        rows.extend(
            {"panel": "a", "series": h.get_label(), "kind": "formula", "arch": "lstm",
             "width": d, "length": n, "p": p, "bits": rnn_bits, "state_numel": m_rnn}
            for n in LINE_LENGTHS
        )  # fmt: skip
        closed = [bounds.thm4_closed_form(m_tf, p, n, HEADS) for n in LINE_LENGTHS]
        item = [bounds.thm4_itemised(m_tf, d, p, n, HEADS).total for n in LINE_LENGTHS]
        for series, ys, style_ in (
            (f"Thm 4 closed form, d = {d}", closed, ls),
            (f"Thm 4 itemised, d = {d}", item, ":" if d == WIDTHS[0] else "-."),
        ):
            (h,) = ax.plot(
                LINE_LENGTHS,
                ys,
                ls=style_,
                color=tf,
                lw=1.4,
                alpha=1.0 if "closed" in series else 0.55,
                label=series,
            )
            handles.append(h)
            rows.extend(
                {"panel": "a", "series": series, "kind": "formula", "arch": "transformer",
                 "width": d, "heads": HEADS, "length": n, "p": p, "bits": b}
                for n, b in zip(LINE_LENGTHS, ys, strict=True)
            )  # fmt: skip

        for arch, variant, colour, mark in measured:
            xs, ys = [], []
            for n in MEASURED_LENGTHS:
                if arch == "lstm":
                    r = run_rnn_protocol(
                        RnnProtocolRequest(arch="lstm", width=d, length=n, cut=n // 2,
                                           precision=p, samples=SAMPLES, seed=SEED)
                    )  # fmt: skip
                    extra = {"cut": n // 2, "state_numel": r["state_numel"]}
                else:
                    r = run_attention_protocol(
                        AttentionProtocolRequest(width=d, heads=HEADS, length=n,
                                                 partition="odd-even", precision=p,
                                                 samples=SAMPLES, seed=SEED, variant=variant)
                    )  # fmt: skip
                    extra = {"heads": HEADS, "variant": variant}
                worst = [min(worst[0], r["agreement"]), min(worst[1], r["logits_exact"])]
                xs.append(n)
                ys.append(r["bits_sent"])
                rows.append(
                    {"panel": "a", "series": f"measured {arch} {variant or ''} d = {d}",
                     "kind": "measured", "arch": arch, "width": d, "layers": 1, "length": n,
                     "p": p, "bits": r["bits_sent"], "samples": SAMPLES,
                     "agreement": r["agreement"], "logits_exact": r["logits_exact"], **extra}
                )  # fmt: skip
            (h,) = ax.plot(
                xs,
                ys,
                ls="none",
                marker=mark,
                ms=7 if d == WIDTHS[0] else 9,
                mfc=colour if d == WIDTHS[0] else "white",
                mec=colour,
                mew=1.6,
                label=f"measured: {arch}{f' {variant}' if variant else ''} d = {d}",
            )
            handles.append(h)
    needs = (
        ("needed one way: index lookup, N bits (Thm 3)", [float(n) for n in LINE_LENGTHS], ":"),
        (
            "needed: Dyck-(2,2) odd/even, N - 1 bits (Thm 5)",
            [n - 1.0 for n in LINE_LENGTHS],
            (0, (5, 1, 1, 1)),
        ),
    )
    for series, ys, ls in needs:
        (h,) = ax.plot(LINE_LENGTHS, ys, ls=ls, color="k", lw=1.6, label=series)
        handles.append(h)
        rows.extend(
            {"panel": "a", "series": series, "kind": "formula", "length": n, "bits": b}
            for n, b in zip(LINE_LENGTHS, ys, strict=True)
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("sequence length N (tokens)")
    ax.set_ylabel("bits communicated")
    ax.set_title(f"(a) Bits sent by the protocols, p = {PRECISION}")
    ax.grid(True, alpha=0.3)
    ax.legend(
        handles=handles,
        fontsize=7,
        ncol=2,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        frameon=False,
    )
    return worst[0], worst[1]


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
            measured = [r for r in rows if r["kind"] == "measured"
                        and r.get("variant") == variant and r["width"] == d]  # fmt: skip
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


def _panel_used(
    ax: Axes, rows: list[dict[str, Any]], store_path: str | None
) -> tuple[list[str], str]:
    """Bits used by the store's trained recurrent models against the one-way bound; returns
    what is missing and the panel's caption."""
    from simulations.protocols.bits_used import bits_used

    ax.set_title("(b) Bits used by trained recurrent models, cut K = N/2")
    runs, missing = _checkpoints(store_path)
    if not runs:
        ax.set_axis_off()
        style.note(ax, "\n".join(m.removeprefix(f"{NAME}: ") for m in missing))
        return missing, "Bits used by trained models: nothing to show (" + "; ".join(
            m.removeprefix(f"{NAME}: ") for m in missing
        ) + ")."
    bound: dict[str, dict[int, int]] = {}
    ps = list(BITS_PRECISIONS)
    archs, drawn, unresolved, capped, unsolved = set(), set(), False, False, []
    cap = math.log2(BITS_SAMPLES)
    # Equal values (e.g. log2 of the distinct states, capped by the sample count) would hide
    # each other: each (task, architecture) is drawn slightly apart along the log N axis.
    kinds = sorted({(run["task"], run["arch"]) for run in runs})
    nudge = {k: 1.05 ** (i - (len(kinds) - 1) / 2) for i, k in enumerate(kinds)}
    for run in runs:
        task, n = run["task"], run["length"]
        x = n * nudge[task, run["arch"]]
        r = bits_used(
            cut=_cut(task, n), samples=BITS_SAMPLES, checkpoint=run["checkpoint"], precisions=ps
        )
        colour, mark = style.colour(run["arch"]), TASK_MARKERS[task]
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
        used = r["bits_used"]
        solved = r["task_accuracy"] >= SOLVED
        if solved:
            archs.add(run["arch"])
            drawn.add(task)
        if not solved:  # a bound on bits binds only a model that does the task: not drawn
            unsolved.append(f"{run['arch']} on {task} at N = {n} (acc {r['task_accuracy']:.2f})")
        elif used is None:
            unresolved = True
            used_y = ps[-1] * r["state_numel"]
            ax.plot(x, used_y, ls="none", marker="^", ms=9, color=colour)
        else:
            used_y = used
            ax.plot(x, used_y, ls="none", marker=mark, ms=8,
                    **style.verdict_marks(common["verdict"], colour))  # fmt: skip
        if solved:
            ax.annotate(f"acc {r['task_accuracy']:.2f}", (x, used_y), xytext=(5, 3),
                        textcoords="offset points", fontsize=7, color=colour)  # fmt: skip
        rows.append(
            {
                **common,
                "series": "bits used: smallest full-agreement p x m",
                "kind": "bits_used",
                "p": r["smallest_full_agreement_precision"],
                "bits": used,
            }
        )
        log2_states = r["log2_distinct_states"]
        at_cap = log2_states >= cap - 1e-9  # as many states as test prefixes: at least that
        if log2_states > 0 and solved:
            ax.plot(x, log2_states, ls="none", marker=6 if at_cap else mark, ms=8, mfc="white",
                    mec=colour, mew=1.5)  # fmt: skip
            capped |= at_cap
        rows.append(
            {
                **common,
                "series": "log2 distinct rounded states at the cut",
                "kind": "log2_distinct_states",
                "p": r["distinct_states_precision"],
                "bits": log2_states,
            }
        )
        bound.setdefault(task, {})[n] = r["one_way_lower_bound_bits"]
        rows.append(
            {
                **common,
                "series": f"one-way lower bound, {task}",
                "kind": "one_way_lower_bound",
                "bits": r["one_way_lower_bound_bits"],
            }
        )
    bound = {task: by_n for task, by_n in bound.items() if task in drawn}
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
    handles = [
        Line2D(
            [],
            [],
            ls="none",
            marker="o",
            color="#555555",
            ms=7,
            label="bits used: smallest p agreeing on every input x state size m",
        ),
        Line2D(
            [],
            [],
            ls="none",
            marker="o",
            mfc="white",
            mec="#555555",
            ms=7,
            mew=1.5,
            label="log2 distinct rounded states at the cut",
        ),
    ]
    if capped:
        ax.axhline(cap, color="#999999", lw=0.8, ls="-.")
        handles.append(Line2D([], [], ls="-.", marker=6, mfc="white", mec="#555555",
                              color="#999999", label=f"cap of the sample, log2 {BITS_SAMPLES} = "
                              f"{cap:g}: a state count there is at least that"))  # fmt: skip
    if unresolved:
        handles.append(
            Line2D(
                [],
                [],
                ls="none",
                marker="^",
                color="#555555",
                ms=8,
                label=f"no p <= {ps[-1]} agrees on every input (at {ps[-1]} m)",
            )
        )
    handles += [
        Line2D(
            [],
            [],
            ls="--" if t == "dyck" else ":",
            color="k",
            marker=TASK_MARKERS[t],
            ms=5,
            label=f"one-way lower bound, {t}",
        )
        for t in bound
    ]
    handles += [
        Line2D(
            [],
            [],
            ls="none",
            marker=TASK_MARKERS[t],
            color="#555555",
            ms=7,
            label=f"task {t} (marker shape)",
        )
        for t in sorted(drawn)
    ]
    handles += [Line2D([], [], ls="-", lw=4, color=style.colour(a), label=a) for a in sorted(archs)]
    if "undecided" in _drawn_verdicts(rows):
        handles.append(style.undecided_handle())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    lengths = sorted({r["length"] for r in runs})
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
    caption = (
        f"Bits used by {len(runs)} trained recurrent checkpoints of {store_path} (the best run "
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
        + (f": {'; '.join(unsolved)}." if unsolved else ".")
    )
    if len(unsolved) == len(runs):
        style.note(ax, f"no trained recurrent model reaches {SOLVED:g} accuracy: bits used are "
                   "drawn only for models that do the task")  # fmt: skip
    return missing, caption
