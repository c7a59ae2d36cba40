"""Lemma 2 / Cor 8.1 codes: generation, exact Gram verification, empirical minimal k."""

import math

import numpy as np
import pytest

from ccomplexity import codes
from ccomplexity.codes import (
    paper_k,
    sign_code,
    sign_code_signs,
    sign_codes,
    sign_matrix,
    smallest_k,
    verify_codes,
)
from ccomplexity.errors import InputError


def test_entries_are_plus_minus_one_over_sqrt_k_with_unit_diagonal():
    n, k = 40, 37
    c = sign_codes(n, k, seed=1)
    assert c.shape == (n, k) and c.dtype == np.float64
    assert np.all(np.abs(c) == 1 / math.sqrt(k))
    s = sign_matrix(n, k, seed=1)
    assert set(np.unique(s)) == {-1, 1}
    assert np.array_equal((s.astype(np.int64) ** 2).sum(axis=1), np.full(n, k))  # <T_i,T_i> = 1
    check = verify_codes(c, 0.25)
    assert check.exact and check.min_diagonal == 1.0
    # both signs occur about equally often: the bits are not stuck
    assert 0.4 < (s > 0).mean() < 0.6


def test_seed_reproducibility():
    a = sign_codes(30, 100, seed=7)
    assert np.array_equal(a, sign_codes(30, 100, seed=7))
    assert not np.array_equal(a, sign_codes(30, 100, seed=8))


def test_on_demand_rows_match_full_matrix():
    n, k, seed = 25, 130, 3  # k not a multiple of 64: the last word is partly used
    full = sign_codes(n, k, seed)
    for i in (0, 1, 12, n - 1):
        assert np.array_equal(sign_code(i, k, seed), full[i])
        assert np.array_equal(sign_code_signs(i, k, seed), sign_matrix(n, k, seed)[i])
    # a family is a prefix of any larger one, and row i of a huge family costs O(k)
    assert np.array_equal(sign_codes(10, k, seed), full[:10])
    far = sign_code(10**15, k, seed)
    assert far.shape == (k,) and np.all(np.abs(far) == 1 / math.sqrt(k))


def _naive(c: np.ndarray, gamma: float):
    g = c @ c.T
    off = g[~np.eye(len(c), dtype=bool)]
    diag = np.diag(g)
    tol = 1e-9  # the exact verifier counts ties c/k == gamma as passing
    return {
        "min_diagonal": diag.min(),
        "max_abs": np.abs(off).max(),
        "max_signed": off.max(),
        "valid": diag.min() >= 1 - gamma - tol and np.abs(off).max() <= gamma + tol,
        "valid_one_sided": diag.min() >= 1 - gamma - tol and off.max() <= gamma + tol,
    }


@pytest.mark.parametrize("block", [7, codes.BLOCK_ROWS])
@pytest.mark.parametrize(("n", "k", "seed"), [(2, 1, 0), (20, 16, 1), (50, 64, 2), (90, 200, 5)])
def test_verifier_agrees_with_naive_float_gram(monkeypatch, block, n, k, seed):
    monkeypatch.setattr(codes, "BLOCK_ROWS", block)  # small blocks exercise the block seams
    c = sign_codes(n, k, seed)
    for gamma in (0.1, 0.25, 0.5):
        check = verify_codes(c, gamma)
        ref = _naive(c, gamma)
        assert check.exact
        assert check.min_diagonal == pytest.approx(ref["min_diagonal"], abs=1e-12)
        assert check.max_off_diagonal == pytest.approx(ref["max_abs"], abs=1e-12)
        assert check.max_off_diagonal_signed == pytest.approx(ref["max_signed"], abs=1e-12)
        assert check.valid == ref["valid"]
        assert check.valid_one_sided == ref["valid_one_sided"]
        i, j = check.worst_pair
        assert i < j and abs(c[i] @ c[j]) == pytest.approx(check.max_off_diagonal, abs=1e-12)
        assert check.max_off_diagonal_count % 2 == k % 2  # a sum of k signs has k's parity


