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
)
from simulations.protocols.rnn import run_rnn_protocol
from simulations.protocols.run import run_protocol


def test_requests_are_keyword_only():
    with pytest.raises(TypeError):
        RnnProtocolRequest(8, 4, 16)  # type: ignore[misc]


def test_rnn_request_is_the_runner():
    request = RnnProtocolRequest(
        length=6, cut=2, precision=12, arch="gru", width=4, samples=5, seed=3
    )
    assert run_protocol(request) == run_rnn_protocol(request)


def test_attention_request_is_the_runner():
    request = AttentionProtocolRequest(
        length=6,
        partition="odd-even",
        precision=16,
        width=8,
        heads=2,
        samples=5,
        seed=1,
        variant="single-output",
    )
    assert run_protocol(request) == run_attention_protocol(request)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cut": -1}, "cut must be an integer"),
        ({"length": 0}, "length must be an integer"),
        ({"precision": 0}, "precision must be an integer"),
        ({"samples": 0}, "samples must be an integer"),
        ({"seed": -1}, "seed must be an integer"),
        ({"arch": None}, "give arch and width, or a checkpoint"),
        ({"length": None}, "give the length N"),
    ],
)
def test_a_request_is_checked_when_made(fields, message):
    """Its numbers against the one table, and what ties them, before any model is built."""
    base = {"length": 6, "cut": 2, "precision": 12, "arch": "gru", "width": 4}
    with pytest.raises(InputError, match=message):
        RnnProtocolRequest(**{**base, **fields})


def test_the_parrots_protocol_has_no_certificate():
    with pytest.raises(InputError, match="--certificate"):
        ParrotsProtocolRequest(precision=16, vertices=4, certificate=True)
