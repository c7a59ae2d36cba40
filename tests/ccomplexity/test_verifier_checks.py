"""Every check of the verifier, each with a certificate that only it rejects.

Each case starts from a small genuine certificate (accepted), changes one thing, and expects the
reason of exactly one check: a verifier with that check removed, or with its bound moved by one,
answers otherwise. Limits are tried at, below and above their value. The fixtures are tiny
(equality on 2 + 2 bits, Dyck-(1,1) and (2,2) at N = 4), so each case takes milliseconds.
"""

from __future__ import annotations

import copy
import itertools

import pytest

from ccomplexity import budget, certificates, problems, verifier
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.dyck import count_dyck
from ccomplexity.verifier import InvalidCertificate, OverLimit

WORDS2 = [list(w) for w in itertools.product(range(2), repeat=2)]  # {0,1}^2
WORDS3 = [list(w) for w in itertools.product(range(3), repeat=2)]  # {0,1,2}^2
EQ = problems.equality(2, 2).describe()  # EQ on 2 + 2 binary symbols: the 4 x 4 identity


def fooling() -> dict:
    """S = {(w, w)}: the 4 ones of the identity, a fooling set of 2 bits."""
    pairs = [[w, w] for w in WORDS2]
    return certificates._envelope(
        "fooling_set", dict(EQ), {"size": 4, "value": 1, "bits": 2}, {"pairs": pairs}
    )


def one_way() -> dict:
    claim = {"distinct_rows": 4, "bits": 2}
    witness = {"alice_inputs": WORDS2, "bob_inputs": WORDS2}
    return certificates._envelope("one_way", dict(EQ), claim, copy.deepcopy(witness))


def rank(prime: int = 2) -> dict:
    claim = {"rank_at_least": 4, "prime": prime, "bits": 2}
    witness = {"alice_inputs": WORDS2, "bob_inputs": WORDS2}
    return certificates._envelope("rank", dict(EQ), claim, copy.deepcopy(witness))


def symbolic(types: int = 2, depth: int = 2, length: int = 4) -> dict:
    count = count_dyck(types, depth, length)
    return certificates.symbolic_dyck_certificate(types, depth, length, count)


def matrix() -> dict:
    spec = problems.from_matrix([[1, 0], [0, 1]]).spec()
    pairs = [[[0], [0]], [[1], [1]]]
    return certificates._envelope(
        "fooling_set", spec, {"size": 2, "value": 1, "bits": 1}, {"pairs": pairs}
    )


def random_matrix() -> dict:
    problem = problems.random_matrix(3, 3, 5, 1.0)  # density 1: every entry is 1
    return certificates._envelope(
        "fooling_set", problem.spec(), {"size": 1, "value": 1, "bits": 0}, {"pairs": [[[0], [0]]]}
    )


BASES = {
    "fooling": fooling,
    "one_way": one_way,
    "rank": rank,
    "symbolic": symbolic,
    "matrix": matrix,
    "random": random_matrix,
}


def rejected(cert: dict) -> verifier.Verdict:
    verdict = verifier.verify(cert)
    assert not verdict.valid
    return verdict


@pytest.mark.parametrize("name", BASES)
def test_the_genuine_certificates_are_accepted(name):
    cert = BASES[name]()
    verdict = verifier.verify(cert)
    assert verdict.valid, verdict.reason
    assert verdict.kind == cert["kind"] and verdict.claimed_bits == cert["claim"]["bits"]
    assert verdict.reason is None and not verdict.over_limit


def _set(path: tuple, value):
    def change(cert: dict) -> None:
        obj = cert
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value

    return change


def _drop(*path: str):
    def change(cert: dict) -> None:
        del cert[path[0]][path[1]]

    return change


def _pairs(pairs):
    return _set(("witness", "pairs"), pairs)


