"""What every Alice/Bob protocol run on a real model shares: parties, schedules, runs and replays.

A protocol is a :class:`Setup`: a :class:`Party` per side, each constructed with only the tokens
of its own positions and the shared weights, and a schedule of ``(sender, receiver, step)``. The
parties work on a batch of independent inputs at once (one message per input), but every input
has its own :class:`ccomplexity.protocol.Channel`, so each transcript is one run of the protocol.
Because a party learns about the other side only from what it receives, it can be replayed alone
from a recorded transcript (:func:`replay`), which is how certificates are checked.

Models come from one place, :func:`model_source`: a registry model initialised from a seed
(``torch.manual_seed(seed)`` then :func:`models.build`) or a trained checkpoint; either is
identified by a SHA-256 of its parameters.
"""

from __future__ import annotations

import abc
import hashlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

import models
from ccomplexity import __version__, limits
from ccomplexity.certificates import FORMAT, FORMAT_VERSION
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from ccomplexity.protocol import Channel, Transcript
from models.base import SequenceModel

Schedule = tuple[tuple[str, str, str], ...]


class Party:
    """One side of a protocol on a batch of inputs: one bit string per input and step.

    Subclasses override :meth:`send` and :meth:`receive` for the steps they take part in.
    """

    def send(self, step: str) -> list[str]:
        """This party's messages of ``step``, one per input."""
        raise ValueError(f"{type(self).__name__} sends nothing at step {step!r}")

    def receive(self, step: str, messages: list[str]) -> None:
        """Take in the other party's messages of ``step``, one per input."""
        raise ValueError(f"{type(self).__name__} receives nothing at step {step!r}")


class OutputParty(Party, abc.ABC):
    """A party that outputs the model's logits at the last position once the schedule is done."""

    @abc.abstractmethod
    def output(self) -> torch.Tensor:
        """Logits (batch, n_out)."""


@dataclass(frozen=True)
class Setup:
    """Parties by name, the order of their messages and which parties output."""

    parties: dict[str, Party]
    schedule: Schedule
    outputs: tuple[str, ...]


class ReplayMismatch(Exception):
    """A party replayed from a transcript sends something other than what was recorded."""


def run(setup: Setup, batch: int) -> tuple[list[Transcript], dict[str, torch.Tensor]]:
    """Run the schedule over one channel per input: the transcripts and each output's logits."""
    channels = [Channel() for _ in range(batch)]
    for sender, receiver, step in setup.schedule:
        messages = setup.parties[sender].send(step)
        delivered = [
            channel.send(sender, receiver, step, bits)
            for channel, bits in zip(channels, messages, strict=True)
        ]
        setup.parties[receiver].receive(step, delivered)
    outputs = {name: _output(setup, name) for name in setup.outputs}
    return [channel.transcript for channel in channels], outputs


def replay(setup: Setup, transcripts: list[Transcript]) -> dict[str, torch.Tensor]:
    """Run each party alone against the recorded messages of the other; the outputs.

    Raises :class:`ReplayMismatch` when the transcripts do not follow the schedule or a party
    would have sent other bits than those recorded, and InputError for undecodable messages.
    """
    for t in transcripts:
        steps = tuple((m.sender, m.receiver, m.step) for m in t.messages)
        if steps != setup.schedule:
            raise ReplayMismatch(f"messages do not follow the protocol's schedule {setup.schedule}")
    for name, party in setup.parties.items():
        for i, (sender, receiver, step) in enumerate(setup.schedule):
            recorded = [t.messages[i].bits for t in transcripts]
            if sender == name:
                sent = party.send(step)
                bad = [b for b, (x, y) in enumerate(zip(sent, recorded, strict=True)) if x != y]
                if bad:
                    raise ReplayMismatch(f"{name} would send another {step} for input {bad[0]}")
            elif receiver == name:
                party.receive(step, recorded)
    return {name: _output(setup, name) for name in setup.outputs}


def _output(setup: Setup, name: str) -> torch.Tensor:
    party = setup.parties[name]
    assert isinstance(party, OutputParty)
    return party.output()


# ----------------------------------------------------------------------------- models and inputs


