"""Log-rank: D(f) >= log2 rank(M_f) over any field, here GF(p) by exact integer elimination."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2 as _ceil_log2
from ccomplexity.lower_bounds.matrix import as_matrix
from ccomplexity.problems import TwoPartyProblem

DEFAULT_PRIME = 2_147_483_647
"""2^31 - 1, prime; also the largest modulus accepted, so products of residues stay < 2^62."""
RANK_ENTRY_LIMIT = 1 << 22
"""Most matrix entries eliminated (2048 x 2048 takes seconds; time grows as rows x cols^2)."""


@dataclass(frozen=True)
class RankResult:
    """Rank over GF(prime) with a witness: M[rows][:, cols] is r x r and nonsingular mod prime."""

    rank: int
    prime: int
    rows: tuple[int, ...]
    cols: tuple[int, ...]

    @property
    def bits(self) -> int:
        """Log-rank bound ceil(log2 rank); valid since rank_GF(p) <= rank over the reals."""
        return _ceil_log2(self.rank)


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    d = np.arange(3, math.isqrt(n) + 1, 2, dtype=np.int64)
    return not bool((n % d == 0).any())


def rank_mod_p(matrix: TwoPartyProblem | np.ndarray, prime: int = DEFAULT_PRIME) -> RankResult:
    """Exact rank of an integer matrix over GF(prime), with a nonsingular r x r witness.

    Gaussian elimination in int64 (no floats): residues are < 2^31, so products fit. Each pivot
    row is the original row plus multiples of earlier pivot rows, so M[rows][:, cols] is a unit
    lower-triangular transform of a triangular matrix with nonzero diagonal: nonsingular mod p.
    A nonzero minor mod p is a nonzero integer, so rank_GF(p) <= rank over the reals, and the
    log-rank bound D(f) >= log2 rank_GF(p)(M_f) holds (each 1-leaf of a protocol is a rank-one
    term over any field). EQ_3 (the 8 x 8 identity) has rank 8. Refuses more than
    ``RANK_ENTRY_LIMIT`` entries, for a problem before its matrix is built.
    """
    prime = int(prime)
    if not 2 <= prime <= DEFAULT_PRIME or not _is_prime(prime):
        raise InputError(
            f"prime must be a prime in 2..{DEFAULT_PRIME} (products must fit in int64), got {prime}"
        )
    shape = (matrix.n_rows, matrix.n_cols) if isinstance(matrix, TwoPartyProblem) else None
    m = None if shape else as_matrix(matrix, "rank_mod_p")
    rows, cols = shape or m.shape
    if rows * cols > RANK_ENTRY_LIMIT:
        raise InputError(
            f"rank over GF(q) is limited to {RANK_ENTRY_LIMIT} matrix entries, got {rows} x "
            f"{cols}; use a fooling set or the one-way count for a lower bound"
        )
    m = as_matrix(matrix, "rank_mod_p") if m is None else m
    a = np.mod(m.astype(np.int64), prime) if m.dtype != np.uint64 else np.mod(m, prime)
    a = a.astype(np.int64)
    n_rows, n_cols = a.shape
    free = np.ones(n_rows, dtype=bool)  # rows not yet used as pivots
    piv_r: list[int] = []
    piv_c: list[int] = []
    for col in range(n_cols):
        cand = np.flatnonzero(free & (a[:, col] != 0))
        if cand.size == 0:
            continue
        r = int(cand[0])
        a[r] = a[r] * pow(int(a[r, col]), prime - 2, prime) % prime
        rest = cand[1:]
        if rest.size:  # clear this column in the other free rows at once
            a[rest] = (a[rest] - a[rest, col][:, None] * a[r][None, :] % prime) % prime
        free[r] = False
        piv_r.append(r)
        piv_c.append(col)
        if len(piv_r) == min(n_rows, n_cols):
            break
    return RankResult(len(piv_r), prime, tuple(sorted(piv_r)), tuple(sorted(piv_c)))
