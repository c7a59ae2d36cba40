"""Dyck-(n,k) pinned exactly: membership, counts, enumeration, the sampler's law and the App. H.1
generators against brute force and an independent stack written here, every limit at, below
and above it, and the messages users see.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from ccomplexity import budget
from ccomplexity.errors import InputError
from ccomplexity.languages import dyck
from ccomplexity.languages.dyck import (
    count_dyck,
    dyck_alphabet,
    enumerate_dyck,
    is_dyck,
    negative_h1,
    positive_h1,
    sample_dyck,
)
from tests.ccomplexity.formulas import dyck_height_count as dp_count


def member(word: tuple[int, ...], n: int, k: int) -> bool:
    """Dyck-(n,k) by a Python list used as a stack: symbol 2t opens type t, 2t + 1 closes it."""
    stack: list[int] = []
    for s in word:
        if s % 2 == 0:
            if len(stack) == k:
                return False
            stack.append(s // 2)
        elif not stack or stack.pop() != s // 2:
            return False
    return not stack


def every_word(n: int, length: int) -> list[tuple[int, ...]]:
    return list(itertools.product(range(2 * n), repeat=length))


def catalan(m: int) -> int:
    return comb(2 * m, m) // (m + 1)


# --- the alphabet -----------------------------------------------------------------------------


def test_alphabet_names_pairs_then_numbered_past_four() -> None:
    assert dyck_alphabet(0) == ()
    assert dyck_alphabet(1) == ("(", ")")
    assert dyck_alphabet(4) == tuple("()[]{}<>")
    assert dyck_alphabet(6) == (*"()[]{}<>", "o4", "c4", "o5", "c5")


# --- membership -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "k", "max_len"), [(1, 0, 4), (1, 1, 6), (1, 2, 8), (2, 1, 6), (2, 2, 6), (3, 3, 4)]
)
def test_is_dyck_equals_a_stack_on_every_word(n: int, k: int, max_len: int) -> None:
    for length in range(max_len + 1):
        words = every_word(n, length)
        got = is_dyck(np.array(words, dtype=np.int64).reshape(len(words), length), n, k)
        assert got.tolist() == [member(w, n, k) for w in words], (n, k, length)


def test_is_dyck_known_words_at_the_depth_limit() -> None:
    assert is_dyck(np.array([0, 2, 3, 1]), 2, 2).tolist() == [True]  # "([])": depth 2 = k
    assert is_dyck(np.array([0, 2, 3, 1]), 2, 1).tolist() == [False]  # depth 2 > k = 1
    assert is_dyck(np.array([0, 0, 0, 1, 1, 1]), 1, 3).tolist() == [True]
    assert is_dyck(np.array([0, 0, 0, 1, 1, 1]), 1, 2).tolist() == [False]
    assert is_dyck(np.array([0, 3]), 2, 2).tolist() == [False]  # "(]": wrong type
    assert is_dyck(np.array([1, 0]), 1, 1).tolist() == [False]  # close on an empty stack
    assert is_dyck(np.array([0, 1, 1, 0]), 1, 5).tolist() == [False]
    assert is_dyck(np.array([0, 0]), 1, 5).tolist() == [False]  # left open


def test_is_dyck_empty_words_and_depth_zero() -> None:
    assert is_dyck(np.zeros((3, 0), dtype=np.int64), 2, 2).tolist() == [True] * 3
    assert is_dyck(np.zeros((3, 0), dtype=np.int64), 2, 0).tolist() == [True] * 3
    assert is_dyck(np.zeros((0, 4), dtype=np.int64), 2, 2).shape == (0,)
    assert is_dyck(np.array([[0, 1], [2, 3]]), 2, 0).tolist() == [False, False]


def test_is_dyck_symbol_range_at_and_beyond_its_ends() -> None:
    assert is_dyck(np.array([[2, 3]]), 2, 1).tolist() == [True]  # 2n - 1 = 3 is the last
    with pytest.raises(InputError, match=r"^Dyck-\(2,1\) symbols must lie in 0\.\.3$"):
        is_dyck(np.array([[4, 5]]), 2, 1)
    with pytest.raises(InputError, match=r"symbols must lie in 0\.\.3"):
        is_dyck(np.array([[-1, 1]]), 2, 1)
    with pytest.raises(InputError, match=r"symbols must lie in 0\.\.3"):
        is_dyck(np.array([[0, 1, 4]]), 2, 1)  # 2n itself is the first symbol outside


# --- counting ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "k"), [(1, 0), (1, 1), (1, 2), (2, 1), (2, 2), (3, 2), (2, 3)])
def test_count_equals_brute_force_and_a_dp(n: int, k: int) -> None:
    for length in range(7 if n < 3 else 5):
        brute = sum(member(w, n, k) for w in every_word(n, length))
        assert count_dyck(n, k, length) == brute == dp_count(n, k, length), (n, k, length)


def test_count_closed_forms() -> None:
    for m in range(12):
        length = 2 * m
        assert count_dyck(1, m, length) == catalan(m)  # depth N/2: no bound, Catalan
        assert count_dyck(3, 50, length) == 3**m * catalan(m)  # depth above N/2
        assert count_dyck(4, 1, length) == 4**m  # depth 1: m pairs, n types each
        assert count_dyck(2, 2, length) == (1 if m == 0 else 2 ** (length - 1))
        assert count_dyck(2, 0, length) == int(m == 0)
        assert count_dyck(3, 3, length + 1) == 0
    for length in (40, 41, 63, 64, 200):  # longer: against the dp, odd and even exponents
        for n, k in [(2, 3), (3, 5), (1, 7)]:
            assert count_dyck(n, k, length) == dp_count(n, k, length)


def test_count_accepts_numpy_integers_and_refuses_others() -> None:
    assert count_dyck(np.int64(2), np.int32(2), np.int16(6)) == 32
    with pytest.raises(InputError, match=r"^n_types must be an integer, got 2\.0$"):
        count_dyck(2.0, 2, 4)
    with pytest.raises(InputError, match=r"^depth must be an integer, got '2'$"):
        count_dyck(2, "2", 4)
    with pytest.raises(InputError, match=r"^length must be >= 0, got -2$"):
        count_dyck(2, 2, -2)
    with pytest.raises(InputError, match=r"^depth must be >= 0, got -1$"):
        count_dyck(2, -1, 4)
    with pytest.raises(InputError, match=r"^Dyck-\(n,k\) needs n >= 1 bracket types, got n=0$"):
        count_dyck(0, 2, 4)
    assert count_dyck(1, 0, 0) == 1  # n = 1, k = 0 and N = 0 are the least allowed


def test_count_work_budget_at_and_below_its_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    _, work = budget.dyck_count(3, 4, 50)
    monkeypatch.setenv(budget.WORK_ENV, str(work))
    assert count_dyck(3, 4, 50) == dp_count(3, 4, 50)
    monkeypatch.setenv(budget.WORK_ENV, str(work - 1))
    message = (
        r"^counting Dyck-\(3,4\) words of length 50 \(\(K\+1\)\^3 products of 100-bit "
        r"integers, K = 4\) takes .* steps; the budget is .*: use a shorter length, fewer "
        r"types or a lower depth$"
    )
    with pytest.raises(InputError, match=message):
        count_dyck(3, 4, 50)
    monkeypatch.setenv(budget.WORK_ENV, "1")
    with pytest.raises(InputError, match=r"of 22-bit integers, K = 5\) takes "):
        count_dyck(2, 9, 11)  # K = min(k, N // 2) = 5


def test_count_memory_budget_at_and_below_its_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    memory, _ = budget.dyck_count(2, 3, 30)
    monkeypatch.setenv(budget.MEMORY_ENV, str(memory))
    assert count_dyck(2, 3, 30) == dp_count(2, 3, 30)
    monkeypatch.setenv(budget.MEMORY_ENV, str(memory - 1))
    with pytest.raises(InputError, match=r"^counting Dyck-\(2,3\) words of length 30 .* memory"):
        count_dyck(2, 3, 30)


# --- enumeration ------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "k", "length"), [(1, 2, 6), (2, 1, 6), (3, 2, 4), (5, 2, 4)])
def test_enumeration_is_every_member_in_lexicographic_order(n: int, k: int, length: int) -> None:
    expected = [w for w in every_word(n, length) if member(w, n, k)]
    got = enumerate_dyck(n, k, length)
    assert got.dtype == np.int8
    assert [tuple(row) for row in got.tolist()] == expected


def test_enumeration_dtype_switches_past_128_symbols() -> None:
    at = enumerate_dyck(64, 1, 2)  # 2n = 128 symbols: int8 still holds 0..127
    assert at.dtype == np.int8 and at.tolist() == [[2 * t, 2 * t + 1] for t in range(64)]
    above = enumerate_dyck(65, 1, 2)
    assert above.dtype == np.int64 and above.tolist() == [[2 * t, 2 * t + 1] for t in range(65)]


def test_enumeration_of_an_empty_language_and_the_empty_word() -> None:
    none = enumerate_dyck(2, 2, 5)
    assert none.shape == (0, 5) and none.dtype == np.int8
    assert enumerate_dyck(2, 0, 4).shape == (0, 4)
    empty = enumerate_dyck(2, 2, 0)
    assert empty.shape == (1, 0)


def test_enumeration_limit_at_and_above_the_count() -> None:
    assert enumerate_dyck(2, 2, 8, limit=128).shape == (128, 8)  # 2^7 words, limit equal
    with pytest.raises(
        InputError,
        match=r"^enumeration of Dyck words of length 8 would produce 1\.3e2 words; the limit is "
        r"127; use count_dyck or sample_dyck$",
    ):
        enumerate_dyck(2, 2, 8, limit=127)
    with pytest.raises(InputError, match=r"produce 1\.3e2 words; the limit is 2\*\*6;"):
        enumerate_dyck(2, 2, 8, limit=64)
    with pytest.raises(InputError, match=r"produce 2\.0e0 words; the limit is 2\*\*0;"):
        enumerate_dyck(2, 2, 2, limit=1)
    with pytest.raises(InputError, match=r"produce 2\.0e0 words; the limit is 0;"):
        enumerate_dyck(2, 2, 2, limit=0)
    assert enumerate_dyck(2, 2, 2, limit=2).tolist() == [[0, 1], [2, 3]]


def test_scientific_notation_of_counts() -> None:
    assert dyck._sci(0) == "0"
    assert dyck._sci(1) == "1.0e0"
    assert dyck._sci(99) == "9.9e1"
    assert dyck._sci(128) == "1.3e2"
    assert dyck._sci(999) == "1.0e3"  # the mantissa rounds up to 10: carried into the exponent
    assert dyck._sci(12345) == "1.2e4"
    assert dyck._sci(2**59 + 2**58) == "8.6e17"
    assert dyck._sci(2**999) == "5.4e300"
    assert dyck._sci(10**400) == "1.0e400"
    assert dyck._sci(7 * 10**500 + 1) == "7.0e500"
    assert dyck._format_limit(1 << 24) == "2**24"
    assert dyck._format_limit(3) == "3" and dyck._format_limit(96) == "96"


def test_dp_cell_limit_at_and_above() -> None:
    assert dyck.COUNT_CELL_LIMIT == 10**7
    # depth 0: one height, N + 1 cells; N = 10^7 - 1 uses exactly the limit (and is empty)
    assert enumerate_dyck(1, 0, 10**7 - 1).shape == (0, 10**7 - 1)
    with pytest.raises(
        InputError,
        match=r"^Dyck-\(1,0\) at length 10000000 needs 10000001 DP cells; the limit is 10000000$",
    ):
        enumerate_dyck(1, 0, 10**7)
    with pytest.raises(InputError, match="needs 10000001 DP cells"):
        sample_dyck(1, 0, 10**7, 1, np.random.default_rng(0))
    # K = min(k, N // 2): (N + 1)(K + 1) with K = 4999 at N = 9999 is far above
    with pytest.raises(InputError, match=r"at length 9999 needs 50000000 DP cells"):
        enumerate_dyck(1, 10**6, 9999)
    with pytest.raises(InputError, match=r"^Dyck-\(1,1000\) at length 9999 needs 10010000 DP"):
        enumerate_dyck(1, 1000, 9999)
    # K = 999: exactly 10^7 cells pass this check; the count's work budget refuses next
    with pytest.raises(InputError, match=r"^counting Dyck-\(1,999\) words of length 9999 "):
        enumerate_dyck(1, 999, 9999)


def test_check_dyck_validates_like_count() -> None:
    with pytest.raises(InputError, match=r"^Dyck-\(n,k\) needs n >= 1 bracket types, got n=0$"):
        enumerate_dyck(0, 2, 4)
    with pytest.raises(InputError, match=r"^depth must be >= 0, got -1$"):
        sample_dyck(2, -1, 4, 1, np.random.default_rng(0))
    with pytest.raises(InputError, match=r"^length must be an integer, got 4\.0$"):
        enumerate_dyck(2, 2, 4.0)
    with pytest.raises(InputError, match=r"^n_types must be an integer, got 2\.0$"):
        enumerate_dyck(2.0, 2, 4)
    with pytest.raises(InputError, match=r"^n_types must be >= 0, got -1$"):
        sample_dyck(-1, 2, 4, 1, np.random.default_rng(0))
    with pytest.raises(InputError, match=r"^depth must be an integer, got 1\.5$"):
        enumerate_dyck(2, 1.5, 4)
    with pytest.raises(InputError, match=r"^length must be >= 0, got -4$"):
        sample_dyck(2, 2, -4, 1, np.random.default_rng(0))
    assert dyck._check_dyck(3, 5, 7) == (3, 5, 7, 3)
    assert dyck._check_dyck(3, 2, 7) == (3, 2, 7, 2)


# --- the completion table and the sampler's exact law -----------------------------------------


@pytest.mark.parametrize(("n", "top", "length"), [(1, 2, 6), (2, 2, 8), (3, 1, 5), (2, 0, 3)])
def test_completion_table_against_the_dp(n: int, top: int, length: int) -> None:
    w = dyck._completions(n, top, length)
    assert len(w) == length + 1 and all(len(row) == top + 1 for row in w)
    for r in range(length + 1):
        for h in range(top + 1):
            # ways from height h with r left = paths h -> 0 within 0..top
            assert w[r][h] == dp_count(n, top, r, start=h), (r, h)


def test_samples_of_every_shape_are_members() -> None:
    rng = np.random.default_rng(21)
    for n, k, length in [(1, 1, 10), (1, 3, 12), (3, 2, 10), (2, 9, 8), (5, 1, 6)]:
        words = sample_dyck(n, k, length, 300, rng)
        assert words.dtype == np.int64 and words.shape == (300, length)
        assert all(member(tuple(w), n, k) for w in words.tolist()), (n, k, length)


@pytest.mark.parametrize(("n", "k", "length"), [(3, 2, 4), (1, 3, 8)])
def test_sampler_frequencies_are_uniform(n: int, k: int, length: int) -> None:
    members = [w for w in every_word(n, length) if member(w, n, k)]
    draws = 400 * len(members)
    words = sample_dyck(n, k, length, draws, np.random.default_rng(30 + n))
    seen = Counter(tuple(w) for w in words.tolist())
    assert set(seen) == set(members)
    # expected 400 each, sd 20: 6 sd either side
    assert min(seen.values()) > 280 and max(seen.values()) < 520


def test_sampler_edge_cases_and_messages() -> None:
    rng = np.random.default_rng(0)
    assert sample_dyck(2, 2, 6, 0, rng).shape == (0, 6)
    assert sample_dyck(2, 2, 0, 2, rng).shape == (2, 0)
    assert sample_dyck(1, 1, 2, 3, rng).tolist() == [[0, 1]] * 3
    with pytest.raises(InputError, match=r"^Dyck-\(2,2\) has no word of length 7; use an even"):
        sample_dyck(2, 2, 7, 3, rng)
    with pytest.raises(InputError, match=r"^Dyck-\(2,0\) has no word of length 2; use an even"):
        sample_dyck(2, 0, 2, 3, rng)
    with pytest.raises(InputError, match=r"^batch must be >= 0, got -1$"):
        sample_dyck(2, 2, 4, -1, rng)
    with pytest.raises(InputError, match=r"^rng must be a numpy\.random\.Generator, got int$"):
        sample_dyck(2, 2, 4, 3, 42)


def test_sampler_budget_at_and_below_its_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    n, k, length, size = 3, 2, 10, 7
    memory, work = budget.dyck_table(n, k, length)
    memory += budget.array_bytes(size, length + 2 + 1) * 3
    work += size * length * 40
    rng = np.random.default_rng(1)
    monkeypatch.setenv(budget.MEMORY_ENV, str(memory))
    monkeypatch.setenv(budget.WORK_ENV, str(work))
    assert sample_dyck(n, k, length, size, rng).shape == (size, length)
    monkeypatch.setenv(budget.WORK_ENV, str(work - 1))
    with pytest.raises(
        InputError,
        match=r"^sampling 7 Dyck-\(3,2\) words of length 10 takes .* steps; .*: use a shorter "
        r"length, fewer types or a lower depth$",
    ):
        sample_dyck(n, k, length, size, rng)
    monkeypatch.setenv(budget.WORK_ENV, str(work))
    monkeypatch.setenv(budget.MEMORY_ENV, str(memory - 1))
    with pytest.raises(InputError, match=r"^sampling 7 Dyck-\(3,2\) words of length 10 needs"):
        sample_dyck(n, k, length, size, rng)


# --- App. H.1 generators ----------------------------------------------------------------------


def h1_law(length: int, reading: str) -> dict[tuple[int, ...], Fraction]:
    """Exact probability of each word that :func:`positive_h1` writes, by following its rule."""
    close_p = Fraction(1, 3) if reading == "three-way" else Fraction(1, 2)
    law: dict[tuple[int, ...], Fraction] = {}

    def walk(prefix: tuple[int, ...], stack: tuple[int, ...], p: Fraction) -> None:
        if len(prefix) == length - 2:
            if stack:
                tail = [(2 * stack[1] + 1, 2 * stack[0] + 1, p)]
            else:
                tail = [(0, 1, p / 2), (2, 3, p / 2)]
            for a, b, q in tail:
                law[(*prefix, a, b)] = law.get((*prefix, a, b), Fraction(0)) + q
            return
        if len(stack) == 2:
            walk((*prefix, 2 * stack[-1] + 1), stack[:-1], p)
            return
        if len(stack) == 1:
            walk((*prefix, 2 * stack[-1] + 1), (), p * close_p)
            for t in (0, 1):
                walk((*prefix, 2 * t), (*stack, t), p * (1 - close_p) / 2)
            return
        for t in (0, 1):
            walk((*prefix, 2 * t), (t,), p / 2)

    walk((), (), Fraction(1))
    return law


@pytest.mark.parametrize("reading", ["three-way", "half"])
def test_h1_positive_frequencies_follow_the_exact_law(reading: str) -> None:
    law = h1_law(6, reading)
    assert sum(law.values()) == 1
    assert set(law) == {w for w in every_word(2, 6) if member(w, 2, 2)}
    draws = 30000
    words = positive_h1(6, draws, np.random.default_rng(40), reading)
    seen = Counter(tuple(w) for w in words.tolist())
    assert set(seen) == set(law)
    for word, p in law.items():
        expected = draws * float(p)
        sd = (expected * (1 - float(p))) ** 0.5
        assert abs(seen[word] - expected) < 5 * sd, (word, seen[word], expected)


def test_h1_law_extremes() -> None:
    three = h1_law(6, "three-way")
    assert (min(three.values()), max(three.values())) == (Fraction(1, 72), Fraction(1, 18))
    assert set(h1_law(8, "half").values()) == {Fraction(1, 2**7)}


def test_h1_first_symbol_and_depth_one_rates() -> None:
    words = positive_h1(4, 20000, np.random.default_rng(41), "three-way")
    assert abs((words[:, 0] == 0).mean() - 0.5) < 0.02  # depth 0: '(' or '[' uniformly
    opened = words[words[:, 1] % 2 == 0]
    assert abs((opened[:, 1] == 0).mean() - 0.5) < 0.03  # an open at depth 1: types uniform
    assert positive_h1(2, 5, np.random.default_rng(0)).shape == (5, 2)
    assert set(map(tuple, positive_h1(2, 200, np.random.default_rng(0)).tolist())) == {
        (0, 1),
        (2, 3),
    }


@pytest.mark.parametrize(("length", "c_max"), [(8, 1), (18, 1), (20, 2), (30, 3), (38, 3)])
def test_h1_negatives_corrupt_their_positive_in_1_to_n_over_10_places(
    length: int, c_max: int
) -> None:
    size = 3000
    pos = positive_h1(length, size, np.random.default_rng(length))
    neg = negative_h1(length, size, np.random.default_rng(length))  # draws the same positives
    diff = pos ^ neg
    assert set(np.unique(diff).tolist()) == {0, 1, 2}  # xor 2 swaps the type, xor 1 flips
    changed = (diff > 0).sum(axis=1)
    assert set(changed.tolist()) == set(range(1, c_max + 1))
    counts = np.bincount(changed, minlength=c_max + 1)[1:]
    assert counts.min() > 0.8 * size / c_max  # c uniform in 1..c_max (members redrawn)
    assert abs((diff[diff > 0] == 2).mean() - 0.5) < 0.05
    where = (diff > 0).sum(axis=0)  # positions uniform
    assert where.min() > 0.7 * where.mean()
    assert not is_dyck(neg, 2, 2).any()
    # only members of Dyck-(2,2) are corrupted again: some negatives are too deep, not unbalanced
    assert is_dyck(neg, 2, 3).any() == (c_max > 1)


def test_h1_refusals_and_messages() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match=r"^the App\. H\.1 generators need an even length >= 2, "):
        positive_h1(0, 3, rng)
    with pytest.raises(InputError, match=r"need an even length >= 2, got 7$"):
        negative_h1(7, 3, rng)
    with pytest.raises(InputError, match=r"^reading must be 'three-way' or 'half', got 'u'$"):
        positive_h1(4, 3, rng, reading="u")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^rng must be a numpy\.random\.Generator, got int$"):
        positive_h1(4, 3, 7)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"^batch must be >= 0, got -1$"):
        negative_h1(4, -1, rng)
    assert negative_h1(4, 0, rng).shape == (0, 4)
    with pytest.raises(InputError, match=r"^length must be >= 0, got -2$"):
        positive_h1(-2, 3, rng)
    with pytest.raises(InputError, match=r"^length must be an integer, got 4\.0$"):
        negative_h1(4.0, 3, rng)  # type: ignore[arg-type]


# --- extremes: 2^60 bracket types, and the uniform draw at its boundary values ------------------


class ConstantUniform(np.random.Generator):
    """A real Generator whose ``random`` returns one chosen double (integers stay random)."""

    def __init__(self, value: float, seed: int = 0) -> None:
        super().__init__(np.random.PCG64(seed))
        self.value = value

    def random(self, size=None, dtype=np.float64, out=None):  # type: ignore[no-untyped-def, override]
        return np.full(size, self.value)


BIG = 2**60  # types up to 2^60 - 1: beyond the 53 bits a float stack would keep


def test_is_dyck_tells_apart_types_that_agree_in_their_top_53_bits() -> None:
    t = 2**55
    words = np.array([[2 * t, 2 * (t + 1) + 1], [2 * t, 2 * t + 1], [2 * (BIG - 1), 2 * BIG - 1]])
    assert is_dyck(words, BIG, 1).tolist() == [False, True, True]
    assert is_dyck(np.array([[2 * t, 2 * t, 2 * t + 1, 2 * (t + 1) + 1]]), BIG, 2).tolist() == [
        False
    ]


def test_samples_with_2_to_the_60_types_close_their_own_type() -> None:
    words = sample_dyck(BIG, 2, 4, 64, np.random.default_rng(3))
    assert is_dyck(words, BIG, 2).all()
    assert all(member(tuple(w), BIG, 2) for w in words.tolist())
    assert len({w[0] for w in words.tolist()}) == 64  # types really span 0..2^60 - 1


def test_sampler_at_the_extreme_uniform_draws() -> None:
    # u = 0.0 opens wherever opening is allowed (p > 0) and never where p = 0; u just below 1
    # opens only where the move is forced (p = 1). Both ways every word is a member.
    assert sample_dyck(1, 2, 4, 3, ConstantUniform(0.0)).tolist() == [[0, 0, 1, 1]] * 3
    assert sample_dyck(1, 2, 6, 2, ConstantUniform(0.0)).tolist() == [[0, 0, 1, 0, 1, 1]] * 2
    below_one = float(np.nextafter(1.0, 0.0))
    assert sample_dyck(1, 2, 4, 3, ConstantUniform(below_one)).tolist() == [[0, 1, 0, 1]] * 3
    words = sample_dyck(3, 2, 6, 20, ConstantUniform(0.0, seed=4))
    assert is_dyck(words, 3, 2).all()
    assert (words[:, 1] % 2 == 0).all() and (words[:, 2] % 2 == 1).all()


def test_h1_half_reading_closes_below_one_half_only() -> None:
    # "half": close at depth 1 exactly when u < 1/2 (probability exactly 1/2 on the double grid)
    at = positive_h1(4, 40, ConstantUniform(0.5), "half")
    assert (at[:, 1] % 2 == 0).all()  # u = 1/2 opens: depth 2, then the two closers
    assert is_dyck(at, 2, 2).all() and not is_dyck(at, 2, 1).any()
    below = positive_h1(4, 40, ConstantUniform(float(np.nextafter(0.5, 0.0))), "half")
    assert (below[:, 1] == below[:, 0] + 1).all()  # closes its first bracket
    assert is_dyck(below, 2, 1).all()


def test_h1_negatives_flip_at_one_half_and_swap_below() -> None:
    for value, xor in [(0.5, 1), (float(np.nextafter(0.5, 0.0)), 2)]:
        pos = positive_h1(8, 50, ConstantUniform(value, seed=9))  # three-way: integers only
        neg = negative_h1(8, 50, ConstantUniform(value, seed=9))
        diff = pos ^ neg
        assert ((diff > 0).sum(axis=1) == 1).all()
        assert set(np.unique(diff).tolist()) == {0, xor}
        assert not is_dyck(neg, 2, 2).any()


def documented_negatives(length: int, size: int, seed: int, reading: str) -> np.ndarray:
    """negative_h1's docstring, draw by draw, one row at a time with Python lists."""
    rng = np.random.default_rng(seed)
    pos = positive_h1(length, size, rng, reading)  # type: ignore[arg-type]
    out = pos.copy()
    c_max = max(1, length // 10)
    todo = list(range(size))
    while todo:
        c = rng.integers(1, c_max + 1, size=len(todo))
        keys = rng.random((len(todo), length))
        ops = rng.random((len(todo), length))
        again = []
        for i, row in enumerate(todo):
            places = sorted(range(length), key=lambda j: keys[i, j])[: int(c[i])]
            word = pos[row].tolist()
            for j in places:
                word[j] ^= 2 if ops[i, j] < 0.5 else 1
            out[row] = word
            if member(tuple(word), 2, 2):
                again.append(row)
        todo = again
    return out


@pytest.mark.parametrize(("length", "reading"), [(8, "three-way"), (8, "half"), (24, "half")])
def test_h1_negatives_follow_the_documented_draws(length: int, reading: str) -> None:
    neg = negative_h1(length, 60, np.random.default_rng(length), reading)  # type: ignore[arg-type]
    assert neg.tolist() == documented_negatives(length, 60, length, reading).tolist()
    pos = positive_h1(length, 60, np.random.default_rng(length), reading)  # type: ignore[arg-type]
    changed = ((pos ^ neg) > 0).sum(axis=1)  # corrupts the positive of its own reading
    assert changed.min() >= 1 and changed.max() <= max(1, length // 10)
