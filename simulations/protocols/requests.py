"""The protocol runners behind one call: a validated, keyword-only request per protocol and
:func:`run_protocol`, so that the same integers are never passed in different orders.

- :class:`RnnProtocolRequest`: Thm 2 of the separations paper, an RNN's whole state sent across
  a cut (:func:`simulations.protocols.rnn.run_rnn_protocol`).
- :class:`AttentionProtocolRequest`: Thm 4, a one-layer transformer split over any partition,
  two-way, single-output or one-way
  (:func:`simulations.protocols.attention.run_attention_protocol`).
- :class:`ParrotsProtocolRequest`: Lemma A.3 / Thm A.4 of the mixture-of-parrots paper on
  length-2 path (:func:`simulations.protocols.parrots.run_parrots_protocol`).

Each names its model (seeded: its sizes and ``seed``; trained: ``checkpoint``), the precision
(``precision`` bits, ``frac`` fractional, default p // 2), ``samples`` random inputs drawn from
``seed``, and whether the result carries a certificate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ccomplexity.errors import InputError


@dataclass(frozen=True, kw_only=True)
class RnnProtocolRequest:
    """Thm 2: ``arch`` of ``width`` (``layers``, ``vocab_size``) or ``checkpoint``; Alice holds
    the first ``cut`` of ``length`` tokens and sends the whole state."""

    length: int
    cut: int
    precision: int
    arch: str | None = None
    width: int | None = None
    samples: int = 100
    seed: int = 0
    layers: int = 1
    vocab_size: int = 8
    frac: int | None = None
    checkpoint: str | None = None
    certificate: bool = False


@dataclass(frozen=True, kw_only=True)
class AttentionProtocolRequest:
    """Thm 4: a one-layer transformer of ``width`` and ``heads`` (or ``checkpoint``) on
    ``length`` tokens split by ``partition``; ``variant`` two-way, single-output or one-way
    (the query at N is then Bob's public ``query_token``)."""

    length: int
    partition: str
    precision: int
    width: int | None = None
    heads: int | None = None
    samples: int = 100
    seed: int = 0
    layers: int = 1
    variant: str = "two-way"
    vocab_size: int = 8
    frac: int | None = None
    layer_norm: bool = True
    query_token: int = 0
    checkpoint: str | None = None
    certificate: bool = False


@dataclass(frozen=True, kw_only=True)
class ParrotsProtocolRequest:
    """Lemma A.3: the one-way protocol on length-2 path over ``vertices`` for ``arch`` (moe,
    dense or construction) of ``width``, ``heads`` and ``experts`` (or ``checkpoint``)."""

    precision: int
    vertices: int | None = None
    width: int | None = None
    heads: int = 1
    samples: int = 100
    seed: int = 0
    arch: str = "moe"
    experts: int = 1
    frac: int | None = None
    checkpoint: str | None = None
    certificate: bool = False

    def __post_init__(self) -> None:
        if self.certificate:
            raise InputError("--certificate is not available for the length2-path protocol")


ProtocolRequest = RnnProtocolRequest | AttentionProtocolRequest | ParrotsProtocolRequest


def run_protocol(request: ProtocolRequest) -> dict[str, Any]:
    """Run the protocol ``request`` names on its model and inputs; the result holds the bits
    sent, per step and direction, and the agreement with the model's own finite-precision run
    (with ``certificate``: the certificate under "certificate")."""
    r = request
    if isinstance(r, RnnProtocolRequest):
        from simulations.protocols.rnn import run_rnn_protocol

        return run_rnn_protocol(
            r.arch, r.width, r.length, r.cut, r.precision, r.samples, r.seed, layers=r.layers,
            vocab_size=r.vocab_size, frac=r.frac, certificate=r.certificate,
            checkpoint=r.checkpoint,
        )  # fmt: skip
    if isinstance(r, AttentionProtocolRequest):
        from simulations.protocols.attention import run_attention_protocol

        return run_attention_protocol(
            r.width, r.heads, r.length, r.partition, r.precision, r.samples, r.seed,
            layers=r.layers, variant=r.variant, vocab_size=r.vocab_size, frac=r.frac,
            layer_norm=r.layer_norm, certificate=r.certificate, checkpoint=r.checkpoint,
            query_token=r.query_token,
        )  # fmt: skip
    if isinstance(r, ParrotsProtocolRequest):
        from simulations.protocols.parrots import run_parrots_protocol

        return run_parrots_protocol(
            r.vertices, r.width, r.heads, r.precision, r.samples, r.seed, arch=r.arch,
            experts=r.experts, frac=r.frac, checkpoint=r.checkpoint,
        )  # fmt: skip
    raise InputError(f"not a protocol request: {type(r).__name__}")
