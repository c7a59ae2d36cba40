"""Round-counting simulators: exact against the oracles, and one round fewer is not enough."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.groups import get_group
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.hops import hop_p
from ccomplexity.rounds import (
    group_doubling,
    group_doubling_rounds,
    max_hops,
    pointer_doubling,
    pointer_doubling_rounds,
)


def test_group_doubling_on_every_input_of_small_n():
    g = get_group("S3")
    for n in range(1, 7):
        words = np.indices((6,) * n).reshape(n, -1).T
        result = group_doubling(g, words, history=True)
        assert result.rounds == ceil_log2(n) == group_doubling_rounds(n)
        assert (result.answers == g.compose(words)).all()
        for state in result.history:  # the invariant: the product never changes
            assert (g.compose(state) == g.compose(words)).all()
        assert (result.history[-1][:, :n] == 0).all()  # and all but g_n end as e


@pytest.mark.parametrize("n", [2, 3, 5, 8, 9, 17, 33, 100, 256, 300])
def test_one_round_fewer_fails_on_s5(n):
    g = get_group("S5")
    words = np.random.default_rng(n).integers(0, 120, (400, n))
    assert (group_doubling(g, words).answers == g.compose(words)).all()
    fewer = group_doubling(g, words, rounds=ceil_log2(n) - 1)
    assert (fewer.answers != g.compose(words)).mean() > 0.5


def test_rounds_formula_is_floor_log_plus_two():
    for p in range(1, 2000):
        r = pointer_doubling_rounds(p)
        assert r == int(np.floor(np.log2(p))) + 2
        assert max_hops(r) >= p > max_hops(r - 1)  # the schedule's reach, tight


@pytest.mark.parametrize("strict", [False, True])
def test_pointer_doubling_equals_the_oracle_for_every_p(strict):
    v = np.random.default_rng(0).integers(0, 4, (300, 128))
    for p in range(1, 70):
        result = pointer_doubling(v, p, strict=strict)
        assert result.rounds == pointer_doubling_rounds(p)
        assert (result.answers == hop_p(v, p, strict)).all()


def test_pointer_doubling_exhaustive_small_words():
    words = np.indices((2,) * 10).reshape(10, -1).T
    for p in range(1, 9):
        assert (pointer_doubling(words, p).answers == hop_p(words, p)).all()


@pytest.mark.parametrize("p", [1, 2, 3, 5, 16, 32])
def test_one_round_fewer_answers_fewer_hops(p):
    v = np.random.default_rng(p).integers(0, 4, (500, 256))
    fewer = pointer_doubling(v, p, rounds=pointer_doubling_rounds(p) - 1)
    reach = max_hops(fewer.rounds)  # 0 hops: the last symbol itself
    assert (fewer.answers == (hop_p(v, reach) if reach else v[:, -1])).all()
    assert (fewer.answers != hop_p(v, p)).mean() > 0.3
