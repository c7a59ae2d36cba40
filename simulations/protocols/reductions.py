"""The separations paper's lower-bound reductions (Sec. 3-4, App. C.1, E, F, G.1) run on models.

Each reduction takes a model for a sequence task, turns it into a protocol for a communication
problem, runs that protocol over a channel (:mod:`simulations.protocols.harness`), and scores the
protocol's answers against the problem's oracle. The bits it sends stand next to the problem's
lower bound. A model whose protocol sends fewer bits than the bound cannot solve every instance;
the report then lists *where* it errs (``failures``, re-checkable against the oracle) and, when
two of Alice's inputs got the same message, a ``forced_failure``: two instances that the
protocol cannot tell apart but whose answers differ, so the model is wrong on one of them.

- ``index`` (Thm 3, App. C.1): Alice feeds a in {0,1}^N as two symbols and sends the state (Thm 2);
  Bob feeds the position token of i and reads a_i. Index needs N one-way bits (Fact 3).
- ``equality`` (Thm 11, proof 1): the model reads a then b in {0,1}^(N/2) and outputs INEQ; Alice
  sends the state after a. EQ on N/2 bits needs N/2 bits (Fact 2).
- ``dyck``: a one-layer ``transformer`` runs Theorem 4's protocol under the odd-even split on
  Lemma 1's fooling set (all Dyck-(2,2) words) and crossed non-members: N - 1 bits (Lemma 1,
  Thm 5). A recurrent model (a zoo RNN or the hand-wired ``dfa-rnn``) runs Theorem 2 at the
  contiguous split prefix:N/2, where the one-way bound is only a few bits
  (``lower_bounds.one_way_bits_dyck``).
- ``disjointness`` (Thm 8, App. G.1, with keys as tokens): Alice feeds the pairs (key_i, a_i),
  i = 1..N/2, and sends the state; Bob queries every key from that state, recovers a and answers
  whether a and b intersect (the repository's DISJ convention, ``problems.disjointness``).
  Disjointness on N/2 bits needs N/2 bits (Fact 1).

Models are randomly initialised from the seed (no trained checkpoints yet) and run on the p-bit
grid (floor rounding, p // 2 fractional bits), so every message is exactly ``state_numel * p`` bits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ccomplexity import bounds, lower_bounds
from ccomplexity.automata import dyck_dfa, minimize
from ccomplexity.errors import InputError
from ccomplexity.languages.dyck import enumerate_dyck, is_dyck
from ccomplexity.precision import FixedPoint
from ccomplexity.problems import Partition
from ccomplexity.protocol import Transcript
from models.base import RecurrentModel
from models.constructions.dfa_rnn import DFARNN, integer_grid, random_words
from models.constructions.scoring import strictly_correct
from simulations.protocols import attention, harness, rnn

EXHAUSTIVE_LIMIT = 1 << 16
"""Most instances run exhaustively; beyond it ``samples`` random instances are drawn."""

LENGTH_LIMIT = 40
"""Longest N (inputs are enumerated or sampled as integers)."""

SAMPLE_LIMIT = 1 << 20
FAILURES_SHOWN = 5
DFA_RNN = "dfa-rnn"


OTHER_PAPERS: dict[str, str] = {
    "length2-path": "simulations.protocols.parrots:run_length2_path_reduction",
}
"""Reductions of the other papers: name -> ``module:function`` taking (arch, width, precision,
seed, samples, checkpoint=..., **options); the mixture-of-parrots one takes vertices, heads and
experts and no length (it is 2|V| + 5)."""


def run_reduction(
    name: str,
    arch: str,
    width: int | None,
    length: int | None,
    precision: int,
    seed: int,
    samples: int,
    checkpoint: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run reduction ``name`` (``REDUCTIONS`` or ``OTHER_PAPERS``) on ``arch`` and report bits
    against the bound.

    Keys: reduction, theorem, problem, arch, width, length, precision, seed, instances,
    exhaustive, bits_sent, lower_bound_bits, lower_bound, below_lower_bound, solved_fraction,
    protocol_agreement (protocol answer = model's own forward), errors, failures (first few),
    distinct_messages, forced_failure, plus reduction-specific fields.
    """
    if name in OTHER_PAPERS:
        import importlib

        module, function = OTHER_PAPERS[name].split(":")
        runner = getattr(importlib.import_module(module), function)
        with torch.no_grad():
            return runner(arch, width, precision, seed, samples, checkpoint=checkpoint, **options)
    unused = sorted(k for k, v in options.items() if v not in (None, 1))
    if unused:
        raise InputError(f"reduction {name} takes no option {unused[0]}")
    if width is None or length is None:
        raise InputError(f"reduction {name} needs --width and --length")
    if checkpoint is not None:
        raise InputError(
            "checkpoints arrive with the training module; reductions run seeded random models "
            "only (checkpoint must be None)"
        )
    if name not in REDUCTIONS:
        known = ", ".join([*REDUCTIONS, *OTHER_PAPERS])
        raise InputError(f"unknown reduction {name!r}; choose one of {known}")
    if isinstance(length, bool) or not isinstance(length, int) or not 2 <= length <= LENGTH_LIMIT:
        raise InputError(f"length N must be an integer in 2..{LENGTH_LIMIT}, got {length!r}")
    if name != "index" and length % 2:
        raise InputError(
            f"reduction {name} splits the input in halves: N must be even, got {length}"
        )
    if (
        isinstance(samples, bool)
        or not isinstance(samples, int)
        or not 1 <= samples <= SAMPLE_LIMIT
    ):
        raise InputError(f"samples must be an integer in 1..{SAMPLE_LIMIT}, got {samples!r}")
    with torch.no_grad():
        result = REDUCTIONS[name](arch, width, length, precision, seed, samples)
    result["below_lower_bound"] = result["bits_sent"] < result["lower_bound_bits"]
    return {"reduction": name, "arch": arch, "length": length, "seed": seed, **result}


