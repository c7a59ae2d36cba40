"""What the reductions share: the request, the fitted model and the claim it rests on, the
recurrent protocol run and the scoring of its answers against the problem's oracle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

import models
from ccomplexity import bounds, claims
from ccomplexity.errors import InputError
from ccomplexity.protocol import Transcript
from models.base import RecurrentModel, SequenceModel
from models.constructions.scoring import strictly_correct
from simulations.protocols import attention, harness, rnn

EXHAUSTIVE_LIMIT = 1 << 16
"""Most instances run exhaustively; beyond it ``samples`` random instances are drawn."""

LENGTH_LIMIT = 40
"""Longest N (inputs are enumerated or sampled as integers)."""

SAMPLE_LIMIT = 1 << 20
FAILURES_SHOWN = 5
DFA_RNN = "dfa-rnn"
"""The hand-wired Dyck-(2,2) automaton as a ReLU RNN (``models.constructions.dfa_rnn``)."""


@dataclass(frozen=True)
class Request:
    """What the caller asked for: a seeded ``arch`` of ``width`` at ``length``, or a
    ``checkpoint`` (arch, width and length then default to its own)."""

    arch: str | None
    width: int | None
    length: int | None
    precision: int
    seed: int
    samples: int
    checkpoint: str | None


@dataclass(frozen=True)
class Fitted:
    """The model a reduction runs on (on its grid), the length N and the claim it rests on."""

    model: SequenceModel
    numbers: harness.Numbers
    length: int
    claim: claims.Claim
    source: harness.Source | None  # None for the hand-wired dfa-rnn

    def describe(self) -> dict[str, Any]:
        training = None if self.source is None else self.source.training
        return {
            "arch": self.model.name,
            "width": self.model.config.width,
            "layers": self.model.config.layers,
            "precision": self.numbers.bits,
            "frac": self.numbers.frac,
            "checkpoint": None if self.source is None else self.source.checkpoint,
            "trained_task": None if training is None else training.task.name,
            "trained_length": None if training is None else training.task.length,
            "claim": {k: getattr(self.claim, k) for k in ("task", "family", "bound_id", "problem")},
        }

    def problem_bits(self, size: int) -> int:
        """The bits the claim's communication problem needs at ``size``."""
        assert self.claim.problem is not None
        return int(bounds.get(self.claim.problem).value(length=size))


def check_length(name: str, length: object) -> int:
    if isinstance(length, bool) or not isinstance(length, int) or not 2 <= length <= LENGTH_LIMIT:
        raise InputError(f"length N must be an integer in 2..{LENGTH_LIMIT}, got {length!r}")
    if name != "index" and length % 2:
        raise InputError(
            f"reduction {name} splits the input in halves: N must be even, got {length}"
        )
    return length


def fit_model(
    name: str, req: Request, vocab: Callable[[int], int], n_out: int, transformer: bool = False
) -> Fitted:
    """The model for reduction ``name``: seeded (a recurrent ``arch``, or a one-layer
    transformer when ``transformer``) with vocabulary ``vocab(N)`` and ``n_out`` classes, or the
    checkpoint's; on the p-bit grid, with the claim it rests on."""
    if req.checkpoint is None:
        n = check_length(name, req.length)
        if transformer:
            source = attention.transformer_source(
                req.width, 1, n, req.seed, vocab_size=vocab(n), n_out=n_out
            )
        else:
            source = rnn.recurrent_source(
                req.arch, req.width, req.seed, vocab_size=vocab(n), n_out=n_out
            )
        task = None
    else:
        source = harness.model_source(None, None, req.seed, req.checkpoint)
        source.agree(arch=req.arch, width=req.width)
        trained = source.training.task.length
        n = check_length(name, trained if req.length is None else req.length)
        if n > trained:
            raise InputError(
                f"checkpoint {req.checkpoint} was trained up to N = {trained}; the reduction "
                f"cannot run it at N = {n}"
            )
        task = source.training.task.name
    model = source.model
    claim = claims.reduction_claim(name, models.family(model.name), task, model.config.layers)
    numbers = harness.hold_numbers(source, req.precision, None)
    if transformer or model.name == "transformer":
        attention.check(model.config.layers, n, numbers)
    return Fitted(model, numbers, n, claim, source)


