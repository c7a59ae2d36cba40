"""The Dyck-(2,2) reduction: Theorem 4's single-output protocol under the odd/even split on a
one-layer transformer (Lemma 1, Thm 5), Theorem 2 at the middle cut on a recurrent model."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ccomplexity import claims, lower_bounds
from ccomplexity.automata import dyck_dfa, minimize
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import count_dyck, enumerate_dyck, is_dyck, sample_dyck
from ccomplexity.precision import FixedPoint
from ccomplexity.problems import Partition
from models.base import RecurrentModel
from models.constructions.dfa_rnn import DFARNN, integer_grid, random_words
from models.constructions.scoring import strictly_correct
from simulations.protocols import attention, harness
from simulations.protocols.reductions.base import (
    DFA_RNN,
    EXHAUSTIVE_LIMIT,
    Fitted,
    Request,
    check_length,
    fit_model,
    messages_of,
    protocol_fields,
    run_rnn,
    score,
)


def _dfa_rnn(req: Request) -> Fitted:
    """The hand-wired ReLU RNN of the minimal Dyck-(2,2) DFA on an integer grid of p bits."""
    if req.checkpoint is not None:
        raise InputError("dfa-rnn is hand-wired: it has no checkpoint")
    n = check_length("dyck", req.length)
    model = DFARNN.from_dfa(minimize(dyck_dfa(2, 2)))
    need = integer_grid(model).bits
    precision = req.precision
    if isinstance(precision, bool) or not isinstance(precision, int) or precision < need:
        raise InputError(
            f"dfa-rnn needs precision >= {need} bits (integer grid), got {precision!r}"
        )
    numbers = harness.finite_numbers(model, FixedPoint(precision, 0, "floor"))
    return Fitted(model, numbers, n, claims.reduction_claim("dyck", "recurrent"), None)


# ----------------------------------------------------------------------------- Dyck (Thm 5, Thm 2)


def dyck(req: Request) -> dict:
    if req.arch == DFA_RNN:
        return _dyck_contiguous(req, _dfa_rnn(req))
    transformer = req.arch == "transformer" and req.checkpoint is None
    fit = fit_model("dyck", req, lambda n: 4, 2, transformer=transformer)
    if fit.model.name == "transformer":
        return _dyck_odd_even(req, fit)
    return _dyck_contiguous(req, fit)


def _dyck_contiguous(req: Request, fit: Fitted) -> dict:
    """Thm 2 at prefix:N/2 on a recurrent model; the bound is the exact one-way complexity."""
    n = fit.length
    cut = n // 2
    model = fit.model
    assert isinstance(model, RecurrentModel)
    if 4**n <= EXHAUSTIVE_LIMIT:
        words, exhaustive = _unpack_base4(np.arange(4**n, dtype=np.int64), n), True
    else:
        rng = np.random.default_rng(req.seed)
        words, exhaustive = random_words(2, 2, n, req.samples, rng), False
    transcripts, logits, agreement = run_rnn(model, torch.from_numpy(words), cut, fit.numbers)
    target = is_dyck(words, 2, 2).astype(np.int64)
    messages = messages_of(transcripts)
    one_way = lower_bounds.one_way_bits_dyck(2, 2, n, cut)
    return {
        "theorem": "Thm 2 at a contiguous split (one-way); Lemma 1 needs odd-even",
        "problem": f"Dyck-(2,2) of length {n}, partition prefix:{cut}",
        "instances": len(words),
        "members": int(target.sum()),
        "exhaustive": exhaustive,
        **protocol_fields(fit, transcripts),
        "width_requested": req.width,
        "lower_bound_bits": one_way.bits,
        "lower_bound": f"exact one-way complexity ({one_way.distinct_rows} distinct rows)",
        "protocol_agreement": agreement,
        **score(logits, target, lambda k: {"word": _symbols(words[k])}),
        "distinct_messages": len(set(messages)),
        "forced_failure": None,
    }


def _unpack_base4(numbers: np.ndarray, n: int) -> np.ndarray:
    return (numbers[:, None] // 4 ** np.arange(n - 1, -1, -1)) % 4


def _symbols(word: np.ndarray) -> str:
    return "".join("()[]"[int(s)] for s in word)


def _dyck_odd_even(req: Request, fit: Fitted) -> dict:
    """Thm 4's single-output protocol under odd-even on Lemma 1's fooling set S (all members,
    or ``samples`` uniform distinct ones past EXHAUSTIVE_LIMIT) and crossed pairs (x_i, y_j),
    i != j, which Lemma 1 makes non-members (re-checked with ``is_dyck``)."""
    n, model = fit.length, fit.model
    rng = np.random.default_rng(req.seed)
    if count_dyck(2, 2, n) <= EXHAUSTIVE_LIMIT:
        members, complete = enumerate_dyck(2, 2, n, limit=EXHAUSTIVE_LIMIT).astype(np.int64), True
    else:
        members, complete = np.unique(sample_dyck(2, 2, n, req.samples, rng), axis=0), False
    size = len(members)
    if complete and size * (size - 1) <= EXHAUSTIVE_LIMIT:
        ii, jj = np.nonzero(~np.eye(size, dtype=bool))
    else:
        ii = rng.integers(0, size, size=req.samples)
        jj = (ii + rng.integers(1, size, size=req.samples)) % size
    exhaustive = complete and size * (size - 1) <= EXHAUSTIVE_LIMIT
    crossed = members[ii].copy()
    crossed[:, 1::2] = members[jj, 1::2]  # Alice's odd positions from x_i, Bob's from y_j
    words = np.concatenate([members, crossed])
    target = is_dyck(words, 2, 2).astype(np.int64)
    if target[size:].any():
        raise RuntimeError("a crossed fooling pair is a Dyck word: Lemma 1 would be false")
    part = Partition.parse("odd-even", n)
    inputs = torch.from_numpy(words)
    setup = attention.setup(model, part, inputs, fit.numbers, attention.SINGLE_OUTPUT)
    transcripts, outputs = harness.run(setup, len(words))
    (logits,) = outputs.values()  # the holder of N outputs
    agreement = harness.compare(outputs, model(inputs)[:, -1])["agreement"]
    messages = messages_of(transcripts)
    forced = _fooling_collision(model, part, members, messages[:size], fit.numbers)
    return {
        "theorem": "Thm 5 (Lemma 1 fooling set, Thm 4 single-output protocol)",
        "problem": f"Dyck-(2,2) of length {n}, partition odd-even",
        "instances": len(words),
        "fooling_set_size": size,
        "fooling_set_complete": complete,
        "exhaustive": exhaustive,
        **fit.describe(),
        "length": n,
        "variant": attention.SINGLE_OUTPUT,
        **harness.worst_transcript(transcripts),
        "lower_bound_bits": fit.problem_bits(n),
        "lower_bound": f"{fit.claim.problem} (fooling set of size 2^(N-1))",
        "protocol_agreement": agreement,
        **score(logits, target, lambda k: {"word": _symbols(words[k])}),
        "fooling_set_accuracy": float(
            strictly_correct(logits[:size], torch.ones(size, dtype=torch.long)).mean(
                dtype=torch.float64
            )
        ),
        "distinct_messages": len(set(messages[:size])),
        "forced_failure": forced,
    }


def _fooling_collision(
    model: Any,
    part: Partition,
    members: np.ndarray,
    messages: list[str],
    numbers: harness.Numbers,
) -> dict[str, Any] | None:
    """Two fooling-set members with one transcript: by the rectangle property the crossed word
    (x_i, y_j) has that transcript too (checked by running it) and so the member's answer."""
    seen: dict[str, int] = {}
    for j, msg in enumerate(messages):
        i = seen.setdefault(msg, j)
        if i != j:
            crossed = members[i].copy()
            crossed[1::2] = members[j, 1::2]
            one = torch.from_numpy(crossed[None])
            setup = attention.setup(model, part, one, numbers, attention.SINGLE_OUTPUT)
            t, _ = harness.run(setup, 1)
            return {
                "member": _symbols(members[i]),
                "crossed_non_member": _symbols(crossed),
                "same_transcript_checked": messages_of(t)[0] == msg,
                "why": "same transcript as a member: the model answers both alike",
            }
    return None
