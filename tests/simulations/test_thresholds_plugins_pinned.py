"""Pinned without training: the plugin-task rows of :mod:`simulations.thresholds` (their exact
keys, the task's own alphabet, a missing plugin, heads read as 1 when a run has none), the
cached plugin bound's key, which tasks are a plugin's, the held claim of a row, the loosest
bound's first run on a tie, the heads in ``--check``'s wall, the Fano ceiling at equality and
a point judged again at the threshold's own target.

Stores are built with hand-made run records; plugin lookups are replaced by fakes that answer
only for the task they are asked about, so a lookup of the wrong name is seen.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from ccomplexity import budget
from ccomplexity.bounds.separations import single_output_bits
from ccomplexity.errors import InputError
from simulations import thresholds
from simulations.store import Store

_ids = itertools.count()


def _add(store: Store, task: str, arch: str, length: int, best: float, **config: Any) -> None:
    """One stored run, its curve flat at ``best`` (plateaued below the target)."""
    state_numel = config.pop("state_numel", 32)
    config = {"width": 16, "layers": 1, "heads": 4, "lr": 1e-3, "seed": 0, **config}
    config.update(task=task, arch=arch, length=length)
    store.add_run(
        {
            "config": config,
            "config_hash": f"pinned-{next(_ids)}",
            "accuracy": best,
            "best_accuracy": best,
            "curve": [[100 * i, best] for i in range(1, 10)],
            "state_numel": state_numel,
        }
    )


class _Task:
    alphabet = 4  # ceil(log2 4) = 2 query bits, one more than the default alphabet's


def _only(name: str, found: object) -> Any:
    """A lookup that knows ``name`` alone."""
    return lambda task: found if task == name else None


# ----------------------------------------------------------------- plugin rows


def test_a_plugin_row_without_a_claim_has_exactly_its_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(thresholds.plugins, "task_definition", _only("mine", _Task()))
    members = [{"width": 4, "heads": None, "state_numel": 8, "config": {}}] * 3
    row = thresholds._plugin_row("mine", "transformer", 4, 2, members, {6: 0.5, 4: 1.0}, 0.99, 3)
    assert row == {
        "task": "mine",
        "arch": "transformer",
        "width": 4,
        "layers": 2,
        "threshold_length": 4,
        "bound_length": None,
        "bound_id": None,
        "bound_params": None,
        "runs": 3,
        "lengths": {4: 1.0, 6: 0.5},
    }
    assert list(row["lengths"]) == [4, 6]


def test_a_one_layer_transformer_row_uses_its_own_tasks_alphabet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The model's side is priced over the alphabet of the task asked about ("mine"); the bound
    is asked of that task; a run without heads counts one head of the whole width."""
    monkeypatch.setattr(thresholds.plugins, "task_definition", _only("mine", _Task()))
    asked: list[tuple[str, str, tuple[int, ...]]] = []
    profile = {4: {"bits": 1}, 8: {"bits": 10**6}}

    def bound(task: str, kind: str, lengths: tuple[int, ...]) -> dict[int, dict[str, Any]]:
        asked.append((task, kind, lengths))
        return profile

    monkeypatch.setattr(thresholds, "plugin_bound", bound)
    members = [{"width": 8, "heads": None, "state_numel": None, "config": {}}]
    row = thresholds._plugin_row("mine", "transformer", 8, 1, members, {4: 1.0, 8: 0.3}, 0.9, 3)
    assert asked == [("mine", "fooling", (4, 8))]
    assert row["bound_params"] == {"m": 8, "p": 3, "H": 1, "m_is": "width / heads"}
    # ceil(log2 4) + 2 H p + H (p + ceil(log2 N)) + H p + H m (p + p), with m = 8, H = 1, p = 3
    want = {n: 2 + 6 + (3 + (n - 1).bit_length()) + 3 + 8 * 6 for n in (4, 8)}
    assert row["model_bits"] == want == {n: single_output_bits(8, 1, 3, n, 4) for n in (4, 8)}
    assert row["computed_bits"] == {4: 1, 8: 10**6} and row["not_computed"] == {}
    assert row["bound_length"] == 4


