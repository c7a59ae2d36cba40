"""The verifier's problem building, envelope and field checks, each with the reason in full.

Pinned here: a plugin problem is rebuilt by the plugin loader (not loaded: InputError, nothing
checked; malformed: the loader's reason as the verdict); an InputError from building a built-in
problem is "over the limit" exactly when it names a limit ("exceeds the limit", "the limit is",
"limited to"), else a bad problem; the kg graph's hash; the messages of ``exact_keys`` (at most 5
unknown fields, every missing one, joined by ", "); the verdict's fields for valid, invalid and
over-limit certificates of every kind; and the empty word list.
"""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from ccomplexity import certificates, problems, verifier
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import count_dyck
from ccomplexity.verifier import InvalidCertificate, Verdict

WORDS2 = [list(w) for w in itertools.product(range(2), repeat=2)]
EQ = problems.equality(2, 2).describe()


def fooling(problem: dict | None = None) -> dict:
    pairs = [[w, w] for w in WORDS2]
    return certificates._envelope(
        "fooling_set",
        dict(EQ) if problem is None else problem,
        {"size": 4, "value": 1, "bits": 2},
        {"pairs": pairs},
    )


def one_way() -> dict:
    witness = {"alice_inputs": WORDS2, "bob_inputs": copy.deepcopy(WORDS2)}
    return certificates._envelope("one_way", dict(EQ), {"distinct_rows": 4, "bits": 2}, witness)


def rank() -> dict:
    claim = {"rank_at_least": 4, "prime": 3, "bits": 2}
    witness = {"alice_inputs": WORDS2, "bob_inputs": copy.deepcopy(WORDS2)}
    return certificates._envelope("rank", dict(EQ), claim, witness)


def symbolic() -> dict:
    return certificates.symbolic_dyck_certificate(2, 2, 4, count_dyck(2, 2, 4))


KINDS = {"fooling_set": fooling, "one_way": one_way, "rank": rank, "fooling_set_symbolic": symbolic}


def reason(cert: object) -> str:
    verdict = verifier.verify(cert)
    assert verdict.valid is False and verdict.claimed_bits is None
    assert verdict.reason is not None
    return verdict.reason


# ------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize("kind", KINDS)
def test_verdicts_of_each_kind(kind: str) -> None:
    cert = KINDS[kind]()
    assert verifier.verify(cert) == Verdict(
        True, kind, 2 if kind != "fooling_set_symbolic" else 3, None
    )
    cert["claim"]["bits"] += 1
    verdict = verifier.verify(cert)
    assert verdict.valid is False and verdict.kind == kind and verdict.claimed_bits is None
    assert verdict.over_limit is False and verdict.reason.startswith("claimed bits differ")


def test_verdicts_without_a_known_kind() -> None:
    for cert, expected in (
        ([], "a certificate is a JSON object"),
        ("x", "a certificate is a JSON object"),
        ({**fooling(), "kind": "nope"}, "kind must be one of fooling_set, fooling_set_symbolic, "
         "one_way, rank"),
        ({**fooling(), "kind": "protocol_rnn"}, "kind must be one of fooling_set, "
         "fooling_set_symbolic, one_way, rank"),
    ):  # fmt: skip
        assert verifier.verify(cert) == Verdict(False, None, None, expected, False)


def test_an_over_limit_verdict_keeps_its_kind() -> None:
    cert = fooling()
    cert["problem"]["half"] = 10**9
    verdict = verifier.verify(cert)
    assert verdict == Verdict(False, "fooling_set", None, verdict.reason, True)
    assert (
        verdict.reason
        == "problem: --half 1000000000 exceeds the limit of 524288; use a shorter input"
    )


