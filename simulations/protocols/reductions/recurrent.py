"""The reductions run on recurrent models through Theorem 2's one-way protocol: Index (Thm 3),
Equality (Thm 11) and Disjointness (Thm 8)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ccomplexity.errors import InputError
from models.base import RecurrentModel
from simulations.protocols import harness, rnn
from simulations.protocols.reductions.base import (
    EXHAUSTIVE_LIMIT,
    Request,
    bits_of,
    collision,
    fit_model,
    messages_of,
    one_way_report,
    pick,
    run_rnn,
    score,
    unpack,
)

# ----------------------------------------------------------------------------- Index (Thm 3)


def index(req: Request) -> dict:
    """Thm 3: symbols 0/1 carry a, the position token of i is S + i - 1 (as ``index_lookup``:
    S = 2 for a seeded model, the trained task's S symbols = its classes for a checkpoint)."""
    fit = fit_model("index", req, lambda n: 2 + n, 2)
    model, n = fit.model, fit.length
    assert isinstance(model, RecurrentModel)
    first_position = model.config.outputs
    chosen, exhaustive = pick((1 << n) * n, req.samples, req.seed)
    a = unpack(chosen // n, n)
    i = chosen % n  # 0-based
    inputs = torch.from_numpy(np.concatenate([a, first_position + i[:, None]], axis=1))
    transcripts, logits, agreement = run_rnn(model, inputs, n, fit.numbers)
    target = a[np.arange(len(a)), i]

    def describe(k: int) -> dict[str, Any]:
        return {"a": bits_of(a[k]), "i": int(i[k]) + 1}

    keys, messages = [bits_of(row) for row in a], messages_of(transcripts)
    forced = None
    if (pair := collision(keys, messages)) is not None:
        x, y = a[pair[0]], a[pair[1]]
        j = int(np.flatnonzero(x != y)[0])
        forced = {
            "a": keys[pair[0]],
            "a_other": keys[pair[1]],
            "i": j + 1,
            "why": "same message, a_i differs: Bob answers both alike, so one answer is wrong",
        }
    return {
        "theorem": "Thm 3 (Index -> index lookup, App. C.1)",
        "problem": f"Index_{n}: Alice a in {{0,1}}^{n}, Bob i in 1..{n}, answer a_i",
        "instances": len(chosen),
        "exhaustive": exhaustive,
        **one_way_report(
            fit, transcripts, n, agreement, score(logits, target, describe), keys, forced
        ),
    }


# ----------------------------------------------------------------------------- Equality (Thm 11)


def equality(req: Request) -> dict:
    """Thm 11, proof 1: a seeded model reads a b and class 1 = INEQ (a != b); a checkpoint of
    eq-random or eq-one reads a [sep] b and class 1 = EQ. Sampled runs make half the
    instances a = b."""
    fit = fit_model("equality", req, lambda n: 2, 2)
    model, n = fit.model, fit.length
    assert isinstance(model, RecurrentModel)
    half = n // 2
    separator: list[int] = []
    if fit.source is not None and fit.source.training is not None:
        if model.config.outputs != 2:
            raise InputError(
                f"reduction equality reads a label at the last position; a model trained on "
                f"{fit.source.training.task.name} predicts symbols ({model.config.outputs} classes)"
            )
        from simulations.tasks import get_task

        separator = [get_task(fit.source.training.task.name, fit.source.training.task.length).sep]
    if 1 << n <= EXHAUSTIVE_LIMIT:
        both, exhaustive = np.arange(1 << n, dtype=np.int64), True
        a, b = both >> half, both & ((1 << half) - 1)
    else:
        rng, exhaustive = np.random.default_rng(req.seed), False
        a = rng.integers(0, 1 << half, size=req.samples, dtype=np.int64)
        b = np.where(rng.random(req.samples) < 0.5, a, rng.integers(0, 1 << half, size=req.samples))
    abits, bbits = unpack(a, half), unpack(b, half)
    sep = np.full((len(a), len(separator)), separator, dtype=np.int64)
    inputs = torch.from_numpy(np.concatenate([abits, sep, bbits], axis=1))
    transcripts, logits, agreement = run_rnn(model, inputs, half, fit.numbers)
    target = (a == b if separator else a != b).astype(np.int64)

    def describe(k: int) -> dict[str, Any]:
        return {"a": bits_of(abits[k]), "b": bits_of(bbits[k])}

    keys, messages = [bits_of(row) for row in abits], messages_of(transcripts)
    forced = None
    if (pair := collision(keys, messages)) is not None:
        forced = {
            "a": keys[pair[0]],
            "a_other": keys[pair[1]],
            "b": keys[pair[0]],
            "why": "same message: Bob answers (a, b) and (a_other, b) alike, but EQ differs",
        }
    output = "EQ(a, b), after a [sep] b" if separator else "INEQ(a b)"
    return {
        "theorem": "Thm 11, proof 1 (EQ -> INEQ for RNNs)",
        "problem": f"EQ_{half}: Alice a, Bob b in {{0,1}}^{half}; model outputs {output}",
        "instances": len(a),
        "exhaustive": exhaustive,
        **one_way_report(
            fit, transcripts, half, agreement, score(logits, target, describe), keys, forced
        ),
    }


# ----------------------------------------------------------------------------- Disjointness (Thm 8)


class _RecallBob(harness.OutputParty):
    """Bob of Thm 8: decodes Alice's state, queries every key from it, answers DISJ with b."""

    def __init__(
        self, model: RecurrentModel, keys: int, b: np.ndarray, numbers: harness.Numbers
    ) -> None:
        self.decoder = rnn.Bob(model, torch.zeros(len(b), 0, dtype=torch.long), numbers)
        self.model, self.keys, self.b = model, keys, b

    def receive(self, step: str, messages: list[str]) -> None:
        self.decoder.receive(step, messages)
        batch = len(messages)
        self.recovered = np.stack(
            [
                self.model.run_steps(torch.full((batch, 1), key), self.decoder.state)[0][:, -1]
                .argmax(-1)
                .numpy()
                for key in range(self.keys)
            ],
            axis=1,
        )

    def output(self) -> torch.Tensor:
        answer = torch.from_numpy(((self.recovered == 1) & (self.b == 1)).any(1).astype(np.int64))
        return torch.nn.functional.one_hot(answer, 2).double()


def disjointness(req: Request) -> dict:
    """Thm 8 with keys 0..H-1 as tokens and values H (bit 0), H + 1 (bit 1), H = N/2."""
    fit = fit_model("disjointness", req, lambda n: n // 2 + 2, 2)
    model, n = fit.model, fit.length
    assert isinstance(model, RecurrentModel)
    half = n // 2
    chosen, exhaustive = pick(1 << n, req.samples, req.seed)
    a, b = unpack(chosen >> half, half), unpack(chosen & ((1 << half) - 1), half)
    alice_tokens = np.empty((len(a), n), dtype=np.int64)
    alice_tokens[:, 0::2] = np.arange(half)
    alice_tokens[:, 1::2] = half + a
    alice = rnn.Alice(model, torch.from_numpy(alice_tokens), fit.numbers)
    bob = _RecallBob(model, half, b, fit.numbers)
    setup = harness.Setup({"alice": alice, "bob": bob}, rnn.SCHEDULE, ("bob",))
    transcripts, outputs = harness.run(setup, len(a))
    direct = np.stack(
        [
            model(torch.from_numpy(np.concatenate([alice_tokens, np.full((len(a), 1), k)], 1)))[
                :, -1
            ]
            .argmax(-1)
            .numpy()
            for k in range(half)
        ],
        axis=1,
    )
    target = ((a == 1) & (b == 1)).any(1).astype(np.int64)

    def describe(k: int) -> dict[str, Any]:
        return {"a": bits_of(a[k]), "b": bits_of(b[k]), "recovered_a": bits_of(bob.recovered[k])}

    keys, messages = [bits_of(row) for row in a], messages_of(transcripts)
    forced = None
    if (pair := collision(keys, messages)) is not None:
        j = int(np.flatnonzero(a[pair[0]] != a[pair[1]])[0])
        forced = {
            "a": keys[pair[0]],
            "a_other": keys[pair[1]],
            "b": bits_of(np.eye(half, dtype=np.int64)[j]),
            "why": "same message: Bob answers both alike, but only one set meets b = {i}",
        }
    return {
        "theorem": "Thm 8 (Disjointness -> associative recall, App. G.1)",
        "problem": f"DISJ_{half}: Alice a, Bob b in {{0,1}}^{half}; 1 iff they intersect",
        "instances": len(a),
        "exhaustive": exhaustive,
        **one_way_report(
            fit,
            transcripts,
            half,
            float((direct == bob.recovered).all(1).mean()),
            score(outputs["bob"], target, describe),
            keys,
            forced,
        ),
        "recall_fraction": float((bob.recovered == a).all(1).mean()),
    }
