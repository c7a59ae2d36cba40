"""Figure ``bounds``: where each lower bound bites.  Pure mathematics; needs no store.

(a) The largest length N that each lower bound on length of the claims table (Thm 3: RNN,
index lookup; Thm 8: RNN, nearest neighbour; Thm 11: RNN, INEQ; Thm 5 and Thm 12: one-layer
transformer, Dyck-(2,2) and INEQ, H = 1) does not rule out, for widths m and precisions p in
{16, 32, 64}.  (b) The verified odd/even fooling set of
Dyck-(n,2) (Lemma 1), log2 of its size against N, by the symbolic DFA method.  (c) Minimal
complete DFA state counts of Dyck-(n,k) against the depth k (Lemma 4: an RNN needs mp >=
log2 of it).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from ccomplexity import bounds as cb
from ccomplexity import claims
from ccomplexity.automata import dyck_dfa, state_counts
from ccomplexity.lower_bounds import dyck_fooling_symbolic
from paper_figures import conclusions, style
from paper_figures.conclusions import Said

NAME = "bounds"
PRECISIONS = (16, 32, 64)
WIDTHS = [2**k for k in range(0, 13)]
COLOURS = ("#d62728", "#ff7f0e", "#9467bd", "#1f77b4", "#2ca02c", "#8c564b", "#e377c2")


def _theorems() -> dict[str, tuple[str, str]]:
    """Bound id -> (legend label, colour) for every lower-bound claim that bounds length."""
    out: dict[str, tuple[str, str]] = {}
    for claim in claims.CLAIMS:
        bound = claim.bound
        if claim.role != "lower" or not bound.bounds_length or bound.id in out:
            continue
        short = cb.label(bound.id)
        depth = f"{claim.layers}-layer " if claim.layers else ""
        rests_on = "single-output Thm 4 protocol" if bound.width_note else bound.formula
        label = f"{short}: {depth}{claim.family}, {claim.task} ({rests_on.split('  ')[0]})"
        out[bound.id] = (label, COLOURS[len(out) % len(COLOURS)])
    return out


LINESTYLES = {16: ":", 32: "--", 64: "-"}
FOOLING_TYPES = (1, 2, 3)
FOOLING_LENGTHS = list(range(4, 129, 4))
DFA_TYPES = (1, 2, 3)
DFA_DEPTHS = list(range(0, 9))
COLUMNS = ("panel", "series", "n_types", "depth", "width", "precision", "length", "value")


def _max_lengths(ax: plt.Axes, rows: list[dict[str, Any]]) -> None:
    theorems = _theorems()
    curves = {
        (bound_id, p): [cb.get(bound_id).max_length(m, p) for m in WIDTHS]
        for bound_id in theorems
        for p in PRECISIONS
    }
    # Bounds with the same max_length everywhere are drawn once, labelled together.
    labels: dict[str, str] = {}
    for bound_id, (label, _colour) in theorems.items():
        same = next(
            (b for b in labels if all(curves[b, p] == curves[bound_id, p] for p in PRECISIONS)),
            None,
        )
        if same is None:
            labels[bound_id] = label
        else:
            labels[same] += f"\n  and {label}: same curve"
    for (bound_id, p), lengths in curves.items():
        rows.extend(
            {"panel": "a", "series": bound_id, "width": m, "precision": p, "length": n}
            for m, n in zip(WIDTHS, lengths, strict=True)
        )
        if bound_id in labels:
            ax.plot(WIDTHS, lengths, LINESTYLES[p], color=theorems[bound_id][1], lw=1.8)
    for bound_id, label in labels.items():
        ax.plot([], [], color=theorems[bound_id][1], lw=2, label=label)
    for p, ls in LINESTYLES.items():
        ax.plot([], [], ls, color="k", label=f"p = {p} bits")
    example = cb.get("separations.thm3").max_length(128, 64)
    ax.annotate(
        f"m = 128, p = 64:\nN <= {example}",
        xy=(128, example),
        xytext=(400, 40),
        arrowprops={"arrowstyle": "->"},
        fontsize=8,
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("width m (state units; per-head width for Thm 5)")
    ax.set_ylabel("largest length N not ruled out (tokens)")
    ax.set_title("(a) Length beyond which a bound rules a model out")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=7)


def _fooling(ax: plt.Axes, rows: list[dict[str, Any]], missing: list[str]) -> None:
    for n_types in FOOLING_TYPES:
        xs, ys = [], []
        for n in FOOLING_LENGTHS:
            found = dyck_fooling_symbolic(n_types, 2, n)
            if not found["verified"]:
                missing.append(f"{NAME}: Dyck-({n_types},2) fooling set at N = {n} not verified")
                continue
            xs.append(n)
            ys.append(found["log2_size"])
            rows.append(
                {
                    "panel": "b",
                    "series": "log2 fooling set size",
                    "n_types": n_types,
                    "depth": 2,
                    "length": n,
                    "value": found["log2_size"],
                }
            )
        ax.plot(xs, ys, "o-", ms=3, label=f"Dyck-({n_types},2), verified fooling set")
    ax.plot(FOOLING_LENGTHS, [n - 1 for n in FOOLING_LENGTHS], "k--", lw=1, label="N - 1 (Lemma 1)")
    ax.set_xlabel("word length N (tokens)")
    ax.set_ylabel("log2 |fooling set| = lower bound (bits)")
    ax.set_title("(b) Odd/even fooling sets of Dyck-(n,2)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=7)


def _dfa(ax: plt.Axes, rows: list[dict[str, Any]]) -> None:
    for n_types in DFA_TYPES:
        counts = [state_counts(dyck_dfa(n_types, k))["states"] for k in DFA_DEPTHS]
        ax.plot(DFA_DEPTHS, counts, "s-", ms=4, label=f"Dyck-({n_types},k)")
        rows.extend(
            {
                "panel": "c",
                "series": "minimal DFA states",
                "n_types": n_types,
                "depth": k,
                "value": c,
            }
            for k, c in zip(DFA_DEPTHS, counts, strict=True)
        )
    ax.annotate(
        "Dyck-(2,2): 8 states\n(7 live + sink)",
        xy=(2, 8),
        xytext=(3.2, 2.2),
        fontsize=8,
        arrowprops={"arrowstyle": "->"},
    )
    ax.set_yscale("log", base=2)
    ax.set_xlabel("maximum depth k")
    ax.set_ylabel("minimal complete DFA states (log scale)")
    ax.set_title("(c) Minimal DFA size of Dyck-(n,k)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=7)


EXAMPLE = (64, 32)
"""(m, p) at which the title reads each bound: a width and precision of the toolkit's runs."""


