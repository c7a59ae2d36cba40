"""The demo's progress lines: expectations, an ETA that follows the machine's pace, and a status
line whenever the output has been silent too long."""

from __future__ import annotations

import time

import pytest

from ccx.progress import Progress, clock


def test_clock() -> None:
    assert [clock(s) for s in (0, 59.6, 75, 3725)] == ["0:00", "1:00", "1:15", "1:02:05"]


def test_eta_follows_the_pace_of_the_parts_done(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    progress = Progress({"a": 10.0, "b": 20.0, "c": 30.0})
    assert progress.remaining() == 60.0
    with progress.step("a"):
        now[0] += 20.0  # twice as slow as expected
        assert progress.remaining() == 50.0  # a ran over its 10 s: b and c as expected
    assert progress.pace() == 2.0
    assert progress.remaining() == 100.0  # b and c at twice their expectations
    with progress.step("b"):
        now[0] += 10.0
        assert progress.remaining() == 30.0 + 60.0
        assert "[2/3] b 0:10 of about 0:40; elapsed 0:30, about 1:30 left" in progress.status()
    with pytest.raises(KeyError, match="no expected duration"), progress.step("d"):
        pass


def test_a_status_line_after_each_silence(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress({"work": 1.0, "more": 1.0}, quiet=0.3)
    with progress.watching():
        with progress.step("work"):
            time.sleep(1.6)  # silent: status lines every 0.3 s or so
        with progress.step("more"):
            print("talking", flush=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[1/2] work: expected about 0:01; demo elapsed 0:00")
    status = [line for line in lines if line.startswith("  .. [1/2] work")]
    assert 2 <= len(status) <= 6 and all("left" in line for line in status)
    assert lines[-1].startswith("[2/2] more done in 0:00")
    assert "talking" in lines and not any(line.startswith("  .. [2/2]") for line in lines)


def test_a_long_sweep_announces_its_estimate_as_an_estimate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import simulations.estimate as estimate
    from ccx import cmd_training

    monkeypatch.setattr(estimate, "pending_runs", lambda *a: cmd_training.ANNOUNCED_RUNS)
    plan = {"pending": 188, "workers": 2, "estimated_seconds": 540.0}
    monkeypatch.setattr(estimate, "dry_run", lambda *a: plan)
    cmd_training._announce("bite", "s.db", None, None, False)
    line = capsys.readouterr().err
    assert line.startswith("ccx: 188 runs to train on 2 workers; estimated about 9 min")
    assert "at most" not in line and "upper bound" not in line  # the cost model errs both ways
    monkeypatch.setattr(estimate, "pending_runs", lambda *a: cmd_training.ANNOUNCED_RUNS - 1)
    cmd_training._announce("bite", "s.db", None, None, False)
    assert capsys.readouterr().err == ""
