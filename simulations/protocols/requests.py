"""The protocols' requests: one keyword-only request per protocol, checked once when it is made,
and taken whole by its runner, as the lower-bound commands take theirs
(:mod:`ccomplexity.requests`).

- :class:`RnnProtocolRequest`: Thm 2 of the separations paper, an RNN's whole state sent across
  a cut (:func:`simulations.protocols.rnn.run_rnn_protocol`).
- :class:`AttentionProtocolRequest`: Thm 4, a one-layer transformer split over any partition,
  two-way, single-output or one-way
  (:func:`simulations.protocols.attention.run_attention_protocol`).
- :class:`ParrotsProtocolRequest`: Lemma A.3 / Thm A.4 of the mixture-of-parrots paper on
  length-2 path (:func:`simulations.protocols.parrots.run_parrots_protocol`).

Each names its model (seeded: its sizes and ``seed``; trained: ``checkpoint``), the precision
(``precision`` bits, ``frac`` fractional, default p // 2; a model trained at p bits runs on the
grid it trained on, which its checkpoint records), ``samples`` random inputs drawn from ``seed``,
and whether the result carries a certificate. Its numbers are checked against the one table
(:data:`ccomplexity.limits.FIELDS`) when it is made; the model's sizes (width, layers, heads,
vocabulary, experts) are checked once, by the model's config, when the runner builds the model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ccomplexity import limits, typed
from ccomplexity.errors import InputError

MODEL_SIZES = frozenset({"width", "layers", "heads", "vocab_size", "experts"})
"""Fields a request passes to its model's config, which checks them."""


@dataclass(frozen=True, kw_only=True)
class ProtocolRequest:
    """What every protocol takes: the precision, the inputs and where the model comes from."""

    precision: int
    frac: int | None = None
    samples: int = 100
    seed: int = 0
    checkpoint: str | None = None
    certificate: bool = False

    def __post_init__(self) -> None:
        typed.check_fields(self)
        where = f"{type(self).__name__}."
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in limits.FIELDS and f.name not in MODEL_SIZES and value is not None:
                object.__setattr__(self, f.name, limits.check_field(f.name, value, where))
        self.check()

    def check(self) -> None:
        """What ties a request's fields together (a subclass's own rules)."""


@dataclass(frozen=True, kw_only=True)
class RnnProtocolRequest(ProtocolRequest):
    """Thm 2: ``arch`` of ``width`` (``layers``, ``vocab_size``) or ``checkpoint``; Alice holds
    the first ``cut`` of ``length`` tokens (a checkpoint's N when not given) and sends the whole
    state."""

    cut: int
    length: int | None = None
    arch: str | None = None
    width: int | None = None
    layers: int = 1
    vocab_size: int = 8

    def check(self) -> None:
        if self.checkpoint is None and (self.arch is None or self.width is None):
            raise InputError("give arch and width, or a checkpoint")
        if self.checkpoint is None and self.length is None:
            raise InputError("give the length N (a checkpoint knows its own)")


VARIANTS = ("two-way", "single-output", "one-way")


@dataclass(frozen=True, kw_only=True)
class AttentionProtocolRequest(ProtocolRequest):
    """Thm 4: a one-layer transformer of ``width`` and ``heads`` (or ``checkpoint``) on
    ``length`` tokens (a checkpoint's N when not given) split by ``partition``; ``variant``
    two-way, single-output or one-way (the query at N is then Bob's public ``query_token``)."""

    partition: str
    length: int | None = None
    width: int | None = None
    heads: int | None = None
    layers: int = 1
    variant: str = "two-way"
    vocab_size: int = 8
    layer_norm: bool = True
    query_token: int = 0

    def check(self) -> None:
        if self.variant not in VARIANTS:
            raise InputError(f"unknown protocol variant {self.variant!r}; choose one of {VARIANTS}")
        if self.checkpoint is None and (self.width is None or self.heads is None):
            raise InputError("give width and heads, or a checkpoint")
        if self.checkpoint is None and self.length is None:
            raise InputError("give the length N (a checkpoint knows its own)")


@dataclass(frozen=True, kw_only=True)
class ParrotsProtocolRequest(ProtocolRequest):
    """Lemma A.3: the one-way protocol on length-2 path over ``vertices`` for ``arch`` (moe,
    dense or construction) of ``width``, ``heads`` and ``experts`` (or ``checkpoint``)."""

    vertices: int | None = None
    width: int | None = None
    heads: int = 1
    arch: str = "moe"
    experts: int = 1

    def check(self) -> None:
        if self.certificate:
            raise InputError("--certificate is not available for the length2-path protocol")


__all__ = [
    "AttentionProtocolRequest",
    "ParrotsProtocolRequest",
    "ProtocolRequest",
    "RnnProtocolRequest",
    "VARIANTS",
]
