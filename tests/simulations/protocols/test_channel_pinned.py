"""Pinned values of ``ccomplexity.protocol``: exact bit accounting and fixed-width codecs.

Pinned here: a transcript's totals, per step (in first-use order) and per direction, and its
JSON description, field by field; the channel's refusals with their messages; every codec at the
ends of its range (width 0 and 1, 2^w - 1 and 2^w unsigned, +-(2^(w-1) - 1) and -2^(w-1)
signed, with and without the full range), exact bit strings against ``format``; and every check
of a protocol certificate that needs no model, each tampering refused with its reason.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ccomplexity import protocol as PR
from ccomplexity.certificates import FORMAT, FORMAT_VERSION
from ccomplexity.errors import InputError
from ccomplexity.protocol import (
    Channel,
    Message,
    Transcript,
    decode_ints,
    decode_uints,
    encode_ints,
    encode_uints,
)
from ccomplexity.verifier import InvalidCertificate

# ----------------------------------------------------------------------------- transcripts


def test_message_describe() -> None:
    m = Message("alice", "bob", "max", "0110")
    assert m.describe() == {
        "sender": "alice",
        "receiver": "bob",
        "step": "max",
        "length": 4,
        "bits": "0110",
    }


def test_transcript_totals_order_and_description() -> None:
    ch = Channel(("p", "q"))
    assert ch.parties == ("p", "q")
    ch.send("q", "p", "b", "1")
    ch.send("p", "q", "a", "00")
    ch.send("q", "p", "a", "111")
    ch.send("p", "q", "b", "")
    t = ch.transcript
    assert isinstance(t, Transcript) and t.total == 6
    assert list(t.bits_by_step().items()) == [("b", 1), ("a", 5)]  # first use decides the order
    assert list(t.bits_by_direction().items()) == [("q->p", 4), ("p->q", 2)]
    assert t.describe() == {
        "messages": [m.describe() for m in t.messages],
        "total": 6,
        "bits_by_step": {"b": 1, "a": 5},
        "bits_by_direction": {"q->p": 4, "p->q": 2},
        "one_way": False,
    }


def test_one_way_counts_senders() -> None:
    assert Transcript(()).one_way and Transcript(()).total == 0
    assert Transcript(()).bits_by_step() == {} and Transcript(()).bits_by_direction() == {}
    one = Transcript((Message("bob", "alice", "s", "1"), Message("bob", "alice", "t", "0")))
    assert one.one_way and one.describe()["one_way"] is True
    two = Transcript((Message("bob", "alice", "s", "1"), Message("alice", "bob", "t", "")))
    assert not two.one_way  # an empty message is still a message from its sender


def test_channel_refusals_and_messages() -> None:
    with pytest.raises(InputError, match=r"a channel joins two distinct parties, got \('a', 'a'\)"):
        Channel(("a", "a"))
    with pytest.raises(InputError, match="two distinct parties, got"):
        Channel(("a", "b", "c"))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="two distinct parties"):
        Channel(("a",))  # type: ignore[arg-type]
    ch = Channel()
    assert ch.parties == ("alice", "bob") and ch.transcript.messages == ()
    with pytest.raises(
        InputError,
        match=r"^'alice' -> 'alice' is not a direction of the channel \('alice', 'bob'\)$",
    ):
        ch.send("alice", "alice", "s", "1")
    with pytest.raises(InputError, match=r"^'carol' -> 'bob' is not a direction"):
        ch.send("carol", "bob", "s", "1")
    with pytest.raises(InputError, match=r"^a message is a str of '0' and '1' only \(step 'x'\)$"):
        ch.send("alice", "bob", "x", "0a1")
    with pytest.raises(InputError, match=r"\(step 'y'\)"):
        ch.send("alice", "bob", "y", ["0"])  # type: ignore[arg-type]
    assert ch.transcript.messages == ()  # nothing refused was recorded
    assert ch.send("bob", "alice", "z", "") == ""
    assert ch.transcript.messages == (Message("bob", "alice", "z", ""),)


# ----------------------------------------------------------------------------- codecs


def test_unsigned_codec_at_its_ends() -> None:
    assert encode_uints([0, 7, 5], 3) == "000111101"
    assert encode_uints([], 4) == ""
    assert encode_uints([0, 0], 0) == ""
    assert encode_uints([True], 1) == "1"
    with pytest.raises(InputError, match="^1 does not fit in 0 unsigned bits$"):
        encode_uints([1], 0)
    with pytest.raises(InputError, match="^8 does not fit in 3 unsigned bits$"):
        encode_uints([8], 3)
    with pytest.raises(InputError, match="^-1 does not fit in 3 unsigned bits$"):
        encode_uints([-1], 3)
    assert encode_uints([2**70 - 1], 70) == "1" * 70
    assert decode_uints("000111101", 3, 3) == [0, 7, 5]
    assert decode_uints("", 0, 3) == [0, 0, 0]
    assert decode_uints("", 5, 0) == []


def test_signed_codec_at_its_ends() -> None:
    assert encode_ints([3, -3, 0, -1], 3) == "011" + "101" + "000" + "111"
    assert encode_ints([0], 1) == "0"
    assert encode_ints([-1], 1, full_range=True) == "1"
    assert encode_ints([-4, 3], 3, full_range=True) == "100011"
    with pytest.raises(InputError, match=r"^-1 does not fit in 1 signed bits \(0\.\.0\)$"):
        encode_ints([-1], 1)
    with pytest.raises(InputError, match=r"^1 does not fit in 1 signed bits \(-1\.\.0\)$"):
        encode_ints([1], 1, full_range=True)
    with pytest.raises(InputError, match=r"^-4 does not fit in 3 signed bits \(-3\.\.3\)$"):
        encode_ints([-4], 3)
    with pytest.raises(InputError, match=r"^4 does not fit in 3 signed bits \(-4\.\.3\)$"):
        encode_ints([4], 3, full_range=True)
    with pytest.raises(InputError, match=r"^-5 does not fit in 3 signed bits \(-4\.\.3\)$"):
        encode_ints([-5], 3, full_range=True)
    with pytest.raises(InputError, match="^a signed integer needs at least 1 bit, got width 0$"):
        encode_ints([], 0)
    assert encode_ints([], 1) == ""
    assert decode_ints("011101000111", 3, 4) == [3, -3, 0, -1]
    assert decode_ints("100011", 3, 2, full_range=True) == [-4, 3]
    assert decode_ints("0", 1, 1) == [0]
    assert decode_ints("1", 1, 1, full_range=True) == [-1]
    with pytest.raises(InputError, match=r"^code 1 is -2\^0, outside the symmetric range$"):
        decode_ints("1", 1, 1)
    with pytest.raises(InputError, match=r"^code 100 is -2\^2, outside the symmetric range$"):
        decode_ints("011100", 3, 2)


def test_codec_round_trip_each_width_at_its_extremes() -> None:
    for w in range(1, 12):
        top = 2 ** (w - 1) - 1
        vals = [-top, top, 0]
        bits = encode_ints(vals, w)
        assert bits == "".join(format(v % 2**w, f"0{w}b") for v in vals)
        assert decode_ints(bits, w, 3) == vals
        full = [-(top + 1), top]
        assert decode_ints(encode_ints(full, w, full_range=True), w, 2, full_range=True) == full
        assert decode_uints(encode_uints([0, 2**w - 1], w), w, 2) == [0, 2**w - 1]


@pytest.mark.parametrize(
    ("bits", "width", "count", "needle"),
    [
        ("0101", 3, 1, "^message of 4 bits is not 1 numbers of 3 bits$"),
        ("01", 3, 1, "^message of 2 bits is not 1 numbers of 3 bits$"),
        ("", 3, 1, "^message of 0 bits is not 1 numbers of 3 bits$"),
        ("012", 3, 1, "^a message is a str of '0' and '1' only$"),
        (5, 3, 1, "^a message is a str of '0' and '1' only$"),
    ],
)
def test_decoders_refuse_bad_messages(bits: Any, width: int, count: int, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        decode_uints(bits, width, count)
    with pytest.raises(InputError, match=needle):
        decode_ints(bits, width, count)


def test_exports() -> None:
    assert set(PR.__all__) == {"Channel", "Message", "Transcript", "decode_ints",
                               "decode_uints", "encode_ints", "encode_uints"}  # fmt: skip


# ----------------------------------------------------------------------------- certificates


def certificate() -> dict[str, Any]:
    """A protocol certificate whose model-free parts are consistent: two one-way runs."""
    transcripts = []
    for bits in ("0110", "01"):
        ch = Channel()
        ch.send("alice", "bob", "hidden_state", bits)
        ch.send("alice", "bob", "more", "1")
        transcripts.append(ch.transcript.describe())
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": {"name": "ccomplexity", "version": "0", "torch": "0"},
        "kind": "protocol_rnn",
        "model": {},
        "precision": {},
        "protocol": {"cut": 1},
        "inputs": [],
        "transcripts": transcripts,
        "outputs": {},
        "claim": {
            "bits_sent": 5,
            "one_way": True,
            "samples": 2,
            "agreement": 1.0,
            "logits_exact": 1.0,
            "max_logit_error": 0.0,
        },
    }


def test_a_consistent_certificate_passes() -> None:
    cert = certificate()
    out = PR.check_protocol_certificate(cert)
    assert [t.total for t in out] == [5, 3]
    assert out[0].messages[0] == Message("alice", "bob", "hidden_state", "0110")
    two_way = certificate()
    two_way["kind"] = "protocol_attention"
    for t in two_way["transcripts"]:
        t["messages"][1].update(sender="bob", receiver="alice")
        t["bits_by_direction"] = {
            "alice->bob": t["messages"][0]["length"],
            "bob->alice": 1,
        }
        t["one_way"] = False
    two_way["claim"]["one_way"] = False
    assert len(PR.check_protocol_certificate(two_way)) == 2


def test_no_transcripts_claims_minus_one_bits() -> None:
    cert = certificate()
    cert["transcripts"] = []
    cert["claim"]["bits_sent"] = -1
    assert PR.check_protocol_certificate(cert) == []
    cert["claim"]["bits_sent"] = 0
    with pytest.raises(InvalidCertificate, match="^bits_sent differs$"):
        PR.check_protocol_certificate(cert)


def _set(path: tuple, value: Any):
    def tamper(cert: dict[str, Any]) -> None:
        obj = cert
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value

    return tamper


def _drop(path: tuple):
    def tamper(cert: dict[str, Any]) -> None:
        obj = cert
        for key in path[:-1]:
            obj = obj[key]
        del obj[path[-1]]

    return tamper


@pytest.mark.parametrize(
    ("tamper", "needle"),
    [
        (_set(("kind",), "fooling_set"), "kind must be one of protocol_rnn, protocol_attention"),
        (_set(("extra",), 1), r"^the certificate has unknown field\(s\) 'extra'$"),
        (_drop(("inputs",)), r"^the certificate lacks field\(s\) 'inputs'$"),
        (_set(("software", "torch"), 2), "^software: field 'torch' has the wrong type$"),
        (_drop(("software", "torch")), r"^software lacks field\(s\) 'torch'$"),
        (_drop(("claim", "samples")), r"^claim lacks field\(s\) 'samples'$"),
        (_set(("claim", "agreement"), 1), "^claim: field 'agreement' has the wrong type$"),
        (_set(("claim", "bits_sent"), 4), "^bits_sent differs$"),
        (_set(("claim", "bits_sent"), 8), "^bits_sent differs$"),
        (_set(("claim", "one_way"), False), "^claimed one_way differs from True$"),
        (_set(("transcripts", 1, "extra"), 0), r"^transcript 1 has unknown field\(s\) 'extra'$"),
        (_drop(("transcripts", 0, "total")), r"^transcript 0 lacks field\(s\) 'total'$"),
        (_set(("transcripts", 0, "messages", 0, "bits"), "0120"),
         "^transcript 0: bits hold only '0' and '1'$"),
        (_set(("transcripts", 1, "messages", 0, "length"), 3), "^transcript 1: length differs$"),
        (_set(("transcripts", 0, "messages", 1, "x"), 3),
         r"^transcript 0: a message has unknown field\(s\) 'x'$"),
        (_set(("transcripts", 0, "messages", 1, "step"), 3),
         "^transcript 0: a message: field 'step' has the wrong type$"),
        (_set(("transcripts", 0, "total"), 6),
         "^transcript 0: recorded totals differ from messages$"),
        (_set(("transcripts", 1, "bits_by_step"), {"hidden_state": 2, "more": 0}),
         "^transcript 1: recorded totals differ from messages$"),
        (_set(("transcripts", 1, "bits_by_direction"), {"alice->bob": 2}),
         "^transcript 1: recorded totals differ from messages$"),
        (_set(("transcripts", 0, "one_way"), False), "^transcript 0: one_way differs$"),
    ],
)  # fmt: skip
def test_tampering_is_refused_with_its_reason(tamper, needle: str) -> None:
    cert = copy.deepcopy(certificate())
    tamper(cert)
    with pytest.raises(InvalidCertificate, match=needle):
        PR.check_protocol_certificate(cert)


def test_a_message_from_the_other_side_changes_one_way() -> None:
    cert = certificate()
    t = cert["transcripts"][1]
    t["messages"][1].update(sender="bob", receiver="alice")
    t["bits_by_direction"] = {"alice->bob": 2, "bob->alice": 1}
    t["one_way"] = False
    with pytest.raises(InvalidCertificate, match="^claimed one_way differs from False$"):
        PR.check_protocol_certificate(cert)
    cert["claim"]["one_way"] = False
    assert len(PR.check_protocol_certificate(cert)) == 2