def test_verifier_float_path_for_general_codes(monkeypatch):
    monkeypatch.setattr(codes, "BLOCK_ROWS", 5)
    rng = np.random.default_rng(0)
    c = rng.normal(size=(23, 40))
    c /= np.linalg.norm(c, axis=1, keepdims=True)
    c[3] *= 0.5  # one short vector: diagonal 1/4
    check = verify_codes(c, 0.5)
    ref = _naive(c, 0.5)
    assert not check.exact and check.max_off_diagonal_count is None
    assert check.min_diagonal == pytest.approx(0.25)
    assert check.max_off_diagonal == pytest.approx(ref["max_abs"])
    assert check.max_off_diagonal_signed == pytest.approx(ref["max_signed"])
    assert not check.valid and not check.valid_one_sided  # diagonal 1/4 < 1 - 1/2


def test_verifier_rejects_hand_made_bad_families():
    k = 16
    good = sign_codes(3, k, seed=0)
    dup = np.vstack([good, good[0]])  # rows 0 and 3 coincide: <T_0, T_3> = 1
    check = verify_codes(dup, 0.25)
    assert not check.valid and not check.valid_one_sided
    assert check.max_off_diagonal == 1.0 and check.worst_pair == (0, 3)
    # antipodal pair: <T, -T> = -1 fails |.| <= gamma but meets the one-sided condition
    anti = np.vstack([good[0], -good[0]])
    check = verify_codes(anti, 0.25)
    assert not check.valid and check.valid_one_sided
    assert check.max_off_diagonal_signed == -1.0


def test_verifier_tie_is_exact():
    # k = 4, rows sharing 3 of 4 signs: <T_0, T_1> = 2/4 = 1/2 exactly, a tie at gamma = 1/2
    signs = np.array([[1, 1, 1, 1], [1, 1, 1, -1]])
    check = verify_codes(signs / 2.0, 0.5)
    assert check.max_off_diagonal_count == 2 and check.valid
    assert not verify_codes(signs / 2.0, 0.4999).valid


def test_verifier_handles_ten_thousand_vectors():
    n, k = 10_000, 512
    check = verify_codes(sign_codes(n, k, seed=0), 0.25)
    assert check.n == n and check.exact
    # max |c| over ~5e7 pairs of 512 signs: around 5.6 sigma = 127, never near 0 or k
    assert 64 < check.max_off_diagonal_count < 256


def test_smallest_k_passes_and_beats_paper_k():
    result = smallest_k(100, 0.25, seed=0)
    assert result.paper_k == paper_k(100, 0.25) == 679
    assert result.k < result.paper_k
    assert verify_codes(sign_codes(100, result.k, result.seed), 0.25).valid
    assert result.check.valid and result.check.k == result.k
    # local minimality as documented: k passed, k - 1 failed for every tried seed
    assert (result.k, True) in result.trail and (result.k - 1, False) in result.trail
    assert result.seed in range(0, result.tries)
    assert result.families_tried >= len(result.trail)
    assert smallest_k(100, 0.25, seed=0) == result  # deterministic from the seed


def test_smallest_k_one_sided_and_trivial():
    result = smallest_k(60, 0.25, seed=3, tries=4, one_sided=True)
    assert result.check.valid_one_sided and result.k < result.paper_k
    assert smallest_k(1, 0.25, seed=0).k == 1  # a single vector needs no margin


@pytest.mark.parametrize(
    ("n", "k_quarter", "k_tenth"),
    [
        (20, 473, 2952),
        (50, 590, 3685),
        (100, 679, 4239),
        (200, 767, 4794),
        (400, 856, 5348),
        (1000, 973, 6081),
        (4000, 1151, 7190),
    ],
)
def test_paper_k_matches_spec_table(n, k_quarter, k_tenth):
    assert paper_k(n, 0.25) == k_quarter
    assert paper_k(n, 0.1) == k_tenth


@pytest.mark.parametrize(
    "call",
    [
        lambda: paper_k(0, 0.25),
        lambda: paper_k(10, 0.0),
        lambda: paper_k(10, 1.5),
        lambda: paper_k(10, float("nan")),
        lambda: sign_codes(10, 0, 1),
        lambda: sign_codes(10, 8, -1),
        lambda: sign_code(-1, 8, 1),
        lambda: verify_codes(np.ones(5), 0.25),
        lambda: verify_codes(np.full((2, 2), np.inf), 0.25),
        lambda: smallest_k(10, 0.25, seed=0, tries=0),
    ],
)
def test_input_errors_are_one_line(call):
    with pytest.raises(InputError) as err:
        call()
    assert "\n" not in str(err.value)
