"""Plugin tasks in the exact core: the decorator's contract, loading files and entry points,
and every computed quantity checked against brute force over all words."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from ccomplexity import plugin_bounds, plugin_problems, plugins
from ccomplexity.errors import InputError

FIRST_EQUALS_LAST = """
import numpy as np
from ccomplexity.plugins import task

@task(name="first-equals-last", alphabet=3, lengths=(2, 64))
def first_equals_last(words: np.ndarray) -> np.ndarray:   # (batch, N) ints -> (batch,) 0/1
    return (words[:, 0] == words[:, -1]).astype(np.int8)
"""


@pytest.fixture(autouse=True)
def isolated():
    """Every test registers into a registry of its own."""
    with plugins.scope():
        yield


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def majority():
    @plugins.task(name="majority", alphabet=2, lengths=(1, 16))
    def majority_(words):
        return (2 * words.sum(axis=1) > words.shape[1]).astype(np.int8)

    return majority_


def brute_one_way(function, alphabet: int, length: int, cut: int) -> int:
    """Distinct rows of the communication matrix at prefix:cut, by enumeration in Python."""
    rows = set()
    for x in itertools.product(range(alphabet), repeat=cut):
        row = tuple(
            int(function(np.array([x + y]))[0])
            for y in itertools.product(range(alphabet), repeat=length - cut)
        )
        rows.add(row)
    return len(rows)


def per_cut(name: str, length: int) -> list[tuple[int, int, int]]:
    """(cut, distinct rows, bits) at every cut, from the runs of :func:`one_way_per_cut`."""
    runs, _ = plugin_bounds.one_way_per_cut(name, length)
    return [
        (k, r["distinct_rows"], r["bits"])
        for r in runs
        for k in range(r["cuts"][0], r["cuts"][1] + 1)
    ]


def test_the_issue_contract_loads_from_a_file(tmp_path):
    names = plugins.load_file(write(tmp_path, "my_task.py", FIRST_EQUALS_LAST))
    assert names == ["first-equals-last"]
    found = plugins.require_task("first-equals-last")
    assert (found.alphabet, found.lengths, found.classes, found.source) == (
        3,
        (2, 64),
        2,
        "my_task.py",
    )
    assert found.sha256 == __import__("hashlib").sha256(FIRST_EQUALS_LAST.encode()).hexdigest()
    assert found(np.array([[1, 0, 1], [1, 0, 2]])).tolist() == [1, 0]


def test_a_scope_forgets_its_plugins(tmp_path):
    with plugins.scope():
        plugins.load_file(write(tmp_path, "my_task.py", FIRST_EQUALS_LAST))
        assert plugins.task_definition("first-equals-last") is not None
    assert plugins.task_definition("first-equals-last") is None
    with pytest.raises(InputError, match="'first-equals-last'.*no loaded plugin"):
        plugins.require_task("first-equals-last")


@pytest.mark.parametrize("name", ["dyck", "equality", "nearest-neighbour", "index-lookup"])
def test_a_plugin_never_shadows_a_built_in_task(name):
    pytest.importorskip("torch")
    import simulations.tasks  # noqa: F401  (each registry declares its tasks)
    from ccomplexity import claims  # noqa: F401

    with pytest.raises(InputError, match="shadow"):
        plugins.task(name=name, alphabet=2, lengths=(1, 4))


def test_the_built_in_names_are_those_the_registries_declare():
    from ccomplexity import claims, problems

    assert set(problems.PROBLEMS) | set(claims.tasks()) <= plugins.built_in("task")
    pytest.importorskip("torch")
    import models
    from simulations.tasks import TASKS

    assert set(problems.PROBLEMS) | set(claims.tasks()) | set(TASKS) == plugins.built_in("task")
    assert set(models.REGISTRY) == plugins.built_in("model")
    assert set(models.FAMILIES.values()) == plugins.built_in("family")


def test_a_plugin_that_took_a_name_first_is_refused_when_its_registry_declares_it():
    plugins.task(name="not-yet-built-in", alphabet=2, lengths=(1, 4))(lambda w: w[:, 0])
    with pytest.raises(InputError, match="'not-yet-built-in'.*would shadow the built-in task"):
        plugins.declare("task", ["not-yet-built-in"])
    plugins._BUILT_IN["task"].discard("not-yet-built-in")


def test_the_lowest_floor_names_no_built_in_of_the_floors_above():
    """The registry holds no task or model name of its own: it learns them, and the model
    families, from the registries that declare them (the one family it names is the default
    of :func:`plugins.model`, "recurrent")."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(plugins))
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert not strings & {"index-lookup", "lstm", "transformer", "concat-attention", "dyck"}


@pytest.mark.parametrize(
    "text, match",
    [
        ("raise RuntimeError('boom')", "plugin .*bad.py failed: RuntimeError: boom"),
        (
            "from ccomplexity.plugins import task\n"
            "task(name='Bad Name', alphabet=2, lengths=(1,2))",
            "lowercase",
        ),
        (
            "from ccomplexity.plugins import task\ntask(name='x', alphabet=2, lengths=(5, 2))",
            "most length",
        ),
    ],
)
def test_a_bad_plugin_is_one_line(tmp_path, text, match):
    with pytest.raises(InputError, match=match):
        plugins.load_file(write(tmp_path, "bad.py", text))


