"""A ReLU RNN whose state is the binary code of a DFA state: Dyck-(n,k) in ceil(log2 |Q|) bits.

Lemma 4 (App. E) says that a recurrent model recognising a language whose minimal complete DFA
has n states needs mp >= log2 n state bits; this is the matching upper bound, ceil(log2 n)
numbers that are bits, for Dyck-(n,k) (Sec. 4.1): Dyck-(2,2) has 7 live states + 1 sink, 3 bits.

State h in {0,1}^b holds c(q), the b-bit binary code of DFA state q. One hidden unit per
(state q, symbol a):

    u_{q,a} = ReLU(1[x = a] - Hamming(h, c(q)))     Hamming(h, c) = sum_j (1 - 2c_j) h_j + |c|
    h'      = sum_{q,a} c(delta(q, a)) u_{q,a}      (exactly one unit is 1 when h is a code)
    logits  = sum_{q,a} (1 - acc(delta(q, a)), acc(delta(q, a))) u_{q,a}   (reject, accept)

All weights and values are small integers, so the model runs in finite precision on an integer
grid of ``1 + bitlength(b)`` bits. Correctness on every word of every length is proved by
:func:`explore`: the model's reachable finite-precision states paired with the DFA's states form
a finite set, closed under stepping with every symbol, on which the model's output is checked.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ccomplexity.automata import DFA, dyck_dfa, minimize
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.dyck import is_dyck, sample_dyck
from ccomplexity.precision import FixedPoint
from models.base import ModelConfig, RecurrentModel
from models.constructions.scoring import strictly_correct

UNIT_LIMIT = 1 << 16
"""Most hidden units (DFA states x symbols)."""

PAIR_LIMIT = 1 << 20
"""Most (model state, DFA state) pairs that :func:`explore` visits."""

LENGTH_LIMIT = 100_000
"""Longest random word that :func:`verify_dyck_rnn` runs."""


@dataclasses.dataclass(frozen=True)
class DFARNNConfig(ModelConfig):
    """``width`` = b state bits; ``hidden`` = one ReLU unit per (state, symbol); outputs 2."""

    n_out: int | None = 2
    hidden: int = 1


class DFARNN(RecurrentModel):
    """ReLU RNN with a binary-coded DFA state (weights set by :meth:`from_dfa`)."""

    name = "dfa-rnn"

    def __init__(self, config: DFARNNConfig) -> None:
        super().__init__(config)
        self.detect = nn.Linear(config.width, config.hidden)  # -Hamming(h, c(q))
        self.symbol = nn.Embedding(config.vocab_size, config.hidden)  # 1[x = a]
        self.next_state = nn.Linear(config.hidden, config.width, bias=False)
        self.head = nn.Linear(config.hidden, config.outputs, bias=False)
        self.register_buffer("start", torch.zeros(config.width))

    @classmethod
    @torch.no_grad()
    def from_dfa(cls, dfa: DFA) -> DFARNN:
        """The RNN of the module docstring for a complete DFA; state q has code c(q) = bits of q."""
        states, symbols = dfa.transitions.shape
        if states * symbols > UNIT_LIMIT:
            raise InputError(
                f"the DFA needs {states} x {symbols} hidden units; the limit is {UNIT_LIMIT}"
            )
        b = max(1, ceil_log2(states))
        model = cls(DFARNNConfig(vocab_size=symbols, width=b, hidden=states * symbols))
        code = torch.tensor((np.arange(states)[:, None] >> np.arange(b)) & 1, dtype=torch.float32)
        unit_state = torch.arange(states).repeat_interleave(symbols)  # unit u = q * symbols + a
        unit_symbol = torch.arange(symbols).repeat(states)
        target = torch.tensor(dfa.transitions.reshape(-1))
        accept = torch.from_numpy(dfa.accepting.astype(np.float32))[target]
        model.detect.weight[:] = 2 * code[unit_state] - 1
        model.detect.bias[:] = -code[unit_state].sum(1)
        model.symbol.weight[:] = F.one_hot(unit_symbol, symbols).T.float()
        model.next_state.weight[:] = code[target].T
        model.head.weight[:] = torch.stack([1 - accept, accept])
        model.start[:] = code[dfa.start]
        return model

    def exact_sum_terms(self) -> int:
        return self.linear_terms()

    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        return {"h": self.q(self.start).expand(batch, -1).clone()}

    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """h (B, b), tokens (B,) -> new h (B, b), logits (B, 2) of the word read so far."""
        pre = self.q(self.linear(self.detect, state["h"]) + self.q(self.symbol.weight)[tokens])
        units = F.relu(pre)  # (B, hidden): ReLU keeps the grid
        return {"h": self.linear(self.next_state, units)}, self.linear(self.head, units)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (B, N) -> logits (B, N, 2), by stepping."""
        return self.run_steps(tokens)[0]


def integer_grid(model: DFARNN) -> FixedPoint:
    """Integer grid (frac 0) holding every value the model computes: |pre-activation| <= b."""
    return FixedPoint(1 + model.config.width.bit_length(), 0, "floor")


Pair = tuple[tuple[float, ...], int]
"""(model state as a tuple of grid values, DFA state)."""


@dataclasses.dataclass(frozen=True)
class Exploration:
    """Result of :func:`explore`. ``equivalent``: the model's output matched the DFA's acceptance
    after every reachable pair and symbol; otherwise ``counterexample`` is a shortest word where
    they differ (and the counts cover the pairs met until then). ``binary_states``: every reached
    model state lies in {0,1}^b."""

    pairs: int
    model_states: int
    equivalent: bool
    binary_states: bool
    counterexample: tuple[int, ...] | None


