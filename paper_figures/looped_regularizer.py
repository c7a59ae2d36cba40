"""Figure ``looped-regularizer``: the paper's Table 4 and Figures 2-3 at this store's scale.

A deep transformer ``(D ⊗ 1)`` trained with the block-cosine regulariser of Sec. 4 (Eq. 4-5,
λ (1 - R(k)) added to the loss, :func:`models.looped.block_cosine_penalty`) for the block sizes k
and strengths λ in the store, next to the plain deep model (λ = 0) and the looped models
``(k ⊗ D/k)`` it is pulled towards. Panel (a): final accuracy, best over learning rates and
seeds (each run a dot). Panels (b): the cosine between corresponding layers of successive
k-layer blocks, cos(θ_G^(j), θ_G^(j+k)) for j = 0..D-k-1, per parameter group G (attention Q,
K, V, O; MLP in and out), read from the ``layer_similarity`` each deep run stores with its row
(mean over its runs): with the regulariser near 1 (the paper's Figure 2), without it low (its
Figure 3). Of the tasks and settings with regularised runs, the one with the most is shown.
A run still improving when its budget ran out (undecided) is a half-filled dot
(``paper_figures.style``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from paper_figures import conclusions, style
from paper_figures.conclusions import Known, Said

NAME = "looped-regularizer"
PAPER = "looped"
GROUPS = ("attn_q", "attn_k", "attn_v", "attn_o", "ff_w1", "ff_w2")
GROUP_LABELS = {"attn_q": "Attn-Q", "attn_k": "Attn-K", "attn_v": "Attn-V", "attn_o": "Attn-O",
                "ff_w1": "FFN-W1 (in)", "ff_w2": "FFN-W2 (out)"}  # fmt: skip
COLUMNS = ("setting", "model", "k", "reg_lambda", "layers", "loops", "parameters", "accuracy",
           "runs", "seeds", "lrs", "group", "pair", "cosine", "verdict")  # fmt: skip


def setting(run: dict[str, Any]) -> tuple[Any, ...]:
    """What the compared models share: task, length, task options, width, heads."""
    cfg = run["config"]
    options = tuple(
        (k, cfg[k]) for k in ("hops", "alphabet", "group", "digits", "reverse") if k in cfg
    )
    return (run["task"], run["length"], options, run["width"], run["heads"])


def _setting_label(key: tuple[Any, ...]) -> str:
    task, length, options, width, heads = key
    shown = ", ".join(f"{k}={v}" for k, v in options)
    return f"{task}, N={length}, {shown}, width={width}, heads={heads}"


def compared(runs: list[dict[str, Any]]) -> tuple[tuple[Any, ...] | None, dict[tuple, list[dict]]]:
    """(setting, {model key: runs}) of the setting with the most regularised runs. Model keys:
    ("deep", D, 0, 0.0) plain, ("reg", D, k, λ) regularised, ("looped", k, L, 0.0)."""
    regularised = [r for r in runs if r["config"].get("reg_lambda") is not None]
    if not regularised:
        return None, {}
    counts: dict[tuple, int] = defaultdict(int)
    for run in regularised:
        counts[(setting(run), run["layers"])] += 1
    chosen, depth = max(counts, key=lambda key: counts[key])
    out: dict[tuple, list[dict]] = defaultdict(list)
    blocks = {r["config"]["reg_block"] for r in regularised if setting(r) == chosen}
    emulated = {(k, depth // k) for k in blocks}  # the looped (k ⊗ D/k) each block size pulls to
    for run in runs:
        if setting(run) != chosen:
            continue
        cfg = run["config"]
        if run["arch"] == "transformer" and run["layers"] == depth:
            lam = cfg.get("reg_lambda")
            key = ("deep", depth, 0, 0.0) if lam is None else ("reg", depth, cfg["reg_block"], lam)
            out[key].append(run)
        elif run["arch"] == "looped" and (run["layers"], cfg.get("loops", 1)) in emulated:
            out[("looped", run["layers"], cfg["loops"], 0.0)].append(run)
    return chosen, dict(out)


def label(key: tuple) -> str:
    kind, a, b, lam = key
    if kind == "deep":
        return f"({a}⊗1) plain"
    if kind == "looped":
        return f"({a}⊗{b}) looped"
    return f"({a}⊗1) reg k={b} λ={lam:g}"


def _order(key: tuple) -> tuple:
    kind, a, b, lam = key
    return ({"deep": 0, "reg": 1, "looped": 2}[kind], b if kind == "reg" else a, lam)


def successive(run: dict[str, Any], k: int) -> dict[str, list[float]]:
    """{G: [cos(θ_G^(j), θ_G^(j+k)) for j = 0..D-k-1]} from the run's stored layer similarity."""
    sims = run.get("diagnostics", {}).get("layer_similarity") or {}
    return {g: [m[j][j + k] for j in range(len(m) - k)] for g, m in sims.items()}


