"""Near-orthogonal ±1/sqrt(k) codes: Lemma 2 and Corollary 8.1 (App. B.3) of Bhattamishra et al.

Lemma 2: for every N there are N vectors T_1..T_N in k = O(log N / gamma^2) dimensions, entries
in {-1/sqrt(k), +1/sqrt(k)}, with <T_i, T_i> >= 1 - gamma and <T_i, T_j> <= gamma for i != j.
Corollary 8.1 is gamma = 1/4 (diagonal >= 3/4, off-diagonal <= 1/4): the positional codes of the
Theorem 1, 6, 7 and 13 constructions.

Row ``i`` of a family is generated on its own from a counter-based generator (numpy's Philox
keyed by ``(i, seed)``), so vector i of a huge family costs O(k) time and memory; this is the
toolkit's stand-in for the paper's log-space derandomised JL codes.  Rows are numbered from 0.

All Gram checks are exact: entries ±1/sqrt(k) give <T_i, T_j> = c/k with c an integer, so the
verifier works on integer sign matrices and compares c against gamma * k as fractions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import numpy as np

from ccomplexity import budget
from ccomplexity.errors import InputError, check_int

SEED_LIMIT = 1 << 64
"""Seeds and row indices are the two 64-bit words of the Philox key, so both lie in [0, 2^64)."""
SEARCH_LIMIT = 1 << 14
"""Most vectors :func:`smallest_k` searches codes for (each check is quadratic in their number)."""

K_LIMIT = 1 << 32
"""Largest code width k that :func:`paper_k` reports (gamma down to about 2^-13 at N = 10^6)."""
GRAM_WORK_LIMIT = 1 << 39
"""Most Gram-matrix products N^2 x 4 paper_k that :func:`smallest_k` may need (N = 10,000 at
gamma = 1/4 is within it, minutes of work), checked before anything is allocated."""

BLOCK_ROWS = 512
"""Rows of the Gram matrix computed at once (a block is BLOCK_ROWS x N numbers)."""

_FLOAT32_EXACT = 1 << 24
# Below 2^24 every partial sum of ±1 products is an integer that float32 holds exactly, so the
# fast BLAS product is exact whatever order it adds in; beyond that we fall back to float64.


def _check_int(value: object, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value >= high):
        bound = f">= {low}" if high is None else f"in [{low}, {high})"
        raise InputError(f"{name} must be {bound}, got {value}")
    return value


def _check_gamma(gamma: object) -> Fraction:
    if isinstance(gamma, bool) or not isinstance(gamma, Real) or not math.isfinite(gamma):
        raise InputError(f"gamma must be a real number in (0, 1), got {gamma!r}")
    exact = Fraction(gamma)  # floats are dyadic rationals, so this is exact
    if not 0 < exact < 1:
        raise InputError(f"gamma must lie in (0, 1), got {gamma}")
    return exact


def paper_k(n: int, gamma: float) -> int:
    """Dimension k = ceil(8 ln(2N) / gamma^2) that Lemma 2's proof gives (App. B.3, as printed).

    The proof bounds P[|<X_i, X_j>| >= gamma] <= 2 exp(-k gamma^2 / 4) and takes a union bound
    over < N^2 pairs, 2 N^2 exp(-k gamma^2 / 4) < 1/2, so one random family works with
    probability >= 1/2.  The exact Hoeffding bound for k terms in [-1/k, 1/k] is
    2 exp(-k gamma^2 / 2) (spec erratum 9), which would halve k; we keep the printed constant.
    Corollary 8.1 is gamma = 1/4: k = ceil(128 ln(2N)), e.g. 473 at N = 20.
    """
    n = _check_int(n, "n", 1)
    g = float(_check_gamma(gamma))
    # 8 ln(2N)/gamma^2 is transcendental, so it is never an integer and ceil has no tie to resolve
    k = 8.0 * math.log(2 * n) / g / g
    if not k <= K_LIMIT:
        raise InputError(
            f"Lemma 2's k = 8 ln(2N)/gamma^2 at gamma = {gamma} exceeds {K_LIMIT}; "
            "use a larger gamma"
        )
    return math.ceil(k)


def _sign_words(i: int, k: int, seed: int) -> np.ndarray:
    words = -(-k // 64)
    return np.random.Philox(key=np.array([i, seed], dtype=np.uint64)).random_raw(words)


def _words_to_signs(raw: np.ndarray, k: int) -> np.ndarray:
    # explicit shifts, not a uint8 view, so the bit order does not depend on machine endianness
    shifts = np.arange(64, dtype=np.uint64)
    bits = (raw[..., None] >> shifts) & np.uint64(1)
    bits = bits.reshape(*raw.shape[:-1], -1)[..., :k]
    return (1 - 2 * bits.astype(np.int8)).astype(np.int8)


def sign_code_signs(i: int, k: int, seed: int) -> np.ndarray:
    """Integer signs (k,) in {-1, +1} of vector ``i``: ``sqrt(k) * sign_code(i, k, seed)``."""
    i = _check_int(i, "i", 0, SEED_LIMIT)
    k = _check_int(k, "k", 1)
    seed = _check_int(seed, "seed", 0, SEED_LIMIT)
    return _words_to_signs(_sign_words(i, k, seed), k)


def sign_code(i: int, k: int, seed: int) -> np.ndarray:
    """Vector ``i`` (0-based) of the seeded family, (k,) float64 with entries ±1/sqrt(k).

    Generated alone from Philox keyed by ``(i, seed)``: equal to row ``i`` of
    :func:`sign_codes` for every ``n > i``, without building the other rows.
    """
    signs = sign_code_signs(i, k, seed)
    return signs.astype(np.float64) / math.sqrt(signs.shape[0])


def sign_matrix(n: int, k: int, seed: int) -> np.ndarray:
    """Integer signs (n, k) in {-1, +1} of the family; row i is ``sign_code_signs(i, k, seed)``."""
    n = _check_int(n, "n", 1, SEED_LIMIT)
    k = _check_int(k, "k", 1)
    seed = _check_int(seed, "seed", 0, SEED_LIMIT)
    raw = np.stack([_sign_words(i, k, seed) for i in range(n)])
    return _words_to_signs(raw, k)


def sign_codes(n: int, k: int, seed: int) -> np.ndarray:
    """N random vectors of Lemma 2, (n, k) float64 with entries ±1/sqrt(k), from ``seed``.

    Each row has <T_i, T_i> = 1 exactly (in exact arithmetic); off-diagonal products are
    c/k with c an integer.  Row i equals :func:`sign_code` ``(i, k, seed)``.
    """
    signs = sign_matrix(n, k, seed)
    return signs.astype(np.float64) / math.sqrt(k)


@dataclass(frozen=True)
class GramCheck:
    """Gram-matrix margins of a code family against Lemma 2's conditions for ``gamma``.

    ``valid`` is the two-sided check diag >= 1 - gamma and |<T_i, T_j>| <= gamma, which the
    proof of Lemma 2 establishes; ``valid_one_sided`` is the statement of Lemma 2 / Cor 8.1 as
    the theorems use it, <T_i, T_j> <= gamma.  ``exact`` is True for ±1/sqrt(k) families, whose
    margins are computed from integers (``max_off_diagonal_count`` = max |c| with <.,.> = c/k).
    ``worst_pair`` is (i, j), i < j, attaining ``max_off_diagonal`` (None when n = 1).
    """

    n: int
    k: int
    gamma: float
    exact: bool
    min_diagonal: float
    max_off_diagonal: float
    max_off_diagonal_signed: float
    max_off_diagonal_count: int | None
    worst_pair: tuple[int, int] | None
    valid: bool
    valid_one_sided: bool


def _as_signs(a: np.ndarray) -> np.ndarray | None:
    """The ±1 matrix if every entry is ±1/sqrt(k) up to float rounding, else None."""
    k = a.shape[1]
    if np.all(np.abs(np.abs(a) * math.sqrt(k) - 1.0) <= 1e-9):
        return np.where(a > 0, 1, -1).astype(np.int8)
    return None


_Scan = tuple[float, float, tuple[int, int] | None, bool]


def _scan(m: np.ndarray, stop_above: float | None = None, one_sided: bool = False) -> _Scan:
    """Largest |off-diagonal| and largest signed off-diagonal of m @ m.T, block by block.

    Only the strict upper triangle is visited (the Gram matrix is symmetric).  With
    ``stop_above`` the scan returns as soon as an entry exceeds it (signed entries when
    ``one_sided``), so failing families in :func:`smallest_k` are rejected cheaply.
    Returns (max_abs, max_signed, worst_pair, finished).
    """
    n = m.shape[0]
    best_abs, best_signed, worst = -math.inf, -math.inf, None
    for a in range(0, n - 1, BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, n)
        g = m[a:b] @ m[a:].T  # rows a..b-1 against columns a..n-1
        rows = np.arange(b - a)[:, None]
        g = np.where(np.arange(n - a)[None, :] > rows, g, np.nan)  # keep j > i only
        if np.all(np.isnan(g)):
            continue
        ga = np.abs(g)
        r, c = np.unravel_index(np.nanargmax(ga), ga.shape)
        if ga[r, c] > best_abs:
            best_abs, worst = float(ga[r, c]), (a + int(r), a + int(c))
        best_signed = max(best_signed, float(np.nanmax(g)))
        if stop_above is not None and (best_signed if one_sided else best_abs) > stop_above:
            return best_abs, best_signed, worst, False
    return best_abs, best_signed, worst, True


def _int_scan(signs: np.ndarray, stop_above: int | None = None, one_sided: bool = False) -> _Scan:
    k = signs.shape[1]
    dtype = np.float32 if k < _FLOAT32_EXACT else np.float64
    return _scan(signs.astype(dtype), stop_above, one_sided)


def _check_from_signs(signs: np.ndarray, gamma: Fraction) -> GramCheck:
    n, k = signs.shape
    best_abs, best_signed, worst, _ = _int_scan(signs)
    if n == 1:
        best_abs, best_signed = 0.0, 0.0
    c_abs, c_signed = int(best_abs), int(best_signed)
    limit = gamma * k  # <T_i,T_j> = c/k <= gamma  <=>  c <= gamma k, compared as fractions
    return GramCheck(
        n=n,
        k=k,
        gamma=float(gamma),
        exact=True,
        min_diagonal=1.0,  # k terms of (±1/sqrt(k))^2 sum to exactly 1
        max_off_diagonal=c_abs / k,
        max_off_diagonal_signed=c_signed / k,
        max_off_diagonal_count=c_abs,
        worst_pair=worst,
        valid=c_abs <= limit,
        valid_one_sided=c_signed <= limit,
    )


def verify_codes(codes: np.ndarray, gamma: float) -> GramCheck:
    """Check a family against Lemma 2 / Cor 8.1: diag >= 1 - gamma, off-diagonal <= gamma.

    Families with entries ±1/sqrt(k) are checked exactly from their integer signs; any other
    real (n, k) matrix falls back to a float64 Gram (``exact`` False).  Works block by block
    (``BLOCK_ROWS`` rows at a time), so N = 10,000 at k ~ 500 needs ~20 MB and a few seconds.
    """
    g = _check_gamma(gamma)
    a = np.asarray(codes)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise InputError(f"codes must be a non-empty (n, k) matrix, got shape {a.shape}")
    if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
        raise InputError(f"codes must be real numbers, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        raise InputError("codes must be finite")
    signs = _as_signs(a)
    if signs is not None:
        return _check_from_signs(signs, g)
    n, k = a.shape
    diag = np.einsum("ij,ij->i", a, a)
    best_abs, best_signed, worst, _ = _scan(a)
    if n == 1:
        best_abs, best_signed = 0.0, 0.0
    gf = float(g)
    min_diag = float(diag.min())
    return GramCheck(
        n=n,
        k=k,
        gamma=gf,
        exact=False,
        min_diagonal=min_diag,
        max_off_diagonal=best_abs,
        max_off_diagonal_signed=best_signed,
        max_off_diagonal_count=None,
        worst_pair=worst,
        valid=min_diag >= 1 - gf and best_abs <= gf,
        valid_one_sided=min_diag >= 1 - gf and best_signed <= gf,
    )


@dataclass(frozen=True)
class SearchResult:
    """Outcome of :func:`smallest_k`.

    ``k`` passed with family ``seed`` while no seed in the tried range passed at ``k - 1``
    (see :func:`smallest_k` for why this is a local, not a global, minimum).  ``trail`` lists
    every (k, passed) evaluated, in order; ``families_tried`` counts generated families.
    """

    n: int
    gamma: float
    one_sided: bool
    k: int
    seed: int
    paper_k: int
    tries: int
    families_tried: int
    trail: tuple[tuple[int, bool], ...]
    check: GramCheck


def smallest_k(
    n: int, gamma: float, seed: int, tries: int = 8, one_sided: bool = False
) -> SearchResult:
    """Empirically smallest k at which a seeded ±1/sqrt(k) family of n vectors passes Lemma 2.

    Search (the spec's "empirical minimal k" table, Sec. 3.1): the predicate is
    P(k) = "some family sign_codes(n, k, s), s in seed .. seed + tries - 1, passes" (two-sided
    |<T_i, T_j>| <= gamma by default, ``one_sided`` for <T_i, T_j> <= gamma).  Seeds are tried
    in order and the first that passes is kept.  k doubles from 1 until P holds, then a binary
    search keeps P(lo) false and P(hi) true until hi = lo + 1.

    P is not monotone in k (one random family can fail at k and pass at k - 1, and parity
    matters since c = k mod 2), so the result is a local minimum: P(k) holds, P(k - 1) fails.
    The paper's k (:func:`paper_k`) makes each family pass with probability >= 1/2, so P fails
    there with probability <= 2^-tries; the search gives up (InputError) past 4 * paper_k.
    At most ``SEARCH_LIMIT`` vectors, refused before any is drawn.
    """
    n = check_int(n, "n", 1, SEARCH_LIMIT, "use fewer vectors")
    g = _check_gamma(gamma)
    tries = _check_int(tries, "tries", 1)
    seed = _check_int(seed, "seed", 0, SEED_LIMIT - tries + 1)
    pk = paper_k(n, float(g))
    if n * n * 4 * pk > GRAM_WORK_LIMIT:
        raise InputError(
            f"a search over {n} codes up to width {4 * pk} needs {n * n * 4 * pk} Gram products; "
            f"the limit is {GRAM_WORK_LIMIT} (2^39); use a smaller length or a larger gamma"
        )
    budget.check(
        f"a search over {n} codes up to width {4 * pk}",
        *budget.code_search(n, pk),
        "use a smaller length or a larger gamma",
    )
    trail: list[tuple[int, bool]] = []
    families = 0
    winners: dict[int, int] = {}

    def passes(k: int) -> bool:
        nonlocal families
        for s in range(seed, seed + tries):
            families += 1
            # c is an integer, so c > gamma k  <=>  c > floor(gamma k): an exact integer threshold
            stop = math.floor(g * k)
            *_, finished = _int_scan(sign_matrix(n, k, s), stop, one_sided)
            if finished:
                winners[k] = s
                trail.append((k, True))
                return True
        trail.append((k, False))
        return False

    cap = 4 * pk
    lo, hi = 0, 1  # P(0) is false by convention: no vectors in zero dimensions
    while not passes(hi):
        lo, hi = hi, 2 * hi
        if lo >= cap:
            raise InputError(
                f"no family of {n} vectors passed gamma={float(g)} for k <= {lo} "
                f"(4 x paper k = {cap}) with {tries} tries; raise tries"
            )
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if passes(mid):
            hi = mid
        else:
            lo = mid
    best = winners[hi]
    return SearchResult(
        n=n,
        gamma=float(g),
        one_sided=one_sided,
        k=hi,
        seed=best,
        paper_k=pk,
        tries=tries,
        families_tried=families,
        trail=tuple(trail),
        check=verify_codes(sign_codes(n, hi, best), float(g)),
    )
