"""Pinned values of the log-rank bound (ccomplexity.lower_bounds.rank): ranks over GF(p) and the
rationals against an elimination in Fractions written here and against enumeration of all
0/1 matrices at tiny sizes, the witness minor's determinant, the primality test and every
limit at, below and above."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from ccomplexity import problems as P
from ccomplexity.errors import InputError
from ccomplexity.lower_bounds import rank as rk

BIG = rk.DEFAULT_PRIME


def rank_exact(rows: list[list[int]], prime: int | None = None) -> int:
    """Rank over the rationals (prime None, in Fractions) or over GF(prime) (Python ints), by
    Gauss-Jordan elimination written independently of the module."""
    m: list[list[Fraction | int]] = [
        [Fraction(x) if prime is None else x % prime for x in row] for row in rows
    ]
    rank = 0
    for col in range(len(m[0])):
        piv = next((i for i in range(rank, len(m)) if m[i][col] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][col] != 0:
                if prime is None:
                    f = m[i][col] / m[rank][col]
                    m[i] = [a - f * b for a, b in zip(m[i], m[rank], strict=True)]
                else:
                    f = m[i][col] * pow(m[rank][col], prime - 2, prime) % prime
                    m[i] = [(a - f * b) % prime for a, b in zip(m[i], m[rank], strict=True)]
        rank += 1
    return rank


def det(m: list[list[int]]) -> int:
    """Exact determinant by Laplace expansion (tiny matrices)."""
    if len(m) == 1:
        return m[0][0]
    return sum(
        (-1) ** j * m[0][j] * det([row[:j] + row[j + 1 :] for row in m[1:]])
        for j in range(len(m))
        if m[0][j]
    )


def check_witness(m: np.ndarray, res: rk.RankResult) -> None:
    assert len(res.rows) == len(res.cols) == res.rank
    assert list(res.rows) == sorted(set(res.rows)) and list(res.cols) == sorted(set(res.cols))
    if res.rank:
        sub = m[np.ix_(res.rows, res.cols)].astype(object).tolist()
        assert det([[int(x) for x in row] for row in sub]) % res.prime != 0


# ------------------------------------------------------------------------------ values


@pytest.mark.parametrize(("n_rows", "n_cols"), [(2, 2), (2, 3), (3, 2), (3, 3)])
def test_every_01_matrix_over_gf2_gf3_and_the_rationals(n_rows: int, n_cols: int) -> None:
    for bits in itertools.product((0, 1), repeat=n_rows * n_cols):
        m = np.array(bits, dtype=np.int64).reshape(n_rows, n_cols)
        rows = m.tolist()
        for prime in (2, 3):
            res = rk.rank_mod_p(m, prime)
            assert res.rank == rank_exact(rows, prime), (m, prime)
            check_witness(m, res)
        assert rk.rank_mod_p(m).rank == rank_exact(rows)


def test_random_integer_matrices_against_fractions() -> None:
    rng = np.random.default_rng(5)
    for trial in range(60):
        shape = tuple(int(x) for x in rng.integers(1, 6, size=2))
        m = rng.integers(-4, 5, size=shape)
        if trial % 3 == 0:  # low rank: a product of thin factors
            k = int(rng.integers(1, 3))
            m = rng.integers(-3, 4, size=(shape[0], k)) @ rng.integers(-3, 4, size=(k, shape[1]))
        for prime in (BIG, 5, 7):
            res = rk.rank_mod_p(m, prime)
            assert res.rank == rank_exact(m.tolist(), prime if prime != BIG else None), (m, prime)
            assert res.prime == prime
            check_witness(m, res)


def test_residues_near_the_prime_do_not_overflow() -> None:
    # Entries p - 1, p - 2, ...: products of residues near 2^62, which must stay exact.
    m = np.array([[BIG - 1, BIG - 2, 3], [BIG - 3, 5, BIG - 7], [2, BIG - 11, BIG - 13]])
    want = rank_exact(m.tolist(), BIG)
    res = rk.rank_mod_p(m)
    assert res.rank == want == 3
    check_witness(m, res)
    # Row 2 = row 0 + row 1 mod p; over the integers it is not.
    dep = np.array([[BIG - 1, 2, 7], [5, BIG - 3, 9], [(BIG - 1 + 5) % BIG, BIG - 1, 16]])
    assert rk.rank_mod_p(dep).rank == 2 == rank_exact(dep.tolist(), BIG)


def test_unsigned_entries_are_reduced_without_wrapping() -> None:
    # 2^64 - 1 = 0 mod 3, but as a signed int64 it would be -1 = 2 mod 3.
    m = np.array([[2**64 - 1, 1], [2**64 - 1, 2]], dtype=np.uint64)
    res = rk.rank_mod_p(m, 3)
    assert (res.rank, res.rows, res.cols) == (1, (0,), (1,))
    big = np.array([[2**63 + 5]], dtype=np.uint64)  # (2^63 + 5) mod 7 = (1 + 5) mod 7 = 6
    assert rk.rank_mod_p(big, 7).rank == 1
    assert rk.rank_mod_p(np.array([[2**63 + 6]], dtype=np.uint64), 7).rank == 0


def test_large_signed_entries_are_reduced_exactly() -> None:
    # 2^62 + 2 = 0 mod 3 (2^2 = 1 mod 3); through a float it would round to 2^62 = 1 mod 3.
    m = np.array([[2**62 + 2, 0], [0, 2**62 + 1]], dtype=np.int64)
    res = rk.rank_mod_p(m, 3)
    assert (res.rank, res.rows, res.cols) == (1, (1,), (1,))
    assert rk.rank_mod_p(np.array([[-(2**62) - 2]], dtype=np.int64), 3).rank == 0


def test_witness_is_the_first_pivots_in_order() -> None:
    # Pivots are chosen column by column, the first free row with a nonzero entry.
    m = np.array([[0, 0, 0], [0, 2, 4], [0, 1, 2], [3, 0, 1]])
    res = rk.rank_mod_p(m)
    assert (res.rank, res.rows, res.cols) == (2, (1, 3), (0, 1))
    res5 = rk.rank_mod_p(np.array([[1, 2], [3, 1]]), 5)  # det = -5 = 0 mod 5
    assert (res5.rank, res5.rows, res5.cols) == (1, (0,), (0,))
    wide = rk.rank_mod_p(np.array([[0, 1, 1, 0], [1, 0, 0, 1]]))
    assert (wide.rank, wide.rows, wide.cols) == (2, (0, 1), (0, 1))
    tall = rk.rank_mod_p(np.array([[1], [1], [2]]))
    assert (tall.rank, tall.rows, tall.cols) == (1, (0,), (0,))


def test_a_problem_is_accepted_as_well_as_a_matrix() -> None:
    prob = P.disjointness(2)
    res = rk.rank_mod_p(prob)
    assert res.rank == 3 == rank_exact(prob.matrix().tolist())
    assert rk.rank_mod_p(P.equality(2, 3)).rank == 9


@pytest.mark.parametrize(("rank", "bits"), [(0, 0), (1, 0), (2, 1), (3, 2), (4, 2), (5, 3)])
def test_bits_is_ceil_log2_rank(rank: int, bits: int) -> None:
    assert rk.RankResult(rank, 2, (), ()).bits == bits


# ------------------------------------------------------------------------------ primes


@pytest.mark.parametrize(
    ("n", "prime"),
    [
        (-7, False),
        (0, False),
        (1, False),
        (2, True),
        (3, True),
        (4, False),
        (5, True),
        (9, False),
        (15, False),
        (25, False),
        (49, False),
        (97, True),
        (121, False),
        (7919, True),
        (7921, False),  # 89^2
        (BIG, True),
        (BIG - 2, False),
    ],
)
def test_is_prime(n: int, prime: bool) -> None:
    assert rk._is_prime(n) is prime


@pytest.mark.parametrize("bad", [-3, 0, 1, 4, 9, 25, 2_147_483_649, 2_147_483_659])
def test_non_primes_and_primes_above_the_limit_are_refused(bad: int) -> None:
    with pytest.raises(
        InputError,
        match=rf"^prime must be a prime in 2\.\.2147483647 \(products must fit in int64\), "
        rf"got {bad}$",
    ):
        rk.rank_mod_p(np.eye(2, dtype=int), bad)


@pytest.mark.parametrize("prime", [2, 3, BIG])
def test_smallest_and_largest_primes_are_accepted(prime: int) -> None:
    assert rk.rank_mod_p(np.eye(2, dtype=int), prime).rank == 2


# ------------------------------------------------------------------------------ limits


def test_entry_limit_at_and_above_for_a_matrix() -> None:
    at = np.zeros((rk.RANK_ENTRY_LIMIT, 1), dtype=np.int8)
    at[-1, 0] = 1
    res = rk.rank_mod_p(at)
    assert (res.rank, res.rows, res.cols) == (1, (rk.RANK_ENTRY_LIMIT - 1,), (0,))
    over = np.zeros((rk.RANK_ENTRY_LIMIT + 1, 1), dtype=np.int8)
    with pytest.raises(
        InputError,
        match=r"^rank over GF\(q\) is limited to 4194304 matrix entries, got 4194305 x 1; use a "
        r"fooling set or the one-way count for a lower bound$",
    ):
        rk.rank_mod_p(over)


def test_entry_limit_for_a_problem_is_checked_before_its_matrix() -> None:
    prob = P.index(18)  # 2^18 x 18 entries, over 2^22
    with pytest.raises(InputError, match=r"limited to 4194304 matrix entries, got 262144 x 18;"):
        rk.rank_mod_p(prob)
    assert rk.rank_mod_p(P.index(3)).rank == 3
    # Beyond the dense limit too: the rank's refusal, not the matrix's.
    with pytest.raises(
        InputError, match=r"^rank over GF\(q\) is limited to 4194304 matrix entries, got"
    ):
        rk.rank_mod_p(P.equality(14))


def test_a_bad_matrix_is_named_as_rank_mod_ps() -> None:
    with pytest.raises(
        InputError, match=r"^rank_mod_p needs an integer matrix, got dtype float64$"
    ):
        rk.rank_mod_p(np.eye(2))
    with pytest.raises(InputError, match=r"^rank_mod_p needs a non-empty 2-D matrix, got shape"):
        rk.rank_mod_p(np.arange(3))
