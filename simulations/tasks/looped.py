"""The tasks of the looped-reasoning paper (Sec. 2.1, 3.1; App. A.1; spec section 1).

Every sample is labelled or checked by the exact oracle of ``ccomplexity``; a sample the oracle
disagrees with is a bug and raises. ``N`` is each task's length parameter.

* ``p-hop`` (Def. A.1): N symbols over |Sigma| = ``alphabet`` (4); the target at the last position
  is hop_p(v) with p = ``hops``. ``generator="planted"`` (the paper's, App. A.1) plants the chain:
  the hop symbols t_0..t_p (consecutive ones differ) are placed as t_0 at position N and p
  disjoint pairs (t_k, t_k+1) at uniformly random places in order, and each filler between hop k's
  pair and position i_k avoids t_k, so that find_1 follows exactly the planted chain and the
  answer is t_p (N >= 2p + 1). ``generator="uniform"`` draws uniform symbols and labels them with
  the oracle (⊥ is class |Sigma|). ``strict`` selects the j < i variant of find_1.
* ``group-composition`` (Sec. 2.2.2): ``#, g_1, ..., g_N`` with uniform g_i of ``group`` (S5);
  the target at the last position is g_1 ∘ ... ∘ g_N. Tokens: elements 0..|G|-1, # = |G|. In
  training the first N - k elements are the identity e, k uniform in 1..N: a word of length k
  padded on the left with e, whose product is the same (the theorem's task has no training
  distribution; this one gives short, easy words first place in every batch). Evaluation draws
  all N elements uniformly.
* ``addition`` (Sec. 2.1): ``a_1+...+a_n=`` then the sum and ``$``, operands of 3 digits
  (``digits``: fewer make the CPU-scale task); each
  answer token is predicted from the one before (teacher forcing), so a sequence is right iff
  greedy decoding writes the whole sum. Training draws n uniformly from the paper's mixture
  {2, 4, 8, 16, 32} (those <= N); evaluation uses exactly n = N operands, and at the end of
  training also n = N/4, N/2, 3N/4: for N = 32 the paper's 8, 16, 24 (24 never trained on).
  ``reverse`` writes the sum least significant digit first. Sequences are left-aligned and
  padded after.
* ``var-assign`` (Sec. 3.1): N statements ``x=y,`` over distinct variables, then the query
  ``q=``; the query resolves through exactly ``depth`` references to a digit (the target at the
  last ``=``); the other statements assign digits or earlier variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from ccomplexity.groups import get_group
from ccomplexity.languages import arithmetic, assignment
from ccomplexity.languages.hops import hop_chain, hop_p
from simulations.tasks.base import Batch, Task, at_positions, options, uniform_int

# --- p-hop induction (Def. A.1, App. A.1) -------------------------------------------------------


def other_symbol(avoid: Tensor, alphabet: int, g: torch.Generator) -> Tensor:
    """A uniform symbol different from ``avoid`` (elementwise)."""
    shift = torch.randint(1, alphabet, avoid.shape, generator=g)
    return (avoid + shift) % alphabet


def planted_phop(
    batch: int, n: int, p: int, alphabet: int, strict: bool, g: torch.Generator
) -> tuple[Tensor, Tensor, Tensor]:
    """(words (B, N), answers (B,), chain positions (B, p + 1), 1-based) of the App. A.1
    generator, described in the module docstring."""
    t = [torch.randint(0, alphabet, (batch,), generator=g)]
    for _ in range(p):
        t.append(other_symbol(t[-1], alphabet, g))
    hop_symbols = torch.stack(t, dim=1)  # t_0 .. t_p
    # p disjoint pairs in positions 1..N-1: p sorted distinct values of 0..N-2-p, pair j (from
    # the left) starting at value + j + 1; the leftmost pair is hop p - 1's
    starts = torch.rand(batch, n - 1 - p, generator=g).argsort(dim=1)[:, :p].sort(dim=1).values
    starts = starts + torch.arange(p) + 1
    right = (starts + 1).flip(1)  # i_1 .. i_p: right element of hop k's pair is i_{k+1}
    chain = torch.cat([torch.full((batch, 1), n), right], dim=1)  # i_0 .. i_p
    col = torch.arange(1, n + 1)
    # hop window of each position: k with i_{k+1} < x < i_k (k = p: left of every window)
    # (position N itself, k = -1, is overwritten with t_0 below)
    k = ((chain[:, None, :] > col[None, :, None]).sum(dim=2) - 1).clamp(0, p)
    constrained = k < p
    if strict:  # find_1 with j < i never looks at position i_k - 1
        constrained &= col[None, :] != chain.gather(1, k) - 1
    avoid = hop_symbols.gather(1, k)
    free = torch.randint(0, alphabet, (batch, n), generator=g)
    words = torch.where(constrained, other_symbol(avoid, alphabet, g), free)
    rows = torch.arange(batch)[:, None]
    words[rows, chain[:, :1] - 1] = hop_symbols[:, :1]
    words[rows, right - 2] = hop_symbols[:, :-1]  # left element of hop k's pair: t_k
    words[rows, right - 1] = hop_symbols[:, 1:]  # right element: t_{k+1}
    return words, hop_symbols[:, -1], chain


@dataclass(frozen=True)
class PHopTask(Task):
    """p-hop induction: symbols 0..|Sigma|-1; classes the symbols (and ⊥ = |Sigma| when the
    generator is uniform). Every sequence has length exactly N."""

    alphabet: int = 4
    hops: int = 1
    strict: bool = False
    generator: str = "planted"

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        if self.generator == "planted" and n < 2 * self.hops + 1:
            raise InputError(
                f"p-hop: the planted generator needs length >= 2p + 1 = {2 * self.hops + 1}, "
                f"got {n}"
            )
        return n

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        if self.generator == "planted":
            words, answers, chain = planted_phop(
                batch, length, self.hops, self.alphabet, self.strict, g
            )
            found = hop_chain(words.numpy(), self.hops, self.strict)
            if not np.array_equal(found, chain.numpy()):
                raise RuntimeError("p-hop generator: a planted chain differs from the oracle's")
        else:
            words = torch.randint(0, self.alphabet, (batch, length), generator=g)
            answers = torch.from_numpy(hop_p(words.numpy(), self.hops, self.strict))
            answers = torch.where(answers < 0, self.alphabet, answers)
        last = torch.full((batch,), length - 1)
        targets, mask = at_positions(batch, length, last, answers)
        return words, targets, mask


# --- group composition (Sec. 2.2.2) -------------------------------------------------------------


@dataclass(frozen=True)
class GroupCompositionTask(Task):
    """``#, g_1..g_N`` -> g_1 ∘ ... ∘ g_N (classes: the |G| elements)."""

    group: str = "S5"

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        group = get_group(self.group)
        words = torch.randint(0, group.order, (batch, length), generator=g)
        if train:  # the first N - k elements are e: a shorter word in the same positions
            k = uniform_int(1, length, batch, g)
            words = torch.where(torch.arange(length) < length - k[:, None], group.identity, words)
        answers = torch.from_numpy(group.compose(words.numpy()))
        tokens = torch.cat([torch.full((batch, 1), group.order), words], dim=1)
        targets, mask = at_positions(batch, length + 1, torch.full((batch,), length), answers)
        return tokens, targets, mask

    def render(self, tokens: list[int]) -> str:
        group = get_group(self.group)
        return " ".join("#" if t == group.order else group.element_name(t) for t in tokens)


