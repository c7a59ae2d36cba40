"""Channels, messages and transcripts: protocols with exact bit accounting.

Upper bounds are protocols (Thm 2, Thm 4 of the separations paper; Lemma A.3 of the
mixture-of-parrots paper). Their cost is what crosses between the two parties, so every message
is a string of '0'/'1' on a :class:`Channel`, which records it; a :class:`Transcript` counts the
bits exactly, per step and per direction. Numbers cross in fixed widths that the receiver knows
in advance (no separators, no lengths sent), so the count is the protocol's true cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ccomplexity.errors import InputError


@dataclass(frozen=True)
class Message:
    """``bits`` sent by ``sender`` to ``receiver`` at protocol step ``step``."""

    sender: str
    receiver: str
    step: str
    bits: str

    def describe(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "receiver": self.receiver,
            "step": self.step,
            "length": len(self.bits),
            "bits": self.bits,
        }


@dataclass(frozen=True)
class Transcript:
    """The messages of one run of a protocol, in the order they were sent."""

    messages: tuple[Message, ...]

    @property
    def total(self) -> int:
        """Bits sent in all, both directions."""
        return sum(len(m.bits) for m in self.messages)

    def bits_by_step(self) -> dict[str, int]:
        """Bits per step (both directions together), steps in the order first used."""
        out: dict[str, int] = {}
        for m in self.messages:
            out[m.step] = out.get(m.step, 0) + len(m.bits)
        return out

    def bits_by_direction(self) -> dict[str, int]:
        """Bits per direction, keyed ``"sender->receiver"``."""
        out: dict[str, int] = {}
        for m in self.messages:
            key = f"{m.sender}->{m.receiver}"
            out[key] = out.get(key, 0) + len(m.bits)
        return out

    @property
    def one_way(self) -> bool:
        """True iff at most one party ever sent (App. B.1: a one-way protocol)."""
        return len({m.sender for m in self.messages}) <= 1

    def describe(self) -> dict[str, Any]:
        """JSON-ready: every message with its bits, and the totals."""
        return {
            "messages": [m.describe() for m in self.messages],
            "total": self.total,
            "bits_by_step": self.bits_by_step(),
            "bits_by_direction": self.bits_by_direction(),
            "one_way": self.one_way,
        }


class Channel:
    """Carries bit strings between two named parties and records every message."""

    def __init__(self, parties: tuple[str, str] = ("alice", "bob")) -> None:
        if len(parties) != 2 or parties[0] == parties[1]:
            raise InputError(f"a channel joins two distinct parties, got {parties!r}")
        self.parties = tuple(parties)
        self._messages: list[Message] = []

    def send(self, sender: str, receiver: str, step: str, bits: str) -> str:
        """Record ``bits`` from ``sender`` to ``receiver``; returns what the receiver gets."""
        if {sender, receiver} != set(self.parties):
            raise InputError(
                f"{sender!r} -> {receiver!r} is not a direction of the channel {self.parties}"
            )
        if not isinstance(bits, str) or set(bits) - {"0", "1"}:
            raise InputError(f"a message is a str of '0' and '1' only (step {step!r})")
        self._messages.append(Message(sender, receiver, step, bits))
        return bits

    @property
    def transcript(self) -> Transcript:
        return Transcript(tuple(self._messages))


def encode_uints(values: Iterable[int], width: int) -> str:
    """Non-negative integers, each as exactly ``width`` bits, most significant first."""
    out = []
    for v in values:
        v = int(v)
        if not 0 <= v < 1 << width:
            raise InputError(f"{v} does not fit in {width} unsigned bits")
        out.append(format(v, f"0{width}b") if width else "")
    return "".join(out)


def encode_ints(values: Iterable[int], width: int, full_range: bool = False) -> str:
    """Integers in [-(2^(width-1) - 1), 2^(width-1) - 1], each as ``width`` bits of two's
    complement (the symmetric range of :class:`ccomplexity.precision.FixedPoint`); with
    ``full_range`` every code, -2^(width-1) too (a :class:`~ccomplexity.message_grid.
    MessageGrid`'s)."""
    if width < 1:
        raise InputError(f"a signed integer needs at least 1 bit, got width {width}")
    limit = (1 << (width - 1)) - 1
    least = -limit - 1 if full_range else -limit
    out = []
    for v in values:
        v = int(v)
        if not least <= v <= limit:
            raise InputError(f"{v} does not fit in {width} signed bits ({least}..{limit})")
        out.append(format(v % (1 << width), f"0{width}b"))
    return "".join(out)


def _fields(bits: str, width: int, count: int) -> list[str]:
    if not isinstance(bits, str) or set(bits) - {"0", "1"}:
        raise InputError("a message is a str of '0' and '1' only")
    if len(bits) != width * count:
        raise InputError(f"message of {len(bits)} bits is not {count} numbers of {width} bits")
    return [bits[i * width : (i + 1) * width] for i in range(count)]


def decode_uints(bits: str, width: int, count: int) -> list[int]:
    """Inverse of :func:`encode_uints` for ``count`` numbers."""
    return [int(f, 2) if width else 0 for f in _fields(bits, width, count)]


def decode_ints(bits: str, width: int, count: int, full_range: bool = False) -> list[int]:
    """Inverse of :func:`encode_ints`; rejects the code -2^(width-1) unless ``full_range``."""
    out = []
    for f in _fields(bits, width, count):
        u = int(f, 2)
        v = u - (1 << width) if f[0] == "1" else u
        if v == -(1 << (width - 1)) and not full_range:
            raise InputError(f"code {f} is -2^{width - 1}, outside the symmetric range")
        out.append(v)
    return out


__all__ = (
    "Channel",
    "Message",
    "Transcript",
    "decode_ints",
    "decode_uints",
    "encode_ints",
    "encode_uints",
)


# --- protocol certificates: every check that needs no model -------------------------------------

_ENVELOPE = {
    "format": str,
    "format_version": int,
    "software": dict,
    "kind": str,
    "model": dict,
    "precision": dict,
    "protocol": dict,
    "inputs": list,
    "transcripts": list,
    "outputs": dict,
    "claim": dict,
}
_SOFTWARE = {"name": str, "version": str, "torch": str}
_CLAIM = {
    "bits_sent": int,
    "one_way": bool,
    "samples": int,
    "agreement": float,
    "logits_exact": float,
    "max_logit_error": float,
}
_TRANSCRIPT = {
    "messages": list,
    "total": int,
    "bits_by_step": dict,
    "bits_by_direction": dict,
    "one_way": bool,
}
_MESSAGE = {"sender": str, "receiver": str, "step": str, "length": int, "bits": str}


def check_protocol_certificate(cert: Any) -> list[Transcript]:
    """The checks of a protocol certificate that need no model (hence no torch): its envelope,
    fields and types, its transcripts rebuilt from their messages and their totals, and the
    claimed bits and one-way flag against them. Returns the transcripts; raises
    :class:`~ccomplexity.verifier.InvalidCertificate` with the reason. The replay on the model
    (``simulations.protocols.certificate``) comes after these, so a tampered file is refused
    before torch is imported."""
    from ccomplexity.certificates import PROTOCOL_KINDS
    from ccomplexity.verifier import check_envelope, exact_keys, require

    check_envelope(cert, PROTOCOL_KINDS)
    exact_keys(cert, "the certificate", _ENVELOPE)
    exact_keys(cert["software"], "software", _SOFTWARE)
    claim = cert["claim"]
    exact_keys(claim, "claim", _CLAIM)
    transcripts = _transcripts(cert["transcripts"])
    bits = claim["bits_sent"]
    require(bits == max((t.total for t in transcripts), default=-1), "bits_sent differs")
    one_way = all(t.one_way for t in transcripts)
    require(claim.get("one_way") is one_way, f"claimed one_way differs from {one_way}")
    return transcripts


def _transcripts(records: list[Any]) -> list[Transcript]:
    """Transcripts rebuilt from their messages, their recorded totals checked."""
    from ccomplexity.verifier import exact_keys, field, require

    out = []
    for i, record in enumerate(records):
        exact_keys(record, f"transcript {i}", _TRANSCRIPT)
        messages = []
        for m in record["messages"]:
            exact_keys(m, f"transcript {i}: a message", _MESSAGE)
            text = m["bits"]
            require(not set(text) - {"0", "1"}, f"transcript {i}: bits hold only '0' and '1'")
            require(field(m, "length", int) == len(text), f"transcript {i}: length differs")
            fields = [field(m, f, str) for f in ("sender", "receiver", "step")]
            messages.append(Message(*fields, text))
        t = Transcript(tuple(messages))
        recorded = {k: record.get(k) for k in ("total", "bits_by_step", "bits_by_direction")}
        recomputed = {
            "total": t.total,
            "bits_by_step": t.bits_by_step(),
            "bits_by_direction": t.bits_by_direction(),
        }
        require(recorded == recomputed, f"transcript {i}: recorded totals differ from messages")
        require(record.get("one_way") is t.one_way, f"transcript {i}: one_way differs")
        out.append(t)
    return out
