"""p-hop (Def. A.1): the vectorised oracle against a literal transcription of the definition."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.hops import (
    BOTTOM,
    chain_statistics,
    find_1_table,
    find_p,
    hop_chain,
    hop_p,
)


def literal_hop(v: list[int], p: int, strict: bool) -> int:
    """Def. A.1 word for word, positions 1-based."""

    def find_1(i: int) -> int:
        upper = i - 1 if strict else i
        js = [j for j in range(2, upper + 1) if v[j - 2] == v[i - 1]] if i else []
        return max([0, *js])

    i = len(v)
    for _ in range(p):
        i = find_1(i)
    return v[i - 1] if i else BOTTOM


@pytest.mark.parametrize("strict", [False, True])
def test_oracle_equals_the_definition(strict):
    rng = np.random.default_rng(0)
    for _ in range(400):
        n, a, p = int(rng.integers(1, 14)), int(rng.integers(1, 5)), int(rng.integers(1, 8))
        v = rng.integers(0, a, (1, n))
        assert hop_p(v, p, strict)[0] == literal_hop(v[0].tolist(), p, strict)


def test_exhaustive_small_words():
    words = np.indices((3,) * 6).reshape(6, -1).T  # all 729 words over 3 symbols
    for p in (1, 2, 3, 5):
        for strict in (False, True):
            expected = [literal_hop(w, p, strict) for w in words.tolist()]
            assert hop_p(words, p, strict).tolist() == expected


def test_known_values():
    # v = a b a c b: find_1(5) looks for the b before position 5 (at 2), so it is 3 -> v_3 = a
    v = np.array([[0, 1, 0, 2, 1]])
    assert find_1_table(v)[0].tolist() == [0, 0, 0, 2, 0, 3]
    assert hop_p(v, 1)[0] == 0 and hop_p(v, 2)[0] == 1  # find_1(3) = 2, v_2 = b
    assert hop_p(v, 3)[0] == BOTTOM  # find_1(2): no b before position 2
    assert find_p(v, 2, i=3)[0] == 0


def test_fixed_point_happens_exactly_when_the_last_two_symbols_agree():
    v = np.random.default_rng(3).integers(0, 4, (2000, 64))
    chain = hop_chain(v, 8)
    fixed = ((chain[:, 1:] == chain[:, :-1]) & (chain[:, :-1] > 0)).any(axis=1)
    assert (fixed == (v[:, -1] == v[:, -2])).all()  # only the first hop can stay put
    assert not (
        (hop_chain(v, 8, strict=True)[:, 1:] == hop_chain(v, 8, True)[:, :-1])
        & (hop_chain(v, 8, True)[:, :-1] > 0)
    ).any()
    stats = chain_statistics(v, 8)
    assert stats["fixed_point_rate"] == pytest.approx(fixed.mean())


def test_bad_input():
    with pytest.raises(InputError):
        hop_p(np.zeros((2, 0), dtype=int), 1)
    with pytest.raises(InputError):
        hop_p(np.array([[0.5, 1.0]]), 1)
    with pytest.raises(InputError):
        hop_p(np.array([[0, 1]]), 0)
