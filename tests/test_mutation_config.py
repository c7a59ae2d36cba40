"""The mutation tool's configuration stays usable: every module ``make mutation`` lists and every
test file it maps exist, each committed result belongs to a listed module, and each equivalent
mutant names a mutant of a listed module with the lines it changes and a reason (a reason is
honoured only while those lines match, so a malformed entry would silently stop counting)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_tool():
    spec = importlib.util.spec_from_file_location("mutation_tool", ROOT / "benchmarks/mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_listed_module_and_test_file_exists() -> None:
    tool = load_tool()
    assert tool.MODULES
    for module, spec in tool.MODULES.items():
        assert (ROOT / module).is_file(), module
        assert spec.tests, module
        for test in spec.tests:
            assert (ROOT / test).is_file(), f"{module}: {test}"


def test_results_and_equivalents_name_listed_modules() -> None:
    tool = load_tool()
    slugs = {tool.slug(m) for m in tool.MODULES}
    results = json.loads((ROOT / "benchmarks/results/mutation.json").read_text())["modules"]
    assert set(results) <= set(tool.MODULES)
    entries = tool.tomllib.loads((ROOT / "benchmarks/mutation_equivalent.toml").read_text())
    names = [e["mutant"] for e in entries["equivalent"]]
    assert len(names) == len(set(names)), "an equivalent mutant listed twice"
    for e in entries["equivalent"]:
        assert set(e) == {"mutant", "change", "reason"}, e["mutant"]
        assert e["mutant"].rsplit(".", 1)[0] in slugs, e["mutant"]
        assert "__mutmut_" in e["mutant"], e["mutant"]
        assert any(c.startswith("-") for c in e["change"]), e["mutant"]
        assert any(c.startswith("+") for c in e["change"]), e["mutant"]
        assert len(e["reason"].split()) >= 3, e["mutant"]
        # a reason that leans on another ("as f__mutmut_7: ...") names one that is listed
        module = e["mutant"].rsplit(".", 1)[0]
        for other in re.findall(r"\b(\w+__mutmut_\d+)\b", e["reason"]):
            assert any(n.startswith(module + ".") and n.endswith(other) for n in names), (
                f"{e['mutant']} refers to {other}, which is not listed"
            )
