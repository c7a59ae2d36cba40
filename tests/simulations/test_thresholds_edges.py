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
