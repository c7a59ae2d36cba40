"""The verifier at its edges: each check with an input only it rejects, every limit at, below and
above its value, and the strict JSON reading of numbers, keys and text.

Pinned here: integers of exactly 40 digits (signed or not) are read and 41 are refused; the
messages of the JSON reader (truncated keys and numbers at 40 characters); the size cap of a
certificate's kind, at and above it, read from the file's first 4 KiB and again once parsed; the
GF(p) elimination in exact integers from 2^31 up (a 0/1 matrix singular over GF(2^32 - 5) that
int64 arithmetic would call nonsingular, and one nonsingular over GF(2^61 - 1) it would call
singular); the inverse in the elimination (a pivot 3 over GF(7)); the seeded redraw
M = [U < density] at U == density; the chunks of the pairwise evaluation; the stack automaton of
Dyck-(n,k) and both halves' uniqueness against brute force; and the full reasons of the symbolic
checks (hex digits in lower case only, depth 0, counts printed to 40 characters).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from ccomplexity import certificates, limits, problems, verifier
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.dyck import count_dyck
from ccomplexity.verifier import InvalidCertificate

WORDS2 = [list(w) for w in itertools.product(range(2), repeat=2)]
EQ = problems.equality(2, 2).describe()


def fooling() -> dict:
    """EQ on 2 + 2 bits, S = {(w, w)}: 4 pairs, 2 bits."""
    pairs = [[w, w] for w in WORDS2]
    return certificates._envelope(
        "fooling_set", dict(EQ), {"size": 4, "value": 1, "bits": 2}, {"pairs": pairs}
    )


def symbolic(types: int = 2, depth: int = 2, length: int = 4) -> dict:
    return certificates.symbolic_dyck_certificate(
        types, depth, length, max(1, count_dyck(types, depth, length))
    )


def matrix_rank(m: list[list[int]], prime: int) -> dict:
    """A rank certificate claiming the whole square 0/1 matrix ``m`` nonsingular over GF(prime)."""
    spec = problems.from_matrix(m).spec()
    idx = [[i] for i in range(len(m))]
    claim = {"rank_at_least": len(m), "prime": prime, "bits": ceil_log2(len(m))}
    witness = {"alice_inputs": idx, "bob_inputs": copy.deepcopy(idx)}
    return certificates._envelope("rank", spec, claim, witness)


def reason(cert: dict) -> str:
    verdict = verifier.verify(cert)
    assert verdict.valid is False and verdict.reason is not None
    return verdict.reason


# ------------------------------------------------------------------------------ JSON numbers


def test_integers_of_40_digits_are_read_and_of_41_are_not() -> None:
    forty = "9" * 40
    assert verifier.parse_json(forty.encode()) == int(forty)
    assert verifier.parse_json(f"-{forty}".encode()) == -int(forty)  # the sign is no digit
    assert verifier.parse_json(b"[0, -1, 7]") == [0, -1, 7]
    for text in ("1" + forty, "-1" + forty):
        with pytest.raises(
            InvalidCertificate,
            match=rf"^not valid JSON: integer of {len(text)} digits \(the limit is 40\)$",
        ):
            verifier.parse_json(text.encode())


def test_floats_out_of_range_are_named_by_their_first_40_characters() -> None:
    text = "1" * 45 + "e400"  # finite digits, infinite value
    with pytest.raises(InvalidCertificate) as err:
        verifier.parse_json(f"[{text}]".encode())
    assert str(err.value) == f"not valid JSON: number {text[:40]} is out of range"
    assert verifier.parse_json(b"[1e308, -0.5]") == [1e308, -0.5]
    with pytest.raises(
        InvalidCertificate, match=r"^not valid JSON: -Infinity is not a JSON number$"
    ):
        verifier.parse_json(b"[-Infinity]")


def test_duplicate_keys_are_named_by_their_first_40_characters() -> None:
    key = "k" * 39 + "XYZ"
    with pytest.raises(InvalidCertificate) as err:
        verifier.parse_json(json.dumps({key: 1})[:-1].encode() + f', "{key}": 2}}'.encode())
    assert str(err.value) == f"not valid JSON: duplicate key {key[:40]!r}"


def test_text_that_is_not_utf8_or_nests_too_deep() -> None:
    with pytest.raises(InvalidCertificate, match=r"^not UTF-8 text \(byte 3\)$"):
        verifier.parse_json(b'["a\xff"]')
    with pytest.raises(
        InvalidCertificate, match=r"^not valid JSON: nested deeper than the decoder allows$"
    ):
        verifier.parse_json(b"[" * 100_000 + b"]" * 100_000)


# ------------------------------------------------------------------------------ files


def write(path: Path, cert: object, pad: int = 0) -> Path:
    """The certificate as JSON, with ``pad`` spaces after its opening brace (the kind later)."""
    text = json.dumps(cert)
    if pad:
        text = text[0] + " " * pad + text[1:]
    path.write_text(text)
    return path


def test_the_kind_cap_at_and_above_the_file_size(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path / "c.json", fooling())
    size = path.stat().st_size
    for most, ok in ((size + 1, True), (size, True), (size - 1, False)):
        monkeypatch.setitem(limits.CERTIFICATE_KIND_BYTES, "fooling_set", most)
        if ok:
            assert verifier.verify_file(path).valid
        else:
            with pytest.raises(
                InputError, match=rf"of kind fooling_set has {size} bytes; the limit"
            ):
                verifier.verify_file(path)


def test_the_kind_is_read_from_the_head_before_parsing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(limits.CERTIFICATE_KIND_BYTES, "fooling_set", 100)
    # Not JSON at all, but naming an oversized kind in its head: refused before parsing.
    path = tmp_path / "c.json"
    path.write_text('{"kind": "fooling_set", ' + " " * 200 + "oops")
    size = path.stat().st_size
    with pytest.raises(
        InputError, match=f"of kind fooling_set has {size} bytes; the limit for that kind is 100$"
    ):
        verifier.read_certificate(path)
    # The kind after the first 4 KiB is not seen before parsing: the bytes are then invalid.
    path.write_text("{" + " " * 4100 + '"kind": "fooling_set", oops')
    with pytest.raises(InvalidCertificate, match="^not valid JSON"):
        verifier.read_certificate(path)


def test_the_kind_is_checked_again_once_parsed(tmp_path: Path, monkeypatch) -> None:
    cert = fooling()
    path = write(tmp_path / "c.json", cert, pad=4100)  # "kind" beyond the head
    assert verifier._declared_kind(path) is None
    assert verifier.verify_file(path).valid
    monkeypatch.setitem(limits.CERTIFICATE_KIND_BYTES, "fooling_set", 4000)
    with pytest.raises(InputError, match="of kind fooling_set has"):
        verifier.verify_file(path)
    # An escaped key hides the kind from the head's pattern, not from the parsed check.
    path.write_text(json.dumps(cert).replace('"kind"', '"\\u006bind"'))
    assert verifier._declared_kind(path) is None
    assert verifier.verify_file(path).valid
    monkeypatch.setitem(limits.CERTIFICATE_KIND_BYTES, "fooling_set", 100)
    with pytest.raises(InputError, match="of kind fooling_set has"):
        verifier.verify_file(path)


def test_files_of_other_kinds_or_not_objects_are_verdicts(tmp_path: Path) -> None:
    cert = fooling()
    cert["kind"] = "protocol_nope"
    verdict = verifier.verify_file(write(tmp_path / "a.json", cert))
    assert verdict.valid is False and verdict.kind is None
    assert verdict.reason.startswith("kind must be one of")
    verdict = verifier.verify_file(write(tmp_path / "b.json", [1, 2]))
    assert verdict == verifier.Verdict(False, None, None, "a certificate is a JSON object")
    (tmp_path / "c.json").write_bytes(b"{")
    verdict = verifier.verify_file(tmp_path / "c.json")
    assert verdict.valid is False and verdict.kind is None and not verdict.over_limit
    assert verdict.reason.startswith("not valid JSON")
    assert verifier._declared_kind(tmp_path / "a.json") == "protocol_nope"
    assert verifier._declared_kind(tmp_path / "missing.json") is None


def test_a_missing_file_is_an_input_error_naming_the_certificate(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^certificate .*missing\.json does not exist"):
        verifier.verify_file(tmp_path / "missing.json")


# ------------------------------------------------------------------------------ rank over GF(p)


def test_elimination_is_exact_for_primes_from_2_31() -> None:
    singular = [[1, 1, 0], [1, 0, 1], [1, 0, 1]]
    regular = [[1, 1, 0], [1, 0, 1], [1, 0, 0]]
    for prime in ((1 << 31) - 1, (1 << 31) + 11, (1 << 32) - 5, (1 << 61) - 1):
        assert verifier.is_prime(prime)
        assert reason(matrix_rank(singular, prime)) == "witness submatrix is singular"
        assert verifier.verify(matrix_rank(regular, prime)).valid, prime
        assert not verifier._det_nonzero_mod(np.array(singular), prime)
        assert verifier._det_nonzero_mod(np.array(regular), prime)


def test_elimination_uses_the_inverse_of_the_pivot() -> None:
    # det [[3, 1], [1, 5]] = 14 = 0 over GF(7); 3^-1 = 5 there, and 3^3 = 6 is not it.
    assert not verifier._det_nonzero_mod(np.array([[3, 1], [1, 5]]), 7)
    assert verifier._det_nonzero_mod(np.array([[3, 1], [1, 6]]), 7)
    for m in itertools.product(range(7), repeat=4):
        det = (m[0] * m[3] - m[1] * m[2]) % 7
        assert verifier._det_nonzero_mod(np.array(m).reshape(2, 2), 7) == (det != 0), m


# ------------------------------------------------------------------------------ matrix problems


def test_the_seeded_draw_is_strictly_below_the_density() -> None:
    u = float(np.random.Generator(np.random.PCG64(5)).random((1, 1))[0, 0])
    problem = problems.random_matrix(1, 1, 5, u)  # the one entry is [u < u] = 0
    cert = certificates._envelope(
        "fooling_set", problem.spec(), {"size": 1, "value": 0, "bits": 0}, {"pairs": [[[0], [0]]]}
    )
    assert verifier.verify(cert).valid
    cert["claim"]["value"] = 1
    assert reason(cert) == "pair [0] does not have value 1"


def test_the_rebuilt_matrix_problems_describe_themselves_as_certified() -> None:
    for made in (
        problems.from_matrix([[1, 0, 1], [0, 1, 1]]),
        problems.random_matrix(2, 3, 9, 0.5),
    ):
        spec = made.spec()
        rebuilt = verifier._build_problem(copy.deepcopy(spec))
        assert rebuilt.name == made.name
        assert rebuilt.describe() == made.describe()
        assert rebuilt.params == made.params
        assert (rebuilt.alice_length, rebuilt.bob_length) == (1, 1)
        assert np.array_equal(rebuilt.matrix(), made.matrix())
        assert rebuilt.matrix().dtype == np.int8


def test_matrix_problem_reasons_in_full() -> None:
    spec = problems.from_matrix([[1, 0], [0, 1]]).spec()
    cert = certificates._envelope(
        "fooling_set", spec, {"size": 2, "value": 1, "bits": 1}, {"pairs": [[[0], [0]], [[1], [1]]]}
    )
    assert verifier.verify(cert).valid
    bad = copy.deepcopy(cert)
    bad["problem"]["sha256"] = 5
    assert reason(bad) == "problem: field 'sha256' has the wrong type"
    bad = copy.deepcopy(cert)
    bad["problem"]["entries"] = ["11", "01"]
    assert reason(bad) == "sha256 differs from entries"
    bad = copy.deepcopy(cert)
    bad["problem"]["entries"] = ["1X", "01"]
    assert reason(bad) == "entries must be 2 strings of 2 digits 0 or 1"
    for rows, cols in ((0, 2), (2, 0), (-1, 2)):
        bad = copy.deepcopy(cert)
        bad["problem"].update(rows=rows, cols=cols)
        assert reason(bad) == "bad matrix shape: rows and cols must be at least 1"
    rnd = problems.random_matrix(2, 2, 3, 1.0).spec()
    cert = certificates._envelope(
        "fooling_set", rnd, {"size": 1, "value": 1, "bits": 0}, {"pairs": [[[0], [0]]]}
    )
    assert verifier.verify(cert).valid
    bad = copy.deepcopy(cert)
    bad["problem"]["density"] = 1.5
    assert reason(bad) == "seed or density out of range"
    bad = copy.deepcopy(cert)
    bad["problem"]["generator"] = "pcg64"
    assert reason(bad) == "the generator must be PCG64"


# ------------------------------------------------------------------------------ explicit kinds


def test_the_pairwise_evaluation_goes_in_chunks_of_bounded_symbols(monkeypatch) -> None:
    base = problems.equality(2, 2)  # words of 2 + 2 symbols
    batches: list[int] = []

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        batches.append(len(x))
        return base.evaluate(x, y)

    problem = dataclasses.replace(base, evaluate=evaluate)
    x = np.array(WORDS2, dtype=np.int64)
    for chunk, per_call in ((8, 2), (12, 3), (3, 1), (64, 16), (1000, 16)):
        monkeypatch.setattr(verifier, "CHUNK_SYMBOLS", chunk)
        batches.clear()
        out = verifier._cross(problem, x, x)
        assert out.dtype == np.int8 and out.shape == (4, 4)
        assert np.array_equal(out, np.eye(4, dtype=np.int8))
        assert batches == [per_call] * (16 // per_call) + ([16 % per_call] if 16 % per_call else [])


def test_fooling_violations_name_the_first_pair() -> None:
    # The all-ones matrix: every pair has value 1 and every two pairs clash.
    spec = problems.from_matrix([[1, 1, 1], [1, 1, 1], [1, 1, 1]]).spec()
    pairs = [[[i], [i]] for i in range(3)]
    cert = certificates._envelope(
        "fooling_set", spec, {"size": 3, "value": 1, "bits": 2}, {"pairs": pairs}
    )
    assert reason(cert) == "pairs [[0, 1]] violate the fooling property"
    cert["claim"]["value"] = 0
    assert reason(cert) == "pair [0] does not have value 0"


def test_explicit_reasons_in_full() -> None:
    cert = fooling()
    cert["witness"]["pairs"][1] = [[0, 1]]
    assert reason(cert) == "pairs must be [x, y]"
    cert = fooling()
    cert["witness"]["pairs"][3] = copy.deepcopy(cert["witness"]["pairs"][0])
    cert["claim"].update(size=4, bits=2)
    assert reason(cert) == "pairs are not distinct"


# ------------------------------------------------------------------------------ symbolic Dyck


def test_the_stack_automaton_of_dyck() -> None:
    stacks = verifier._stacks(1, 2)
    assert stacks == [(), (0,), (0, 0)]
    # Symbols: 0 opens, 1 closes; -1 where a word is rejected.
    assert verifier._stack_steps(stacks, 1).tolist() == [[1, -1], [2, 0], [-1, 1]]
    two = verifier._stacks(2, 1)
    assert two == [(), (0,), (1,)]
    assert verifier._stack_steps(two, 2).tolist() == [
        [1, -1, 2, -1],
        [-1, 0, -1, -1],
        [-1, -1, -1, 0],
    ]
    assert verifier._stack_steps(two, 2).dtype == np.int64
    assert verifier._step((0,), 0, 1) is None  # full: no opening
    assert verifier._step((0,), 0, 2) == (0, 0)
    assert verifier._step((0,), 1, 2) == ()
    assert verifier._step((0,), 3, 2) is None  # closes a type not on top
    assert verifier._step((), 1, 2) is None
    assert verifier._step((1,), 2, 2) == (1, 1)


def _brute(step: np.ndarray, length: int) -> tuple[int, bool, bool]:
    """Members (walks from stack 0 back to 0), and whether each half determines the word."""
    members = []
    for word in itertools.product(range(step.shape[1]), repeat=length):
        s = 0
        for sym in word:
            s = int(step[s, sym])
            if s < 0:
                break
        if s == 0:
            members.append(word)
    odd = len({w[0::2] for w in members}) == len(members)
    even = len({w[1::2] for w in members}) == len(members)
    return len(members), odd, even


@pytest.mark.parametrize(("types", "depth", "length"), [(1, 3, 4), (1, 3, 6), (2, 2, 4), (1, 1, 6)])
def test_both_halves_against_brute_force_with_uncapped_stacks(types, depth, length) -> None:
    stacks = verifier._stacks(types, depth)
    step = verifier._stack_steps(stacks, types)
    heights = np.array([len(s) for s in stacks])
    count, odd, even = _brute(step, length)
    assert verifier._count_members(step, heights, length) == count
    assert verifier._half_determines_other(step, length, True) is odd
    assert verifier._half_determines_other(step, length, False) is even
    assert odd == (depth <= 2 or length < 6)  # "((()))" and "(()())" share "(()"


def test_a_lumping_that_does_not_hold_is_refused_with_its_reason() -> None:
    stacks = verifier._stacks(2, 2)
    step = verifier._stack_steps(stacks, 2)
    heights = np.array([len(s) for s in stacks])
    heights[3] = 1
    with pytest.raises(InvalidCertificate, match="^stacks of one height step alike$"):
        verifier._count_members(step, heights, 4)


def test_hex_sizes_in_lower_case_only() -> None:
    cert = symbolic(3, 2, 6)
    assert cert["claim"]["size"] == "0x6c" and verifier.verify(cert).valid
    for size in ("0x6C", "0X6c", "0x6c ", "0x6cX", "0x-1"):
        bad = copy.deepcopy(cert)
        bad["claim"]["size"] = size
        assert reason(bad) == "claimed size must be a hex string", size


def test_depth_zero_has_no_members() -> None:
    cert = symbolic(2, 0, 4)
    assert cert["claim"]["size"] == "0x1"
    assert reason(cert) == "claimed size differs from the 0x0 members"
    cert["problem"]["depth"] = -1
    assert reason(cert) == "Dyck-(n,k) needs n >= 1 types and depth k >= 0"


def test_a_long_count_is_printed_to_40_characters() -> None:
    count = count_dyck(2, 2, 200)
    assert len(hex(count)) > 41
    cert = symbolic(2, 2, 200)
    cert["claim"]["size"] = hex(count + 1)
    assert reason(cert) == f"claimed size differs from the {hex(count)[:40]} members"


def test_symbolic_reasons_in_full() -> None:
    cases = [
        (("problem", "partition"), "prefix:2", "symbolic certificates cover Dyck-(n,k) under the "
         "odd-even partition only"),
        (("problem", "types"), 0, "Dyck-(n,k) needs n >= 1 types and depth k >= 0"),
        (("problem", "length"), 3, "odd-even needs an even length N >= 2"),
        (("witness", "family"), "members", "family must be all-members"),
        (("claim", "value"), 0, "the family of members has value 1"),
        (("claim", "size"), "0x0", "a fooling set must not be empty"),
        (("claim", "bits"), 2, "claimed bits differ from ceil(log2 size)"),
    ]  # fmt: skip
    for (part, key), value, expected in cases:
        cert = symbolic()
        cert[part][key] = value
        assert reason(cert) == expected, (key, value)
