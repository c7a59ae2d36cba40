"""The verifier's soundness: what is checked is exactly what the file says, at every size.

The property tests build certificates whose words index rows and columns beyond 2^64 (where
64-bit indices wrap around) and run them through ``ccx verify``: invalid ones of every kind are
rejected (exit 1), genuine ones accepted (exit 0). The "aliased" invalid certificates are those
the old int64 indexing accepted: two different words whose indices agree modulo 2^64.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccomplexity import certificates, lower_bounds, problems, verifier
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.dyck import count_dyck, sample_dyck
from ccx import main

EXAMPLES = settings(max_examples=15)


def ccx_verify(cert: dict) -> tuple[int, str]:
    """``ccx verify`` on ``cert`` written to a file: (exit code, stderr); within seconds."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.json"
        path.write_text(json.dumps(cert))
        err = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["verify", str(path)])
        assert time.perf_counter() - start < 30
    return code, err.getvalue()


def envelope(kind: str, problem: dict, claim: dict, witness: dict) -> dict:
    return certificates._envelope(kind, problem, claim, witness)


def words_of(indices: list[int], base: int, length: int) -> list[list[int]]:
    return problems.digits(np.array(indices, dtype=object), base, length).tolist()


# Problems whose sides have at least 2^66 inputs each.
BIG_PROBLEMS = st.one_of(
    st.builds(problems.equality, st.integers(66, 160), st.sampled_from([2, 3, 7, 256])),
    st.builds(problems.disjointness, st.integers(66, 160)),
)


def submatrix_certificates(spec: dict, x: list, y: list) -> list[dict]:
    """One-way and rank certificates claiming that Alice's words ``x`` against Bob's ``y`` give
    len(x) distinct rows and a nonsingular submatrix (true for EQ exactly when y = x)."""
    inputs, bits = {"alice_inputs": x, "bob_inputs": y}, ceil_log2(len(x))
    return [
        envelope("one_way", spec, {"distinct_rows": len(x), "bits": bits}, inputs),
        envelope("rank", spec, {"rank_at_least": len(x), "prime": 2**31 - 1, "bits": bits}, inputs),
    ]


