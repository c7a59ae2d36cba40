"""The bound of a plugin task's row at its edge: a length whose one-way bits equal m p exactly is
not ruled out (Thm 2 needs m p >= the bits), one bit more is."""

from __future__ import annotations

import pytest

from simulations import thresholds


@pytest.mark.parametrize(
    ("bits", "bound_length"),
    [
        ({4: 10, 6: 16, 8: 17}, 6),  # m p = 4 x 4 = 16: N = 6 at exactly 16 bits passes
        ({4: 10, 6: 15, 8: 16}, None),  # nothing ruled out
        ({4: 17, 6: 18, 8: 19}, None),  # the first length is ruled out: no length passes
        ({4: 16, 6: 17, 8: 1}, 4),  # the first length ruled out ends the count
    ],
)
def test_a_length_at_exactly_m_p_bits_is_not_ruled_out(monkeypatch, bits, bound_length):
    monkeypatch.setattr(thresholds.plugins, "task_definition", lambda task: object())
    profile = {n: {"bits": b} for n, b in bits.items()}
    monkeypatch.setattr(thresholds, "plugin_bound", lambda task, kind, lengths: profile)
    members = [{"state_numel": 4, "width": 8}, {"state_numel": None, "width": 2}]
    best = {4: 0.9, 6: 0.8, 8: 0.5}
    row = thresholds._plugin_row("mine", "lstm", 8, 1, members, best, 0.85, 4)
    assert row["bound_length"] == bound_length
    assert row["bound_params"] == {"m": 4, "p": 4, "H": 1, "m_is": "state_numel"}
    assert row["bound_id"] == "separations.thm2" and row["computed_bits"] == bits
    assert row["model_bits"] == dict.fromkeys(bits, 16)
    assert row["threshold_length"] == 4 and row["runs"] == 2


class _Task:
    alphabet = 3


def test_a_one_layer_transformer_on_a_plugin_task_is_priced_at_its_loosest_shape(monkeypatch):
    """Two runs of width 8, with 1 and 2 heads (one from the row, one from its config): the
    bound rests on the shape whose single-output protocol sends the most bits; the model's side
    at each N is the most over the shapes, over the task's own alphabet."""
    from ccomplexity.bounds.separations import single_output_bits

    monkeypatch.setattr(thresholds.plugins, "task_definition", lambda task: _Task())
    profile = {6: {"bits": 3}, 10: {"refused": "over the budget"}, 12: {"bits": 10**6}}
    asked = []
    monkeypatch.setattr(
        thresholds, "plugin_bound", lambda t, kind, ns: asked.append((kind, ns)) or profile
    )
    members = [
        {"width": 8, "heads": 1, "state_numel": None, "config": {}},
        {"width": 8, "heads": None, "state_numel": None, "config": {"heads": 2}},
    ]
    best = {6: 0.95, 10: 0.9, 12: 0.2}
    row = thresholds._plugin_row("mine", "transformer", 8, 1, members, best, 0.9, 5)
    assert asked == [("fooling", (6, 10, 12))]
    shapes = [(8, 1), (4, 2)]
    loosest = max(shapes, key=lambda s: single_output_bits(*s, 5, 12, 2))
    assert row["bound_params"] == {
        "m": loosest[0],
        "p": 5,
        "H": loosest[1],
        "m_is": "width / heads",
    }
    assert row["model_bits"] == {
        n: max(single_output_bits(m, h, 5, n, 3) for m, h in shapes) for n in (6, 10, 12)
    }
    assert row["bound_id"] == "separations.thm4" and row["bound_kind"] == "fooling"
    assert row["computed_bits"] == {6: 3, 12: 10**6}
    assert row["not_computed"] == {10: "over the budget"}
    assert row["bound_length"] == 6 and row["threshold_length"] == 10


def test_a_plugin_row_without_its_plugin_or_without_a_claim(monkeypatch):
    monkeypatch.setattr(thresholds.plugins, "task_definition", lambda task: None)
    members = [{"width": 4, "heads": None, "state_numel": 8, "config": {}}]
    row = thresholds._plugin_row("gone", "lstm", 4, 1, members, {4: 1.0}, 0.99, 3)
    assert row["computed_bits"] is None and row["bound_length"] is None
    assert row["model_bits"] == {4: 24} and row["bound_id"] == "separations.thm2"
    row = thresholds._plugin_row("gone", "transformer", 4, 2, members, {4: 1.0}, 0.99, 3)
    assert row["bound_id"] is None and "model_bits" not in row  # two layers: no general claim
