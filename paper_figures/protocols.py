"""Figure ``protocols``: bits the model protocols send against the bits a problem needs.

From the formulas of ``ccomplexity.bounds`` (no store, no training): Thm 2's one-way message
of an RNN (its state, m values of p bits, whatever N), Thm 4's protocol for a one-layer
transformer (closed form 3 m (p + log2 N) H, and itemised d p + H (2p + 2(p + log2 N) + 4 m p)),
against the lower bounds N (index lookup, one way) and N - 1 (Dyck-(2,2), odd/even split).
Where a protocol line is below a lower-bound line, no such model solves that problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from ccomplexity import bounds
from paper_figures import style

NAME = "protocols"
PRECISION = 32
LENGTHS = [2**k for k in range(3, 21)]
RNN_STATES = (128, 512)  # LSTM of width 64 / 256: h and c
TF_WIDTH, TF_HEADS = 64, 4
COLUMNS = ("series", "length", "bits", "m", "d", "p", "H")


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the figure into ``out_dir`` (``store_path`` and ``profile`` are unused)."""
    rows: list[dict[str, Any]] = []
    fig, ax = plt.subplots(figsize=(8.5, 5.8))

    def line(series: str, bits: list[float], ls: Any, c: str, **params: int) -> None:
        ax.plot(LENGTHS, bits, ls=ls, color=c, lw=1.8, label=series)
        rows.extend({"series": series, "length": n, "bits": b, **params}
                    for n, b in zip(LENGTHS, bits, strict=True))  # fmt: skip

    thm2 = bounds.get("separations.thm2")
    for m, ls in zip(RNN_STATES, ("-", "-."), strict=True):
        bits = [float(thm2.value(width=m, precision=PRECISION))] * len(LENGTHS)
        line(f"Thm 2: RNN state, m = {m} values x p = {PRECISION}", bits, ls,
             style.colour("lstm"), m=m, p=PRECISION)  # fmt: skip
    m = TF_WIDTH // TF_HEADS
    closed = [bounds.thm4_closed_form(m, PRECISION, n, TF_HEADS) for n in LENGTHS]
    itemised = [bounds.thm4_itemised(m, TF_WIDTH, PRECISION, n, TF_HEADS).total for n in LENGTHS]
    tf = style.colour("transformer")
    common = {"m": m, "d": TF_WIDTH, "p": PRECISION, "H": TF_HEADS}
    line(f"Thm 4 closed form 3m(p+log2 N)H, d = {TF_WIDTH}, H = {TF_HEADS}", closed, "-", tf,
         **common)  # fmt: skip
    line("Thm 4 itemised (erratum 1): dp + H(2p + 2(p+log2 N) + 4mp)", itemised, "--", tf,
         **common)  # fmt: skip
    line(
        "needed one way (RNN): index lookup, N bits (Thm 3)", [float(n) for n in LENGTHS], ":", "k"
    )
    line("needed by any protocol: Dyck-(2,2) odd/even, N - 1 bits", [n - 1.0 for n in LENGTHS],
         (0, (5, 1, 1, 1)), "#555555")  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("sequence length N (tokens)")
    ax.set_ylabel("bits communicated")
    ax.set_title(f"Protocol cost vs what the problem needs (p = {PRECISION} bits)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    files = style.save(fig, out_dir, NAME, rows, COLUMNS)
    caption = (
        f"Bits sent by the simulation protocols at precision p = {PRECISION} bits, from the "
        f"formulas (no training): an RNN sends its whole state once (Thm 2), m p bits whatever "
        f"N; a one-layer transformer of width d = {TF_WIDTH} with H = {TF_HEADS} heads "
        f"(m = d/H = {m} per head) sends 3m(p + log2 N)H bits by Thm 4's closed form, or the "
        f"itemised count of its steps. Dotted and dash-dotted: the bits any protocol needs "
        f"(index lookup one way: N; Dyck-(2,2) with the odd/even split: N - 1). Past the "
        f"length where a protocol line drops below a needed line, that model cannot solve the "
        f"problem (Thm 3, Thm 5). The index-lookup line binds one-way protocols only (RNNs); "
        f"with two-way communication index lookup needs only about log2 N bits, which is why a "
        f"one-layer transformer solves it (Thm 1)."
    )
    return {"name": NAME, "files": files, "caption": caption, "missing": []}
