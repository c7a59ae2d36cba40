"""Theorem 2 of the separations paper (Sec. 3) run on real recurrent models.

For any split K of s_1..s_N, an RNN whose state is m numbers of p bits gives a one-way protocol:
Alice runs s_1..s_K from the initial state and sends the state h_K, exactly m p bits; Bob
continues with s_K+1..s_N and outputs the model's prediction at position N. Here the state is
the model's *complete* state (h and c of an LSTM; the convolution buffer and the SSM state of
Mamba; ...), every number on the p-bit grid of the model's finite-precision mode, serialised with
:meth:`ccomplexity.precision.FixedPoint.to_bits`: ``state_numel * p`` bits.
"""

from __future__ import annotations

from typing import Any

import torch

import models
from ccomplexity import limits
from ccomplexity.errors import InputError
from models.base import RecurrentModel
from simulations.protocols import harness

STEP = "hidden_state"
SCHEDULE: harness.Schedule = (("alice", "bob", STEP),)


def recurrent_archs() -> list[str]:
    """Registry names of the recurrent models."""
    return [name for name in models.names() if models.model_class(name).recurrent]


class Alice(harness.Party):
    """Holds s_1..s_K (batch, K); sends the state h_K."""

    def __init__(self, model: RecurrentModel, tokens: torch.Tensor) -> None:
        self.model = model
        self.tokens = tokens

    def send(self, step: str) -> list[str]:
        if step != STEP:
            return super().send(step)
        fmt = self.model.quant.fmt
        _, state = self.model.run_steps(self.tokens)
        # every tensor of the state, in the order initial_state names them: (batch, numel)
        flat = torch.cat([t.reshape(len(self.tokens), -1) for t in state.values()], dim=1)
        raw = harness.grid_raw(flat, fmt.frac).numpy()
        return fmt.to_bits_rows(raw)


class Bob(harness.OutputParty):
    """Holds s_K+1..s_N (batch, N - K); decodes h_K and runs on to the last position."""

    def __init__(self, model: RecurrentModel, tokens: torch.Tensor) -> None:
        self.model = model
        self.tokens = tokens

    def receive(self, step: str, messages: list[str]) -> None:
        if step != STEP:
            return super().receive(step, messages)
        fmt = self.model.quant.fmt
        template = self.model.initial_state(len(messages))
        raw = fmt.from_bits_rows(messages, count=self.model.state_numel())
        values = torch.from_numpy(raw).double() / 2.0**fmt.frac  # exact: raw < 2^53
        parts = values.split([t[0].numel() for t in template.values()], dim=1)
        self.state = {
            name: part.reshape(t.shape)
            for (name, t), part in zip(template.items(), parts, strict=True)
        }

    def output(self) -> torch.Tensor:
        logits, _ = self.model.run_steps(self.tokens, self.state)
        return logits[:, -1]


def setup(model: RecurrentModel, cut: int, inputs: torch.Tensor) -> harness.Setup:
    """Alice gets the first ``cut`` tokens of each input, Bob the rest; nothing else."""
    alice = Alice(model, inputs[:, :cut].clone())
    bob = Bob(model, inputs[:, cut:].clone())
    return harness.Setup({"alice": alice, "bob": bob}, SCHEDULE, ("bob",))


def check_cut(cut: int, length: int) -> None:
    if not 1 <= cut <= length - 1:
        raise InputError(f"cut K must satisfy 1 <= K <= N - 1 = {length - 1}, got {cut}")


def recurrent_source(
    arch: str | None,
    width: int | None,
    seed: int,
    checkpoint: str | None = None,
    *,
    layers: int = 1,
    vocab_size: int = 8,
    n_out: int | None = None,
) -> harness.Source:
    """A recurrent model: seeded ``arch`` of ``width`` (``layers``, ``vocab_size``, ``n_out``
    classes, default the vocabulary), or the trained model of ``checkpoint`` (arch and width
    given beside it must be its own)."""
    if checkpoint is None:
        if arch not in recurrent_archs():
            raise InputError(f"unknown recurrent arch {arch!r}; choose one of {recurrent_archs()}")
        config = {"width": width, "layers": layers, "vocab_size": vocab_size, "n_out": n_out}
        return harness.model_source(arch, config, seed)
    source = harness.model_source(None, None, seed, checkpoint)
    if not source.model.recurrent:
        raise InputError(
            f"checkpoint {checkpoint} holds a {source.name}, not a recurrent model; choose one "
            f"of {', '.join(recurrent_archs())}"
        )
    source.agree(arch=arch, width=width)
    return source


def run_rnn_protocol(
    arch: str,
    width: int,
    length: int,
    cut: int,
    precision: int,
    samples: int,
    seed: int,
    layers: int = 1,
    vocab_size: int = 8,
    frac: int | None = None,
    certificate: bool = False,
    checkpoint: str | None = None,
) -> dict[str, Any]:
    """Run Theorem 2's protocol on ``samples`` random inputs and compare with the model.

    The model is ``arch`` initialised after ``torch.manual_seed(seed)`` or, with
    ``checkpoint``, the trained model saved there (``arch``, ``width``, ``layers`` and
    ``vocab_size`` are then read from it). It runs on the p-bit grid (``frac`` fractional bits,
    default p // 2; floor rounding). Inputs are uniform tokens from
    ``numpy.random.default_rng(seed)``. With ``certificate`` the result holds the certificate
    under "certificate".
    """
    limits.LENGTH.check(length, "length")
    check_cut(cut, length)
    source = recurrent_source(arch, width, seed, checkpoint, layers=layers, vocab_size=vocab_size)
    model, info = source.model, source.description
    arch, cfg = model.name, model.config
    width, layers, vocab_size = cfg.width, cfg.layers, cfg.vocab_size
    harness.check_run(samples, length, seed, model)
    fmt = harness.fixed_point(precision, frac)
    model.set_precision(fmt)
    inputs = harness.random_tokens(samples, length, vocab_size, seed)
    with torch.no_grad():
        transcripts, outputs = harness.run(setup(model, cut, inputs), samples)
        scores = harness.compare(outputs, model(inputs)[:, -1])
    result = {
        "arch": arch,
        "width": width,
        "layers": layers,
        "vocab_size": vocab_size,
        "length": length,
        "cut": cut,
        "precision": precision,
        "frac": fmt.frac,
        "rounding": fmt.rounding,
        "samples": samples,
        "seed": seed,
        "checkpoint": checkpoint,
        "state_numel": model.state_numel(),
        "bits_theorem": model.state_bits(precision),  # Thm 2: m p
        **harness.worst_transcript(transcripts),
        **scores,
    }
    if certificate:
        claim = {k: result[k] for k in ("bits_sent", "one_way", "samples", *scores)}
        result["certificate"] = harness.certificate(
            "protocol_rnn", info, fmt, {"cut": cut}, inputs, transcripts, outputs, claim
        )
    return result


def replay_setup(
    model: RecurrentModel, protocol: dict[str, Any], inputs: torch.Tensor
) -> harness.Setup:
    """The setup a certificate's ``protocol`` section {"cut": K} describes (for the verifier)."""
    cut = protocol["cut"]
    check_cut(cut, inputs.shape[1])
    return setup(model, cut, inputs)