def distinct_indices(problem: problems.TwoPartyProblem, count: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    out: set[int] = set()
    while len(out) < count:
        out.add(int.from_bytes(rng.bytes(32), "big") % problem.n_rows)
    return sorted(out)


@EXAMPLES
@given(BIG_PROBLEMS, st.integers(1, 6), st.integers(0, 2**32))
def test_genuine_explicit_certificates_beyond_2_64_are_accepted(problem, count, seed):
    assert problem.n_rows >= 2**65
    rows = distinct_indices(problem, count, seed)
    x = words_of(rows, problem.alice_alphabet, problem.alice_length)
    if problem.name == "equality":  # the diagonal: a fooling set, an identity submatrix
        y, value = x, 1
    else:  # complementary pairs (x, not x): value 0
        y, value = [[1 - s for s in w] for w in x], 0
    spec = problem.describe()
    fooling = envelope(
        "fooling_set",
        spec,
        {"size": count, "value": value, "bits": ceil_log2(count)},
        {"pairs": [[a, b] for a, b in zip(x, y, strict=True)]},
    )
    assert ccx_verify(fooling)[0] == 0
    if problem.name == "equality":
        assert [ccx_verify(c)[0] for c in submatrix_certificates(spec, x, x)] == [0, 0]


@EXAMPLES
@given(BIG_PROBLEMS, st.integers(2, 6), st.integers(0, 2**32), st.integers(1, 3))
def test_aliased_explicit_certificates_beyond_2_64_are_rejected(problem, count, seed, shift):
    """Bob's words are Alice's moved by a multiple of 2^64 in index: different words that 64-bit
    indices would confuse. Every claim below is false for the words as written: x_i != y_i
    (equality, value 1), and x_i, y_i share their nonzero last 64 symbols (disjointness: they
    intersect, not value 0)."""
    rows = [r for r in distinct_indices(problem, count + 1, seed) if r % 2**64][:count]
    alias = [(r + shift * 2**64) % problem.n_rows for r in rows]
    assert all(a != r for a, r in zip(alias, rows, strict=True))
    x = words_of(rows, problem.alice_alphabet, problem.alice_length)
    y = words_of(alias, problem.bob_alphabet, problem.bob_length)
    spec = problem.describe()
    value = 1 if problem.name == "equality" else 0
    fooling = envelope(
        "fooling_set",
        spec,
        {"size": count, "value": value, "bits": ceil_log2(count)},
        {"pairs": [[a, b] for a, b in zip(x, y, strict=True)]},
    )
    code, err = ccx_verify(fooling)
    assert code == 1, err
    if problem.name == "equality":  # x_i != y_j for all i, j: the true submatrix is all zero
        assert [ccx_verify(c)[0] for c in submatrix_certificates(spec, x, y)] == [1, 1]


def test_the_reported_rank_certificate_is_rejected():
    """Equality, half 65: 8 Alice rows and 8 Bob columns pairwise unequal (the true submatrix
    is zero) claiming rank 8, which int64 indices reported as valid."""
    problem = problems.equality(65)
    rows = list(range(8))
    x = words_of(rows, 2, 65)
    y = words_of([r + 2**64 for r in rows], 2, 65)
    cert = envelope(
        "rank",
        problem.describe(),
        {"rank_at_least": 8, "prime": 2_147_483_647, "bits": 3},
        {"alice_inputs": x, "bob_inputs": y},
    )
    code, err = ccx_verify(cert)
    assert code == 1 and "singular" in err


@EXAMPLES
@given(st.integers(65, 150).map(lambda h: 2 * h), st.integers(1, 5), st.integers(0, 2**32))
def test_dyck_fooling_sets_beyond_2_64(length, count, seed):
    """Members of Dyck-(2,2) under odd-even (4^(N/2) >= 2^130 words per side): a subset of the
    members is a fooling set (Lemma 1); one changed symbol makes a pair a non-member."""
    problem = problems.dyck(2, 2, length, "odd-even")
    words = np.unique(sample_dyck(2, 2, length, count, np.random.default_rng(seed)), axis=0)
    pairs = [[w[0::2].tolist(), w[1::2].tolist()] for w in words]
    claim = {"size": len(pairs), "value": 1, "bits": ceil_log2(len(pairs))}
    cert = envelope("fooling_set", problem.describe(), claim, {"pairs": pairs})
    assert ccx_verify(cert)[0] == 0
    pairs[0][1][0] ^= 2  # a closer of the other type: no longer a member
    assert ccx_verify(cert)[0] == 1


@EXAMPLES
@given(st.integers(65, 300).map(lambda h: 2 * h), st.sampled_from(["size", "bits", "depth"]))
def test_symbolic_certificates_beyond_2_64(length, tamper):
    cert = certificates.symbolic_dyck_certificate(2, 2, length, count_dyck(2, 2, length))
    assert int(cert["claim"]["size"], 16) == 2 ** (length - 1)
    assert ccx_verify(cert)[0] == 0
    if tamper == "size":
        cert["claim"]["size"] = hex(2 ** (length - 1) + 2**64)
    elif tamper == "bits":
        cert["claim"]["bits"] += 1
    else:  # Dyck-(2,3) with its true count: the halves no longer determine each other
        count = count_dyck(2, 3, length)
        cert["problem"]["depth"] = 3
        cert["claim"].update(size=hex(count), bits=ceil_log2(count))
    assert ccx_verify(cert)[0] == 1


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda c: c.update(format_version=True), "format_version"),
        (lambda c: c.update(format_version=1.0), "format_version"),
        (lambda c: c.update(note="this proves 999 bits"), "unknown field"),
        (lambda c: c["claim"].update(note="this proves 999 bits"), "unknown field"),
        (lambda c: c["witness"].update(note="this proves 999 bits"), "unknown field"),
        (lambda c: c["software"].update(extra=1), "unknown field"),
        (lambda c: c.pop("software"), "lacks"),
        (lambda c: c["claim"].update(size=8.0), "wrong type"),
        (lambda c: c["claim"].update(value=True), "wrong type"),
    ],
)
def test_malformed_fields_are_rejected(mutate, reason):
    problem = problems.equality(3)
    x = words_of([1, 2, 3], 2, 3)
    cert = envelope(
        "fooling_set",
        problem.describe(),
        {"size": 3, "value": 1, "bits": 2},
        {"pairs": [[w, w] for w in x]},
    )
    assert verifier.verify(cert).valid
    mutate(cert)
    verdict = verifier.verify(cert)
    assert not verdict.valid and reason in verdict.reason


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"a": 1, "a": 2}', "duplicate key"),
        (b'{"a": NaN}', "NaN"),
        (b'{"a": Infinity}', "Infinity"),
        (b'{"a": 1e999}', "out of range"),
        (b'{"a": ' + b"7" * 5000 + b"}", "digits"),
        (b'{"a": "\xff"}', "UTF-8"),
        (b"[" * 50_000 + b"]" * 50_000, "nested"),
        (b"\xfe\xff\x00{", "UTF-8"),
    ],
)
def test_hostile_json_is_one_clean_rejection(data, reason):
    with pytest.raises(verifier.InvalidCertificate, match=reason):
        verifier.parse_json(data)


