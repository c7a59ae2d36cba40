"""The protocol requests: keyword-only, and each runs the same protocol as its runner with the
same integers, whatever order the runner takes them in."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from simulations.protocols.attention import run_attention_protocol
from simulations.protocols.requests import (
    AttentionProtocolRequest,
    ParrotsProtocolRequest,
    RnnProtocolRequest,
    run_protocol,
)
from simulations.protocols.rnn import run_rnn_protocol


def test_requests_are_keyword_only():
    with pytest.raises(TypeError):
        RnnProtocolRequest(8, 4, 16)  # type: ignore[misc]


def test_rnn_request_is_the_runner():
    request = RnnProtocolRequest(
        length=6, cut=2, precision=12, arch="gru", width=4, samples=5, seed=3
    )
    assert run_protocol(request) == run_rnn_protocol("gru", 4, 6, 2, 12, 5, 3)


def test_attention_request_is_the_runner():
    request = AttentionProtocolRequest(
        length=6, partition="odd-even", precision=16, width=8, heads=2, samples=5, seed=1,
        variant="single-output",
    )  # fmt: skip
    expected = run_attention_protocol(8, 2, 6, "odd-even", 16, 5, 1, variant="single-output")
    assert run_protocol(request) == expected


def test_the_parrots_protocol_has_no_certificate():
    with pytest.raises(InputError, match="--certificate"):
        ParrotsProtocolRequest(precision=16, vertices=4, certificate=True)
