"""``ccx figure`` and ``ccx report`` take their figures from one registry,
``paper_figures.FIGURES``, and listing them imports no plotting library."""

from __future__ import annotations

import re
import subprocess
import sys

from paper_figures import FIGURES


def test_figure_help_lists_every_registered_figure(ccx):
    code, out, _ = ccx("figure", "--help")
    assert code == 0
    text = " ".join(re.sub(r"-\n\s*", "-", out).split())  # undo the help's line wrapping
    listed = re.search(r"The figure: ([^.]*)\.", text)
    assert listed is not None, text
    assert listed.group(1).split(", ") == list(FIGURES)


def test_every_registered_figure_has_a_module_with_make():
    assert len(FIGURES) == len(set(FIGURES)) > 0
    for name in FIGURES:
        assert callable(FIGURES[name].make), name


def test_listing_the_figures_imports_no_plotting_library():
    script = (
        "import sys; from ccx import main; code = main(['figure', '--help']);"
        "loaded = [m for m in ('matplotlib', 'torch') if m in sys.modules];"
        "assert not loaded, loaded; sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "parrots-memorization" in done.stdout