# ------------------------------------------------------------------------------ the envelope


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("format", None, "format must be 'ccomplexity-certificate'"),
        ("format", "ccomplexity-certificate ", "format must be 'ccomplexity-certificate'"),
        ("format_version", True, "unsupported format_version"),
        ("format_version", 1.0, "unsupported format_version"),
        ("format_version", 2, "unsupported format_version"),
        ("format_version", "1", "unsupported format_version"),
        (
            "kind",
            "FOOLING_SET",
            "kind must be one of fooling_set, fooling_set_symbolic, one_way, rank",
        ),
    ],
)
def test_the_envelope_fields_one_at_a_time(key: str, value: object, expected: str) -> None:
    cert = fooling()
    verifier.check_envelope(cert, certificates.KINDS)
    cert[key] = value
    with pytest.raises(InvalidCertificate, match=f"^{expected}$"):
        verifier.check_envelope(cert, certificates.KINDS)
    assert reason(cert) == expected
    del cert[key]
    assert reason(cert) == expected


def test_check_envelope_takes_the_kinds_it_is_given() -> None:
    cert = fooling()
    verifier.check_envelope(cert, ("fooling_set",))
    with pytest.raises(InvalidCertificate, match="^kind must be one of rank, one_way$"):
        verifier.check_envelope(cert, ("rank", "one_way"))
    with pytest.raises(InvalidCertificate, match="^a certificate is a JSON object$"):
        verifier.check_envelope([cert], ("fooling_set",))


@pytest.mark.parametrize("kind", KINDS)
def test_each_part_of_each_kind_is_checked_for_its_fields(kind: str) -> None:
    for part in ("software", "claim", "witness"):
        cert = KINDS[kind]()
        cert[part]["extra"] = 1
        assert reason(cert) == f"{part} has unknown field(s) 'extra'"
        cert = KINDS[kind]()
        first = next(iter(cert[part]))
        cert[part][first] = 1.5  # a float is none of str, int, bool, list
        assert reason(cert) == f"{part}: field {first!r} has the wrong type"
        cert = KINDS[kind]()
        cert[part] = 5
        assert reason(cert) == f"the certificate: field {part!r} has the wrong type"
    cert = KINDS[kind]()
    cert["note"] = "999 bits"
    assert reason(cert) == "the certificate has unknown field(s) 'note'"
    cert = KINDS[kind]()
    del cert["software"]
    assert reason(cert) == "the certificate lacks field(s) 'software'"
    cert = KINDS[kind]()
    cert["problem"] = [cert["problem"]]
    assert reason(cert) == "the certificate: field 'problem' has the wrong type"


def test_exact_keys_names_five_unknown_and_every_missing_field() -> None:
    keys = {"a": int, "b": int, "c": (int, str)}
    verifier.exact_keys({"a": 1, "b": 2, "c": "x"}, "x", keys)
    extra = {"a": 1, "b": 2, "c": 3, **{k: 0 for k in "uvwxyz"}}
    with pytest.raises(InvalidCertificate) as err:
        verifier.exact_keys(extra, "x", keys)
    assert str(err.value) == "x has unknown field(s) 'u', 'v', 'w', 'x', 'y'"
    with pytest.raises(InvalidCertificate) as err:
        verifier.exact_keys({"b": 2}, "x", keys)
    assert str(err.value) == "x lacks field(s) 'a', 'c'"
    with pytest.raises(InvalidCertificate) as err:
        verifier.exact_keys({"a": 1, "b": 2, "c": 1.5}, "x", keys)
    assert str(err.value) == "x: field 'c' has the wrong type"
    # Each type of a tuple is exact too: a bool is not an int, an int is not a float.
    verifier.exact_keys({"a": 1, "b": 2, "c": 3}, "x", keys)
    for value in (True, 2.0):
        with pytest.raises(InvalidCertificate, match="^x: field 'n' has the wrong type$"):
            verifier.exact_keys({"n": value}, "x", {"n": (int, str)})
    with pytest.raises(InvalidCertificate, match="^x: field 'n' has the wrong type$"):
        verifier.exact_keys({"n": False}, "x", {"n": (int, float)})
    verifier.exact_keys({"n": 0.5}, "x", {"n": (int, float)})
    cert = fooling()
    cert["claim"] = {}
    assert reason(cert) == "claim lacks field(s) 'size', 'value', 'bits'"


def test_require_and_within() -> None:
    verifier.require(True, "never")
    with pytest.raises(InvalidCertificate, match="^the reason$") as err:
        verifier.require(False, "the reason")
    assert not isinstance(err.value, verifier.OverLimit)
    with pytest.raises(verifier.OverLimit, match="^the limit$"):
        verifier.within(False, "the limit")


