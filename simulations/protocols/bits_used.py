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
the one-way message this model needs at that p, and the task's exact one-way lower bound:
``lower_bounds.one_way_bits_dyck`` for Dyck-(2,2) at prefix:K, and K bits for index lookup
(Alice's K symbols embed Index_K, Fact 3). The bound constrains models that *solve* the task; a
random model solves neither, so its state count may fall below it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

from ccomplexity import lower_bounds
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from models.base import Quantizer, RecurrentModel
from models.constructions.dfa_rnn import random_words
from simulations.protocols import harness, rnn

PREFIX_LIMIT = 1 << 16
"""Most prefixes enumerated at the cut (|Sigma|^K); beyond it the test prefixes are used."""

LENGTH_LIMIT = 64
SAMPLE_LIMIT = 1 << 18
TASKS = ("dyck", "index")


def bits_used(
    arch: str,
    width: int,
    length: int,
    cut: int,
    seed: int,
    task: str = "dyck",
    precisions: Iterable[int] = range(2, 25),
    samples: int = 1000,
    checkpoint: str | None = None,
) -> dict[str, Any]:
    """Agreement of the state rounded to p bits at ``cut`` with the float model, per p.

    ``task`` "dyck": Dyck-(2,2) words of length N (``dfa_rnn.random_words``: members, near
    misses, random strings). "index": a in {0,1}^N then the position token of i (vocabulary
    2 + N, as ``index_lookup``), cut K in 1..N. Returns agreement_by_precision,
    smallest_full_agreement_precision (None if none), full_agreement_from (smallest p from which
    every larger p tried agrees fully), state_numel, bits_used, distinct_states_at_cut (at the
    smallest full-agreement p, else the largest p), log2_distinct_states, one_way_lower_bound_bits,
    exhaustive, and more.
    """
    if checkpoint is not None:
        raise InputError(
            "checkpoints arrive with the training module; bits_used runs seeded random models "
            "only (checkpoint must be None)"
        )
    ps = _precisions(precisions)
    inputs, prefixes, bound, alphabet = _task(task, length, cut, samples, seed)
    vocab = 4 if task == "dyck" else 2 + length
    if arch not in rnn.recurrent_archs():
        raise InputError(f"bits_used needs a recurrent arch; choose one of {rnn.recurrent_archs()}")
    model, _ = harness.build_seeded(arch, {"width": width, "vocab_size": vocab, "n_out": 2}, seed)
    assert isinstance(model, RecurrentModel)
    model.to(torch.float64)
    exhaustive = prefixes is not None
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
    majority = float(torch.bincount(reference, minlength=2).max()) / len(reference)
    full = [p for p in ps if agreement[p] == 1.0]
    smallest = full[0] if full else None
    stable = next((p for p in ps if all(agreement[q] == 1.0 for q in ps if q >= p)), None)
    at = smallest if smallest is not None else ps[-1]
    numel = model.state_numel()
    return {
        "arch": arch,
        "width": width,
        "task": task,
        "length": length,
        "cut": cut,
        "seed": seed,
        "samples": len(inputs),
        "alphabet_at_cut": alphabet,
        "state_numel": numel,
        "max_abs_state": largest,
        "int_bits": int_bits,
        "rounding": "nearest",
        "reference_majority_fraction": majority,  # 1.0: a constant model agrees trivially
        "agreement_by_precision": agreement,
        "smallest_full_agreement_precision": smallest,
        "full_agreement_from": stable,
        "bits_used": None if smallest is None else smallest * numel,
        "distinct_states_by_precision": distinct,
        "distinct_states_at_cut": distinct[at],
        "distinct_states_precision": at,
        "log2_distinct_states": math.log2(distinct[at]),
        "distinct_float_states": _distinct(cut_states),
        "prefixes_at_cut": len(_flat(cut_states)),
        "one_way_lower_bound_bits": bound,
        "exhaustive": exhaustive,
    }


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
    if (
        isinstance(samples, bool)
        or not isinstance(samples, int)
        or not 1 <= samples <= SAMPLE_LIMIT
    ):
        raise InputError(f"samples must be an integer in 1..{SAMPLE_LIMIT}, got {samples!r}")
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
        bound, alphabet = cut, 2  # Fact 3: Alice's K symbols embed Index_K
    prefixes = None
    if alphabet**cut <= PREFIX_LIMIT:
        n = np.arange(alphabet**cut, dtype=np.int64)
        prefixes = torch.from_numpy(
            (n[:, None] // alphabet ** np.arange(cut - 1, -1, -1)) % alphabet
        )
    return torch.from_numpy(words.astype(np.int64)), prefixes, int(bound), alphabet


def _flat(state: dict[str, torch.Tensor]) -> torch.Tensor:
    return torch.cat([t.reshape(len(t), -1) for t in state.values()], dim=1)


def _distinct(state: dict[str, torch.Tensor]) -> int:
    """Distinct states (rows of the flattened state) in a batch."""
    return int(torch.unique(_flat(state), dim=0).shape[0])
