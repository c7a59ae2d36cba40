"""Every figure drawn from every shipped store plots the numbers it plotted when its golden
digest was taken (``tests/golden/shipped_figures.json``: the SHA-256 of each figure's CSV).

A change to the code that moves a plotted number, a verdict or a row fails here; a deliberate
one re-takes the digests (``python tests/paper_figures/test_shipped_figures.py``) and says why
in its commit."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pytest

import paper_figures

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "shipped_figures.json"
SHIPPED = ROOT / "shipped"


def drawn_pairs() -> list[tuple[str, str]]:
    """(figure, shipped store) for every figure drawn from training runs and every shipped
    store it has data in."""
    return [
        (name, store.name)
        for store in sorted(SHIPPED.glob("*.db"))
        for name in paper_figures.FIGURES
        if name in paper_figures.NEEDS_STORE and name not in paper_figures.STANDALONE
        if paper_figures.has_data(name, str(store))
    ]


def digest(name: str, store: str, folder: Path) -> str:
    paper_figures.make_figure(name, folder, store=str(SHIPPED / store))
    return hashlib.sha256((folder / f"{name}.csv").read_bytes()).hexdigest()


GOLDEN_DIGESTS: dict[str, str] = json.loads(GOLDEN.read_text()) if GOLDEN.is_file() else {}


def test_every_figure_with_data_in_a_shipped_store_has_a_digest():
    assert sorted(f"{n} {s}" for n, s in drawn_pairs()) == sorted(GOLDEN_DIGESTS)


@pytest.mark.parametrize("key", sorted(GOLDEN_DIGESTS))
def test_a_shipped_figure_plots_what_it_plotted(key, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "savefig", lambda *a, **k: None)  # the CSV is what is compared
    name, store = key.split()
    assert digest(name, store, tmp_path) == GOLDEN_DIGESTS[key], (
        f"`ccx figure {name} --store shipped/{store}` plots other numbers than its golden CSV"
    )


if __name__ == "__main__":  # re-take the digests, deliberately
    taken = {}
    for name, store in drawn_pairs():
        with tempfile.TemporaryDirectory() as folder:
            taken[f"{name} {store}"] = digest(name, store, Path(folder))
    GOLDEN.write_text(json.dumps(taken, indent=1, sort_keys=True) + "\n")
    print(f"{len(taken)} digests into {GOLDEN}", file=sys.stderr)
