"""The separations paper's lower-bound reductions (Sec. 3-4, App. C.1, E, F, G.1) run on models.

Each reduction takes a model for a sequence task, turns it into a protocol for a communication
problem, runs that protocol over a channel (:mod:`simulations.protocols.harness`), and scores the
protocol's answers against the problem's oracle. The bits it sends stand next to the problem's
lower bound. A model whose protocol sends fewer bits than the bound cannot solve every instance;
the report then lists *where* it errs (``failures``, re-checkable against the oracle) and, when
two of Alice's inputs got the same message, a ``forced_failure``: two instances that the
protocol cannot tell apart but whose answers differ, so the model is wrong on one of them.

Which bound a reduction stands for, and which communication problem it runs, is read from the
claims table (``ccomplexity.claims.reduction_claim``: the row with this reduction for the
model's family, and for a checkpoint its training task); the problem's bits are that row's
``problem`` bound evaluated at the problem's size.

- ``index`` (Thm 3, App. C.1): Alice feeds a in {0,1}^N as two symbols and sends the state (Thm 2);
  Bob feeds the position token of i and reads a_i. Index needs N one-way bits (Fact 3).
- ``equality`` (Thm 11, proof 1): the model reads a then b in {0,1}^(N/2) and outputs INEQ; Alice
  sends the state after a. EQ on N/2 bits needs N/2 bits (Fact 2).
- ``dyck``: a one-layer ``transformer`` runs Theorem 4's single-output protocol under the
  odd-even split on Lemma 1's fooling set (all Dyck-(2,2) words, or a uniform sample of them
  past ``EXHAUSTIVE_LIMIT``) and crossed non-members: N - 1 bits (Lemma 1, Thm 5). A recurrent
  model (a zoo RNN or the hand-wired ``dfa-rnn``) runs Theorem 2 at the contiguous split
  prefix:N/2, where the one-way bound is only a few bits (``lower_bounds.one_way_bits_dyck``).
- ``disjointness`` (Thm 8, App. G.1, with keys as tokens): Alice feeds the pairs (key_i, a_i),
  i = 1..N/2, and sends the state; Bob queries every key from that state, recovers a and answers
  whether a and b intersect (the repository's DISJ convention, ``problems.disjointness``).
  Disjointness on N/2 bits needs N/2 bits (Fact 1).

Models come from :func:`simulations.protocols.harness.model_source`: seeded (``arch``,
``width``; the vocabulary each reduction needs) or trained (``checkpoint``), on the p-bit grid
(floor rounding, p // 2 fractional bits). A checkpoint must have been trained on a task of the
claim the reduction rests on, and its inputs are written in that task's tokens: index lookup
with the position token of i after its S symbols (a uses symbols 0 and 1, the answer is class
a_i of S), eq-random or eq-one as a [sep] b with class 1 = equal, Dyck-(2,2) as it is. N is the
checkpoint's training length unless given (at most that length).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import torch

from ccomplexity.errors import InputError
from simulations.protocols.reductions.base import LENGTH_LIMIT, SAMPLE_LIMIT, Request, check_length
from simulations.protocols.reductions.dyck import dyck
from simulations.protocols.reductions.recurrent import disjointness, equality, index

__all__ = ["LENGTH_LIMIT", "OTHER_PAPERS", "REDUCTIONS", "run_reduction"]

OTHER_PAPERS: dict[str, str] = {
    "length2-path": "simulations.protocols.parrots:run_length2_path_reduction",
}
"""Reductions of the other papers: name -> ``module:function`` taking (arch, width, precision,
seed, samples, checkpoint=..., **options); the mixture-of-parrots one takes vertices, heads and
experts and no length (it is 2|V| + 5)."""


def run_reduction(
    name: str,
    arch: str | None,
    width: int | None,
    length: int | None,
    precision: int,
    seed: int,
    samples: int,
    checkpoint: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run reduction ``name`` (``REDUCTIONS`` or ``OTHER_PAPERS``) on a model and report bits
    against the bound.

    The model: seeded ``arch`` of ``width`` at ``length``, or the trained model of
    ``checkpoint`` (arch, width given beside it must be its own; ``length`` defaults to its
    training length). Keys: reduction, theorem, claim, problem, arch, width, length,
    precision, seed, instances, exhaustive, bits_sent, lower_bound_bits, lower_bound,
    below_lower_bound, solved_fraction, protocol_agreement (protocol answer = model's own
    forward), errors, failures (first few), distinct_messages, forced_failure, plus
    reduction-specific fields.
    """
    if name in OTHER_PAPERS:
        module, function = OTHER_PAPERS[name].split(":")
        runner = getattr(importlib.import_module(module), function)
        with torch.no_grad():
            return runner(arch, width, precision, seed, samples, checkpoint=checkpoint, **options)
    unused = sorted(k for k, v in options.items() if v not in (None, 1))
    if unused:
        raise InputError(f"reduction {name} takes no option {unused[0]}")
    if name not in REDUCTIONS:
        known = ", ".join([*REDUCTIONS, *OTHER_PAPERS])
        raise InputError(f"unknown reduction {name!r}; choose one of {known}")
    if checkpoint is None:
        check_length(name, length)
    if (
        isinstance(samples, bool)
        or not isinstance(samples, int)
        or not 1 <= samples <= SAMPLE_LIMIT
    ):
        raise InputError(f"samples must be an integer in 1..{SAMPLE_LIMIT}, got {samples!r}")
    request = Request(arch, width, length, precision, seed, samples, checkpoint)
    with torch.no_grad():
        result = REDUCTIONS[name](request)
    result["below_lower_bound"] = result["bits_sent"] < result["lower_bound_bits"]
    return {"reduction": name, "seed": seed, **result}


REDUCTIONS: dict[str, Callable[[Request], dict[str, Any]]] = {
    "index": index,
    "equality": equality,
    "dyck": dyck,
    "disjointness": disjointness,
}
"""Reduction name -> runner of a :class:`Request`."""