# ------------------------------------------------------------------------------ problems


PLUGIN = {
    "problem": "no_such_task",
    "length": 4,
    "partition": "odd-even",
    "plugin": {"source": "mine.py", "sha256": "0" * 64},
}


def test_a_plugin_problem_not_loaded_is_not_checked() -> None:
    with pytest.raises(InputError, match="load that plugin"):
        verifier.verify(fooling(copy.deepcopy(PLUGIN)))


def test_a_malformed_plugin_problem_is_invalid_with_the_loaders_reason() -> None:
    spec = {**copy.deepcopy(PLUGIN), "extra": 1}
    assert reason(fooling(spec)) == (
        "a plugin problem has exactly the fields ['length', 'partition', 'plugin', 'problem']"
    )
    spec = copy.deepcopy(PLUGIN)
    spec["plugin"]["sha256"] = "0" * 63
    assert reason(fooling(spec)) == "the plugin's sha256 must be 64 lowercase hex digits"


@pytest.mark.parametrize(
    ("text", "over"),
    [
        ("--x 9 exceeds the limit of 8", True),
        ("x needs 9 cells; the limit is 8", True),
        ("a graph is limited to 8 entities", True),
        ("the limit (64-bit numbering) is reached", False),
        ("--x must be at least 1", False),
    ],
)
def test_a_problem_refused_for_a_limit_is_over_the_limit(
    monkeypatch, text: str, over: bool
) -> None:
    def refuse(name: str, **options: object) -> problems.TwoPartyProblem:
        raise InputError(text)

    monkeypatch.setattr(problems, "make", refuse)
    verdict = verifier.verify(fooling())
    assert verdict.valid is False and verdict.over_limit is over
    assert verdict.reason == (f"problem: {text}" if over else f"bad problem: {text}")


def test_a_kg_graph_over_its_size_is_over_the_limit() -> None:
    spec = problems.kg_query(8, 3, 4, 2, seed=5).spec()
    spec["entities"] = 65537
    verdict = verifier.verify(fooling(spec))
    assert verdict.over_limit and verdict.reason.startswith("problem: a graph is limited to 65536")


def test_a_kg_graph_other_than_the_certified_one() -> None:
    spec = problems.kg_query(8, 3, 4, 2, seed=5).spec()
    assert verifier._build_problem(copy.deepcopy(spec)).describe() == spec
    for change in ({"graph_sha256": "0" * 64}, {"seed": 6}):
        bad = {**spec, **change}
        assert reason(fooling(bad)) == "the graph from this seed is not the one certified"


def test_no_words_is_an_empty_array() -> None:
    out = verifier._words([], 2, 3, "x")
    assert out.shape == (0, 3) and out.dtype == np.int64
    out = verifier._words([[1, 0, 1]], 2, 3, "x")
    assert out.tolist() == [[1, 0, 1]] and out.dtype == np.int64


# ------------------------------------------------------------------------------ limits, in full


def test_the_work_limits_name_the_fooling_set(monkeypatch) -> None:
    monkeypatch.setattr(verifier, "MAX_SYMBOLS", 63)  # 16 ordered pairs of 2 + 2 symbols: 64
    verdict = verifier.verify(fooling())
    assert verdict.over_limit and verdict.kind == "fooling_set"
    assert verdict.reason == (
        "fooling set: 16 pairs of words of length 4 exceed the limit of 63 symbols evaluated"
    )
    monkeypatch.setattr(verifier, "MAX_SYMBOLS", 64)
    assert verifier.verify(fooling()).valid
    verdict = verifier.verify(one_way())
    assert verdict.valid
    monkeypatch.setattr(verifier, "MAX_SYMBOLS", 63)
    assert verifier.verify(one_way()).reason == (
        "witness submatrix: 16 pairs of words of length 4 exceed the limit of 63 symbols evaluated"
    )


def test_the_prime_limit_in_full() -> None:
    cert = rank()
    cert["claim"]["prime"] = 1 << 62
    verdict = verifier.verify(cert)
    assert verdict == Verdict(
        False, "rank", None, "claimed primes are limited to 2..2^62 - 1", True
    )