# ----------------------------------------------------------------------------- shared pieces


def _recurrent(
    arch: str, width: int, vocab: int, n_out: int, precision: int, seed: int
) -> tuple[RecurrentModel, FixedPoint]:
    """A seeded zoo recurrent model on the p-bit grid (Thm 2's finite-precision RNN)."""
    if arch not in rnn.recurrent_archs():
        raise InputError(
            f"this reduction needs a recurrent arch; choose one of {rnn.recurrent_archs()}"
        )
    config = {"width": width, "vocab_size": vocab, "n_out": n_out}
    model, _ = harness.build_seeded(arch, config, seed)
    fmt = harness.fixed_point(precision, None)
    model.set_precision(fmt)
    assert isinstance(model, RecurrentModel)
    return model, fmt


def _dfa_rnn(precision: int) -> tuple[DFARNN, FixedPoint]:
    """The hand-wired ReLU RNN of the minimal Dyck-(2,2) DFA on an integer grid of p bits."""
    model = DFARNN.from_dfa(minimize(dyck_dfa(2, 2)))
    need = integer_grid(model).bits
    if isinstance(precision, bool) or not isinstance(precision, int) or precision < need:
        raise InputError(
            f"dfa-rnn needs precision >= {need} bits (integer grid), got {precision!r}"
        )
    fmt = FixedPoint(precision, 0, "floor")
    model.set_precision(fmt)
    return model, fmt


def _run_rnn(
    model: RecurrentModel, inputs: torch.Tensor, cut: int
) -> tuple[list[Transcript], torch.Tensor, float]:
    """Theorem 2's protocol at ``cut``: transcripts, Bob's logits, agreement with forward."""
    transcripts, outputs = harness.run(rnn.setup(model, cut, inputs), len(inputs))
    agreement = harness.compare(outputs, model(inputs)[:, -1])["agreement"]
    return transcripts, outputs["bob"], agreement


