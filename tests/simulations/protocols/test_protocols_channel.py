"""Channels, transcripts and fixed-width integer codecs (``ccomplexity.protocol``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccomplexity.errors import InputError
from ccomplexity.protocol import (
    Channel,
    decode_ints,
    decode_uints,
    encode_ints,
    encode_uints,
)


def test_transcript_totals_per_step_and_direction():
    ch = Channel()
    assert ch.send("alice", "bob", "max", "0101") == "0101"
    ch.send("bob", "alice", "max", "111")
    ch.send("alice", "bob", "sums", "")
    ch.send("alice", "bob", "sums", "10")
    t = ch.transcript
    assert t.total == 9 == sum(len(m.bits) for m in t.messages)
    assert t.bits_by_step() == {"max": 7, "sums": 2}
    assert t.bits_by_direction() == {"alice->bob": 6, "bob->alice": 3}
    assert not t.one_way
    d = t.describe()
    assert [m["length"] for m in d["messages"]] == [4, 3, 0, 2]
    assert d["total"] == 9 and d["one_way"] is False


def test_one_way_iff_a_single_sender():
    ch = Channel()
    ch.send("alice", "bob", "state", "1")
    ch.send("alice", "bob", "state", "0")
    assert ch.transcript.one_way
    ch.send("bob", "alice", "ack", "1")
    assert not ch.transcript.one_way


@pytest.mark.parametrize(
    "sender, receiver, bits",
    [("alice", "alice", "1"), ("carol", "bob", "1"), ("alice", "bob", "012"), ("alice", "bob", 1)],
)
def test_channel_rejects_bad_messages(sender, receiver, bits):
    with pytest.raises(InputError):
        Channel().send(sender, receiver, "step", bits)


def test_channel_needs_two_distinct_parties():
    with pytest.raises(InputError):
        Channel(("alice", "alice"))


@given(
    st.integers(1, 70).flatmap(
        lambda w: st.tuples(
            st.just(w), st.lists(st.integers(-(2 ** (w - 1) - 1), 2 ** (w - 1) - 1), max_size=5)
        )
    )
)
def test_signed_round_trip(case):
    width, values = case
    bits = encode_ints(values, width)
    assert len(bits) == width * len(values)
    assert decode_ints(bits, width, len(values)) == values


@given(
    st.integers(0, 70).flatmap(
        lambda w: st.tuples(st.just(w), st.lists(st.integers(0, 2**w - 1), max_size=5))
    )
)
def test_unsigned_round_trip(case):
    width, values = case
    assert decode_uints(encode_uints(values, width), width, len(values)) == values


def test_codecs_reject_what_does_not_fit():
    assert encode_ints([-3, 3], 3) == "101011"
    with pytest.raises(InputError):
        encode_ints([4], 3)
    with pytest.raises(InputError):
        encode_ints([-4], 3)
    with pytest.raises(InputError):
        encode_uints([8], 3)
    with pytest.raises(InputError):
        decode_ints("100", 3, 1)  # -4: the unused code of the symmetric range
    with pytest.raises(InputError):
        decode_uints("0101", 3, 1)
