"""How many of its state bits a float recurrent model actually uses at a cut (Thm 2, Sec. 3).

Theorem 2's protocol sends the state h_K of a p-bit model: m p bits. A float model has no p, so
we measure one: run the float model (float64) on s_1..s_K, round every number of the state onto
a p-bit grid (round to nearest, saturating; ``int_bits`` integer bits to hold the largest
|state| seen, the rest fractional), continue in float on s_K+1..s_N from the rounded state, and
compare the final prediction with the unrounded run. The smallest p with full agreement on the
test set gives ``bits_used`` = p * state_numel, an upper bound on the message Alice needs for
*this* model on *these* inputs.

Next to it: the number of distinct rounded states reached at the cut over all |Sigma|^K prefixes
(exhaustive while that is at most ``PREFIX_LIMIT``, else over the test prefixes), whose log2 is
the one-way message this model needs at that p, and the task's exact one-way lower bound for
Alice holding s_1..s_K (``one_way_lower_bound_bits``, ceil(log2) of the number of distinct
rows of the communication matrix, as ``lower_bounds.one_way_bits``):

* Dyck-(2,2) at prefix:K: ``lower_bounds.one_way_bits_dyck(2, 2, N, K)``.
* Index lookup over S symbols (the toy task "index": S = 2; a trained ``index-lookup`` model:
  S = 64): Bob holds s_K+1..s_N and the query position i, which may point at any of Alice's K
  symbols, so two prefixes that differ at some j <= K differ on Bob's input with i = j. All
  S^K rows are distinct and the bound is ceil(log2 S^K) = ceil(K log2 S) bits: K bits for S = 2
  (Alice's symbols embed Index_K, Fact 3), 6 K bits for S = 64.

The bound constrains models that *solve* the task on every input; a random model solves
neither, and a trained one only up to its accuracy (``task_accuracy``), so its state count may
fall below it.

Two sources of models (:func:`simulations.protocols.harness.model_source`): a recurrent
``arch`` of ``width`` randomly initialised from ``seed`` (toy tasks "dyck" and "index", inputs
from ``numpy.random.default_rng(seed)``), or a ``checkpoint`` trained by
:mod:`simulations.training` on ``dyck`` or ``index-lookup``, whose test inputs come from the
training task's own sampler at exactly its length N
(``Task.sample(samples, N, torch.Generator().manual_seed(seed), train=False)``); the prediction
compared is the model's argmax at the counted position, the last one for both tasks.

The result names the claims-table row it stands next to (``claim``: recurrent models on the
task; for index lookup, Thm 3 with its problem Index, Fact 3, which gives the toy task's bound).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

from ccomplexity import bounds, claims, lower_bounds
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.precision import FixedPoint
from models.base import Quantizer, RecurrentModel
from models.constructions.dfa_rnn import random_words
from simulations.protocols import rnn

PREFIX_LIMIT = 1 << 16
"""Most prefixes enumerated at the cut (|Sigma|^K); beyond it the test prefixes are used."""

LENGTH_LIMIT = 64
"""Longest N of the seeded toy tasks (a checkpoint's N is its training length)."""
SAMPLE_LIMIT = 1 << 18
TASKS = ("dyck", "index")
"""Toy tasks of seeded models."""
CHECKPOINT_TASKS = ("dyck", "index-lookup")
"""Training tasks of the checkpoints bits_used reads."""
CLAIM_TASKS = {"index": "index-lookup"}
"""The claims table's task for each toy task named otherwise (the claim a result cites)."""


def bits_used(
    arch: str | None = None,
    width: int | None = None,
    length: int | None = None,
    cut: int | None = None,
    seed: int = 0,
    task: str | None = None,
    precisions: Iterable[int] = range(2, 25),
    samples: int = 1000,
    checkpoint: str | None = None,
) -> dict[str, Any]:
    """Agreement of the state rounded to p bits at ``cut`` with the float model, per p.

    Seeded model (no ``checkpoint``): ``arch`` of ``width`` from ``seed``; ``task`` "dyck"
    (default): Dyck-(2,2) words of length N (``dfa_rnn.random_words``: members, near misses,
    random strings). "index": a in {0,1}^N then the position token of i (vocabulary 2 + N, as
    ``index_lookup``), cut K in 1..N.

    ``checkpoint``: the trained recurrent model saved there; arch, width, task and N are read
    from its training config (arguments given must agree with it). Tasks dyck (cut K in
    1..N-1) and index-lookup (K in 1..N: Alice holds K of the N symbols, Bob the rest and the
    query); ``seed`` seeds the task sampler.

    Returns agreement_by_precision, smallest_full_agreement_precision (None if none),
    full_agreement_from (smallest p from which every larger p tried agrees fully), state_numel,
    bits_used, distinct_states_at_cut (at the smallest full-agreement p, else the largest p),
    log2_distinct_states, one_way_lower_bound_bits, exhaustive, task_accuracy (checkpoints:
    the float model's accuracy on the test inputs; None for seeded models), and more.
    """
    ps = _precisions(precisions)
    if cut is None:
        raise InputError("give the cut K (Alice holds the first K tokens)")
    if checkpoint is None:
        task = "dyck" if task is None else task
        if length is None or width is None or arch is None:
            raise InputError("give arch, width and length, or a checkpoint")
        inputs, prefixes, bound, alphabet = _task(task, length, cut, samples, seed)
        vocab = 4 if task == "dyck" else 2 + length
        source = rnn.recurrent_source(arch, width, seed, vocab_size=vocab, n_out=2)
        targets = None
    else:
        source = rnn.recurrent_source(arch, width, seed, checkpoint)
        source.agree(length=length, task=task)
        train_config = source.training
        if train_config.task.name not in CHECKPOINT_TASKS:
            raise InputError(
                f"checkpoint {checkpoint} was trained on {train_config.task.name}; bits_used "
                f"supports {', '.join(CHECKPOINT_TASKS)}"
            )
        arch, width = train_config.model.arch, train_config.model.width
        task, length = train_config.task.name, train_config.task.length
        inputs, targets, prefixes, bound, alphabet = _trained_task(task, length, cut, samples, seed)
    model, sha = source.model, source.description["state_sha256"]
    claim = _claim(task)
    assert isinstance(model, RecurrentModel)
    model.to(torch.float64)
    result = _measure(model, inputs, cut, prefixes, ps, targets)
    return {
        "arch": arch,
        "width": width,
        "task": task,
        "length": length,
        "cut": cut,
        "seed": seed,
        "checkpoint": None if checkpoint is None else str(checkpoint),
        "state_sha256": sha,
        "samples": len(inputs),
        "alphabet_at_cut": alphabet,
        "state_numel": model.state_numel(),
        **result,
        "one_way_lower_bound_bits": bound,
        "claim": {k: getattr(claim, k) for k in ("task", "family", "bound_id", "role", "problem")},
        "exhaustive": prefixes is not None,
    }


def _measure(
    model: RecurrentModel,
    inputs: torch.Tensor,
    cut: int,
    prefixes: torch.Tensor | None,
    ps: list[int],
    targets: torch.Tensor | None,
) -> dict[str, Any]:
    """Agreement and distinct rounded states per precision; the model is float64."""
    with torch.no_grad():
        reference = model.run_steps(inputs)[0][:, -1].argmax(-1)
        _, state = model.run_steps(inputs[:, :cut])
        cut_states = state if prefixes is None else model.run_steps(prefixes)[1]
        largest = max(float(t.abs().max()) for d in (state, cut_states) for t in d.values())
        int_bits = max(0, math.floor(math.log2(largest)) + 1) if largest > 0 else 0
        agreement, distinct = {}, {}
        for p in ps:
            quant = Quantizer(FixedPoint(p, min(p - 1, max(0, p - 1 - int_bits)), "nearest"))
            rounded = {k: quant(v) for k, v in state.items()}
            logits = model.run_steps(inputs[:, cut:], rounded)[0][:, -1]
            agreement[p] = float((logits.argmax(-1) == reference).double().mean())
            distinct[p] = _distinct({k: quant(v) for k, v in cut_states.items()})
    majority = float(torch.bincount(reference).max()) / len(reference)
    full = [p for p in ps if agreement[p] == 1.0]
    smallest = full[0] if full else None
    stable = next((p for p in ps if all(agreement[q] == 1.0 for q in ps if q >= p)), None)
    at = smallest if smallest is not None else ps[-1]
    accuracy = None if targets is None else float((reference == targets).double().mean())
    return {
        "task_accuracy": accuracy,
        "max_abs_state": largest,
        "int_bits": int_bits,
        "rounding": "nearest",
        "reference_majority_fraction": majority,  # 1.0: a constant model agrees trivially
        "agreement_by_precision": agreement,
        "smallest_full_agreement_precision": smallest,
        "full_agreement_from": stable,
        "bits_used": None if smallest is None else smallest * model.state_numel(),
        "distinct_states_by_precision": distinct,
        "distinct_states_at_cut": distinct[at],
        "distinct_states_precision": at,
        "log2_distinct_states": math.log2(distinct[at]),
        "distinct_float_states": _distinct(cut_states),
        "prefixes_at_cut": len(_flat(cut_states)),
    }


def _claim(task: str) -> claims.Claim:
    """The claims table's row on recurrent models for ``task``: the bound the measured bits stand
    next to, and for index lookup the communication problem (Index, Fact 3)."""
    return claims.claims(task=CLAIM_TASKS.get(task, task), family="recurrent")[0]


def _precisions(precisions: Iterable[int]) -> list[int]:
    ps = sorted(set(precisions))
    if not ps or any(isinstance(p, bool) or not isinstance(p, int) or not 2 <= p <= 53 for p in ps):
        raise InputError(f"precisions must be a non-empty set of integers in 2..53, got {ps!r}")
    return ps


def _task(
    task: str, length: int, cut: int, samples: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor | None, int, int]:
    """Test inputs (samples, tokens), all prefixes at the cut (or None), the bound, |Sigma|."""
    if task not in TASKS:
        raise InputError(f"unknown task {task!r}; choose one of {', '.join(TASKS)}")
    if isinstance(length, bool) or not isinstance(length, int) or not 2 <= length <= LENGTH_LIMIT:
        raise InputError(f"length N must be an integer in 2..{LENGTH_LIMIT}, got {length!r}")
    _check_samples(samples)
    last = length - 1 if task == "dyck" else length
    if isinstance(cut, bool) or not isinstance(cut, int) or not 1 <= cut <= last:
        raise InputError(f"cut K must satisfy 1 <= K <= {last} for task {task}, got {cut!r}")
    rng = np.random.default_rng(seed)
    if task == "dyck":
        if length % 2:
            raise InputError(f"Dyck words need an even length, got {length}")
        words = random_words(2, 2, length, samples, rng)
        bound = lower_bounds.one_way_bits_dyck(2, 2, length, cut).bits
        alphabet = 4
    else:
        a = rng.integers(0, 2, size=(samples, length))
        words = np.concatenate([a, 2 + rng.integers(0, length, size=(samples, 1))], axis=1)
        bound = bounds.get(_claim(task).problem).value(length=cut)  # she holds Index_K
        alphabet = 2
    prefixes = _all_prefixes(alphabet, cut)
    return torch.from_numpy(words.astype(np.int64)), prefixes, int(bound), alphabet


def _trained_task(
    task: str, length: int, cut: int, samples: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, int, int]:
    """Test inputs of a training task at exactly N, the labels at the counted (last) position,
    all prefixes at the cut (or None), the one-way bound and |Sigma| at the cut."""
    from simulations.tasks import get_task

    _check_samples(samples)
    last = length - 1 if task == "dyck" else length
    if isinstance(cut, bool) or not isinstance(cut, int) or not 1 <= cut <= last:
        raise InputError(f"cut K must satisfy 1 <= K <= {last} for task {task}, got {cut!r}")
    sampler = get_task(task, length)
    tokens, targets, mask = sampler.sample(
        samples, length, torch.Generator().manual_seed(seed), train=False
    )
    if not (mask[:, -1].all() and int(mask.sum()) == samples):
        raise RuntimeError(f"{task}: expected one counted position per example, the last one")
    if task == "dyck":
        alphabet = sampler.vocab_size
        bound = lower_bounds.one_way_bits_dyck(2, 2, length, cut).bits
    else:  # index-lookup: Alice's K symbols from S; every one may be queried
        alphabet = sampler.symbols  # type: ignore[attr-defined]
        bound = ceil_log2(alphabet**cut)  # exactly
    return tokens, targets[:, -1], _all_prefixes(alphabet, cut), int(bound), alphabet


def _all_prefixes(alphabet: int, cut: int) -> torch.Tensor | None:
    """Every word of length ``cut`` over tokens 0..alphabet-1, or None past PREFIX_LIMIT."""
    if alphabet**cut > PREFIX_LIMIT:
        return None
    n = np.arange(alphabet**cut, dtype=np.int64)
    return torch.from_numpy((n[:, None] // alphabet ** np.arange(cut - 1, -1, -1)) % alphabet)


def _check_samples(samples: int) -> None:
    if (
        isinstance(samples, bool)
        or not isinstance(samples, int)
        or not 1 <= samples <= SAMPLE_LIMIT
    ):
        raise InputError(f"samples must be an integer in 1..{SAMPLE_LIMIT}, got {samples!r}")


def _flat(state: dict[str, torch.Tensor]) -> torch.Tensor:
    return torch.cat([t.reshape(len(t), -1) for t in state.values()], dim=1)


def _distinct(state: dict[str, torch.Tensor]) -> int:
    """Distinct states (rows of the flattened state) in a batch."""
    return int(torch.unique(_flat(state), dim=0).shape[0])
