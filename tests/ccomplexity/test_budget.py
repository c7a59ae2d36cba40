"""The memory and work budget: its default, raised and lowered by the environment, refusals
before work, and the exact results computed within it."""

from __future__ import annotations

import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccomplexity import budget, limits
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import count_dyck, enumerate_dyck


def test_defaults_and_the_environment(monkeypatch):
    monkeypatch.delenv(budget.MEMORY_ENV, raising=False)
    monkeypatch.delenv(budget.WORK_ENV, raising=False)
    assert budget.work_budget() == budget.WORK_DEFAULT == 1 << 32
    assert budget.memory_budget() <= budget.MEMORY_DEFAULT == 8 << 30
    monkeypatch.setenv(budget.MEMORY_ENV, "512M")
    monkeypatch.setenv(budget.WORK_ENV, "64G")
    assert budget.memory_budget() <= 512 << 20
    assert budget.work_budget() == 64 << 30


@pytest.mark.parametrize(
    ("text", "value"),
    [("123", 123), ("16G", 16 << 30), ("16GiB", 16 << 30), ("512m", 512 << 20), ("1T", 1 << 40)],
)
def test_sizes_are_read_in_powers_of_1024(text, value):
    assert budget.parse_size(text, "x") == value


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5G", "16Q", "lots", "1" * 40])
def test_a_bad_budget_is_one_line(text):
    with pytest.raises(InputError, match="^x must be"):
        budget.parse_size(text, "x")


def test_over_the_budget_names_the_product_and_how_to_raise_it(monkeypatch):
    monkeypatch.setenv(budget.WORK_ENV, "1000")
    with pytest.raises(InputError) as err:
        budget.check("a thing", work=10**30)
    text = str(err.value)
    assert "a thing takes about 2^99 steps; the budget is 1000" in text
    assert budget.WORK_ENV in text and "\n" not in text
    monkeypatch.setenv(budget.MEMORY_ENV, "1K")
    with pytest.raises(InputError, match=r"needs 1\.0 MiB of memory; the budget is 1\.0 KiB"):
        budget.check("a table", memory=1 << 20)
    budget.check("a small table", memory=1 << 10, work=1000)  # at the budget: allowed


def test_the_dyck_count_is_refused_before_work_and_raised_by_the_environment(monkeypatch):
    with pytest.raises(InputError, match="counting Dyck-\\(3,5\\) words of length 1048576"):
        count_dyck(3, 5, 1 << 20)
    monkeypatch.setenv(budget.WORK_ENV, "1")
    with pytest.raises(InputError, match=budget.WORK_ENV):
        count_dyck(2, 2, 8)


def test_the_dyck_count_at_the_longest_length_is_exact():
    assert count_dyck(2, 2, 1 << 20) == 1 << ((1 << 20) - 1)  # Sec. 4.1: 2^(N-1)


@given(st.integers(1, 3), st.integers(0, 5), st.integers(0, 10))
def test_the_dyck_count_is_the_number_of_words(types, depth, length):
    assert count_dyck(types, depth, length) == len(enumerate_dyck(types, depth, length))


def test_a_checkpoint_is_checked_on_its_declared_sizes(tmp_path, monkeypatch):
    """A small archive whose member inflates past the limit is refused before it is read."""
    path = tmp_path / "bomb.pt"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data/0", b"\0" * (4 << 20))
    assert path.stat().st_size < 64 << 10
    with pytest.raises(InputError, match="declares 4194304 bytes of tensors once unpacked"):
        limits.check_zip_file(path, 1 << 20, "checkpoint")
    monkeypatch.setenv(budget.MEMORY_ENV, "1M")
    with pytest.raises(InputError, match="of memory; the budget is"):
        limits.check_zip_file(path, 8 << 20, "checkpoint")
    monkeypatch.delenv(budget.MEMORY_ENV)
    assert limits.check_zip_file(path, 8 << 20, "checkpoint") == path


def test_the_symbolic_one_way_count_is_priced_by_its_refinements():
    from ccomplexity.lower_bounds.one_way import one_way_bits_dyck

    assert one_way_bits_dyck(2, 2, 1000, 5).distinct_rows == 3  # heights 1, 3, 5 after 5 symbols
    for types, depth, length in ((2, 2, 10**6), (1 << 15, 0, 524_289)):
        with pytest.raises(InputError, match=f"refined {length} times\\) takes"):
            one_way_bits_dyck(types, depth, length, 2)


def test_training_is_priced_from_the_step_and_the_evaluation_chunk():
    """The issue's width-64 transformer at N = 2048 (H = 1, batch 64, evaluation chunks of 500):
    its attention weights alone, 10 copies of 64 x 2049^2 in a training step and 4 of
    500 x 2049^2 in an evaluation chunk, float32."""
    memory, seconds = budget.training(
        steps=1,
        batch=64,
        tokens=2049,
        width=64,
        layers=1,
        heads=1,
        classes=2,
        parameters=0,
        pairs=True,
        eval_rows=500,
        evaluations=0,
    )
    assert memory == 4 * 500 * 2049 * (4 * 2049 + 8 * 64) > 32 << 30
    assert memory > 4 * 64 * 2049 * (10 * 2049 + 24 * 64)  # the evaluation chunk is larger
    steps = budget.training(
        steps=10**9,
        batch=8,
        tokens=4,
        width=4,
        layers=1,
        heads=0,
        classes=2,
        parameters=10,
        pairs=False,
        eval_rows=8,
        evaluations=0,
    )[1]
    assert steps > 10**9 * budget.STEP_SECONDS["cpu"] > budget.TRAINING_DEFAULT
    budget.check_training("a run", 1 << 30, 6 * 86400)  # within both budgets
    with pytest.raises(InputError, match=r"a run would take about 8 days \(estimated\)"):
        budget.check_training("a run", 0, 8 * 86400)
    with pytest.raises(InputError, match="of memory of the GPU at once"):
        budget.check_training("a run", 2 << 30, 1, memory_limit=1 << 30)


def test_durations_read_as_words():
    assert [budget.duration_text(s) for s in (45, 90, 7200, 3 * 86400, 1e13)] == [
        "45 s",
        "1.5 min",
        "2 h",
        "3 days",
        "3.2e+05 years",
    ]