# (base, change, the one reason expected, in full). Each is the message of a single check.
CASES = [
    # the envelope
    (
        "fooling",
        _set(("format",), "ccomplexity-certificat"),
        "format must be 'ccomplexity-certificate'",
    ),
    ("fooling", _set(("format_version",), 2), "unsupported format_version"),
    ("fooling", _set(("format_version",), 0), "unsupported format_version"),
    (
        "fooling",
        _set(("kind",), "protocol_rnn"),
        "kind must be one of fooling_set, fooling_set_symbolic, one_way, rank",
    ),
    ("fooling", _set(("software",), {"name": "ccomplexity"}), "software lacks field(s) 'version'"),
    ("fooling", _set(("claim",), {"size": 4, "value": 1}), "claim lacks field(s) 'bits'"),
    ("fooling", _set(("witness",), {}), "witness lacks field(s) 'pairs'"),
    # the problem
    ("fooling", _set(("problem", "colour"), 1), "unknown problem fields: ['colour']"),
    ("fooling", _set(("problem", "problem"), 7), "problem name must be a string"),
    ("fooling", _set(("problem", "partition"), 2), "partition must be a string"),
    ("fooling", _set(("problem", "half"), 2.0), "half must be an int"),
    ("fooling", _set(("problem", "alphabet"), True), "alphabet must be an int"),
    (
        "fooling",
        _set(("problem", "problem"), "no-such-problem"),
        "bad problem: unknown problem 'no-such-problem'; choose one of dyck, equality, "
        "disjointness, index, kg, matrix, random",
    ),
    ("fooling", _drop("problem", "alphabet"), "problem description is not canonical"),
    # the words
    ("fooling", _pairs([[w, w] for w in WORDS3]), "bad x entry: a symbol outside 0..1"),
    ("fooling", _pairs([[[0, -1], [0, 1]]]), "bad x entry: a symbol outside 0..1"),
    ("fooling", _pairs([[[0, 2**70], [0, 1]]]), "bad x entry: a symbol outside 0..1"),
    ("fooling", _pairs([[[0, True], [0, 1]]]), "bad x entry: each must be a list of 2 integers"),
    ("fooling", _pairs([[[0], [0, 1]]]), "bad x entry: each must be a list of 2 integers"),
    ("fooling", _pairs([[[0, 0], [0]]]), "bad y entry: each must be a list of 2 integers"),
    ("fooling", _pairs([[[0, 0], [0, 0], [0, 0]]]), "pairs must be [x, y]"),
    ("fooling", _pairs([]), "a fooling set must not be empty"),
    # the fooling set: Def. 1 and the claim
    ("fooling", _set(("claim", "size"), 5), "claimed size differs from 4 pairs"),
    ("fooling", _set(("claim", "bits"), 3), "claimed bits differ from ceil(log2 size)"),
    ("fooling", _set(("claim", "bits"), 1), "claimed bits differ from ceil(log2 size)"),
    (
        "fooling",
        _pairs([[w, w] for w in WORDS2[:3]] + [[WORDS2[0], WORDS2[0]]]),
        "pairs are not distinct",
    ),
    ("fooling", _set(("claim", "value"), 0), "pair [0] does not have value 0"),
    (
        "fooling",
        _pairs([[w, w] for w in WORDS2[:3]] + [[[1, 1], [0, 0]]]),
        "pair [3] does not have value 1",
    ),
    # one-way
    ("one_way", _set(("witness", "bob_inputs"), [[0, 0]]), "only 2 of 4 rows are distinct"),
    ("one_way", _set(("claim", "distinct_rows"), 5), "claimed distinct_rows differs"),
    ("one_way", _set(("claim", "bits"), 3), "claimed bits differ from ceil(log2 rows)"),
    (
        "one_way",
        _set(("witness", "bob_inputs"), []),
        "witness needs at least one input on each side",
    ),
    (
        "one_way",
        _set(("witness", "alice_inputs"), []),
        "witness needs at least one input on each side",
    ),
    # rank
    ("rank", _set(("claim", "prime"), 1), "claimed prime must be at least 2"),
    ("rank", _set(("claim", "prime"), 9), "claimed prime is not a prime"),
    ("rank", _set(("witness", "bob_inputs"), WORDS2[:3]), "rank witness must be square, non-empty"),
    ("rank", _set(("witness", "alice_inputs"), []), "rank witness must be square, non-empty"),
    ("rank", _set(("claim", "rank_at_least"), 5), "claimed rank differs from the witness"),
    ("rank", _set(("claim", "bits"), 3), "claimed bits differ from ceil(log2 rank)"),
    ("rank", _set(("witness", "bob_inputs"), [[0, 0]] * 4), "witness submatrix is singular"),
    # the matrix problems
    (
        "matrix",
        _set(("problem", "seed"), 1),
        "a matrix problem has the fields ['cols', 'entries', 'problem', 'rows', 'sha256']",
    ),
    ("matrix", _set(("problem", "rows"), 0), "bad matrix shape: rows and cols must be at least 1"),
    ("matrix", _set(("problem", "cols"), 0), "bad matrix shape: rows and cols must be at least 1"),
    (
        "matrix",
        _set(("problem", "entries"), ["10"]),
        "entries must be 2 strings of 2 digits 0 or 1",
    ),
    (
        "matrix",
        _set(("problem", "entries"), ["10", "02"]),
        "entries must be 2 strings of 2 digits 0 or 1",
    ),
    (
        "matrix",
        _set(("problem", "entries"), ["10", "0"]),
        "entries must be 2 strings of 2 digits 0 or 1",
    ),
    (
        "matrix",
        _set(("problem", "entries"), ["10", 1]),
        "entries must be 2 strings of 2 digits 0 or 1",
    ),
    ("matrix", _set(("problem", "entries"), ["11", "01"]), "sha256 differs from entries"),
    ("random", _set(("problem", "seed"), -1), "seed or density out of range"),
    ("random", _set(("problem", "seed"), 1 << 64), "seed or density out of range"),
    ("random", _set(("problem", "density"), 1.0000001), "seed or density out of range"),
    ("random", _set(("problem", "density"), -0.5), "seed or density out of range"),
    ("random", _set(("problem", "generator"), "MT19937"), "the generator must be PCG64"),
    ("random", _set(("problem", "density"), 0.0), "pair [0] does not have value 1"),
    # the symbolic Dyck family
    (
        "symbolic",
        _set(("problem", "partition"), "prefix:2"),
        "symbolic certificates cover Dyck-(n,k) under the odd-even partition only",
    ),
    (
        "symbolic",
        _set(("problem", "problem"), "equality"),
        "symbolic certificates cover Dyck-(n,k) under the odd-even partition only",
    ),
    ("symbolic", _set(("problem", "types"), 0), "Dyck-(n,k) needs n >= 1 types and depth k >= 0"),
    ("symbolic", _set(("problem", "depth"), -1), "Dyck-(n,k) needs n >= 1 types and depth k >= 0"),
    ("symbolic", _set(("problem", "length"), 0), "odd-even needs an even length N >= 2"),
    ("symbolic", _set(("problem", "length"), 5), "odd-even needs an even length N >= 2"),
    ("symbolic", _set(("problem", "extra"), 1), "problem has unknown field(s) 'extra'"),
    ("symbolic", _set(("witness", "family"), "some-members"), "family must be all-members"),
    ("symbolic", _set(("claim", "size"), "12"), "claimed size must be a hex string"),
    ("symbolic", _set(("claim", "size"), "0x"), "claimed size must be a hex string"),
    ("symbolic", _set(("claim", "size"), "0xg"), "claimed size must be a hex string"),
    ("symbolic", _set(("claim", "size"), "0x0"), "a fooling set must not be empty"),
    ("symbolic", _set(("claim", "size"), "0x9"), "claimed size differs from the 0x8 members"),
    ("symbolic", _set(("claim", "size"), "0x7"), "claimed size differs from the 0x8 members"),
    ("symbolic", _set(("claim", "value"), 0), "the family of members has value 1"),
    ("symbolic", _set(("claim", "bits"), 4), "claimed bits differ from ceil(log2 size)"),
    ("symbolic", _set(("witness", "x_determines_y"), False), "x_determines_y does not hold"),
    ("symbolic", _set(("witness", "y_determines_x"), False), "y_determines_x does not hold"),
]