# ----------------------------------------------------------------------------- shared pieces


def run_rnn(
    model: RecurrentModel, inputs: torch.Tensor, cut: int, numbers: harness.Numbers
) -> tuple[list[Transcript], torch.Tensor, float]:
    """Theorem 2's protocol at ``cut``: transcripts, Bob's logits, agreement with forward."""
    transcripts, outputs = harness.run(rnn.setup(model, cut, inputs, numbers), len(inputs))
    agreement = harness.compare(outputs, model(inputs)[:, -1])["agreement"]
    return transcripts, outputs["bob"], agreement


def messages_of(transcripts: list[Transcript]) -> list[str]:
    """Everything sent in one run, concatenated (one string per instance)."""
    return ["|".join(m.bits for m in t.messages) for t in transcripts]


def collision(keys: list[str], messages: list[str]) -> tuple[int, int] | None:
    """Two instances with different Alice inputs and the same message, if any."""
    seen: dict[str, int] = {}
    for n, (key, msg) in enumerate(zip(keys, messages, strict=True)):
        first = seen.setdefault(msg, n)
        if keys[first] != key:
            return first, n
    return None


def bits_of(row: np.ndarray) -> str:
    return "".join(str(int(v)) for v in row)


def pick(total: int, samples: int, seed: int) -> tuple[np.ndarray, bool]:
    """All instance numbers 0..total-1 when few enough, else ``samples`` uniform ones."""
    if total <= EXHAUSTIVE_LIMIT:
        return np.arange(total, dtype=np.int64), True
    return np.random.default_rng(seed).integers(0, total, size=samples, dtype=np.int64), False


def unpack(numbers: np.ndarray, width: int) -> np.ndarray:
    """Binary digits (count, width) of integers, most significant first."""
    return (numbers[:, None] >> np.arange(width - 1, -1, -1)) & 1


def score(
    logits: torch.Tensor, target: np.ndarray, describe: Callable[[int], dict[str, Any]]
) -> dict[str, Any]:
    """Strict correctness (a tie is wrong), and the first failing instances described."""
    right = strictly_correct(logits, torch.from_numpy(target)).numpy()
    wrong = np.flatnonzero(~right)
    predicted = logits.argmax(-1).tolist()
    failures = [
        {
            **describe(int(n)),
            "expected": int(target[n]),
            "predicted": predicted[n],
            "logits": [float(v) for v in logits[n]],
        }
        for n in wrong[:FAILURES_SHOWN]
    ]
    return {"solved_fraction": float(right.mean()), "errors": int(wrong.size), "failures": failures}


def one_way_report(
    fit: Fitted,
    transcripts: list[Transcript],
    size: int,
    agreement: float,
    scored: dict[str, Any],
    keys: list[str],
    forced: dict[str, Any] | None,
) -> dict[str, Any]:
    """What a reduction through Thm 2 reports: the model and its message, the claim's problem
    at ``size`` bits, the agreement with the model, the scores, and how many of Alice's distinct
    inputs (``keys``) got distinct messages."""
    messages = messages_of(transcripts)
    claim = fit.claim
    return {
        **protocol_fields(fit, transcripts),
        "lower_bound_bits": fit.problem_bits(size),
        "lower_bound": f"{claim.problem} on {size} bits ({claim.bound_id}, one-way)",
        "protocol_agreement": agreement,
        **scored,
        "distinct_messages": len(set(messages)),
        "alice_inputs": len(set(keys)),
        "forced_failure": forced,
    }


def protocol_fields(fit: Fitted, transcripts: list[Transcript]) -> dict[str, Any]:
    assert isinstance(fit.model, RecurrentModel)
    return {
        **fit.describe(),
        "length": fit.length,
        "state_numel": fit.model.state_numel(),
        **harness.worst_transcript(transcripts),
    }