def test_miller_rabin_against_trial_division_and_known_primes():
    def trial(n: int) -> bool:
        return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))

    assert [n for n in range(3000) if verifier.is_prime(n)] == [n for n in range(3000) if trial(n)]
    # strong pseudoprimes to several bases, Carmichael numbers and primes near 2^62
    for composite in (
        3215031751,
        2152302898747,
        3474749660383,
        341550071728321,
        561,
        1105,
        3825123056546413051,
        (2**31 - 1) * (2**31 + 11),
    ):
        assert not verifier.is_prime(composite)
    for prime in (2**61 - 1, 2**31 - 1, 4611686018427387847, 1_000_000_007):
        assert verifier.is_prime(prime)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ({"types": 1, "depth": 200_000, "length": 4}, None),  # valid: depth min(k, N/2) = 2
        ({"types": 4096, "depth": 1, "length": 4}, "stacks"),
        ({"types": 2, "depth": 12, "length": 100_000}, "stacks"),
        ({"types": 1, "depth": 3000, "length": 100_000}, "stacks"),
        ({"types": 1, "depth": 40, "length": 1_000_000}, "steps"),
        ({"types": 2, "depth": 2, "length": (1 << 20) + 2}, "1048576"),
    ],
)
def test_symbolic_sizes_are_bounded_before_work(spec, reason):
    count = count_dyck(spec["types"], spec["depth"], min(spec["length"], 10))
    cert = certificates.symbolic_dyck_certificate(
        spec["types"], spec["depth"], spec["length"], max(count, 1)
    )
    if reason is None:
        assert verifier.verify(cert).valid
        return
    start = time.perf_counter()
    verdict = verifier.verify(cert)
    assert not verdict.valid and verdict.over_limit and reason in verdict.reason
    assert time.perf_counter() - start < 5
    code, err = ccx_verify(cert)
    assert code == 2 and "over the limit" in err and reason in err


