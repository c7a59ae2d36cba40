"""Pinned values of the word problem's fooling set (ccomplexity.lower_bounds.word_problem): the
pairs (g e..e, g^-1 e..e) as indices read by hand, checked cell by cell against products
computed here from the permutations, and the 64-bit limit at, below and above."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.groups import get_group
from ccomplexity.lower_bounds.word_problem import word_problem_fooling_set


def is_identity_product(group_name: str, word: tuple[int, ...]) -> bool:
    """[g_1 ∘ ... ∘ g_n = e] from the permutations themselves: compose and compare."""
    g = get_group(group_name)
    perm = list(range(g.perms.shape[1]))
    for x in word:
        perm = [perm[int(g.perms[x][i])] for i in range(len(perm))]
    return perm == list(range(len(perm)))


def digits(index: int, base: int, width: int) -> tuple[int, ...]:
    """Big-endian digits of ``index``: the word an input number stands for."""
    out = []
    for _ in range(width):
        index, d = divmod(index, base)
        out.append(d)
    return tuple(reversed(out))


@pytest.mark.parametrize(("name", "length", "cut"), [("S3", 5, 2), ("Z6", 3, 1), ("D4", 3, 2)])
def test_pairs_by_hand_and_cell_by_cell(name: str, length: int, cut: int) -> None:
    g = get_group(name)
    found = word_problem_fooling_set(g, length, cut)
    n, a, b = g.order, cut, length - cut
    assert found.value == 1 and found.size == n and found.check is None
    assert found.problem.alice_length == a and found.problem.bob_length == b
    assert found.rows.tolist() == [x * n ** (a - 1) for x in range(n)]
    assert found.cols.tolist() == [int(g.inverse[x]) * n ** (b - 1) for x in range(n)]
    for i, j in itertools.product(range(n), repeat=2):
        word = digits(int(found.rows[i]), n, a) + digits(int(found.cols[j]), n, b)
        assert is_identity_product(name, word) == (i == j)
        cell = found.problem.entries(found.rows[i : i + 1], found.cols[j : j + 1])
        assert int(cell[0]) == (i == j)


def test_s3_indices() -> None:
    """S3 (order 6): element 3's inverse is 4; Alice's words of 2, Bob's of 3 elements."""
    g = get_group("S3")
    assert g.inverse.tolist() == [0, 1, 2, 4, 3, 5]
    found = word_problem_fooling_set(g, 5, 2)
    assert found.rows.tolist() == [0, 6, 12, 18, 24, 30]
    assert found.cols.tolist() == [0, 36, 72, 144, 108, 180]
    assert found.bits == 3


def test_every_cut_of_a_short_word() -> None:
    g = get_group("D4")
    for cut in range(1, 4):
        found = word_problem_fooling_set(g, 4, cut)
        m = found.problem.matrix()
        sub = m[np.ix_(found.rows, found.cols)]
        assert (sub == np.eye(g.order, dtype=sub.dtype)).all()


@pytest.mark.parametrize(
    ("name", "length", "cut", "elements"),
    [("Z2", 123, 61, 62), ("Z2", 124, 62, 62), ("Z2", 123, 62, 62), ("Z4", 62, 31, 31)],
)
def test_64_bit_limit_refuses(name: str, length: int, cut: int, elements: int) -> None:
    with pytest.raises(
        InputError,
        match=rf"^{name}: words of {elements} elements number \|G\|\^{elements} >= 2\^62 inputs, "
        r"the limit \(64-bit numbering\); use a shorter length$",
    ):
        word_problem_fooling_set(get_group(name), length, cut)


@pytest.mark.parametrize(
    ("name", "length", "cut"), [("Z2", 122, 61), ("Z4", 60, 30), ("Z1", 200, 7)]
)
def test_64_bit_limit_just_below(name: str, length: int, cut: int) -> None:
    g = get_group(name)
    found = word_problem_fooling_set(g, length, cut)
    a, b = cut, length - cut
    assert found.rows.tolist() == [x * g.order ** (a - 1) for x in range(g.order)]
    assert found.cols.tolist() == [int(g.inverse[x]) * g.order ** (b - 1) for x in range(g.order)]
