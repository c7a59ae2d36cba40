"""Positional codes, softmax temperature and number format shared by the Theorem 1 and 6 models.

Both constructions address position i with a code T(i) in {±1/sqrt(k)}^k (Lemma 2, App. B.3) and
let a query T(p) pick out the key T(p). What correctness needs is only a *gap*
g = <T_p, T_p> - max_{i != p} <T_p, T_i> = 1 - max_{i != j} <T_i, T_j> > 0 together with a
temperature eta with eta * g > ln(3M) for M competing keys (the Theorem 1 proof with general
gamma: the target's softmax weight is then > 3/4). Corollary 8.1 asks for the gap 1/2 (gamma =
1/4) at k = 128 ln(2N); here k is the smallest width at which a seeded family is *distinct*,
which already gives g >= 2/k, and eta grows to match. Width O(log N) is kept (k ~ 2 log2 N) and
eta = O(log^2 N) costs O(log log N) integer bits of precision. No narrower family of the tried
seeds can work at any eta: two positions with equal codes get equal attention weights, so a
query for either cannot tell their symbols apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ccomplexity.codes import sign_matrix, verify_codes
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint

TRIES = 8
"""Families (seeds seed .. seed + TRIES - 1) tried at each width."""

MAX_K = 64
"""Widest code the search considers: one Philox word of signs per position."""


@dataclass(frozen=True)
class PositionCodes:
    """Integer signs S (n, k) in {-1, +1}: S[i] = sqrt(k) T(i + 1), with exact Gram margins.

    ``max_inner`` is max_{i != j} <S_i, S_j> (an integer: k - 2 x the least Hamming distance;
    0 when n = 1, so that the gap is 1).
    """

    signs: np.ndarray
    seed: int
    max_inner: int

    @property
    def k(self) -> int:
        return int(self.signs.shape[1])

    @property
    def gap(self) -> float:
        """<T_i, T_i> - max_{i != j} <T_i, T_j> = 1 - max_inner / k."""
        return 1.0 - self.max_inner / self.k


def _first_distinct_width(signs: np.ndarray) -> int | None:
    """Least k such that the k-sign prefixes of the rows are pairwise different, else None."""
    keys = np.zeros(signs.shape[0], dtype=np.uint64)
    for j in range(signs.shape[1]):
        keys = (keys << np.uint64(1)) | (signs[:, j] < 0).astype(np.uint64)
        if np.unique(keys).size == signs.shape[0]:
            return j + 1
    return None


def distinct_codes(n: int, seed: int, k: int | None = None) -> PositionCodes:
    """The narrowest seeded family of n pairwise distinct codes (gap > 0), or one of width ``k``.

    Row i of ``sign_matrix(n, k, s)`` is the first k signs of one Philox stream keyed by (i, s),
    so for a fixed seed the rows at width k are prefixes of the rows at width 64 and distinctness
    is monotone in k: one pass over the prefixes finds the least k per seed. The least over the
    seeds ``seed .. seed + TRIES - 1`` wins (ties: the first seed). The margin is then computed
    exactly from the integer Gram matrix (``verify_codes``).
    """
    if k is not None and not 1 <= k <= MAX_K:
        raise InputError(f"code width k must lie in 1..{MAX_K}, got {k}")
    best: tuple[int, int] | None = None
    for s in range(seed, seed + TRIES):
        signs = sign_matrix(n, MAX_K if k is None else k, s)
        width = _first_distinct_width(signs)
        if width is None or (k is not None and width > k):
            continue
        width = width if k is None else k
        if best is None or width < best[0]:
            best = (width, s)
    if best is None:
        raise InputError(
            f"no family of {n} distinct codes at k={k if k is not None else MAX_K} among seeds "
            f"{seed}..{seed + TRIES - 1}; choose a larger k (at most {MAX_K})"
        )
    width, s = best
    signs = sign_matrix(n, width, s)
    check = verify_codes(signs / math.sqrt(width), 0.5)
    max_inner = round(check.max_off_diagonal_signed * width) if n > 1 else 0
    return PositionCodes(signs=signs, seed=s, max_inner=max_inner)


def concentration_eta(competitors: int, gap: float) -> float:
    """Temperature eta = ln(4M) / min(g, 1) for a target key with gap g over M competing keys.

    The target scores eta <T_p, T_p> = eta; another code scores <= eta (1 - g) and a zero key
    (the query token's own) scores 0, so every competitor is >= eta min(g, 1) below the target.
    Their softmax mass relative to the target is then S <= M exp(-eta min(g, 1)) = 1/4 and the
    target's weight is >= 1 / (1 + S) = 4/5. The paper's condition (Thm 1: eta g > ln(3M),
    weight > 3/4) holds with a margin of ln(4/3), which absorbs the rounding onto the grid.
    """
    return math.log(4 * competitors) / min(gap, 1.0)


def grid_for(largest: float, frac: int) -> FixedPoint:
    """Floor-rounding format with ``frac`` fractional bits whose range holds ``largest``."""
    integer = max(1, math.ceil(math.log2(largest + 1)))
    return FixedPoint(1 + integer + frac, frac, "floor")


def code_fields(codes: PositionCodes, eta: float, fmt: FixedPoint) -> dict[str, Any]:
    """What a construction on position codes reports of them and of its grid: the sharpness
    eta, the codes' gap and seed, and the precision."""
    return {
        "eta": eta,
        "gap": codes.gap,
        "code_seed": codes.seed,
        "precision": fmt.bits,
        "format": fmt.describe(),
    }
