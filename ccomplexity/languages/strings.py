"""String oracles for the equality and disjointness problems (Sec. 4.2, App. F, App. B.1).

Every oracle takes a batch of words as a (batch, length) integer array (a single 1-D word is
treated as a batch of one) and returns one boolean per row.
"""

from __future__ import annotations

import numpy as np

from ccomplexity.errors import InputError


def _batch(words: np.ndarray, what: str) -> np.ndarray:
    w = np.asarray(words)
    if w.ndim == 1:
        w = w[None, :]
    if w.ndim != 2:
        raise InputError(f"{what} must be a (batch, length) array, got shape {w.shape}")
    if w.size and not np.issubdtype(w.dtype, np.integer):
        raise InputError(f"{what} must hold integer symbols, got dtype {w.dtype}")
    return w


def is_equal_halves(words: np.ndarray) -> np.ndarray:
    """EQ(x) = [x_1..x_{N/2} = x_{N/2+1}..x_N] for each row (Sec. 4.2), over any alphabet."""
    w = _batch(words, "words")
    if w.shape[1] % 2:
        raise InputError(f"equality of halves needs an even length, got {w.shape[1]}")
    half = w.shape[1] // 2
    return (w[:, :half] == w[:, half:]).all(axis=1)


def is_unequal_halves(words: np.ndarray) -> np.ndarray:
    """INEQ(x) = 1 - EQ(x), the OR of x_i != x_{i+N/2} (Sec. 4.2, the 2-DNF of App. F)."""
    return ~is_equal_halves(words)


def intersects(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Disj(x, y) = max_i x_i y_i for x, y in {0,1}^H (App. B.1, Fact 1).

    Paper convention: the value is True (1) when the sets INTERSECT, False when disjoint.
    """
    a = _batch(x, "x")
    b = _batch(y, "y")
    if a.shape != b.shape:
        raise InputError(f"x and y must have the same shape, got {a.shape} and {b.shape}")
    if a.size and (a.min() < 0 or a.max() > 1 or b.min() < 0 or b.max() > 1):
        raise InputError("disjointness inputs must be 0/1 vectors")
    return ((a == 1) & (b == 1)).any(axis=1)
