"""Theorem 2 of the separations paper (Sec. 3) run on real recurrent models.

For any split K of s_1..s_N, an RNN whose state is m numbers of p bits gives a one-way protocol:
Alice runs s_1..s_K from the initial state and sends the state h_K, exactly m p bits; Bob
continues with s_K+1..s_N and outputs the model's prediction at position N. Here the state is
the model's *complete* state (h and c of an LSTM; the convolution buffer and the SSM state of
Mamba; ...), every number on the p-bit grid of the model's finite-precision mode, or, for a model
trained at p bits, on the message grid its state was held on while it trained (then the model
*is* the protocol: its forward holds the state on that grid after every token), each number
written in p bits of two's complement: ``state_numel * p`` bits.
"""

from __future__ import annotations

from typing import Any

import torch

import models
from ccomplexity.errors import InputError
from models.base import RecurrentModel
from simulations.protocols import harness
from simulations.protocols.requests import RnnProtocolRequest

STEP = "hidden_state"
SCHEDULE: harness.Schedule = (("alice", "bob", STEP),)


def recurrent_archs() -> list[str]:
    """Registry names of the recurrent models."""
    return [name for name in models.names() if models.model_class(name).recurrent]


class Alice(harness.Party):
    """Holds s_1..s_K (batch, K); sends the state h_K."""

    def __init__(self, model: RecurrentModel, tokens: torch.Tensor, numbers: harness.Numbers):
        self.model = model
        self.tokens = tokens
        self.numbers = numbers

    def send(self, step: str) -> list[str]:
        if step != STEP:
            return super().send(step)
        _, state = self.model.run_steps(self.tokens)
        # every tensor of the state, in the order initial_state names them: (batch, numel)
        flat = torch.cat([t.reshape(len(self.tokens), -1) for t in state.values()], dim=1)
        return self.numbers.encode(self.numbers.codes(flat))


class Bob(harness.OutputParty):
    """Holds s_K+1..s_N (batch, N - K); decodes h_K and runs on to the last position."""

    def __init__(self, model: RecurrentModel, tokens: torch.Tensor, numbers: harness.Numbers):
        self.model = model
        self.tokens = tokens
        self.numbers = numbers

    def receive(self, step: str, messages: list[str]) -> None:
        if step != STEP:
            return super().receive(step, messages)
        template = self.model.initial_state(len(messages))
        codes = self.numbers.decode(messages, self.model.state_numel())
        values = self.numbers.values(codes)  # exact: every code fits the model's significand
        parts = values.split([t[0].numel() for t in template.values()], dim=1)
        self.state = {
            name: part.reshape(t.shape)
            for (name, t), part in zip(template.items(), parts, strict=True)
        }

    def output(self) -> torch.Tensor:
        logits, _ = self.model.run_steps(self.tokens, self.state)
        return logits[:, -1]


def setup(
    model: RecurrentModel, cut: int, inputs: torch.Tensor, numbers: harness.Numbers
) -> harness.Setup:
    """Alice gets the first ``cut`` tokens of each input, Bob the rest; nothing else."""
    alice = Alice(model, inputs[:, :cut].clone(), numbers)
    bob = Bob(model, inputs[:, cut:].clone(), numbers)
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


def run_rnn_protocol(request: RnnProtocolRequest) -> dict[str, Any]:
    """Run Theorem 2's protocol on ``request.samples`` random inputs and compare with the model.

    The model is ``request.arch`` initialised after ``torch.manual_seed(seed)`` or, with a
    checkpoint, the trained model saved there (its arch, width, layers, vocabulary and, unless
    given, its length N are read from it). A model trained at p bits runs as it trained, its
    state held on its message grid; any other runs on the p-bit grid of finite precision
    (``frac`` fractional bits, default p // 2; floor rounding). Inputs are uniform tokens from
    ``numpy.random.default_rng(seed)``. With ``certificate`` the result holds the certificate
    under "certificate"; a trained model's result holds the bound of its task beside the bits
    sent (:func:`simulations.protocols.harness.trained_bound`).
    """
    r = request
    source = recurrent_source(
        r.arch, r.width, r.seed, r.checkpoint, layers=r.layers, vocab_size=r.vocab_size
    )
    model, cfg = source.model, source.model.config
    length = source.length(r.length)
    check_cut(r.cut, length)
    harness.check_run(r.samples, length, model)
    numbers = harness.hold_numbers(source, r.precision, r.frac)
    inputs = harness.random_tokens(r.samples, length, cfg.vocab_size, r.seed)
    with torch.no_grad():
        transcripts, outputs = harness.run(setup(model, r.cut, inputs, numbers), r.samples)
        scores = harness.compare(outputs, model(inputs)[:, -1])
    result = {
        "arch": model.name,
        "width": cfg.width,
        "layers": cfg.layers,
        "vocab_size": cfg.vocab_size,
        "length": length,
        "cut": r.cut,
        "precision": numbers.bits,
        "frac": numbers.frac,
        "grid": numbers.description,
        "samples": r.samples,
        "seed": r.seed,
        "checkpoint": r.checkpoint,
        "state_numel": model.state_numel(),
        "bits_theorem": model.state_bits(numbers.bits),  # Thm 2: m p
        **harness.worst_transcript(transcripts),
        **scores,
        "bound": harness.trained_bound(source, length, numbers.bits, r.cut),
    }
    if r.certificate:
        claim = {k: result[k] for k in ("bits_sent", "one_way", "samples", *scores)}
        result["certificate"] = harness.certificate(
            "protocol_rnn",
            source.description,
            numbers,
            {"cut": r.cut},
            inputs,
            transcripts,
            outputs,
            claim,
        )
    return result


def replay_setup(
    model: RecurrentModel,
    protocol: dict[str, Any],
    inputs: torch.Tensor,
    numbers: harness.Numbers,
) -> harness.Setup:
    """The setup a certificate's ``protocol`` section {"cut": K} describes (for the verifier)."""
    cut = protocol["cut"]
    check_cut(cut, inputs.shape[1])
    return setup(model, cut, inputs, numbers)
