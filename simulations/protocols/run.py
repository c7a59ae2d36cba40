"""One call for any protocol: :func:`run_protocol` hands a request
(:mod:`simulations.protocols.requests`) to its runner. Its own module, so that the requests and
the runners, which import each other's types one way only, meet nowhere else."""

from __future__ import annotations

from typing import Any

from ccomplexity.errors import InputError
from simulations.protocols.attention import run_attention_protocol
from simulations.protocols.parrots import run_parrots_protocol
from simulations.protocols.requests import (
    AttentionProtocolRequest,
    ParrotsProtocolRequest,
    ProtocolRequest,
    RnnProtocolRequest,
)
from simulations.protocols.rnn import run_rnn_protocol


def run_protocol(request: ProtocolRequest) -> dict[str, Any]:
    """Run the protocol ``request`` names on its model and inputs; the result holds the bits
    sent, per step and direction, and the agreement with the model's own run (with
    ``certificate``: the certificate under "certificate")."""
    if isinstance(request, RnnProtocolRequest):
        return run_rnn_protocol(request)
    if isinstance(request, AttentionProtocolRequest):
        return run_attention_protocol(request)
    if isinstance(request, ParrotsProtocolRequest):
        return run_parrots_protocol(request)
    raise InputError(f"not a protocol request: {type(request).__name__}")


__all__ = ["run_protocol"]
