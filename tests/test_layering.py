"""The arrows go one way: ccomplexity <- models <- simulations <- paper_figures <- ccx.

Checked on the source (every import statement, module level or inside a function), so that a
lazy import cannot hide a wrong-way dependency: ``ccomplexity`` never imports torch, models,
simulations, paper_figures or the CLI; ``models`` never imports simulations, paper_figures or the
CLI; ``simulations`` never imports paper_figures or the CLI; ``paper_figures`` never imports the
CLI. The CLI (``ccx``) is the top floor: it imports the others and nothing imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
FORBIDDEN = {
    "ccomplexity": ("torch", "models", "simulations", "paper_figures", "ccx"),
    "models": ("simulations", "paper_figures", "ccx"),
    "simulations": ("paper_figures", "ccx"),
    "paper_figures": ("ccx",),
}


def imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_against_the_layering(package):
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, name in imports(path):
            top = name.split(".")[0]
            if top in FORBIDDEN[package]:
                wrong.append(f"{rel}:{line} imports {name}")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_lazy_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("def f():\n    import torch\n    from models import base\n")
    assert [name for _, name in imports(source)] == ["torch", "models"]