def _mean_cosine(runs: list[dict[str, Any]], k: int) -> float | None:
    """The mean over parameter groups, successive pairs and runs of cos(layer j, layer j+k)."""
    values = [c for r in runs for pairs in successive(r, k).values() for c in pairs]
    return sum(values) / len(values) if values else None


def conclude(found: dict[tuple, list[dict]]) -> Said:
    """How close the regulariser pulls successive blocks, and each regularised model's accuracy
    against the plain deep model and the looped model it emulates (best over runs, within its
    Wilson interval, open above where undecided)."""
    from simulations.verdicts import combine

    subject = "Block-cosine regulariser"
    if not found:
        return conclusions.no_data(subject, "no runs with the block-cosine regulariser")

    def known(key: tuple) -> Known:
        runs = found[key]
        best = max(r["accuracy"] for r in runs)
        verdict = combine([style.verdict_of(r) for r in runs])
        return conclusions.accuracy(best, verdict, int(runs[0]["config"].get("eval_samples", 1000)))

    plain = next((k for k in found if k[0] == "deep"), None)
    heads, parts = [], []
    for key in sorted((k for k in found if k[0] == "reg"), key=_order):
        _, depth, block, lam = key
        cosine = _mean_cosine(found[key], block)
        pulled = f"cosine {_cos(cosine)}" if cosine is not None else "no similarity stored"
        bare = _mean_cosine(found[plain], block) if plain else None
        if bare is not None:
            pulled += f" against {_cos(bare)} plain"
        against = [
            (name, other)
            for name, other in (
                ("plain", plain),
                ("looped", ("looped", block, depth // block, 0.0)),
            )
            if other in found
        ]
        words = {name: ORDER_WORDS[conclusions.order(known(key), known(o))] for name, o in against}
        runs = len(found[key])
        versus = ", ".join(
            f"{words[name]} the {name} model's {max(r['accuracy'] for r in found[o]):.3f}"
            for name, o in against
        )
        parts.append(
            f"{label(key)}: {pulled}; accuracy "
            f"{max(r['accuracy'] for r in found[key]):.3f} ({runs} "
            f"run{'s' if runs > 1 else ''}), {versus}"
        )
        plain_words = f", accuracy {words['plain']} the plain model" if "plain" in words else ""
        heads.append(f"λ = {lam:g}, k = {block}: {pulled}{plain_words}")
    return Said(f"{subject}: " + "; ".join(heads), ". ".join(parts) + ".")


def _cos(value: float) -> str:
    """A cosine to two places, without a sign on zero."""
    return f"{0.0 if abs(value) < 0.005 else value:.2f}"


ORDER_WORDS = conclusions.RELATION


def summary(store_path: str | None) -> Said:
    """The title and conclusion from the store alone, nothing drawn."""
    return conclude(compared(style.load_runs(store_path)[0])[1])


@dataclass(frozen=True)
class Compared:
    """The models the figure compares: the setting shown, its runs per model key, the keys in
    the order drawn and a colour for each."""

    chosen: tuple | None
    found: dict[tuple, list[dict]]
    keys: list[tuple]
    colours: Any


def _accuracy_panel(ax: Any, models: Compared, csv_rows: list[dict[str, Any]]) -> None:
    """(a): each model's best final accuracy as a bar, each run a dot."""
    from simulations.verdicts import combine

    chosen, found, keys, colours = models.chosen, models.found, models.keys, models.colours

    for i, key in enumerate(keys):
        accs = [r["accuracy"] for r in found[key]]
        verdicts = [style.verdict_of(r) for r in found[key]]
        colour = {"deep": "#7f7f7f", "looped": "#d62728"}.get(key[0], colours[i])
        ax.bar(i, max(accs), color=colour, alpha=0.8)
        for acc, verdict in zip(accs, verdicts, strict=True):
            ax.plot(
                [i],
                [acc],
                ls="none",
                marker="o",
                markersize=5,
                **style.verdict_marks(verdict, "black"),
            )
        ax.text(i, max(accs) + 0.02, f"{max(accs):.3f}", ha="center", fontsize=8)
        first = found[key][0]
        csv_rows.append(
            {
                "setting": _setting_label(chosen),
                "model": label(key),
                "k": key[2],
                "reg_lambda": key[3],
                "layers": first["layers"],
                "loops": first["config"].get("loops", 1),
                "parameters": first["parameters"],
                "accuracy": max(accs),
                "runs": len(accs),
                "seeds": " ".join(str(s) for s in sorted({r["seed"] for r in found[key]})),
                "lrs": " ".join(f"{lr:g}" for lr in sorted({r["lr"] for r in found[key]})),
                "verdict": combine(verdicts),
            }
        )
    if not found:
        style.note(ax, "no regularised runs (reg_lambda) in the store")
        ax.set_xticks([])
        ax.set_yticks([])
        return
    ax.set_xticks(range(len(keys)), [label(k) for k in keys], fontsize=8)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("final accuracy")
    ax.set_title(
        f"(a) accuracy, best over learning rates and seeds (dots: runs)\n{_setting_label(chosen)}",
        fontsize=10,
    )
    if any(r["verdict"] == "undecided" for r in csv_rows):
        ax.legend(handles=[style.undecided_handle(colour="black")], fontsize=7, loc="upper left")


def _similarity_panels(
    fig: Any, grid: Any, models: Compared, csv_rows: list[dict[str, Any]]
) -> None:
    """(b): per block size and parameter group, cos(layer j, layer j+k) of the deep models."""
    from simulations.verdicts import combine

    chosen, found, keys, colours = models.chosen, models.found, models.keys, models.colours

    blocks = sorted({key[2] for key in found if key[0] == "reg"}) or [1]
    depth_keys = [k for k in keys if k[0] in ("deep", "reg")]
    for row, k in enumerate(blocks, start=1):
        for col, group in enumerate(GROUPS):
            sub = fig.add_subplot(grid[row, col])
            sub.set_ylim(-0.2, 1.05)
            sub.axhline(0, color="#cccccc", linewidth=0.8)
            sub.set_title(f"{GROUP_LABELS[group]}, k = {k}", fontsize=9)
            if col == 0:
                sub.set_ylabel("cos(layer j, layer j+k)")
            if row == len(blocks):
                sub.set_xlabel("j")
            for key in (d for d in depth_keys if d[0] == "deep" or d[2] == k):
                pairs = [p for p in (successive(r, k).get(group) for r in found[key]) if p]
                if not pairs:
                    continue
                mean = np.mean(np.array(pairs), axis=0)
                colour = "#7f7f7f" if key[0] == "deep" else colours[keys.index(key)]
                sub.plot(range(len(mean)), mean, "o-", color=colour, label=label(key), markersize=4)
                sub.set_xticks(range(len(mean)))
                verdict = combine([style.verdict_of(r) for r in found[key]])
                csv_rows.extend(
                    {
                        "setting": _setting_label(chosen),
                        "model": label(key),
                        "k": k,
                        "reg_lambda": key[3],
                        "group": group,
                        "pair": f"{j}-{j + k}",
                        "cosine": float(value),
                        "verdict": verdict,
                    }
                    for j, value in enumerate(mean)
                )
            if row == 1 and col == len(GROUPS) - 1 and depth_keys:
                sub.legend(fontsize=7, loc="lower right")


def make(store_path: str | None, out_dir: Path, profile: str | None) -> dict[str, Any]:
    """Draw the accuracy panel and the block-similarity panels into ``out_dir``."""
    runs, missing = style.load_runs(store_path)
    chosen, found = compared(runs)
    said = conclude(found)
    blocks = sorted({key[2] for key in found if key[0] == "reg"})
    fig = plt.figure(figsize=(14, 3.6 + 2.6 * max(1, len(blocks))))
    grid = fig.add_gridspec(
        1 + max(1, len(blocks)), len(GROUPS), height_ratios=[1.3] + [1] * max(1, len(blocks))
    )
    if not found:
        missing.append(f"{NAME}: no runs with the block-cosine regulariser in the store")
    keys = sorted(found, key=_order)
    colours = plt.get_cmap("viridis")(np.linspace(0.15, 0.85, max(1, len(keys))))
    csv_rows: list[dict[str, Any]] = []
    models = Compared(chosen, found, keys, colours)
    _accuracy_panel(fig.add_subplot(grid[0, :]), models, csv_rows)
    _similarity_panels(fig, grid, models, csv_rows)
    depth_keys = [k for k in keys if k[0] in ("deep", "reg")]
    if found and not any(
        r.get("diagnostics", {}).get("layer_similarity") for key in depth_keys for r in found[key]
    ):
        missing.append(f"{NAME}: the deep runs stored no layer similarity (older store)")
    style.suptitle(fig, said.title, fontsize=12)
    fig.tight_layout()
    every = [style.verdict_of(r) for key in keys for r in found[key]]  # one per run drawn
    files = style.save(fig, out_dir, NAME, csv_rows, COLUMNS, every)
    caption = (
        "(a) The paper's Table 4 at this store's scale: a deep transformer (D⊗1) trained plain, "
        "with the regulariser λ (1 - R(k)) of Eq. 5 (sign fixed so that it pulls blocks "
        "together) for block size k, and the looped (k⊗D/k) it emulates; final accuracy on "
        "fresh examples, best over learning rates and seeds, each run a dot (half-filled: "
        "undecided, still improving when its budget ran out, so its accuracy is the budget's). "
        "(b) The paper's Figures 2-3: cosine between layer j and layer j+k of the final deep "
        "models per parameter group, mean over runs. "
        f"Training: {style.training_summary(runs)} "
        f"Data: {style.store_label(store_path, profile)}."
    )
    return conclusions.say(said, name=NAME, files=files, caption=caption, missing=missing)