def _messages(transcripts: list[Transcript]) -> list[str]:
    """Everything sent in one run, concatenated (one string per instance)."""
    return ["|".join(m.bits for m in t.messages) for t in transcripts]


def _collision(keys: list[str], messages: list[str]) -> tuple[int, int] | None:
    """Two instances with different Alice inputs and the same message, if any."""
    seen: dict[str, int] = {}
    for n, (key, msg) in enumerate(zip(keys, messages, strict=True)):
        first = seen.setdefault(msg, n)
        if keys[first] != key:
            return first, n
    return None


def _bits(row: np.ndarray) -> str:
    return "".join(str(int(v)) for v in row)


def _pick(total: int, samples: int, seed: int) -> tuple[np.ndarray, bool]:
    """All instance numbers 0..total-1 when few enough, else ``samples`` uniform ones."""
    if total <= EXHAUSTIVE_LIMIT:
        return np.arange(total, dtype=np.int64), True
    return np.random.default_rng(seed).integers(0, total, size=samples, dtype=np.int64), False


def _unpack(numbers: np.ndarray, width: int) -> np.ndarray:
    """Binary digits (count, width) of integers, most significant first."""
    return (numbers[:, None] >> np.arange(width - 1, -1, -1)) & 1


def _score(
    logits: torch.Tensor, target: np.ndarray, describe: Callable[[int], dict[str, Any]]
) -> dict[str, Any]:
    """Strict correctness (a tie is wrong), and the first failing instances described."""
    right = strictly_correct(logits, torch.from_numpy(target)).numpy()
    wrong = np.flatnonzero(~right)
    predicted = logits.argmax(-1).tolist()
    failures = [
        {**describe(int(n)), "expected": int(target[n]), "predicted": predicted[n],
         "logits": [float(v) for v in logits[n]]}
        for n in wrong[:FAILURES_SHOWN]
    ]  # fmt: skip
    return {"solved_fraction": float(right.mean()), "errors": int(wrong.size), "failures": failures}


def _protocol_fields(
    model: RecurrentModel, fmt: FixedPoint, transcripts: list[Transcript]
) -> dict[str, Any]:
    return {
        "width": model.config.width,
        "precision": fmt.bits,
        "frac": fmt.frac,
        "state_numel": model.state_numel(),
        **harness.worst_transcript(transcripts),
    }


# ----------------------------------------------------------------------------- Index (Thm 3)


def _index(arch: str, width: int, n: int, precision: int, seed: int, samples: int) -> dict:
    """Thm 3: symbols 0/1 carry a, the position token of i is 2 + i - 1 (as ``index_lookup``)."""
    model, fmt = _recurrent(arch, width, 2 + n, 2, precision, seed)
    chosen, exhaustive = _pick((1 << n) * n, samples, seed)
    a = _unpack(chosen // n, n)
    i = chosen % n  # 0-based
    inputs = torch.from_numpy(np.concatenate([a, 2 + i[:, None]], axis=1))
    transcripts, logits, agreement = _run_rnn(model, inputs, n)
    target = a[np.arange(len(a)), i]

    def describe(k: int) -> dict[str, Any]:
        return {"a": _bits(a[k]), "i": int(i[k]) + 1}

    keys, messages = [_bits(row) for row in a], _messages(transcripts)
    forced = None
    if (pair := _collision(keys, messages)) is not None:
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
        **_protocol_fields(model, fmt, transcripts),
        "lower_bound_bits": bounds.get("separations.fact3").value(length=n),
        "lower_bound": "separations.fact3 (one-way)",
        "protocol_agreement": agreement,
        **_score(logits, target, describe),
        "distinct_messages": len(set(messages)),
        "alice_inputs": len(set(keys)),
        "forced_failure": forced,
    }


# ----------------------------------------------------------------------------- Equality (Thm 11)