@pytest.mark.parametrize(("base", "change", "reason"), CASES)
def test_each_check_rejects_an_input_only_it_rejects(base, change, reason):
    cert = BASES[base]()
    change(cert)
    verdict = rejected(cert)
    assert verdict.reason == reason
    assert not verdict.over_limit
    assert verdict.kind == (cert["kind"] if cert["kind"] in certificates.KINDS else None)


def test_a_symbol_equal_to_the_alphabet_size_is_outside_it():
    # EQ on {0,1}^2 with the 9 pairs (w, w), w in {0,1,2}^2: a 4-bit claim that holds only if
    # the symbol 2 were a binary digit.
    cert = fooling()
    _pairs([[w, w] for w in WORDS3])(cert)
    cert["claim"].update(size=9, bits=4)
    assert "a symbol outside 0..1" in rejected(cert).reason
    # The same 9 pairs over the ternary alphabet prove exactly that.
    cert["problem"]["alphabet"] = 3
    assert verifier.verify(cert).valid


@pytest.mark.parametrize(("types", "depth"), [(2, 3), (1, 3)])
def test_symbolic_families_whose_halves_do_not_determine_each_other_are_rejected(types, depth):
    # Depth 3 at N = 6: "((()))" and "(()())" agree on Alice's positions 1, 3, 5 ("(()").
    assert rejected(symbolic(types, depth, 6)).reason == "x_determines_y does not hold"
    assert verifier.verify(symbolic(types, 2, 6)).valid


