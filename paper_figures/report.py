"""The HTML report: every paper figure its stores have data for, with its title, its conclusion,
its caption and its numbers, in one folder.

``write_report(out_dir, store, profile)`` draws each figure of ``paper_figures.FIGURES`` that its
store has data for (:func:`paper_figures.has_data`) into ``out_dir`` and writes
``out_dir/index.html``, which shows each PNG by relative path (so the folder can be moved or
served as is), its computed title and conclusion, its caption, links to its PDF and CSV, and
what the store lacks for it: a panel without data is left out of the figure, and the page names
the command that fills it. The figures the store has no data for are named in one line, each
with the command that fills it; none of them is drawn. A header names the stores, the profiles
(or sweep specs) that wrote each, as the store records them, and the date.
"""

from __future__ import annotations

import html
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

_STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
figure { margin: 2.5em 0; border-top: 1px solid #ccc; padding-top: 1em; }
img { max-width: 100%; }
figcaption { font-size: 0.95em; }
.missing { background: #fff3cd; border: 1px solid #c9a227; padding: 0.4em 0.8em; }
table.meta td { padding: 0 1em 0 0; }
"""


def _figure_html(result: dict[str, Any]) -> str:
    name = html.escape(result["name"])
    parts = [
        f'<figure id="{name}">',
        f"<h2>{name}: {html.escape(result['title'])}</h2>",
        f'<img src="{name}.png" alt="figure {name}">',
        f"<p><b>{html.escape(result['conclusion'])}</b></p>",
        f"<figcaption>{html.escape(result['caption'])}<br>",
        f'Files: <a href="{name}.pdf">{name}.pdf</a>, '
        f'<a href="{name}.csv">{name}.csv</a> (the plotted numbers).</figcaption>',
    ]
    if result.get("left_out"):
        items = "".join(f"<li>{html.escape(m)}</li>" for m in result["left_out"])
        command = html.escape(result["fill_command"])
        parts.append(
            f'<div class="missing">Panels left out, no data in the store:<ul>{items}</ul>'
            f"Filled by <code>{command}</code>.</div>"
        )
    if result["missing"]:
        items = "".join(f"<li>{html.escape(m)}</li>" for m in result["missing"])
        parts.append(f'<div class="missing">Missing from the store:<ul>{items}</ul></div>')
    parts.append("</figure>")
    return "\n".join(parts)


def _absent_html(absent: list[str], fill_command: Any) -> str:
    """One line naming the figures the stores have no data for, and what fills each."""
    if not absent:
        return ""
    named = "; ".join(
        f"{html.escape(n)} (<code>{html.escape(fill_command(n))}</code>)" for n in absent
    )
    return f'<p class="missing">Not drawn, no data in the store: {named}.</p>'


def _profiles(store: str, profile: str | None) -> str:
    """The profiles (or sweep specs) that wrote ``store``, as the store records them."""
    from simulations.store import Store

    with Store(store, readonly=True) as opened:
        names = opened.sweeps()
    if profile is not None and profile not in names:
        names.append(profile)
    return ", ".join(names) or "not recorded (runs of `ccx train`, or an older store)"


def write_report(
    out_dir: str | Path,
    store: str | Path | None = None,
    profile: str | None = None,
    stores: dict[str, str] | None = None,
) -> Path:
    """Draw every figure into ``out_dir`` and write ``out_dir/index.html``; return its path.

    ``store``: plot that results store (nothing is run).  Only ``profile``: run or resume that
    profile's sweep into ``results/<profile>.db`` first, then plot it.  Neither: the figures
    that need no store are drawn in full, the others say what is missing.  ``stores`` maps a
    paper, or a figure, to its own store (the demo: each paper's figures from its own training
    slice, the ``bite`` figure from its own); a figure of neither uses ``store``.
    """
    from ccomplexity.files import atomic_open, check_folder_files, check_output_folder
    from paper_figures import (
        FIGURES,
        figure_files,
        fill_command,
        has_data,
        make_figure,
        paper_of,
        prepare_store,
    )

    out = check_output_folder(out_dir, "report folder")
    written = ["index.html", *(f for name in FIGURES for f in figure_files(name))]
    check_folder_files(out, written, "report file", inputs=[store, *(stores or {}).values()])
    store_path = prepare_store(store, profile)
    for own_store in (stores or {}).values():
        prepare_store(own_store, None)
    out.mkdir(parents=True, exist_ok=True)
    own = stores or {}
    chosen = {name: own.get(name, own.get(paper_of(name), store_path)) for name in FIGURES}
    drawn = [name for name, path in chosen.items() if has_data(name, path)]
    results = [make_figure(name, out, store=chosen[name], profile=profile) for name in drawn]
    absent = [name for name in FIGURES if name not in drawn]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    used = {**({"every paper": store_path} if store_path else {}), **own}
    stores_label = "; ".join(f"{p}: {s}" for p, s in used.items()) or "none (bounds only)"
    profiles_label = "; ".join(f"{p}: {_profiles(s, profile)}" for p, s in used.items())
    contents = "".join(
        f'<li><a href="#{html.escape(r["name"])}">{html.escape(r["name"])}</a></li>'
        for r in results
    )
    page = "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            "<title>ccomplexity: paper figures</title>",
            f"<style>{_STYLE}</style></head><body>",
            "<h1>ccomplexity: paper figures</h1>",
            '<table class="meta">',
            f"<tr><td>Profile</td><td>{html.escape(profiles_label or 'none')}</td></tr>",
            f"<tr><td>Results store</td><td>{html.escape(stores_label)}</td></tr>",
            f"<tr><td>Written</td><td>{now}</td></tr>",
            "</table>",
            f"<ul>{contents}</ul>",
            _absent_html(absent, fill_command),
            *(_figure_html(r) for r in results),
            "</body></html>",
        ]
    )
    index = out / "index.html"
    with atomic_open(index, what="report page") as handle:
        handle.write(page)
    return index


__all__ = ["write_report"]
