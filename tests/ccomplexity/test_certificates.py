"""Certificates: every field is validated, and a certificate proves only what it claims."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from ccomplexity import certificates, lower_bounds, problems, verifier


@pytest.fixture(scope="module")
def dyck_cert() -> dict:
    prob = problems.dyck(2, 2, 8, "odd-even")
    found = lower_bounds.dyck_fooling_set(prob)
    return certificates.fooling_set_certificate(prob, found.rows, found.cols, found.value)


def test_valid_certificate_survives_json(dyck_cert):
    verdict = verifier.verify(json.loads(json.dumps(dyck_cert)))
    assert verdict.valid and verdict.claimed_bits == 7 and verdict.kind == "fooling_set"


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda c: c.update(format="other"), "format"),
        (lambda c: c.update(kind="magic"), "kind"),
        (lambda c: c["claim"].update(bits=8), "bits"),
        (lambda c: c["claim"].update(bits=True), "bits"),
        (lambda c: c["claim"].update(size=129), "size"),
        (lambda c: c["claim"].update(value=0), "value"),
        (lambda c: c["problem"].update(partition="prefix:4"), "does not have value"),
        (lambda c: c["problem"].update(extra=1), "unknown problem fields"),
        (lambda c: c["problem"].update(length=9), "bad problem"),
        (lambda c: c["witness"]["pairs"].append(c["witness"]["pairs"][0]), "size"),
        (lambda c: c["witness"]["pairs"][0][0].__setitem__(0, 7), "bad x entry"),
        (lambda c: c["witness"]["pairs"][0][1].pop(), "bad y entry"),
    ],
)
def test_tampering_is_rejected(dyck_cert, mutate, reason):
    cert = copy.deepcopy(dyck_cert)
    mutate(cert)
    verdict = verifier.verify(cert)
    assert not verdict.valid
    assert reason in verdict.reason


def test_dropping_a_pair_and_fixing_the_claim_is_still_valid(dyck_cert):
    # A subset of a fooling set is a fooling set: the verifier must not demand the full family.
    cert = copy.deepcopy(dyck_cert)
    cert["witness"]["pairs"] = cert["witness"]["pairs"][:64]
    cert["claim"].update(size=64, bits=6)
    assert verifier.verify(cert).valid


def test_non_fooling_pairs_are_caught():
    # Two 1-cells of DISJ in the same row: each crossing pair is again a 1-cell.
    prob = problems.disjointness(2)
    rows = np.array([3, 3])  # x = 11
    cols = np.array([1, 2])  # y = 01, 10: both intersect x, and share the row
    cert = certificates.fooling_set_certificate(prob, rows, cols, 1)
    verdict = verifier.verify(cert)
    assert not verdict.valid and "fooling property" in verdict.reason


def test_one_way_and_rank_certificates():
    prob = problems.index(6)
    res = lower_bounds.one_way_bits(prob)
    cert = certificates.one_way_certificate(prob, res.rows, res.cols)
    assert verifier.verify(cert).valid
    cert["witness"]["alice_inputs"][1] = cert["witness"]["alice_inputs"][0]
    assert "distinct" in verifier.verify(cert).reason

    prob = problems.equality(3)
    rank = lower_bounds.rank_mod_p(prob.matrix())
    cert = certificates.rank_certificate(prob, rank.rows, rank.cols, rank.prime)
    assert verifier.verify(cert).valid
    bad = copy.deepcopy(cert)
    bad["claim"]["prime"] = 2_147_483_646
    assert "prime" in verifier.verify(bad).reason
    bad = copy.deepcopy(cert)
    bad["witness"]["bob_inputs"][0] = bad["witness"]["bob_inputs"][1]
    assert "singular" in verifier.verify(bad).reason


def test_symbolic_verifier_matches_brute_force():
    # Independent check over stacks: counts and both uniqueness directions against enumeration.
    from itertools import product

    from ccomplexity.languages.dyck import is_dyck

    for n, k, length in [(2, 2, 8), (2, 3, 8), (1, 2, 10), (3, 1, 6), (1, 3, 12), (2, 0, 4)]:
        words = np.array(list(product(range(2 * n), repeat=length)))
        members = words[is_dyck(words, n, k)]
        stacks = verifier._stacks(n, min(k, length // 2))
        step = verifier._stack_steps(stacks, n)
        heights = np.array([len(s) for s in stacks])
        assert verifier._count_members(step, heights, length) == len(members)
        x_unique = len({tuple(w[0::2]) for w in members}) == len(members)
        y_unique = len({tuple(w[1::2]) for w in members}) == len(members)
        assert verifier._half_determines_other(step, length, True) == x_unique
        assert verifier._half_determines_other(step, length, False) == y_unique


def test_symbolic_verifier_refuses_a_lumping_that_does_not_hold():
    """The count on heights is taken only after checking that stacks of one height step alike."""
    stacks = verifier._stacks(2, 2)
    step = verifier._stack_steps(stacks, 2)
    heights = np.array([len(s) for s in stacks])
    heights[3] = 1  # a stack of height 2 put among those of height 1
    with pytest.raises(verifier.InvalidCertificate, match="alike"):
        verifier._count_members(step, heights, 10)


def test_write_certificate_is_atomic(tmp_path, dyck_cert):
    path = certificates.write_certificate(dyck_cert, tmp_path / "c.json")
    assert verifier.verify_file(path).valid
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


def test_non_json_file_is_invalid_not_a_crash(tmp_path):
    path = tmp_path / "c.json"
    path.write_text("{not json")
    verdict = verifier.verify_file(path)
    assert not verdict.valid and "JSON" in verdict.reason


def _matrix_certificates(prob: problems.TwoPartyProblem) -> list[dict]:
    best = lower_bounds.max_fooling_set(prob)
    one_way = lower_bounds.one_way_bits(prob)
    rank = lower_bounds.rank_mod_p(prob)
    return [
        certificates.fooling_set_certificate(prob, best.rows, best.cols, best.value),
        certificates.one_way_certificate(prob, one_way.rows, one_way.cols),
        certificates.rank_certificate(prob, rank.rows, rank.cols, rank.prime),
    ]


def test_matrix_certificates_embed_the_matrix(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("1,0,0,1\n0,1,1,0\n1,1,0,0\n0,0,1,1\n1,0,1,0\n")
    for cert in _matrix_certificates(problems.from_csv(path)):
        cert = json.loads(json.dumps(cert))
        assert verifier.verify(cert).valid, verifier.verify(cert).reason
        assert cert["problem"]["entries"][0] == "1001"
        bad = copy.deepcopy(cert)
        bad["problem"]["entries"][0] = "0110"  # the matrix changed, its hash did not
        assert "sha256" in verifier.verify(bad).reason
        bad = copy.deepcopy(cert)
        bad["problem"]["entries"][0] = "10012"
        assert "entries" in verifier.verify(bad).reason
        bad = copy.deepcopy(cert)
        bad["problem"]["extra"] = 1
        assert "fields" in verifier.verify(bad).reason


def test_matrix_certificate_is_checked_against_the_embedded_matrix():
    # A fooling set of one matrix, certified under another (consistent hash): rejected.
    m = problems.random_matrix(6, 6, 1).matrix()
    prob = problems._matrix_problem("matrix", {}, m)
    best = lower_bounds.max_fooling_set(m)
    rows = ["".join(str(int(v)) for v in row) for row in 1 - m]
    other = problems._matrix_problem(
        "matrix",
        {"rows": 6, "cols": 6, "sha256": problems.matrix_rows_sha256(rows)},
        (1 - m).astype(np.int8),
        entries=rows,
    )
    assert lower_bounds.verify_fooling_set(prob, best.rows, best.cols, best.value).valid
    cert = certificates.fooling_set_certificate(other, best.rows, best.cols, best.value)
    assert not verifier.verify(cert).valid


def test_random_certificates_are_redrawn_by_the_verifier():
    for cert in _matrix_certificates(problems.random_matrix(7, 5, 11, density=0.4)):
        cert = json.loads(json.dumps(cert))
        assert verifier.verify(cert).valid, verifier.verify(cert).reason
        assert "entries" not in cert["problem"]
        bad = copy.deepcopy(cert)
        bad["problem"]["density"] = 1
        assert "density" in verifier.verify(bad).reason
        bad = copy.deepcopy(cert)
        bad["problem"]["generator"] = "MT19937"
        assert "PCG64" in verifier.verify(bad).reason
    cert = _matrix_certificates(problems.random_matrix(8, 8, 0))[0]
    cert["problem"]["density"] = 0.0  # every entry 0: the claimed cells no longer have value b
    value = cert["claim"]["value"]
    assert verifier.verify(cert).valid is (value == 0 and cert["claim"]["size"] == 1)


def test_a_certificate_over_its_kind_cap_is_neither_written_nor_parsed(tmp_path):
    from ccomplexity import limits
    from ccomplexity.errors import InputError

    most = limits.CERTIFICATE_KIND_BYTES["fooling_set_symbolic"]
    cert = {"kind": "fooling_set_symbolic", "padding": "x" * most}
    with pytest.raises(InputError, match=f"the limit for its kind is {most}"):
        certificates.write_certificate(cert, tmp_path / "c.json")
    assert list(tmp_path.iterdir()) == []
    big = tmp_path / "big.json"
    big.write_text('{"kind": "fooling_set_symbolic", "padding": "' + "x" * most + '"}')
    with pytest.raises(InputError, match=f"the limit for that kind is {most}"):
        verifier.read_certificate(big)


def test_one_way_certificate_of_a_single_distinct_row_verifies():
    """All rows alike: one row and still one Bob input, so the witness is not empty."""
    problem = problems.random_matrix(2, 5, 1793, 0.3)
    found = lower_bounds.one_way_bits(problem)
    assert found.distinct_rows == 1 and len(found.cols) == 1
    cert = certificates.one_way_certificate(problem, found.rows, found.cols)
    assert verifier.verify(json.loads(json.dumps(cert))).valid