def conclude(rows: list[dict[str, Any]]) -> Said:
    """What the exact evaluation shows: where each length bound bites at :data:`EXAMPLE`,
    whether Lemma 1's fooling sets reach N - 1 bits, and the Dyck-(2,2) automaton's size, all
    read from the rows the panels draw."""
    m, p = EXAMPLE
    bite = {
        r["series"]: r["length"]
        for r in rows
        if r["panel"] == "a" and r["width"] == m and r["precision"] == p
    }
    about = {c.bound_id: f"{c.family}, {c.task}" for c in claims.CLAIMS if c.role == "lower"}
    lines = [
        f"{cb.short_name(b)} ({about[b]}) beyond N = {n:,}"
        for b, n in sorted(bite.items(), key=lambda i: i[1])
    ]
    fooling = [r for r in rows if r["panel"] == "b" and r["n_types"] == 2]
    exact = all(r["value"] == r["length"] - 1 for r in fooling)
    lengths = [r["length"] for r in fooling]
    states = next(
        (r["value"] for r in rows if r["panel"] == "c" and r["n_types"] == 2 and r["depth"] == 2),
        None,
    )
    fooling_words = (
        f"Lemma 1's odd/even fooling set of Dyck-(2,2) has exactly 2^(N-1) elements at every N "
        f"from {lengths[0]} to {lengths[-1]} (verified)"
        if fooling and exact
        else "Lemma 1's fooling sets fall short of N - 1 bits at some N"
        if fooling
        else "no fooling set verified"
    )
    return Said(
        f"Where the lower bounds bite (exact, no training): at width m = {m} and p = {p} "
        f"bits, the first rules a model out at N = {min(bite.values()):,}",
        f"(a) At m = {m}, p = {p}: {conclusions.series(lines)}. (b) {fooling_words}. (c) The "
        f"minimal complete DFA of Dyck-(2,2) has {states:g} states, so a time-invariant RNN "
        f"recognising it needs m p >= log2 {states:g} = {math.log2(states):g} bits.",
    )


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the three panels into ``out_dir`` (``store_path`` and ``profile`` are unused)."""
    rows: list[dict[str, Any]] = []
    missing: list[str] = []
    fig, axes = plt.subplots(1, 3, figsize=(16, 5.2))
    _max_lengths(axes[0], rows)
    _fooling(axes[1], rows, missing)
    _dfa(axes[2], rows)
    said = conclude(rows)
    style.suptitle(fig, said.title, fontsize=12)
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, rows, COLUMNS)
    caption = (
        "(a) For width m and precision p (dotted 16, dashed 32, solid 64 bits), the largest "
        "length N that each lower bound does not rule out, evaluated exactly "
        "(Bound.max_length); any longer N is impossible for that model, e.g. an RNN with "
        "m = 128 units of p = 64 bits cannot solve index lookup beyond N = "
        f"{cb.get('separations.thm3').max_length(128, 64):,} (Thm 3). "
        "The bounds are the claims table's lower bounds on length; bounds with the same curve "
        "(Thm 8 and Thm 11 both amount to N <= 2mp) are drawn once. Thm 5 and Thm 12 are drawn "
        "for one head, m the per-head width, from the single-output Thm 4 protocol they rest "
        "on. (b) log2 of the size of the verified fooling set of all Dyck-(n,2) words under "
        "the odd/even split (symbolic DFA check), a lower bound in bits on any protocol; for "
        "n = 2 it is exactly N - 1 (Lemma 1). (c) States of the minimal complete DFA of "
        "Dyck-(n,k) (with the dead sink); by Lemma 4 a time-invariant RNN that recognises it "
        "needs mp >= log2(states) bits."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)