def state_sha256(model: SequenceModel) -> str:
    """SHA-256 of every parameter and buffer: name, dtype, shape and bytes, in state_dict order."""
    h = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        t = tensor.detach().cpu().contiguous()
        h.update(f"{name}:{t.dtype}:{tuple(t.shape)};".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


def build_seeded(name: str, config: dict[str, Any], seed: int) -> tuple[SequenceModel, str]:
    """The model ``name`` randomly initialised after ``torch.manual_seed(seed)``, and its hash."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InputError(f"seed must be an integer in 0..2^63 - 1, got {seed!r}")
    torch.manual_seed(seed)
    model = models.build(name, **config)
    return model, state_sha256(model)


@dataclass(frozen=True)
class Source:
    """The model a protocol runs on, and how anyone can obtain it again.

    ``description`` is what a certificate records: {name, config, state_sha256} and either
    ``init_seed`` (a registry model initialised from a seed) or ``checkpoint`` (a model trained
    by :mod:`simulations.training`, whose TrainConfig is ``training``: task, length, ...).
    """

    model: SequenceModel
    description: dict[str, Any]
    training: Any = None

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def checkpoint(self) -> str | None:
        return self.description.get("checkpoint")

    def agree(self, **given: object) -> None:
        """Arguments given beside a checkpoint (arch, width, length, task, ...) must be the ones
        it was trained with; None means not given."""
        if self.training is None:
            return
        for key, value in given.items():
            own = self.training.value(key)
            if value is not None and value != own:
                raise InputError(
                    f"{key} {value!r} disagrees with checkpoint {self.checkpoint}, trained with "
                    f"{key} {own!r} (leave it out)"
                )


def model_source(
    name: str | None, config: dict[str, Any] | None, seed: int, checkpoint: str | None = None
) -> Source:
    """The one way protocols obtain a model: the trained model saved at ``checkpoint`` (read
    with ``weights_only=True`` and every field validated by
    :func:`simulations.checkpoints.load_checkpoint`), else registry model ``name`` built from
    ``config`` after ``torch.manual_seed(seed)``."""
    if checkpoint is not None:
        from simulations.checkpoints import load_checkpoint

        model, training = load_checkpoint(checkpoint)
        description = {
            "name": model.name,
            "config": model.config.to_dict(),
            "checkpoint": str(checkpoint),
            "state_sha256": state_sha256(model),
        }
        return Source(model, description, training)
    if name is None or config is None:
        raise InputError("give a model (its name and config), or a checkpoint")
    model, sha = build_seeded(name, config, seed)
    description = {
        "name": name,
        "config": model.config.to_dict(),
        "init_seed": seed,
        "state_sha256": sha,
    }
    return Source(model, description)


def fixed_point(precision: int, frac: int | None) -> FixedPoint:
    """p-bit grid, floor rounding (App. B.2); ``frac`` defaults to p // 2 fractional bits, so that
    values up to about 2^(p/2) and steps down to 2^-(p/2) are both representable."""
    limits.PRECISION.check(precision, "precision")
    return FixedPoint(precision, precision // 2 if frac is None else frac)


def check_run(samples: int, length: int, seed: int, model: SequenceModel) -> None:
    """A protocol run's sizes within :mod:`ccomplexity.limits`, checked before its inputs are
    drawn: samples, length, seed, and the model's activations on them."""
    limits.SAMPLES.check(samples, "samples")
    limits.LENGTH.check(length, "length")
    limits.SEED.check(seed, "seed")
    cfg = model.config
    heads = 0 if model.recurrent else getattr(cfg, "heads", 0)
    limits.check_forward(samples, length, cfg.width, heads, cfg.layers, "the protocol run")


def random_tokens(samples: int, length: int, vocab: int, seed: int) -> torch.Tensor:
    """(samples, length) tokens uniform over the vocabulary, from numpy's generator of ``seed``."""
    limits.SAMPLES.check(samples, "samples")
    limits.check_numbers(samples * length, f"{samples} inputs of length {length}")
    rng = np.random.default_rng(limits.SEED.check(seed, "seed"))
    return torch.from_numpy(rng.integers(0, vocab, size=(samples, length), dtype=np.int64))


def grid_raw(x: torch.Tensor, frac: int) -> torch.Tensor:
    """Integers k with x = k 2^-frac (int64); RuntimeError if some value is not on that grid,
    which would mean the model keeps an unrounded number where the protocol sends one."""
    scaled = x.double() * 2.0**frac
    raw = torch.round(scaled)
    if not torch.equal(raw, scaled):
        raise RuntimeError(f"a value sent is not a multiple of 2^-{frac}")
    return raw.long()


def compare(outputs: dict[str, torch.Tensor], reference: torch.Tensor) -> dict[str, float]:
    """Agreement of each output party with the model's own logits (batch, n_out).

    ``agreement``: fraction of inputs where every party's argmax equals the model's;
    ``logits_exact``: fraction where every party's logits equal the model's bit for bit;
    ``max_logit_error``: the largest absolute logit difference.
    """
    same_class = torch.ones(len(reference), dtype=torch.bool)
    same_logits = same_class.clone()
    error = 0.0
    for logits in outputs.values():
        same_class &= logits.argmax(-1) == reference.argmax(-1)
        same_logits &= (logits == reference).all(-1)
        error = max(error, float((logits - reference).abs().max()))
    return {
        "agreement": float(same_class.double().mean()),
        "logits_exact": float(same_logits.double().mean()),
        "max_logit_error": error,
    }


def worst_transcript(transcripts: list[Transcript]) -> dict[str, Any]:
    """Bits of the longest run (all runs have the same length: every width is fixed)."""
    worst = max(transcripts, key=lambda t: t.total)
    return {
        "bits_sent": worst.total,
        "bits_by_step": worst.bits_by_step(),
        "bits_by_direction": worst.bits_by_direction(),
        "one_way": all(t.one_way for t in transcripts),
    }


def certificate(
    kind: str,
    model: dict[str, Any],
    fmt: FixedPoint,
    protocol: dict[str, Any],
    inputs: torch.Tensor,
    transcripts: list[Transcript],
    outputs: dict[str, torch.Tensor],
    claim: dict[str, Any],
) -> dict[str, Any]:
    """JSON certificate of a protocol run; :mod:`simulations.protocols.certificate` checks it.

    ``model`` is {name, config, init_seed, state_sha256}; outputs are stored as raw grid codes.
    """
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": {"name": "ccomplexity", "version": __version__, "torch": torch.__version__},
        "kind": kind,
        "model": model,
        "precision": fmt.describe(),
        "protocol": protocol,
        "inputs": inputs.tolist(),
        "transcripts": [t.describe() for t in transcripts],
        "outputs": {
            name: {
                "logits_raw": grid_raw(logits, fmt.frac).tolist(),
                "prediction": logits.argmax(-1).tolist(),
            }
            for name, logits in outputs.items()
        },
        "claim": claim,
    }