def test_symbolic_dyck_counts_against_brute_force():
    # (1, 1) at N = 4 is {()(), }: one member per Alice half; the count is checked exactly.
    for types, depth, length in [(1, 1, 4), (2, 2, 4), (2, 2, 6), (1, 5, 2)]:
        cert = symbolic(types, depth, length)
        assert verifier.verify(cert).valid, (types, depth, length)
        assert int(cert["claim"]["size"], 16) == count_dyck(types, depth, length)


def test_the_prime_limit_at_below_and_above():
    below = 4611686018427387847  # the largest prime under 2^62
    assert verifier.verify(rank(below)).valid
    for over in (1 << 62, (1 << 62) + 135):  # at the limit and a prime above it
        verdict = rejected(rank(over))
        assert verdict.over_limit and "limited to 2..2^62 - 1" in verdict.reason
    assert verifier.is_prime((1 << 62) + 135)
    assert verifier.verify(rank((1 << 31) - 1)).valid  # the int64 elimination's last prime
    assert verifier.verify(rank(1 << 31 | 11)).valid  # exact integers beyond it


@pytest.mark.parametrize(
    ("prime", "limit_name"), [(2, "MAX_RANK"), ((1 << 31) + 11, "MAX_RANK_BIG_PRIME")]
)
def test_the_rank_size_limit_at_below_and_above(monkeypatch, prime, limit_name):
    for most, ok in ((5, True), (4, True), (3, False)):
        monkeypatch.setattr(verifier, limit_name, most)
        verdict = verifier.verify(rank(prime))
        assert verdict.valid is ok
        if not ok:
            assert verdict.over_limit and f"limited to {most} x {most}" in verdict.reason


def test_the_pairwise_limit_at_below_and_above(monkeypatch):
    for most, ok in ((17, True), (16, True), (15, False)):  # 4 pairs: 16 ordered pairs
        monkeypatch.setattr(verifier, "MAX_PAIRWISE", most)
        verdict = verifier.verify(fooling())
        assert verdict.valid is ok
        if not ok:
            assert verdict.over_limit and "pairs are checked" in verdict.reason
        verdict = verifier.verify(one_way())
        assert verdict.valid is ok
        if not ok:
            assert verdict.over_limit and f"limited to {most} entries" in verdict.reason


def test_the_symbol_limit_at_below_and_above(monkeypatch):
    # 16 pairs of words of 2 + 2 symbols: 64 symbols.
    for most, ok in ((65, True), (64, True), (63, False)):
        monkeypatch.setattr(verifier, "MAX_SYMBOLS", most)
        verdict = verifier.verify(fooling())
        assert verdict.valid is ok
        if not ok:
            assert verdict.over_limit and "exceed the limit of 63 symbols" in verdict.reason


def test_the_work_budget_at_below_and_above(monkeypatch):
    steps = budget.evaluated(16, 4)
    for most, ok in ((steps + 1, True), (steps, True), (steps - 1, False)):
        monkeypatch.setenv(budget.WORK_ENV, str(most))
        verdict = verifier.verify(fooling())
        assert verdict.valid is ok
        if not ok:
            assert verdict.over_limit and "the work budget is" in verdict.reason