@pytest.mark.parametrize(
    ("types", "depth", "length"),
    [(2, 2, 1 << 20), (2, 3, 1 << 20), (1, 10, 200_000), (3, 2, 1 << 19), (8, 1, 1 << 18)],
)
def test_symbolic_maker_and_verifier_share_one_limit(types, depth, length):
    """A certificate the maker writes is never over the verifier's limit, and what the verifier
    refuses as over the limit the maker refuses too (one limit, limits.check_dyck_symbolic)."""
    from ccomplexity import limits, lower_bounds

    try:
        limits.check_dyck_symbolic(types, depth, length)
        within = True
    except InputError:
        within = False
    cert = certificates.symbolic_dyck_certificate(types, depth, length, 1)
    verdict = verifier.verify(cert)
    assert verdict.over_limit is not within
    if not within:
        with pytest.raises(InputError, match="limit"):
            lower_bounds.dyck_fooling_symbolic(types, depth, length)


def test_rank_primes_are_tested_fast_and_bounded():
    problem = problems.equality(3)
    x = words_of(list(range(8)), 2, 3)
    for prime, valid in ((2**61 - 1, True), (4611686018427387847, True), (2**62 - 57 + 2, False)):
        cert = envelope(
            "rank",
            problem.describe(),
            {"rank_at_least": 8, "prime": prime, "bits": 3},
            {"alice_inputs": x, "bob_inputs": x},
        )
        start = time.perf_counter()
        assert verifier.verify(cert).valid is valid
        assert time.perf_counter() - start < 5
    cert["claim"]["prime"] = 2**62 + 135  # a prime, but above the limit
    assert "2^62" in verifier.verify(cert).reason


def test_problem_sizes_in_a_certificate_are_bounded_before_work():
    cert = envelope(
        "fooling_set",
        {"problem": "equality", "half": 10**30, "alphabet": 2},
        {"size": 1, "value": 1, "bits": 0},
        {"pairs": [[[0], [0]]]},
    )
    start = time.perf_counter()
    verdict = verifier.verify(cert)
    assert not verdict.valid and "exceeds the limit" in verdict.reason
    assert time.perf_counter() - start < 1


def test_word_indices_are_exact_beyond_2_63():
    for base, width in ((2, 65), (3, 50), (256, 9), (7, 200)):
        top = base**width - 1
        indices = np.array([0, 1, 2**63, 2**64 + 5, top], dtype=object) % (top + 1)
        words = problems.digits(indices, base, width)
        assert problems.undigits(words, base).tolist() == [int(i) for i in indices]
        assert words.tolist()[-1] == [base - 1] * width
    small = problems.digits(np.array([5, 6]), 2, 4)
    assert small.dtype == np.int64 and problems.undigits(small, 2).tolist() == [5, 6]


# -- the problems given as data: matrices, seeded random matrices, knowledge-graph queries -------


def _certificates_of(problem: problems.TwoPartyProblem) -> list[dict]:
    """Genuine fooling-set, one-way and rank certificates of a problem, as JSON round-trips."""
    best = lower_bounds.max_fooling_set(problem)
    one_way = lower_bounds.one_way_bits(problem)
    rank = lower_bounds.rank_mod_p(problem)
    made = [
        certificates.fooling_set_certificate(problem, best.rows, best.cols, best.value),
        certificates.one_way_certificate(problem, one_way.rows, one_way.cols),
    ]
    if len(rank.rows):  # a zero matrix has no rank certificate (refused when made)
        made.append(certificates.rank_certificate(problem, rank.rows, rank.cols, rank.prime))
    return [json.loads(json.dumps(c)) for c in made]


def test_a_zero_matrix_has_no_rank_certificate():
    problem = problems.random_matrix(2, 2, 42, 0.3)  # all zero
    assert not problem.matrix().any()
    rank = lower_bounds.rank_mod_p(problem)
    with pytest.raises(InputError, match="rank 0"):
        certificates.rank_certificate(problem, rank.rows, rank.cols, rank.prime)


TAMPERINGS = [  # (mutation, fragment of the reason)
    (lambda c: c["problem"].update(extra=1), "fields"),
    (lambda c: c["witness"].update(note="999 bits"), "unknown field"),
    (lambda c: c["claim"].update(bits=c["claim"]["bits"] + 1), "bits"),
    (lambda c: c["problem"].update(rows=0), "shape"),
]