def _word(parent: dict[Pair, tuple[Pair, int] | None], pair: Pair) -> tuple[int, ...]:
    """The symbols that first reached ``pair`` from the start."""
    word: list[int] = []
    while (link := parent[pair]) is not None:
        pair, symbol = link
        word.append(symbol)
    return tuple(reversed(word))


@torch.no_grad()
def explore(model: DFARNN, dfa: DFA) -> Exploration:
    """Breadth-first search over pairs (model state, DFA state) from (h_0, start).

    Each pair is stepped with every symbol, the model by ``step`` and the DFA by its table, and
    the model's prediction must be the DFA's acceptance of the successor (strictly larger logit).
    A nonempty word's run passes through reachable pairs only, and there are finitely many (the
    model's state lies on a finite grid), so when the search closes every word of every length
    has been checked. Breadth-first order makes a counterexample shortest.
    """
    symbols = dfa.alphabet_size
    start: Pair = (tuple(model.initial_state(1)["h"][0].tolist()), dfa.start)
    parent: dict[Pair, tuple[Pair, int] | None] = {start: None}
    frontier = [start]
    while frontier:
        h = torch.tensor([pair[0] for pair in frontier], dtype=model.start.dtype)
        tokens = torch.arange(symbols).repeat(len(frontier))
        state, logits = model.step({"h": h.repeat_interleave(symbols, 0)}, tokens)
        successors = dfa.transitions[[pair[1] for pair in frontier]].reshape(-1)
        accept = torch.from_numpy(dfa.accepting[successors].astype(np.int64))
        right = strictly_correct(logits, accept).tolist()
        following = []
        for i, (row, q) in enumerate(zip(state["h"].tolist(), successors.tolist(), strict=True)):
            source, symbol = frontier[i // symbols], i % symbols
            if not right[i]:
                return _result(parent, (*_word(parent, source), symbol))
            pair = (tuple(row), q)
            if pair not in parent:
                parent[pair] = (source, symbol)
                following.append(pair)
        if len(parent) > PAIR_LIMIT:
            raise InputError(f"more than {PAIR_LIMIT} reachable (model, DFA) state pairs")
        frontier = following
    return _result(parent, None)


def _result(parent: dict[Pair, Any], counterexample: tuple[int, ...] | None) -> Exploration:
    states = {pair[0] for pair in parent}
    binary = all(v in (0.0, 1.0) for h in states for v in h)
    return Exploration(len(parent), len(states), counterexample is None, binary, counterexample)


def random_words(
    types: int, depth: int, length: int, samples: int, rng: np.random.Generator
) -> np.ndarray:
    """Thirds of uniform Dyck-(n,k) words, those words with one symbol replaced at random (near
    misses, mostly not members), and uniform random strings, shuffled: (samples, N) int64."""
    words = sample_dyck(types, depth, length, samples, rng)
    kinds = rng.permutation(np.arange(samples) % 3)
    near = np.flatnonzero(kinds == 1)
    words[near, rng.integers(0, length, size=near.size)] = rng.integers(0, 2 * types, near.size)
    rand = np.flatnonzero(kinds == 2)
    words[rand] = rng.integers(0, 2 * types, size=(rand.size, length))
    return words


@torch.no_grad()
def final_logits(model: DFARNN, words: torch.Tensor) -> torch.Tensor:
    """Logits (B, 2) after the last symbol of words (B, N), stepping without storing the rest."""
    state = model.initial_state(words.shape[0])
    for t in range(words.shape[1]):
        state, logits = model.step(state, words[:, t])
    return logits


def verify_dyck_rnn(types: int, depth: int, length: int, samples: int, seed: int) -> dict[str, Any]:
    """Build the DFA-RNN of the minimal complete DFA of Dyck-(n,k), prove it by :func:`explore`
    ("exhaustive": true when equivalent) and run it on ``random_words`` of length N against
    ``is_dyck``, all in finite precision (``integer_grid``)."""
    if types < 1 or depth < 1:
        raise InputError(f"Dyck-(n,k) needs n >= 1 types and depth k >= 1, got {types}, {depth}")
    if length % 2 or not 2 <= length <= LENGTH_LIMIT:
        raise InputError(f"Dyck words need an even length in 2..{LENGTH_LIMIT}, got {length}")
    if not 1 <= samples <= 10**6:
        raise InputError(f"samples must lie in 1..{10**6}, got {samples}")
    if seed < 0:
        raise InputError(f"seed must be >= 0, got {seed}")
    start = time.perf_counter()
    dfa = minimize(dyck_dfa(types, depth))
    model = DFARNN.from_dfa(dfa)
    fmt = integer_grid(model)
    model.set_precision(fmt)
    found = explore(model, dfa)
    words = random_words(types, depth, length, samples, np.random.default_rng(seed))
    members = torch.from_numpy(is_dyck(words, types, depth).astype(np.int64))
    right = strictly_correct(final_logits(model, torch.from_numpy(words)), members)
    return {
        "task": "dyck",
        "types": types,
        "depth": depth,
        "length": length,
        "samples": samples,
        "members": int(members.sum()),
        "seed": seed,
        "accuracy": float(right.float().mean()),
        "exhaustive": found.equivalent,
        "counterexample": None if found.counterexample is None else list(found.counterexample),
        "reachable_pairs": found.pairs,
        "model_states": found.model_states,
        "binary_states": found.binary_states,
        "states": dfa.n_states,
        "state_bits": model.state_numel(),
        "hidden": model.config.hidden,
        "precision": fmt.bits,
        "format": fmt.describe(),
        "seconds": round(time.perf_counter() - start, 2),
    }
