"""The arrows go one way: ccomplexity <- models <- simulations <- paper_figures <- ccx.

Checked on the source (every import statement, module level or inside a function), so that a
lazy import cannot hide a wrong-way dependency: ``ccomplexity`` never imports torch, models,
simulations, paper_figures or the CLI; ``models`` never imports simulations, paper_figures or the
CLI; ``simulations`` never imports paper_figures or the CLI; ``paper_figures`` never imports the
CLI. The CLI (``ccx``) is the top floor: it imports the others and nothing imports it.

Within and across the packages no import circle remains: the graph of modules (an edge for every
import, lazy ones included) has no cycle, so no two modules import each other, directly or
through others.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
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


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _running_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:``, which only type
    checkers read (a package's typed exports, for instance)."""
    out, todo = [], [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def import_graph(root: Path, packages: tuple[str, ...]) -> nx.DiGraph:
    """Modules of ``packages`` under ``root`` and an edge a -> b for every import of b in a
    that runs (module level or inside a function, not under ``if TYPE_CHECKING:``; ``from p
    import m`` of a submodule m is an edge to p.m, of a name defined in p an edge to p; relative
    imports resolved)."""
    files = {_module_name(p, root): p for pkg in packages for p in (root / pkg).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for module, path in files.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in _running_nodes(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        [*package[: len(package) - node.level + 1], *filter(None, [base])]
                    )
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base
                    for alias in node.names
                ]
            else:
                continue
            for target in targets:
                while target and target not in files:  # a name inside a module: that module
                    target = target.rpartition(".")[0]
                if target and target != module:
                    graph.add_edge(module, target)
    return graph


def import_cycles(graph: nx.DiGraph) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others."""
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_no_import_circles():
    cycles = import_cycles(import_graph(ROOT, tuple(FORBIDDEN) + ("ccx",)))
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_check_sees_planted_circles(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.a import f\n")
    (pkg / "a.py").write_text("def f():\n    from pkg import b\n")  # lazy, a submodule
    (pkg / "b.py").write_text("from . import a\n")  # relative
    (pkg / "c.py").write_text("import pkg.d\n")
    (pkg / "d.py").write_text("from pkg.e import g\n")  # a name in a module
    (pkg / "e.py").write_text("def g():\n    from pkg.c import x\n")  # c -> d -> e -> c
    (pkg / "f.py").write_text("from pkg import a\n")  # one way only: no circle
    (pkg / "g.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.h\n"
    )
    (pkg / "h.py").write_text("import pkg.g\n")  # g reads h only when type checking
    graph = import_graph(tmp_path, ("pkg",))
    assert import_cycles(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d", "pkg.e"]]
    assert graph.has_edge("pkg", "pkg.a") and graph.has_edge("pkg.f", "pkg.a")
    assert graph.has_edge("pkg.h", "pkg.g") and not graph.has_edge("pkg.g", "pkg.h")