def test_the_matrix_entry_limit_at_below_and_above(monkeypatch):
    cert = matrix()
    for most, ok in ((5, True), (4, True), (3, False)):  # a 2 x 2 matrix
        monkeypatch.setattr(problems, "MATRIX_ENTRY_LIMIT", most)
        verdict = verifier.verify(cert)
        assert verdict.valid is ok
        if not ok:
            assert verdict.over_limit and "limited to 3 entries" in verdict.reason


def test_a_problem_over_its_size_limit_is_over_limit_not_invalid():
    cert = fooling()
    cert["problem"]["half"] = 10**9
    verdict = rejected(cert)
    assert verdict.over_limit and verdict.reason.startswith("problem:")


def test_a_symbolic_family_over_the_limit_is_over_limit():
    verdict = rejected(symbolic_over())
    assert verdict.over_limit and "stacks" in verdict.reason


def symbolic_over() -> dict:
    cert = symbolic()
    cert["problem"]["types"] = 4096
    return cert


def test_exact_keys_and_field_reject_what_they_must():
    with pytest.raises(InvalidCertificate, match="x must be a JSON object"):
        verifier.exact_keys([1], "x", {"a": int})
    with pytest.raises(InvalidCertificate, match="x: field 'a' has the wrong type"):
        verifier.exact_keys({"a": 1.0}, "x", {"a": int})
    verifier.exact_keys({"a": 1.0}, "x", {"a": (int, float)})
    assert verifier.field({"a": 3}, "a", int) == 3
    with pytest.raises(InvalidCertificate, match="field 'a' must be a int"):
        verifier.field({"a": True}, "a", int)
    with pytest.raises(InvalidCertificate, match="field 'a' must be a float"):
        verifier.field({"a": 1}, "a", float)
    with pytest.raises(OverLimit, match="limit"):
        verifier.within(False, "the limit")
    verifier.within(True, "the limit")
    verifier.require(True, "never")


def test_the_verdict_describes_itself():
    verdict = rejected(symbolic_over())
    assert verifier.describe_verdict(verdict) == {
        "valid": False,
        "kind": "fooling_set_symbolic",
        "claimed_bits": None,
        "reason": verdict.reason,
        "over_limit": True,
    }
    assert verifier.verify([]).kind is None
    assert ceil_log2(9) == 4


def test_the_witness_inputs_are_named_and_counted(monkeypatch):
    cert = one_way()
    cert["witness"]["alice_inputs"] = [[0, 0], [0, 2], [1, 0], [1, 1]]
    assert rejected(cert).reason == "bad alice_inputs entry: a symbol outside 0..1"
    cert = one_way()
    cert["witness"]["bob_inputs"] = [[0, 0], [0, 1], [0], [1, 1]]
    assert rejected(cert).reason == "bad bob_inputs entry: each must be a list of 2 integers"
    # 4 x 4 inputs of 2 + 2 symbols: the work of 16 pairs, as for the fooling set.
    steps = budget.evaluated(16, 4)
    for most, ok in ((steps, True), (steps - 1, False)):
        monkeypatch.setenv(budget.WORK_ENV, str(most))
        verdict = verifier.verify(one_way())
        assert verdict.valid is ok
        if not ok:
            assert verdict.reason.startswith("witness submatrix: 16 pairs of words of length 4")


def test_matrix_problems_of_one_row_or_column_and_their_entries():
    for m in ([[1, 0, 1]], [[1], [0]]):
        spec = problems.from_matrix(m).spec()
        cert = certificates._envelope(
            "fooling_set", spec, {"size": 1, "value": 1, "bits": 0}, {"pairs": [[[0], [0]]]}
        )
        assert verifier.verify(cert).valid
    # A symbol other than 0 and 1, with the SHA-256 of the text as written.
    cert = matrix()
    cert["problem"]["entries"] = ["1X", "01"]
    cert["problem"]["sha256"] = problems.matrix_rows_sha256(["1X", "01"])
    assert rejected(cert).reason == "entries must be 2 strings of 2 digits 0 or 1"
    cert = matrix()
    cert["problem"]["rows"] = 2.0
    assert rejected(cert).reason == "problem: field 'rows' has the wrong type"