def test_a_one_layer_transformer_row_without_its_plugin_prices_two_symbols(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(thresholds.plugins, "task_definition", lambda task: None)
    members = [
        {"width": 8, "heads": 0, "state_numel": None, "config": {}},
        {"width": 8, "heads": None, "state_numel": None, "config": {}},
    ]
    row = thresholds._plugin_row("gone", "transformer", 8, 1, members, {4: 1.0}, 0.99, 3)
    assert row["bound_id"] == "separations.thm4" and row["bound_kind"] == "fooling"
    assert row["bound_params"] == {"m": 8, "p": 3, "H": 1, "m_is": "width / heads"}
    # one query bit for two symbols: 1 + 6 + (3 + 2) + 3 + 48
    assert row["model_bits"] == {4: 63} == {4: single_output_bits(8, 1, 3, 4, 2)}
    assert row["computed_bits"] is None and "not_computed" not in row


# ----------------------------------------------------------------- the cached plugin bound


def test_the_plugin_bound_is_keyed_by_task_source_kind_lengths_and_budgets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Found:
        sha256 = "c0ffee"

    def require(name: str) -> Found:
        if name != "mine":
            raise InputError(f"no plugin task {name!r}")
        return Found()

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(thresholds.plugins, "require_task", require)
    monkeypatch.setattr(budget, "memory_budget", lambda: 111)
    monkeypatch.setattr(budget, "work_budget", lambda: 222)
    monkeypatch.setattr(thresholds, "_bound_cached", lambda *a: calls.append(a) or {4: {"bits": 2}})
    assert thresholds.plugin_bound("mine", "one-way", (4, 6)) == {4: {"bits": 2}}
    assert calls == [("mine", "c0ffee", "one-way", (4, 6), (111, 222))]


def test_the_cached_bound_is_computed_once_per_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccomplexity import plugin_bounds

    seen: list[tuple[str, str, list[int]]] = []

    def profile(task: str, kind: str, lengths: list[int], progress: Any) -> dict[int, Any]:
        seen.append((task, kind, lengths))
        return {n: {"bits": n} for n in lengths}

    monkeypatch.setattr(plugin_bounds, "bound_profile", profile)
    thresholds._bound_cached.cache_clear()
    try:
        first = thresholds._bound_cached("pinned-task", "s1", "one-way", (4, 6), (1, 2))
        again = thresholds._bound_cached("pinned-task", "s1", "one-way", (4, 6), (1, 2))
        other = thresholds._bound_cached("pinned-task", "s2", "one-way", (4, 6), (1, 2))
    finally:
        thresholds._bound_cached.cache_clear()
    assert first == again == other == {4: {"bits": 4}, 6: {"bits": 6}}
    assert seen == [("pinned-task", "one-way", [4, 6])] * 2  # a new source: computed again


# ----------------------------------------------------------------- tasks, heads, claims


def test_built_in_tasks_and_claims_tasks_are_never_a_plugins() -> None:
    from ccomplexity import claims
    from simulations.tasks import TASKS

    assert "addition" in TASKS and "addition" not in claims.tasks()
    assert "nearest-neighbour" in claims.tasks() and "nearest-neighbour" not in TASKS
    assert not thresholds.is_plugin_task("addition")
    assert not thresholds.is_plugin_task("nearest-neighbour")
    assert thresholds.is_plugin_task("pinned-no-such-task")


def test_an_architecture_not_registered_counts_as_having_heads() -> None:
    assert thresholds._has_heads("pinned-no-such-arch") is True
    assert thresholds._has_heads("lstm") is False
    run = {"arch": "pinned-no-such-arch", "config": {"heads": 2}}
    assert thresholds.model_shape(run) == {"heads": 2}


def test_a_held_row_is_drawn_against_the_held_claim(tmp_path: Path) -> None:
    db = tmp_path / "held.db"
    with Store(db) as store:
        _add(store, "dyck", "transformer", 8, 1.0, width=8, heads=2, precision=2, frac=1)
    (row,) = thresholds.thresholds(db)
    assert row["held"] is True and row["bound_id"] == "separations.thm5_held"


def test_a_tie_between_runs_bounds_keeps_the_first_runs_params(tmp_path: Path) -> None:
    """Two runs of one model whose m is 16 either way (a stored state of 16 numbers; none
    stored, so the width 16): equal walls, so the first run's parameters are reported."""
    db = tmp_path / "tie.db"
    with Store(db) as store:
        _add(store, "index-lookup", "lstm", 4, 1.0, state_numel=16)
        _add(store, "index-lookup", "lstm", 8, 1.0, state_numel=None)
    (row,) = thresholds.thresholds(db, precision=2)
    assert row["runs"] == 2 and row["bound_length"] == 32
    assert row["bound_params"] == {"m": 16, "p": 2, "H": 1, "m_is": "state_numel"}


def test_a_plugin_row_does_not_end_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(thresholds.plugins, "task_definition", lambda task: None)
    db = tmp_path / "mixed.db"
    with Store(db) as store:
        _add(store, "aaa-pinned-plugin", "lstm", 4, 1.0)  # sorts before the built-in task
        _add(store, "index-lookup", "lstm", 4, 1.0)
    rows = thresholds.thresholds(db)
    assert [(r["task"], r["bound_id"]) for r in rows] == [
        ("aaa-pinned-plugin", "separations.thm2"),
        ("index-lookup", "separations.thm3"),
    ]
    assert rows[0]["lengths"] == {4: 1.0} and rows[0]["bound_params"]["m"] == 32


# ----------------------------------------------------------------- --check


def test_the_check_reads_a_held_transformers_wall_at_its_heads(tmp_path: Path) -> None:
    """Width 8, 4 heads (m = 2), 2 bits: Thm 5's held wall is N = 138 with its 4 heads but 28
    with one; a run reaching N = 30 is within its wall, one at N = 140 is not."""
    from ccomplexity import claims

    claim = claims.lower_bound_for("dyck", "attention", 1, True)
    assert claim.bound.max_length(2, 2, 4) == 138 and claim.bound.max_length(2, 2, 1) == 28
    db = tmp_path / "check.db"
    with Store(db) as store:
        for n in (30, 140):
            _add(store, "dyck", "transformer", n, 1.0, width=8, heads=4, precision=2, frac=1)
    (found,) = thresholds.beyond_bounds(db)
    assert found["length"] == 140 and found["bound_length"] == 138
    assert found["bound_params"] == {"m": 2, "p": 2, "H": 4, "m_is": "width / heads"}


def test_a_run_exactly_at_the_fano_ceiling_is_not_above_it() -> None:
    from ccomplexity.fano import index_lookup_ceiling

    ceiling = index_lookup_ceiling(4, 8, 2)  # 2 state numbers at 2 bits, N = 8, two symbols
    run = {"task": "index-lookup", "arch": "gru", "state_numel": 2, "length": 8,
           "config": {"symbols": 2}, "best_accuracy": ceiling}  # fmt: skip
    at = thresholds._ceiling(run, 2)
    assert at["accuracy_ceiling"] == ceiling and "worst-case wall" in at["why"]
    above = thresholds._ceiling({**run, "best_accuracy": ceiling + 1e-9}, 2)
    assert above["why"].startswith(f"above {ceiling:.4f}")


# ----------------------------------------------------------------- points


def test_a_point_below_the_target_is_judged_again_at_the_target() -> None:
    """Stored as plateaued at its own target 0.99, a run still rising at 0.45 is undecided
    against a threshold's target of 0.6."""
    rising = [[100 * i, 0.05 * i] for i in range(1, 10)]
    run = {"length": 4, "best_accuracy": 0.45, "verdict": "plateaued", "curve": rising,
           "config": {"target": 0.99, "eval_samples": 1000}, "diagnostics": {}}  # fmt: skip
    (point,) = thresholds.length_points([run], "best_accuracy", 0.6)
    assert point == {"length": 4, "best_accuracy": 0.45, "verdict": "undecided", "runs": 1}
    (point,) = thresholds.length_points([run], "best_accuracy", 0.99)  # its own target
    assert point["verdict"] == "plateaued"