def _equality(arch: str, width: int, n: int, precision: int, seed: int, samples: int) -> dict:
    """Thm 11, proof 1: class 1 = INEQ (a != b). Sampled runs make half the instances a = b."""
    half = n // 2
    model, fmt = _recurrent(arch, width, 2, 2, precision, seed)
    if 1 << n <= EXHAUSTIVE_LIMIT:
        both, exhaustive = np.arange(1 << n, dtype=np.int64), True
        a, b = both >> half, both & ((1 << half) - 1)
    else:
        rng, exhaustive = np.random.default_rng(seed), False
        a = rng.integers(0, 1 << half, size=samples, dtype=np.int64)
        b = np.where(rng.random(samples) < 0.5, a, rng.integers(0, 1 << half, size=samples))
    abits, bbits = _unpack(a, half), _unpack(b, half)
    inputs = torch.from_numpy(np.concatenate([abits, bbits], axis=1))
    transcripts, logits, agreement = _run_rnn(model, inputs, half)
    target = (a != b).astype(np.int64)

    def describe(k: int) -> dict[str, Any]:
        return {"a": _bits(abits[k]), "b": _bits(bbits[k])}

    keys, messages = [_bits(row) for row in abits], _messages(transcripts)
    forced = None
    if (pair := _collision(keys, messages)) is not None:
        forced = {
            "a": keys[pair[0]],
            "a_other": keys[pair[1]],
            "b": keys[pair[0]],
            "why": "same message: Bob answers (a, b) and (a_other, b) alike, but EQ differs",
        }
    return {
        "theorem": "Thm 11, proof 1 (EQ -> INEQ for RNNs)",
        "problem": f"EQ_{half}: Alice a, Bob b in {{0,1}}^{half}; model outputs INEQ(a b)",
        "instances": len(a),
        "exhaustive": exhaustive,
        **_protocol_fields(model, fmt, transcripts),
        "lower_bound_bits": bounds.get("separations.fact2").value(length=half),
        "lower_bound": "separations.fact2 on N/2 bits (Thm 11: mp >= N/2)",
        "protocol_agreement": agreement,
        **_score(logits, target, describe),
        "distinct_messages": len(set(messages)),
        "alice_inputs": len(set(keys)),
        "forced_failure": forced,
    }


# ----------------------------------------------------------------------------- Dyck (Thm 5, Thm 2)


def _dyck(arch: str, width: int, n: int, precision: int, seed: int, samples: int) -> dict:
    if arch == "transformer":
        return _dyck_odd_even(width, n, precision, seed, samples)
    return _dyck_contiguous(arch, width, n, precision, seed, samples)


def _dyck_contiguous(
    arch: str, width: int, n: int, precision: int, seed: int, samples: int
) -> dict:
    """Thm 2 at prefix:N/2 on a recurrent model; the bound is the exact one-way complexity."""
    cut = n // 2
    if arch == DFA_RNN:
        model, fmt = _dfa_rnn(precision)
    else:
        model, fmt = _recurrent(arch, width, 4, 2, precision, seed)
    if 4**n <= EXHAUSTIVE_LIMIT:
        words, exhaustive = _unpack_base4(np.arange(4**n, dtype=np.int64), n), True
    else:
        words, exhaustive = random_words(2, 2, n, samples, np.random.default_rng(seed)), False
    transcripts, logits, agreement = _run_rnn(model, torch.from_numpy(words), cut)
    target = is_dyck(words, 2, 2).astype(np.int64)
    messages = _messages(transcripts)
    one_way = lower_bounds.one_way_bits_dyck(2, 2, n, cut)
    return {
        "theorem": "Thm 2 at a contiguous split (one-way); Lemma 1 needs odd-even",
        "problem": f"Dyck-(2,2) of length {n}, partition prefix:{cut}",
        "instances": len(words),
        "members": int(target.sum()),
        "exhaustive": exhaustive,
        **_protocol_fields(model, fmt, transcripts),
        "width_requested": width,
        "lower_bound_bits": one_way.bits,
        "lower_bound": f"exact one-way complexity ({one_way.distinct_rows} distinct rows)",
        "protocol_agreement": agreement,
        **_score(logits, target, lambda k: {"word": _symbols(words[k])}),
        "distinct_messages": len(set(messages)),
        "forced_failure": None,
    }


