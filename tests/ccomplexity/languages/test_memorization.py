"""The Gaussian memorisation data and the one place that converts the paper's notations."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.memorization import MemorizationSize, gaussian_memorization


def test_appendix_notation_converts_to_the_main_texts():
    size = MemorizationSize.from_appendix(N=1000, n=8, d=128)  # App. A.2: N examples
    assert (size.examples, size.length, size.dim) == (1000, 8, 128)
    assert size.appendix() == {"N": 1000, "n": 8, "d": 128}


def test_data_are_gaussian_seeded_and_nested():
    x, y = gaussian_memorization(MemorizationSize(2000, 4, 8), 3)
    assert x.shape == (2000, 4, 8) and set(np.unique(y)) == {-1, 1}
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    x2, y2 = gaussian_memorization(MemorizationSize(50, 4, 8), 3)
    assert np.array_equal(x[:50], x2) and np.array_equal(y[:50], y2)
    assert not np.array_equal(gaussian_memorization(MemorizationSize(50, 4, 8), 4)[0], x2)


def test_sizes_are_checked_before_drawing():
    with pytest.raises(InputError, match="Gaussian numbers"):
        MemorizationSize(10**6, 1000, 1000)
    with pytest.raises(InputError):
        MemorizationSize(0, 4, 4)