# --- n-ary addition (Sec. 2.1) ------------------------------------------------------------------

TRAIN_OPERANDS = (2, 4, 8, 16, 32)
"""The paper's training mixture of operand counts (those <= N are used)."""


@dataclass(frozen=True)
class AdditionTask(Task):
    """Tokens 0-9, ``+`` (10), ``=`` (11), ``$`` (12), [pad] (13); classes the digits and $."""

    reverse: bool = False
    digits: int = arithmetic.DIGITS

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        if n < 2:
            raise InputError(f"addition needs at least 2 operands, got {n}")
        return n

    def eval_lengths(self, length: int) -> tuple[int, ...]:
        """N/4, N/2 and 3N/4 (those >= 2): for N = 32 the paper's 8, 16, 24 (24 never trained
        on); for N = 8, 2, 4 and 6."""
        return tuple(sorted({q * length // 4 for q in (1, 2, 3) if q * length // 4 >= 2}))

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        if train:
            mixture = torch.tensor([n for n in TRAIN_OPERANDS if n <= length] or [length])
            counts = mixture[torch.randint(0, len(mixture), (batch,), generator=g)]
        else:
            counts = torch.full((batch,), length)
        values = torch.randint(0, 10**self.digits, (batch, length), generator=g)
        rows = [
            arithmetic.encode(values[b, : counts[b]].numpy()[None], self.reverse, self.digits)[0]
            for b in range(batch)
        ]
        tokens = torch.full((batch, self.max_tokens), self.pad)
        targets = torch.zeros(batch, self.max_tokens, dtype=torch.long)
        mask = torch.zeros(batch, self.max_tokens, dtype=torch.bool)
        for b, row in enumerate(rows):
            tokens[b, : len(row)] = torch.tensor(row)
            start = row.index(arithmetic.EQUALS)
            targets[b, start : len(row) - 1] = torch.tensor(row[start + 1 :])
            mask[b, start : len(row) - 1] = True
        return tokens, targets, mask

    def render(self, tokens: list[int]) -> str:
        return "".join(arithmetic.TOKEN_NAMES[t] for t in tokens if t != self.pad)


# --- variable assignment (Sec. 3.1) -------------------------------------------------------------


def assignment_program(
    statements: int, depth: int, variables: int, rng: np.random.Generator
) -> tuple[list[int], int]:
    """One program of ``statements`` statements whose query resolves at exactly ``depth`` (the
    chain x_0 = digit, x_1 = x_0, ..., placed in order among distractors), and its answer."""
    vocab = assignment.Vocabulary(variables)
    names = rng.permutation(variables)[:statements]
    chain_at = np.sort(rng.choice(statements, depth + 1, replace=False))
    chain_vars = names[: depth + 1]
    others = iter(names[depth + 1 :])
    tokens: list[int] = []
    defined: list[int] = []
    link = 0
    for k in range(statements):
        if link <= depth and k == chain_at[link]:
            x = int(chain_vars[link])
            y = vocab.digit0 + int(rng.integers(10)) if link == 0 else int(chain_vars[link - 1])
            link += 1
        else:
            x = int(next(others))
            refer = bool(defined) and rng.random() < 0.5
            y = int(rng.choice(defined)) if refer else vocab.digit0 + int(rng.integers(10))
        tokens += [x, vocab.equals, y, vocab.comma]
        defined.append(x)
    tokens += [int(chain_vars[depth]), vocab.equals]
    answer, found = assignment.resolve(tokens, variables)
    if found != depth:
        raise RuntimeError("var-assign generator: the query's depth differs from the plan")
    return tokens, answer


@dataclass(frozen=True)
class VarAssignTask(Task):
    """N statements then the query; classes the digits 0..9."""

    depth: int = 1
    variables: int = 26

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        if not self.depth + 1 <= n <= self.variables:
            raise InputError(
                f"var-assign: length (statements) must lie in {self.depth + 1}..{self.variables}"
                f" (depth {self.depth} needs depth + 1, each variable is assigned once), got {n}"
            )
        return n

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        seed = int(torch.randint(0, 2**62, (1,), generator=g))
        rng = np.random.default_rng(seed)
        rows = [assignment_program(length, self.depth, self.variables, rng) for _ in range(batch)]
        tokens = torch.tensor([r[0] for r in rows])
        answers = torch.tensor([r[1] for r in rows])
        last = torch.full((batch,), tokens.shape[1] - 1)
        targets, mask = at_positions(batch, tokens.shape[1], last, answers)
        return tokens, targets, mask

    def render(self, tokens: list[int]) -> str:
        return assignment.render(tokens, self.variables)


# --- builders -----------------------------------------------------------------------------------


def _phop(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"alphabet": 4, "hops": 1, "strict": False, "generator": "planted"})
    a = limits.ALPHABET.check(o["alphabet"], "alphabet")
    p = limits.HOPS.check(o["hops"], "hops")
    if not isinstance(o["strict"], bool):
        raise InputError(f"p-hop strict must be true or false, got {o['strict']!r}")
    if o["generator"] not in ("planted", "uniform"):
        raise InputError(f"p-hop generator must be planted or uniform, got {o['generator']!r}")
    classes = a + (o["generator"] == "uniform")
    return PHopTask(name, a, classes, n, n, None, a, p, o["strict"], o["generator"])


def _group(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"group": "S5"})
    group = get_group(o["group"])
    return GroupCompositionTask(name, group.order + 1, group.order, n, n + 1, None, group.name)


def _addition(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"reverse": False, "digits": arithmetic.DIGITS})
    if not isinstance(o["reverse"], bool):
        raise InputError(f"addition reverse must be true or false, got {o['reverse']!r}")
    d = check_int(o["digits"], "addition digits", 1, arithmetic.DIGITS_MOST)
    longest = (d + 1) * n + arithmetic.answer_width(n, d) + 1  # operands, '+'s, '=', sum, '$'
    return AdditionTask(name, 14, 13, n, longest, 13, o["reverse"], d)


def _var_assign(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"depth": 1, "variables": 26})
    depth = check_int(o["depth"], "depth", 0, n, "use a depth at most the length")
    v = check_int(o["variables"], "variables", 1, limits.VOCAB.most, limits.VOCAB.instead)
    return VarAssignTask(name, v + 12, 10, n, 4 * n + 2, None, depth, v)


BUILDERS = {
    "p-hop": _phop,
    "group-composition": _group,
    "addition": _addition,
    "var-assign": _var_assign,
}
"""Task name -> builder(name, max_length, options); options: p-hop ``alphabet`` (4), ``hops``
(1), ``strict`` (false), ``generator`` ("planted" or "uniform"); group-composition ``group``
("S5"); addition ``reverse`` (false) and ``digits`` (3); var-assign ``depth`` (1),
``variables`` (26)."""