def _unpack_base4(numbers: np.ndarray, n: int) -> np.ndarray:
    return (numbers[:, None] // 4 ** np.arange(n - 1, -1, -1)) % 4


def _symbols(word: np.ndarray) -> str:
    return "".join("()[]"[int(s)] for s in word)


def _dyck_odd_even(width: int, n: int, precision: int, seed: int, samples: int) -> dict:
    """Thm 4 under odd-even on Lemma 1's fooling set S (all members) and crossed pairs
    (x_i, y_j), i != j, which Lemma 1 makes non-members (re-checked with ``is_dyck``)."""
    fmt = harness.fixed_point(precision, None)
    attention.check(1, n, fmt)
    config = {"vocab_size": 4, "n_out": 2, "width": width, "heads": 1, "layers": 1,
              "max_length": n}  # fmt: skip
    model, _ = harness.build_seeded("transformer", config, seed)
    model.set_precision(fmt)
    members = enumerate_dyck(2, 2, n, limit=EXHAUSTIVE_LIMIT).astype(np.int64)
    size = len(members)
    rng = np.random.default_rng(seed)
    if size * (size - 1) <= EXHAUSTIVE_LIMIT:
        ii, jj = np.nonzero(~np.eye(size, dtype=bool))
        exhaustive = True
    else:
        ii = rng.integers(0, size, size=samples)
        jj = (ii + rng.integers(1, size, size=samples)) % size
        exhaustive = False
    crossed = members[ii].copy()
    crossed[:, 1::2] = members[jj, 1::2]  # Alice's odd positions from x_i, Bob's from y_j
    words = np.concatenate([members, crossed])
    target = is_dyck(words, 2, 2).astype(np.int64)
    if target[size:].any():
        raise RuntimeError("a crossed fooling pair is a Dyck word: Lemma 1 would be false")
    part = Partition.parse("odd-even", n)
    inputs = torch.from_numpy(words)
    transcripts, outputs = harness.run(attention.setup(model, part, inputs, False), len(words))
    agreement = harness.compare(outputs, model(inputs)[:, -1])["agreement"]
    messages = _messages(transcripts)
    forced = _fooling_collision(model, part, members, messages[:size])
    return {
        "theorem": "Thm 5 (Lemma 1 fooling set, Thm 4 protocol)",
        "problem": f"Dyck-(2,2) of length {n}, partition odd-even",
        "instances": len(words),
        "fooling_set_size": size,
        "exhaustive": exhaustive,
        "width": width,
        "precision": fmt.bits,
        "frac": fmt.frac,
        **harness.worst_transcript(transcripts),
        "lower_bound_bits": bounds.get("separations.lemma1").value(length=n),
        "lower_bound": "separations.lemma1 (fooling set of size 2^(N-1))",
        "protocol_agreement": agreement,
        **_score(outputs["alice"], target, lambda k: {"word": _symbols(words[k])}),
        "fooling_set_accuracy": float(
            strictly_correct(outputs["alice"][:size], torch.ones(size, dtype=torch.long)).mean(
                dtype=torch.float64
            )
        ),
        "distinct_messages": len(set(messages[:size])),
        "forced_failure": forced,
    }


def _fooling_collision(
    model: Any, part: Partition, members: np.ndarray, messages: list[str]
) -> dict[str, Any] | None:
    """Two fooling-set members with one transcript: by the rectangle property the crossed word
    (x_i, y_j) has that transcript too (checked by running it) and so the member's answer."""
    seen: dict[str, int] = {}
    for j, msg in enumerate(messages):
        i = seen.setdefault(msg, j)
        if i != j:
            crossed = members[i].copy()
            crossed[1::2] = members[j, 1::2]
            t, _ = harness.run(
                attention.setup(model, part, torch.from_numpy(crossed[None]), False), 1
            )
            return {
                "member": _symbols(members[i]),
                "crossed_non_member": _symbols(crossed),
                "same_transcript_checked": _messages(t)[0] == msg,
                "why": "same transcript as a member: the model answers both alike",
            }
    return None


# ----------------------------------------------------------------------------- Disjointness (Thm 8)


class _RecallBob(harness.OutputParty):
    """Bob of Thm 8: decodes Alice's state, queries every key from it, answers DISJ with b."""

    def __init__(self, model: RecurrentModel, keys: int, b: np.ndarray) -> None:
        self.decoder = rnn.Bob(model, torch.zeros(len(b), 0, dtype=torch.long))
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


def _disjointness(arch: str, width: int, n: int, precision: int, seed: int, samples: int) -> dict:
    """Thm 8 with keys 0..H-1 as tokens and values H (bit 0), H + 1 (bit 1), H = N/2."""
    half = n // 2
    model, fmt = _recurrent(arch, width, half + 2, 2, precision, seed)
    chosen, exhaustive = _pick(1 << n, samples, seed)
    a, b = _unpack(chosen >> half, half), _unpack(chosen & ((1 << half) - 1), half)
    alice_tokens = np.empty((len(a), n), dtype=np.int64)
    alice_tokens[:, 0::2] = np.arange(half)
    alice_tokens[:, 1::2] = half + a
    alice = rnn.Alice(model, torch.from_numpy(alice_tokens))
    bob = _RecallBob(model, half, b)
    setup = harness.Setup({"alice": alice, "bob": bob}, rnn.SCHEDULE, ("bob",))
    transcripts, outputs = harness.run(setup, len(a))
    direct = np.stack(
        [model(torch.from_numpy(np.concatenate([alice_tokens, np.full((len(a), 1), k)], 1)))[:, -1]
         .argmax(-1).numpy() for k in range(half)], axis=1,
    )  # fmt: skip
    target = ((a == 1) & (b == 1)).any(1).astype(np.int64)

    def describe(k: int) -> dict[str, Any]:
        return {"a": _bits(a[k]), "b": _bits(b[k]), "recovered_a": _bits(bob.recovered[k])}

    keys, messages = [_bits(row) for row in a], _messages(transcripts)
    forced = None
    if (pair := _collision(keys, messages)) is not None:
        j = int(np.flatnonzero(a[pair[0]] != a[pair[1]])[0])
        forced = {
            "a": keys[pair[0]],
            "a_other": keys[pair[1]],
            "b": _bits(np.eye(half, dtype=np.int64)[j]),
            "why": "same message: Bob answers both alike, but only one set meets b = {i}",
        }
    return {
        "theorem": "Thm 8 (Disjointness -> associative recall, App. G.1)",
        "problem": f"DISJ_{half}: Alice a, Bob b in {{0,1}}^{half}; 1 iff they intersect",
        "instances": len(a),
        "exhaustive": exhaustive,
        **_protocol_fields(model, fmt, transcripts),
        "lower_bound_bits": bounds.get("separations.fact1").value(length=half),
        "lower_bound": "separations.fact1 on N/2 bits (Thm 8: mp >= N/2)",
        "protocol_agreement": float((direct == bob.recovered).all(1).mean()),
        **_score(outputs["bob"], target, describe),
        "recall_fraction": float((bob.recovered == a).all(1).mean()),
        "distinct_messages": len(set(messages)),
        "alice_inputs": len(set(keys)),
        "forced_failure": forced,
    }


REDUCTIONS: dict[str, Callable[..., dict[str, Any]]] = {
    "index": _index,
    "equality": _equality,
    "dyck": _dyck,
    "disjointness": _disjointness,
}
"""Reduction name -> runner(arch, width, length, precision, seed, samples)."""
