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
from ccomplexity import __version__, claims, limits, plugins
from ccomplexity.certificates import FORMAT, FORMAT_VERSION
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from ccomplexity.protocol import Channel, Transcript, decode_ints, encode_ints
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
    """The model ``name`` randomly initialised after ``torch.manual_seed(seed)`` (a seed its
    request checked), and its hash."""
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

    def length(self, given: int | None) -> int:
        """The length N a protocol runs at: ``given``, else a trained model's own N."""
        if given is not None:
            return given
        if self.training is None:
            raise InputError("give the length N (a checkpoint knows its own)")
        return self.training.task.length

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
    values up to about 2^(p/2) and steps down to 2^-(p/2) are both representable. A model runs
    in finite precision on 2..53 bits: the method's own limit (float64 holds its sums exactly),
    inside the one limit of a precision (:data:`ccomplexity.limits.FIELDS`)."""
    if not 2 <= precision <= 53:
        raise InputError(
            f"precision: a model runs in finite precision on 2..53 bits (float64 holds its sums "
            f"exactly), got {precision}"
        )
    return FixedPoint(precision, precision // 2 if frac is None else frac)


@dataclass(frozen=True)
class Numbers:
    """How the numbers a protocol sends are held, and so written: on the finite-precision grid of
    the model's run (:class:`~ccomplexity.precision.FixedPoint`, every value rounded, float64,
    codes in the symmetric range) or, for a model trained at p bits, on the message grid it
    trained on (:class:`~ccomplexity.message_grid.MessageGrid`, float32, all 2^p codes)."""

    bits: int
    frac: int
    held: bool  # True: a model trained at p bits, on its message grid
    dtype: torch.dtype
    description: dict[str, Any]

    def codes(self, x: torch.Tensor, frac: int | None = None) -> torch.Tensor:
        """Integer codes (int64) of values on the grid of 2^-``frac`` (default the grid's)."""
        return grid_raw(x, self.frac if frac is None else frac)

    def values(self, codes: Any, frac: int | None = None) -> torch.Tensor:
        """The values of integer codes, in the model's dtype (exact: they fit its significand)."""
        scale = 2.0 ** (self.frac if frac is None else frac)
        return torch.as_tensor(codes, dtype=torch.float64).to(self.dtype) / scale

    def encode(self, rows: torch.Tensor, width: int | None = None) -> list[str]:
        """One message per row of codes, ``width`` bits (default p) of two's complement each."""
        w = self.bits if width is None else width
        return [encode_ints(row, w, full_range=self.held) for row in rows.tolist()]

    def decode(self, messages: list[str], count: int, width: int | None = None) -> torch.Tensor:
        """Codes (rows, count) of messages written by :meth:`encode`."""
        w = self.bits if width is None else width
        rows = [decode_ints(bits, w, count, full_range=self.held) for bits in messages]
        return torch.tensor(rows, dtype=torch.long).reshape(len(messages), count)


def hold_numbers(source: Source, precision: int, frac: int | None) -> Numbers:
    """Put the source's model on the grid its protocol runs on: a model trained at p bits on the
    grid it trained on (its checkpoint's; asked at another p, refused), any other model in
    finite precision on the p-bit grid (:func:`fixed_point`)."""
    model = source.model
    if model.messages is not None:
        grid = model.messages.grid
        if precision != grid.bits or frac not in (None, grid.frac):
            raise InputError(
                f"checkpoint {source.checkpoint} was trained holding its messages at "
                f"p = {grid.bits} bits (frac {grid.frac}): its protocol runs at --precision "
                f"{grid.bits} (and that frac)"
            )
        dtype = next(model.parameters()).dtype
        return Numbers(grid.bits, grid.frac, True, dtype, grid.describe())
    return finite_numbers(model, fixed_point(precision, frac))


def finite_numbers(model: SequenceModel, fmt: FixedPoint) -> Numbers:
    """``model`` in finite precision on ``fmt`` (every value rounded), and its protocol's
    numbers there."""
    model.set_precision(fmt)
    return Numbers(fmt.bits, fmt.frac, False, torch.float64, fmt.describe())


def trained_bound(
    source: Source, length: int, precision: int, cut: int | None = None
) -> dict[str, Any] | None:
    """For a trained model, the lower bound its task is drawn against, beside what its protocol
    sends: for a built-in task, the claims table's bound for its task and family
    (:func:`ccomplexity.claims.lower_bound_for`) with the model's (m, p, H) as the claim reads
    them, the longest N the bound allows and whether it allows this N; for a plugin task on a
    recurrent model, the task's exact one-way bits at this ``cut`` (Thm 2: the state must carry
    them; :func:`ccomplexity.plugin_bounds.one_way_per_cut`, priced). None for a seeded model."""
    if source.training is None:
        return None
    task, model = source.training.task.name, source.model
    if plugins.task_definition(task) is not None:
        if cut is None or not model.recurrent:
            return None
        from ccomplexity.plugin_bounds import one_way_per_cut

        runs, origin = one_way_per_cut(task, length)
        bits = next(r["bits"] for r in runs if r["cuts"][0] <= cut <= r["cuts"][1])
        return {
            "id": "separations.thm2",
            "task": task,
            "cut": cut,
            "bits_needed": bits,
            "method": f"one-way complexity ({origin})",
        }
    cfg = model.config
    held = model.messages is not None
    claim = claims.lower_bound_for(task, models.family(model.name), cfg.layers, held)
    if claim is None:
        return None
    described = {"width": cfg.width, "heads": getattr(cfg, "heads", None),
                 "state_numel": model.state_numel() or None}  # fmt: skip
    m = claim.model_params(described, precision)
    bound = claim.bound
    return {
        "id": bound.id,
        "task": task,
        "params": m,
        "max_length": bound.max_length(m["m"], m["p"], m["H"]),
        "allows_length": bound.allows(length, m["m"], m["p"], m["H"]),
    }


def check_run(samples: int, length: int, model: SequenceModel) -> None:
    """A protocol run's activations (the model's forward on ``samples`` inputs of ``length``)
    within :data:`ccomplexity.limits.FORWARD_NUMBERS`, checked before its inputs are drawn."""
    cfg = model.config
    heads = 0 if model.recurrent else getattr(cfg, "heads", 0)
    limits.check_forward(samples, length, cfg.width, heads, cfg.layers, "the protocol run")


def random_tokens(samples: int, length: int, vocab: int, seed: int) -> torch.Tensor:
    """(samples, length) tokens uniform over the vocabulary, from numpy's generator of ``seed``."""
    limits.check_numbers(samples * length, f"{samples} inputs of length {length}")
    rng = np.random.default_rng(seed)
    return torch.from_numpy(rng.integers(0, vocab, size=(samples, length), dtype=np.int64))


def grid_raw(x: torch.Tensor, frac: int) -> torch.Tensor:
    """Integers k with x = k 2^-frac (int64); RuntimeError if some value is not on that grid,
    which would mean the model keeps an unrounded number where the protocol sends one."""
    scaled = x.double() * 2.0**frac
    raw = torch.round(scaled)
    if not torch.equal(raw, scaled):
        raise RuntimeError(f"a value sent is not a multiple of 2^-{frac}")
    return raw.long()


def recorded_logits(numbers: Numbers, logits: torch.Tensor) -> dict[str, Any]:
    """An output party's logits as a certificate records them, and its predictions."""
    key, values = (
        ("logits", logits.tolist())
        if numbers.held
        else ("logits_raw", numbers.codes(logits).tolist())
    )
    return {key: values, "prediction": logits.argmax(-1).tolist()}


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
    numbers: Numbers,
    protocol: dict[str, Any],
    inputs: torch.Tensor,
    transcripts: list[Transcript],
    outputs: dict[str, torch.Tensor],
    claim: dict[str, Any],
) -> dict[str, Any]:
    """JSON certificate of a protocol run; :mod:`simulations.protocols.certificate` checks it.

    ``model`` is {name, config, init_seed or checkpoint, state_sha256}; outputs are stored as
    raw grid codes in finite precision, as their exact values (float32, each written exactly)
    for a model trained at p bits, whose output layer is float.
    """
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": {"name": "ccomplexity", "version": __version__, "torch": torch.__version__},
        "kind": kind,
        "model": model,
        "precision": numbers.description,
        "protocol": protocol,
        "inputs": inputs.tolist(),
        "transcripts": [t.describe() for t in transcripts],
        "outputs": {name: recorded_logits(numbers, logits) for name, logits in outputs.items()},
        "claim": claim,
    }
