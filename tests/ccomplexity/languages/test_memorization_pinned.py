"""Memorisation data pinned: the size limit at, below and above it, each size's and the seed's
refusal messages, and the exact seeded streams of the data and the labels."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.memorization import (
    MAX_NUMBERS,
    MemorizationSize,
    gaussian_memorization,
)


def test_number_limit_at_and_above() -> None:
    assert MAX_NUMBERS == 1 << 27
    at = MemorizationSize(1 << 10, 1 << 10, 1 << 7)  # exactly 2^27 numbers: allowed
    assert (at.examples, at.length, at.dim) == (1024, 1024, 128)
    with pytest.raises(
        InputError,
        match=r"^examples x length x dim = 134217729 exceeds 134217728 Gaussian numbers$",
    ):
        MemorizationSize(1, 1, (1 << 27) + 1)
    MemorizationSize(1, 1, 1)


@pytest.mark.parametrize("name", ["examples", "length", "dim"])
def test_each_size_is_an_integer_at_least_one(name: str) -> None:
    sizes = {"examples": 2, "length": 3, "dim": 4}
    with pytest.raises(InputError, match=rf"^{name} must be an integer >= 1, got 0$"):
        MemorizationSize(**{**sizes, name: 0})
    with pytest.raises(InputError, match=rf"^{name} must be an integer >= 1, got 1\.5$"):
        MemorizationSize(**{**sizes, name: 1.5})


def test_appendix_names_round_trip() -> None:
    size = MemorizationSize.from_appendix(N=5, n=3, d=2)
    assert size == MemorizationSize(examples=5, length=3, dim=2)
    assert size.appendix() == {"N": 5, "n": 3, "d": 2}


def test_streams_are_pinned_to_the_seed() -> None:
    x, y = gaussian_memorization(MemorizationSize(6, 2, 3), 0)
    assert x.dtype == np.float64 and y.dtype == np.int64
    assert np.array_equal(x, np.random.default_rng([0, 0]).standard_normal((6, 2, 3)))
    u = np.random.default_rng([0, 1]).random(6)
    assert y.tolist() == [-1 if v < 0.5 else 1 for v in u]
    big = gaussian_memorization(MemorizationSize(4000, 1, 1), 9)[1]
    assert set(big.tolist()) == {-1, 1} and 0.45 < (big == 1).mean() < 0.55


def test_seed_refusal() -> None:
    with pytest.raises(InputError, match=r"^seed must be an integer >= 0, got -1$"):
        gaussian_memorization(MemorizationSize(1, 1, 1), -1)


def test_a_label_is_minus_one_exactly_when_its_uniform_is_below_one_half(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = np.random.default_rng

    class Fixed(np.random.Generator):
        """The seeded Generator, except that ``random`` returns one chosen double."""

        def __init__(self, seed: list[int], value: float) -> None:
            super().__init__(np.random.PCG64(seed))
            self.value = value

        def random(self, size=None, dtype=np.float64, out=None):  # type: ignore[no-untyped-def, override]
            return np.full(size, self.value)

    for value, label in [(0.5, 1), (float(np.nextafter(0.5, 0.0)), -1), (0.0, -1)]:
        monkeypatch.setattr(np.random, "default_rng", lambda seed, v=value: Fixed(seed, v))
        x, y = gaussian_memorization(MemorizationSize(5, 2, 1), 3)
        assert y.tolist() == [label] * 5  # P(-1) = 1/2 exactly on the grid of doubles
        assert np.array_equal(x, real([3, 0]).standard_normal((5, 2, 1)))