def test_a_plugin_file_must_be_python(tmp_path):
    with pytest.raises(InputError, match=r"\.py"):
        plugins.load_file(write(tmp_path, "task.txt", FIRST_EQUALS_LAST))


def test_bad_values_of_the_word_function_are_refused():
    @plugins.task(name="twos", alphabet=2, lengths=(1, 4))
    def twos(words):
        return np.full(len(words), 2)

    with pytest.raises(InputError, match=r"values must lie in 0\.\.1"):
        twos(np.zeros((3, 2), dtype=np.int64))


def plant_distribution(
    folder: Path, module: str, task_name: str, group: str = plugins.TASK_GROUP, text: str = ""
) -> None:
    """A distribution as pip installs one: ``<name>.dist-info`` with an entry point of
    ``group`` naming ``module``, and the module (``text``, by default registering the task
    ``task_name``), which leaves a mark (``<module>.imported``) in the working folder when it is
    imported."""
    info = folder / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{task_name} = {module}\n")
    text = text or FIRST_EQUALS_LAST.replace("first-equals-last", task_name)
    write(folder, f"{module}.py", f"open('{module}.imported', 'w').close()\n{text}")


def test_entry_points_load_only_when_opted_in_and_only_when_installed(monkeypatch, tmp_path):
    """An installed distribution's entry point is loaded on the first miss once the user opted
    in (CCX_ENTRY_POINTS=1), never before; one in the working folder never, opted in or not."""
    import sys

    site, here = tmp_path / "site", tmp_path / "here"
    site.mkdir()
    here.mkdir()
    plant_distribution(site, "fake_installed_pkg", "fel")
    plant_distribution(here, "fake_local_pkg", "local-task")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend("")  # the working folder, as under python -m or -c
    monkeypatch.chdir(here)
    monkeypatch.setattr(plugins._REGISTRY, "entry_points_loaded", False)
    for module in ("fake_installed_pkg", "fake_local_pkg"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.delenv(plugins.ENTRY_POINTS_ENV, raising=False)
    with plugins.scope():
        with pytest.raises(InputError, match="opt in with ccx --entry-points"):
            plugins.require_task("fel")
        assert plugins.task_definition("local-task") is None
        assert not list(here.glob("*.imported"))  # nothing was imported
        monkeypatch.setenv(plugins.ENTRY_POINTS_ENV, "1")
        found = plugins.require_task("fel")
        assert found.source == "fake_installed_pkg.py" and found.alphabet == 3
        assert plugins.task_definition("local-task") is None
    assert [p.name for p in here.glob("*.imported")] == ["fake_installed_pkg.imported"]
    assert "" in sys.path  # the working folder is off the path only while a plugin imports


# ------------------------------------------------------------------------------ exact core


@pytest.mark.parametrize("length", [5, 6])
def test_one_way_per_cut_equals_brute_force(length):
    fn = majority()
    got = per_cut("majority", length)
    assert [cut for cut, _, _ in got] == list(range(1, length))
    for cut, rows, bits in got:
        distinct = brute_one_way(fn, 2, length, cut)
        assert rows == distinct
        assert bits == (distinct - 1).bit_length()


def test_a_given_dfa_gives_the_same_per_cut_bits_as_the_matrix():
    from ccomplexity.automata import DFA

    # last two symbols equal, over 3 symbols: state = (last symbol, whether the last two agree)
    table = np.zeros((7, 3), dtype=np.int64)
    for a in range(3):
        table[0, a] = 1 + 2 * a
        for q in range(1, 7):
            last = (q - 1) // 2
            table[q, a] = 1 + 2 * a + (a == last)
    accepting = np.array([q > 0 and (q - 1) % 2 == 1 for q in range(7)])
    dfa = DFA(table, 0, accepting, ("0", "1", "2"))

    @plugins.task(name="last-two", alphabet=3, lengths=(2, 100), dfa=dfa)
    def last_two(words):
        return (words[:, -1] == words[:, -2]).astype(np.int8)

    symbolic = per_cut("last-two", 6)
    assert plugin_problems.dfa_agrees("last-two", 6)
    for cut, rows, _ in symbolic:
        assert rows == brute_one_way(last_two, 3, 6, cut)
    assert plugin_problems.dfa_summary("last-two")["method"] == "given"


def test_the_dfa_from_the_function_is_the_myhill_nerode_index():
    fn = majority()
    length = 5
    got = plugin_problems.dfa_summary("majority", length)
    words = {w for w in itertools.product((0, 1), repeat=length) if fn(np.array([w]))[0]}
    prefixes = [p for n in range(length + 2) for p in itertools.product((0, 1), repeat=n)]
    suffixes = [s for n in range(length + 1) for s in itertools.product((0, 1), repeat=n)]
    classes = {frozenset(s for s in suffixes if p + s in words) for p in prefixes}
    assert (got["method"], got["states"], got["live_states"]) == (
        "function",
        len(classes),
        len(classes) - 1,
    )


def test_a_plugins_own_dfa_is_priced_before_it_is_minimised_or_checked(monkeypatch):
    """A given DFA is minimised, and checked against the word function on every word, only
    within the budget: refused in one line before any work."""
    from ccomplexity import budget

    @plugins.task(name="given", alphabet=2, lengths=(1, 64), dfa=last_is_one())
    def given(words):
        return (words[:, -1] == 1).astype(np.int8)

    assert plugin_problems.dfa_agrees("given", 8)
    monkeypatch.setenv(budget.WORK_ENV, "1K")
    with pytest.raises(InputError, match="minimising its DFA of 2 states x 2 symbols takes"):
        plugin_problems.minimal_dfa("given")
    with pytest.raises(InputError, match=r"checking its DFA on all 2\^16 words"):
        plugin_problems.dfa_agrees("given", 16)


def last_is_one():
    """The DFA of "the last symbol is 1" over {0, 1}."""
    from ccomplexity.automata import DFA

    return DFA(np.array([[0, 1], [0, 1]]), 0, np.array([False, True]), ("0", "1"))


def test_a_label_task_has_no_dfa_but_one_way_bits():
    @plugins.task(name="count-ones", alphabet=2, lengths=(1, 8), labels=4)
    def count_ones(words):
        return np.minimum(words.sum(axis=1), 3)

    got = per_cut("count-ones", 4)
    assert [rows for _, rows, _ in got] == [brute_one_way(count_ones, 2, 4, k) for k in (1, 2, 3)]
    with pytest.raises(InputError, match="accept/reject"):
        plugin_problems.minimal_dfa("count-ones", 4)


def test_a_certificate_records_the_source_and_is_rechecked_against_it(tmp_path):
    from ccomplexity import certificates, lower_bounds, verify

    path = write(tmp_path, "my_task.py", FIRST_EQUALS_LAST)
    plugins.load_file(path)
    problem = plugin_problems.problem("first-equals-last", 6, "prefix:3")
    best = lower_bounds.max_fooling_set(problem)
    cert = certificates.fooling_set_certificate(problem, best.rows, best.cols, best.value)
    cert = json.loads(json.dumps(cert))
    assert cert["problem"]["plugin"]["source"] == "my_task.py"
    assert verify(cert).valid and best.size == 3  # value 0: (a, b) pairs with a != b
    cert["claim"]["bits"] = 3
    assert not verify(cert).valid
    cert["claim"]["bits"] = 2
    path.write_text(FIRST_EQUALS_LAST + "# edited\n")
    with plugins.scope():
        plugins.load_file(path)
        with pytest.raises(InputError, match="not the same code"):
            verify(cert)
    with plugins.scope():
        plugins._REGISTRY.tasks.clear()
        with pytest.raises(InputError, match="of plugin 'my_task.py'"):
            verify(cert)


def test_a_model_plugin_is_registered_without_torch(monkeypatch, tmp_path):
    """A model class registers as given (this module never imports torch); an entry point of
    the models group brings one from an installed package (the user opted in)."""
    import sys

    import models  # noqa: F401  (declares its models and their families; torch-free)

    with pytest.raises(InputError, match="shadow"):
        plugins.model(name="lstm")
    with pytest.raises(InputError, match="family must be one of"):
        plugins.model(name="mine", family="quantum")
    tiny = (
        "from ccomplexity.plugins import model\n"
        "@model(name='tiny-rnn', family='recurrent')\nclass Tiny:\n    recurrent = True\n"
    )
    plant_distribution(tmp_path, "fake_model_pkg", "tiny", plugins.MODEL_GROUP, tiny)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path.parent)
    monkeypatch.setenv(plugins.ENTRY_POINTS_ENV, "1")
    monkeypatch.setattr(plugins._REGISTRY, "entry_points_loaded", False)
    monkeypatch.delitem(sys.modules, "fake_model_pkg", raising=False)
    with plugins.scope():
        found = plugins.model_definition("tiny-rnn")
        assert (found.family, found.cls.name, found.source) == (
            "recurrent",
            "tiny-rnn",
            "fake_model_pkg.py",
        )
        assert plugins.model_names() == ["tiny-rnn"]


def test_a_hostile_plugin_field_is_one_line_or_invalid(tmp_path):
    from ccomplexity import certificates, lower_bounds, verify

    plugins.load_file(write(tmp_path, "my_task.py", FIRST_EQUALS_LAST))
    problem = plugin_problems.problem("first-equals-last", 4, "prefix:2")
    best = lower_bounds.max_fooling_set(problem)
    cert = certificates.fooling_set_certificate(problem, best.rows, best.cols, best.value)
    cert["problem"]["plugin"]["sha256"] = "x" * 64
    assert "64 lowercase hex" in verify(cert).reason
    cert["problem"]["plugin"] = {"source": "a\nb" * 100, "sha256": "0" * 64}
    cert["problem"]["problem"] = "other-task"
    with pytest.raises(InputError) as err:
        verify(cert)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300
    cert["problem"]["extra"] = 1
    assert "exactly the fields" in verify(cert).reason