@EXAMPLES
@given(st.integers(2, 9), st.integers(2, 9), st.integers(0, 2**64 - 1), st.sampled_from([0.3, 0.5]))
def test_random_matrix_certificates_are_redrawn_and_tampering_is_caught(rows, cols, seed, density):
    problem = problems.random_matrix(rows, cols, seed, density)
    for cert in _certificates_of(problem):
        assert ccx_verify(cert)[0] == 0
        for mutate, reason in TAMPERINGS:
            bad = json.loads(json.dumps(cert))
            mutate(bad)
            code, err = ccx_verify(bad)
            assert code == 1 and reason in err, err
        bad = json.loads(json.dumps(cert))
        bad["problem"]["seed"] = (seed + 1) % 2**64  # another matrix: valid only if it holds there
        other = problems.random_matrix(rows, cols, bad["problem"]["seed"], density).matrix()
        assert (ccx_verify(bad)[0] == 0) is _holds(cert, other)


def _holds(cert: dict, m: np.ndarray) -> bool:
    """Whether ``cert``'s claim holds on the matrix ``m``, checked here on its entries."""
    from ccomplexity import lower_bounds

    kind, witness = cert["kind"], cert["witness"]
    if kind == "fooling_set":
        x, y = ([p[i][0] for p in witness["pairs"]] for i in (0, 1))
        hit = m[np.ix_(x, y)] == cert["claim"]["value"]
        return bool(np.diagonal(hit).all() and not np.triu(hit & hit.T, 1).any())
    sub = m[np.ix_([r[0] for r in witness["alice_inputs"]], [c[0] for c in witness["bob_inputs"]])]
    if kind == "one_way":
        return len({tuple(r) for r in sub.tolist()}) == len(sub)
    return lower_bounds.rank_mod_p(sub.astype(np.int64), cert["claim"]["prime"]).rank == len(sub)


def test_matrix_certificates_reject_entries_that_differ_from_their_hash(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("1,0,0,1\n0,1,1,0\n1,1,0,0\n0,0,1,1\n1,0,1,0\n")
    for cert in _certificates_of(problems.from_csv(path)):
        assert ccx_verify(cert)[0] == 0
        own = ((lambda c: c["problem"]["entries"].__setitem__(0, "0110"), "sha256"),
               (lambda c: c["problem"].update(sha256=7), "wrong type"))  # fmt: skip
        for mutate, reason in (*TAMPERINGS, *own):
            bad = json.loads(json.dumps(cert))
            mutate(bad)
            code, err = ccx_verify(bad)
            assert code == 1 and reason in err, err


def test_kg_certificates_name_their_graph_and_tampering_is_caught(tmp_path):
    from ccomplexity import lower_bounds

    problem = problems.kg_query(8, 3, 4, 2, seed=5)
    found = lower_bounds.kg_fooling_set(problem)
    cert = json.loads(
        json.dumps(
            certificates.fooling_set_certificate(problem, found.rows, found.cols, found.value)
        )
    )
    assert ccx_verify(cert)[0] == 0
    pairs = cert["witness"]["pairs"]
    cases = [
        (lambda c: c["problem"].update(graph_sha256="0" * 64), "graph"),
        (lambda c: c["problem"].update(seed=6), "graph"),
        (lambda c: c["problem"].update(hops=10**30), "hops"),
        (lambda c: c["problem"].update(extra=1), "unknown problem fields"),
        (lambda c: c["witness"]["pairs"][0][1].__setitem__(0, pairs[1][1][0]), "value 1"),
        (lambda c: c["witness"]["pairs"][0][0].__setitem__(0, 2**62), "outside"),
        (lambda c: c["claim"].update(size=len(pairs) + 1), "size"),
    ]
    for mutate, reason in cases:
        bad = json.loads(json.dumps(cert))
        mutate(bad)
        code, err = ccx_verify(bad)
        assert code == 1 and reason in err, (reason, err)
