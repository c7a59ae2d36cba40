"""Theorem 4 of the separations paper (Sec. 4, App. D) run on the zoo's one-layer Transformer:
the two-way and single-output protocols, and the one-way variant of the mixture-of-parrots
paper (Lemma A.3, Thm 3.1).

The output is the model's logits at position N, computed from the per-head value sums U there.
Whoever holds N (the holder O; the other party is P) knows its token; the position N itself is
public (both know the partition).

**Two-way (Thm 4), any partition, any number of heads H; both parties output.** O sends its
token; then each party, for its own positions S and per head,

1. computes the logits A_N,i (i in S) and sends its largest, p bits; both get M = max;
2. computes Z_S = sum_S exp(A_N,i - M) (each term on the grid, in [0, 1]) and sends it exactly:
   a non-negative multiple of 2^-frac at most |S| <= N, sent in p + ceil(log2 N) bits;
3. both get Z = Q(Z_A + Z_B); computes U_S = sum_S Q(exp(A_N,i - M) / Z) v_i exactly and sends
   it: its 2^-2frac multiple has |raw| <= 2^frac (2^(p-1) - 1) since the floored weights sum to
   at most 1, so p + frac bits of two's complement per coordinate;
4. both finish: U = U_A + U_B, then W_O, residual, MLP and readout (``Transformer.finish``).

Bits: ``ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2 H dh (p + frac)``, dh = width / H the
paper's m.

**Single-output: only O outputs** (what a lower bound needs: one party must know the answer).
O sends its token; per head both maxima cross (2p); P sends Z_P exactly (p + ceil(log2 N)); O
sends the total Z = Q(Z_O + Z_P) on the grid (p bits), with which P rounds each of its weights
exactly as the model does; P sends U_P exactly (dh (p + frac)); O finishes. Bits:
``ceil(log2 V) + 2Hp + H(p + ceil(log2 N)) + Hp + H dh (p + frac)``. Both counts are
``ccomplexity.bounds.thm4_run_bits``; the widths of Thm 5 and Thm 12 rest on the single-output
one. Every sum is exact (models/base.py), so both equal ``forward(tokens)[:, -1]`` bit for bit.

**One-way (Lemma A.3).** The query position N is Bob's and its token is a fixed, public value,
as Lemma A.3 requires (every position outside Alice's and Bob's, the query included, is fixed
regardless of their inputs): both parties know it without communication, nothing is sent for
it, and every input carries it at N. Alice sends, per head, her largest logit M_A (p bits),
Z'_A = sum_A exp(A_N,i - M_A) exactly (p + ceil(log2 N) bits) and her own softmax mean
Q(sum_A exp(A_N,i - M_A) v_i / Z'_A), dh grid values (dh p bits): H((dh + 2) p + ceil(log2 N))
bits against the paper's H (m + 1) p. Bob rescales her part by exp(M_A - M) and finishes. This
is *not* bit-exact: the model rounds each weight exp(A_N,i - M) / Z, with the global M and Z,
onto the grid, and no fixed-size summary of Alice's side determines that sum of floors for every
(M, Z) Bob may hold. Its agreement is measured, never assumed.

Numbers are on the model's p-bit grid (floor rounding, ``frac`` fractional bits, default p // 2);
the softmax sum Z <= N must fit on the grid, N 2^frac <= 2^(p-1) - 1.

The two-way, single-output and one-way variants of Thm 4 stay in one module (about 630
lines): one runner, one set of partition and precision checks, one bit count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ccomplexity import bounds
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.precision import FixedPoint
from ccomplexity.problems import Partition
from ccomplexity.protocol import (
    decode_ints,
    decode_uints,
    encode_ints,
    encode_uints,
)
from models.transformer import Transformer
from simulations.protocols import harness
from simulations.protocols.requests import VARIANTS, AttentionProtocolRequest

QUERY, MAX, SUMS, TOTAL, VALUES, MEAN = (
    "query_token",
    "max_logit",
    "partial_softmax_sums",
    "softmax_sum",
    "partial_value_sums",
    "partial_value_mean",
)
TWO_WAY, SINGLE_OUTPUT, ONE_WAY = VARIANTS


@dataclass(frozen=True)
class Widths:
    """Bits of each number sent, known to both parties in advance."""

    token: int  # ceil(log2 V); grid values (maxima, Z, means) take p bits via FixedPoint.to_bits
    sums: int  # an exact partial softmax sum Z_S in [0, N]: p + ceil(log2 N)
    values: int  # an exact partial value sum's 2^-2frac multiple: p + frac

    @classmethod
    def of(cls, model: Transformer, fmt: FixedPoint, length: int) -> Widths:
        return cls(
            token=ceil_log2(model.config.vocab_size),
            sums=fmt.bits + ceil_log2(length),
            values=fmt.bits + fmt.frac,
        )


class _Keys(harness.Party):
    """Keys and values of one party's own positions; the logits once the query is known."""

    def __init__(
        self, model: Transformer, length: int, positions: tuple[int, ...], tokens: torch.Tensor
    ) -> None:
        self.model = model
        self.last = length - 1
        self.heads, self.head_dim = model.heads, model.head_dim
        self.positions = positions
        self.tokens = tokens  # (B, n)
        x = model.embed(tokens, torch.tensor(positions))  # (B, n, d)
        _, self.k, self.v = model.qkv(x)  # own keys and values, each (B, H, n, dh)

    def logits_of(self, q_last: torch.Tensor) -> torch.Tensor:
        """The logits of the query (B, H, 1, dh) against the own keys: (B, H, 1, n)."""
        return self.model.attention_logits(q_last, self.k)

    def set_query(self, token: torch.Tensor) -> None:
        """The token (B,) at position N: its residual stream and every head's logits here."""
        self.x_last = self.model.embed(token[:, None], torch.tensor([self.last]))  # (B, 1, d)
        self.logits = self.logits_of(self.model.qkv(self.x_last)[0])  # (B, H, 1, n)
        self.local_max = self.logits.amax(-1, keepdim=True)  # (B, H, 1, 1)


class _Side(_Keys):
    """A party in finite precision: its keys and values, and how its numbers are written."""

    def __init__(
        self, model: Transformer, length: int, positions: tuple[int, ...], tokens: torch.Tensor
    ) -> None:
        super().__init__(model, length, positions, tokens)
        self.fmt: FixedPoint = model.quant.fmt
        self.widths = Widths.of(model, self.fmt, length)

    def grid_bits(self, x: torch.Tensor) -> list[str]:
        """Grid values (B, ...) as p bits each, one string per input."""
        raw = harness.grid_raw(x.reshape(len(x), -1), self.fmt.frac).numpy()
        return self.fmt.to_bits_rows(raw)

    def read_grid(self, messages: list[str], shape: tuple[int, ...]) -> torch.Tensor:
        raw = self.fmt.from_bits_rows(messages, count=math.prod(shape))
        return (torch.from_numpy(raw).double() / 2.0**self.fmt.frac).reshape(-1, *shape)

    def sums_bits(self, z: torch.Tensor) -> list[str]:
        """Exact partial softmax sums (B, H, 1, 1), unsigned."""
        raw = harness.grid_raw(z.reshape(len(z), -1), self.fmt.frac).tolist()
        return [encode_uints(row, self.widths.sums) for row in raw]

    def read_sums(self, messages: list[str]) -> torch.Tensor:
        raw = [decode_uints(bits, self.widths.sums, self.heads) for bits in messages]
        return (torch.tensor(raw, dtype=torch.float64) / 2.0**self.fmt.frac)[:, :, None, None]

    def finish(self, u: torch.Tensor) -> torch.Tensor:
        """Logits (B, n_out) from the value sums u (B, H, 1, dh) at position N."""
        return self.model.finish(self.x_last[:, 0], u[:, :, 0])


class Thm4Party(_Side, harness.OutputParty):
    """A party of Theorem 4 (two-way or single-output; the schedule says which): holds the
    tokens at ``positions`` (0-based) only."""

    def __init__(
        self, model: Transformer, length: int, positions: tuple[int, ...], tokens: torch.Tensor
    ) -> None:
        super().__init__(model, length, positions, tokens)
        if self.last in positions:
            self.set_query(tokens[:, positions.index(self.last)])

    def attend(self, z: torch.Tensor) -> None:
        """With the full softmax sum Z (B, H, 1, 1): this side's exact value sums."""
        self.z = z
        self.u_own = self.model.value_sums(self.numerators, z, self.v)  # exact, (B, H, 1, dh)

    def send(self, step: str) -> list[str]:
        if step == QUERY:
            token = self.tokens[:, self.positions.index(self.last)]
            return [encode_uints([t], self.widths.token) for t in token.tolist()]
        if step == MAX:
            return self.grid_bits(self.local_max)
        if step == SUMS:
            return self.sums_bits(self.z_own)
        if step == TOTAL:
            return self.grid_bits(self.z)
        if step == VALUES:
            raw = harness.grid_raw(self.u_own.reshape(len(self.u_own), -1), 2 * self.fmt.frac)
            return [encode_ints(row, self.widths.values) for row in raw.tolist()]
        return super().send(step)

    def receive(self, step: str, messages: list[str]) -> None:
        if step == QUERY:
            tokens = [decode_uints(bits, self.widths.token, 1)[0] for bits in messages]
            self.set_query(torch.tensor(tokens))
        elif step == MAX:
            other = self.read_grid(messages, (self.heads, 1, 1))
            e = self.model.softmax_numerators(self.logits, torch.maximum(self.local_max, other))
            self.numerators = e  # (B, H, 1, n), in [0, 1]
            self.z_own = e.sum(-1, keepdim=True)  # exact
        elif step == SUMS:
            self.attend(self.model.q(self.z_own + self.read_sums(messages)))
        elif step == TOTAL:
            self.attend(self.read_grid(messages, (self.heads, 1, 1)))
        elif step == VALUES:
            count = self.heads * self.head_dim
            raw = [decode_ints(bits, self.widths.values, count) for bits in messages]
            other = torch.tensor(raw, dtype=torch.float64) / 2.0 ** (2 * self.fmt.frac)
            self.u = self.u_own + other.reshape(self.u_own.shape)  # exact
        else:
            super().receive(step, messages)

    def output(self) -> torch.Tensor:
        return self.finish(self.u)


class OneWayAlice(_Side):
    """Alice of Lemma A.3: her positions' tokens and the public query token; sends a summary."""

    def __init__(
        self,
        model: Transformer,
        length: int,
        positions: tuple[int, ...],
        tokens: torch.Tensor,
        query_token: int,
    ) -> None:
        super().__init__(model, length, positions, tokens)
        self.set_query(torch.full((len(tokens),), query_token, dtype=torch.long))
        e = model.softmax_numerators(self.logits, self.local_max)  # relative to her own max
        self.z_own = e.sum(-1, keepdim=True)  # >= 1: her largest logit contributes exp(0)
        self.mean = model.q((e @ self.v) / self.z_own)  # her softmax mean, (B, H, 1, dh)

    def send(self, step: str) -> list[str]:
        if step == MAX:
            return self.grid_bits(self.local_max)
        if step == SUMS:
            return self.sums_bits(self.z_own)
        if step == MEAN:
            return self.grid_bits(self.mean)
        return super().send(step)


class OneWayBob(_Side, harness.OutputParty):
    """Bob of Lemma A.3: holds his positions, among them the query N; combines and outputs."""

    def __init__(
        self, model: Transformer, length: int, positions: tuple[int, ...], tokens: torch.Tensor
    ) -> None:
        super().__init__(model, length, positions, tokens)
        self.set_query(tokens[:, positions.index(self.last)])

    def receive(self, step: str, messages: list[str]) -> None:
        if step == MAX:
            self.alice_max = self.read_grid(messages, (self.heads, 1, 1))
        elif step == SUMS:
            self.alice_z = self.read_sums(messages)
        elif step == MEAN:
            self.alice_mean = self.read_grid(messages, (self.heads, 1, self.head_dim))
        else:
            super().receive(step, messages)

    def output(self) -> torch.Tensor:
        model = self.model
        m = torch.maximum(self.alice_max, self.local_max)
        # Alice's numerators were taken against M_A <= M: rescale by exp(M_A - M), on the grid
        z_alice = model.q(model.softmax_numerators(self.alice_max, m) * self.alice_z)
        e = model.softmax_numerators(self.logits, m)
        z = model.q(z_alice + e.sum(-1, keepdim=True))
        u = model.value_sums(e, z, self.v) + (z_alice / z) * self.alice_mean
        return self.finish(u)


class HeldParty(_Keys, harness.OutputParty):
    """A party of Theorem 4 for a transformer trained at p bits (two-way or single-output):
    its logits, softmax numerators and value terms are grid values
    (:meth:`models.transformer.Transformer.held_sums`), so its maxima cross in p bits each and
    its partial sums Z_S and U_S exactly, p + ceil(log2 N) bits per number; the holder of N
    sends its token first. Both (or the holder alone) then finish as the model does: U / Z, W_O,
    residual, MLP and readout."""

    def __init__(
        self,
        model: Transformer,
        length: int,
        positions: tuple[int, ...],
        tokens: torch.Tensor,
        numbers: harness.Numbers,
    ) -> None:
        super().__init__(model, length, positions, tokens)
        self.numbers = numbers
        self.token_bits = ceil_log2(model.config.vocab_size)
        self.sum_bits = numbers.bits + ceil_log2(length)
        if self.last in positions:
            self.set_query(tokens[:, positions.index(self.last)])

    def logits_of(self, q_last: torch.Tensor) -> torch.Tensor:
        return self.model.held_logits(q_last, self.k)  # on the message grid

    def _codes(self, x: torch.Tensor) -> torch.Tensor:
        return self.numbers.codes(x.reshape(len(x), -1))

    def send(self, step: str) -> list[str]:
        if step == QUERY:
            token = self.tokens[:, self.positions.index(self.last)]
            return [encode_uints([t], self.token_bits) for t in token.tolist()]
        if step == MAX:
            return self.numbers.encode(self._codes(self.local_max))
        if step == SUMS:
            return self.numbers.encode(self._codes(self.z_own), self.sum_bits)
        if step == VALUES:
            return self.numbers.encode(self._codes(self.u_own), self.sum_bits)
        return super().send(step)

    def receive(self, step: str, messages: list[str]) -> None:
        heads, dh = self.heads, self.head_dim
        if step == QUERY:
            tokens = [decode_uints(bits, self.token_bits, 1)[0] for bits in messages]
            self.set_query(torch.tensor(tokens))
        elif step == MAX:
            other = self.numbers.values(self.numbers.decode(messages, heads))
            top = torch.maximum(self.local_max, other.reshape(-1, heads, 1, 1))
            self.z_own, self.u_own = self.model.held_sums(self.logits, top, self.v)
        elif step == SUMS:
            codes = self.numbers.decode(messages, heads, self.sum_bits)
            self.z_other = self.numbers.values(codes).reshape(-1, heads, 1, 1)
        elif step == VALUES:
            codes = self.numbers.decode(messages, heads * dh, self.sum_bits)
            self.u_other = self.numbers.values(codes).reshape(-1, heads, 1, dh)
        else:
            super().receive(step, messages)

    def output(self) -> torch.Tensor:
        z, u = self.z_own + self.z_other, self.u_own + self.u_other  # exact sums
        return self.model.finish(self.x_last[:, 0], (u / z)[:, :, 0])


# ----------------------------------------------------------------------------- set-up and runs


def resolve_partition(spec: str, length: int, seed: int) -> Partition:
    """``random``: Alice gets floor(N/2) positions drawn from 1..N-1 by numpy's generator of
    ``seed`` (N stays Bob's, so the one-way variant accepts it); other specs as
    :meth:`Partition.parse`. Returned resolved to an explicit ``alice:i,j,...`` spec."""
    if spec == "random":
        if length < 2:
            raise InputError(f"a partition needs length >= 2, got {length}")
        chosen = np.random.default_rng(seed).choice(length - 1, size=length // 2, replace=False)
        spec = "alice:" + ",".join(str(i + 1) for i in sorted(chosen.tolist()))
    part = Partition.parse(spec, length)
    return Partition.parse("alice:" + ",".join(str(i + 1) for i in part.alice), length)


def setup(
    model: Transformer,
    partition: Partition,
    inputs: torch.Tensor,
    numbers: harness.Numbers,
    variant: str = TWO_WAY,
    query_token: int | None = None,
) -> harness.Setup:
    """Each party gets the tokens of its own positions only (and, one-way, the public query
    token, which every input must carry at N)."""
    if variant not in VARIANTS:
        raise InputError(f"unknown protocol variant {variant!r}; choose one of {VARIANTS}")
    length = inputs.shape[1]
    last = length - 1
    alice_tokens = inputs[:, list(partition.alice)].clone()
    bob_tokens = inputs[:, list(partition.bob)].clone()
    if numbers.held:
        return _held_setup(model, partition, alice_tokens, bob_tokens, numbers, variant)
    if variant == ONE_WAY:
        check_one_way(partition, length, query_token)
        if not bool((inputs[:, last] == query_token).all()):
            raise InputError(
                f"one-way attention protocol: every input must carry the public query token "
                f"{query_token} at N = {length}"
            )
        alice = OneWayAlice(model, length, partition.alice, alice_tokens, query_token)
        bob = OneWayBob(model, length, partition.bob, bob_tokens)
        schedule = tuple(("alice", "bob", step) for step in (MAX, SUMS, MEAN))
        return harness.Setup({"alice": alice, "bob": bob}, schedule, ("bob",))
    alice = Thm4Party(model, length, partition.alice, alice_tokens)
    bob = Thm4Party(model, length, partition.bob, bob_tokens)
    o, p = ("alice", "bob") if last in partition.alice else ("bob", "alice")
    if variant == TWO_WAY:
        steps = tuple(pair for step in (MAX, SUMS, VALUES) for pair in ((o, p, step), (p, o, step)))
        schedule, outputs = ((o, p, QUERY), *steps), ("alice", "bob")
    else:  # single-output: only the holder of N outputs
        schedule = (
            (o, p, QUERY), (o, p, MAX), (p, o, MAX), (p, o, SUMS), (o, p, TOTAL), (p, o, VALUES)
        )  # fmt: skip
        outputs = (o,)
    return harness.Setup({"alice": alice, "bob": bob}, schedule, outputs)


def _held_setup(
    model: Transformer,
    partition: Partition,
    alice_tokens: torch.Tensor,
    bob_tokens: torch.Tensor,
    numbers: harness.Numbers,
    variant: str,
) -> harness.Setup:
    """The parties of a model trained at p bits (:class:`HeldParty`): two-way, both send their
    maxima and both partial sums; single-output, the other party sends its partial sums only."""
    if variant == ONE_WAY:
        raise InputError(
            "a model trained at p bits runs the two-way or the single-output protocol: its "
            "numerators are held against the global maximum, which one message cannot carry"
        )
    length = len(partition.alice) + len(partition.bob)
    alice = HeldParty(model, length, partition.alice, alice_tokens, numbers)
    bob = HeldParty(model, length, partition.bob, bob_tokens, numbers)
    o, p = ("alice", "bob") if length - 1 in partition.alice else ("bob", "alice")
    if variant == TWO_WAY:
        steps = tuple(pair for step in (MAX, SUMS, VALUES) for pair in ((o, p, step), (p, o, step)))
        schedule, outputs = ((o, p, QUERY), *steps), ("alice", "bob")
    else:  # single-output: the other party sends its sums only
        schedule = ((o, p, QUERY), (o, p, MAX), (p, o, MAX), (p, o, SUMS), (p, o, VALUES))
        outputs = (o,)
    return harness.Setup({"alice": alice, "bob": bob}, schedule, outputs)


def check_one_way(partition: Partition, length: int, query_token: int | None) -> None:
    if length - 1 not in partition.bob:
        raise InputError(
            f"one-way attention protocol: the query position N = {length} must be Bob's; "
            f"partition {partition.spec} gives it to Alice"
        )
    if isinstance(query_token, bool) or not isinstance(query_token, int) or query_token < 0:
        raise InputError(
            f"one-way attention protocol: the public query token must be a token, got "
            f"{query_token!r}"
        )


def check(layers: int, length: int, numbers: harness.Numbers) -> None:
    """One layer, and (finite precision) a softmax sum Z <= N that fits on the grid; a model
    trained at p bits sends its sums exactly, whatever N."""
    if layers != 1:
        raise InputError(
            f"the attention protocol simulates one-layer Transformers (Thm 4), got layers={layers}"
        )
    if numbers.held:
        return
    fmt = FixedPoint(numbers.bits, numbers.frac)
    if length * (1 << fmt.frac) > fmt.max_raw:
        raise InputError(
            f"the softmax sum Z <= N = {length} must fit on the grid: need N * 2^frac <= "
            f"2^(p-1) - 1 = {fmt.max_raw}; lower frac (got {fmt.frac}) or raise precision"
        )


HELD_FORMULAS = {
    TWO_WAY: "ceil(log2 V) + 2 H p + 2 H (1 + dh) (p + ceil(log2 N))",
    SINGLE_OUTPUT: "ceil(log2 V) + 2 H p + H (1 + dh) (p + ceil(log2 N))",
}
"""The bits a model trained at p bits sends (``ccomplexity.bounds.thm4_held_bits``)."""
FORMULAS = {
    TWO_WAY: "ceil(log2 V) + 2 H p + 2 H (p + ceil(log2 N)) + 2 H dh (p + frac)",
    SINGLE_OUTPUT: "ceil(log2 V) + 2 H p + H (p + ceil(log2 N)) + H p + H dh (p + frac)",
    ONE_WAY: "H p + H (p + ceil(log2 N)) + H dh p (the query token is public)",
}
COUNTS = {
    "bits_sent": "bits on the channel in the longest run (every run sends the same)",
    "bits_by_step": "bits_sent per protocol step",
    "bits_run_count": "ccomplexity.bounds.thm4_run_bits at this run's frac and vocabulary "
    "(None one-way); Thm 5 and Thm 12 rest on its single-output count at frac = p",
    "bits_paper_formula": "the paper's closed form: Thm 4's 3 m (p + log2 N) H, or Lemma A.3's "
    "H (m + 1) p one-way; m = dh = width / H",
    "bits_paper_itemised": "the paper's steps itemised (Thm 4, spec erratum 1; Lemma A.3)",
}
"""What each bit count of a run's result is."""


def paper_bits(
    head_dim: int, width: int, precision: int, length: int, heads: int, one_way: bool
) -> tuple[float, dict[str, float]]:
    """The paper's closed form and its itemised count (Thm 4, or Lemma A.3's H (m + 1) p)."""
    if one_way:
        z, values = heads * precision, heads * head_dim * precision
        return float(z + values), {
            "Z_A": float(z),
            "L_A": float(values),
            "total": float(z + values),
        }
    itemised = bounds.thm4_itemised(head_dim, width, precision, length, heads).breakdown()
    return float(bounds.thm4_closed_form(head_dim, precision, length, heads)), itemised


def transformer_source(
    width: int | None,
    heads: int | None,
    length: int | None,
    seed: int,
    layers: int = 1,
    vocab_size: int = 8,
    layer_norm: bool = True,
    checkpoint: str | None = None,
    n_out: int | None = None,
) -> harness.Source:
    """A transformer with positions up to ``length``: seeded (``max_length`` = N), or the
    trained one of ``checkpoint`` (width and heads given beside it must be its own)."""
    if checkpoint is None:
        config = {"vocab_size": vocab_size, "n_out": n_out, "width": width, "heads": heads,
                  "layers": layers, "max_length": length, "layer_norm": layer_norm}  # fmt: skip
        return harness.model_source("transformer", config, seed)
    source = harness.model_source(None, None, seed, checkpoint)
    if source.name != "transformer":
        raise InputError(f"checkpoint {checkpoint} holds a {source.name}, not a transformer")
    source.agree(width=width, heads=heads)
    if length is not None and source.model.config.max_length < length:
        raise InputError(
            f"checkpoint {checkpoint} has positions up to {source.model.config.max_length} "
            f"only, not N = {length}"
        )
    return source


def run_attention_protocol(request: AttentionProtocolRequest) -> dict[str, Any]:
    """Run Theorem 4's protocol (``variant`` two-way or single-output) or the one-way variant on
    ``request.samples`` random inputs.

    The model is a one-layer ``transformer`` (max_length = N) initialised after
    ``torch.manual_seed(seed)``, on the p-bit grid (``frac`` default p // 2, floor rounding),
    or, with a checkpoint, the trained transformer saved there (its width, heads, layers,
    vocabulary and, unless given, its N read from it); a model trained at p bits runs as it
    trained, on its message grid (:class:`HeldParty`). Inputs are uniform tokens from
    ``numpy.random.default_rng(seed)``; one-way, each carries the public ``query_token`` at N.
    ``partition`` is prefix:K, odd-even, alice:i,j,... or random (see
    :func:`resolve_partition`).
    """
    r = request
    source = transformer_source(
        r.width, r.heads, r.length, r.seed, r.layers, r.vocab_size, r.layer_norm, r.checkpoint
    )
    model, cfg = source.model, source.model.config
    length = source.length(r.length)
    harness.check_run(r.samples, length, model)
    numbers = harness.hold_numbers(source, r.precision, r.frac)
    check(cfg.layers, length, numbers)
    part = resolve_partition(r.partition, length, r.seed)
    one_way = r.variant == ONE_WAY
    public = r.query_token if one_way else None
    if one_way:
        check_one_way(part, length, r.query_token)
        if r.query_token >= cfg.vocab_size:
            raise InputError(
                f"the public query token must be below the vocabulary {cfg.vocab_size}"
            )
    inputs = harness.random_tokens(r.samples, length, cfg.vocab_size, r.seed)
    if one_way:
        inputs[:, -1] = r.query_token
    with torch.no_grad():
        protocol = setup(model, part, inputs, numbers, r.variant, public)
        transcripts, outputs = harness.run(protocol, r.samples)
        scores = harness.compare(outputs, model(inputs)[:, -1])
    result = {
        "variant": r.variant, "width": cfg.width, "heads": cfg.heads,
        "head_dim": model.head_dim, "layers": cfg.layers, "layer_norm": cfg.layer_norm,
        "vocab_size": cfg.vocab_size, "length": length, "partition": r.partition,
        "partition_resolved": part.spec,
        "query_owner": "alice" if length - 1 in part.alice else "bob",
        "query": "public" if one_way else "sent", "query_token": public,
        "outputs": list(outputs), "precision": numbers.bits, "frac": numbers.frac,
        "grid": numbers.description, "samples": r.samples, "seed": r.seed,
        "checkpoint": r.checkpoint,
        **harness.worst_transcript(transcripts),
        **bit_counts(model, numbers, length, r.variant),
        **scores,
        "bound": harness.trained_bound(source, length, numbers.bits),
    }  # fmt: skip
    if r.certificate:
        protocol_section = {"partition": part.spec, "variant": r.variant, "query_token": public}
        claim = {k: result[k] for k in ("bits_sent", "one_way", "samples", *scores)}
        result["certificate"] = harness.certificate(
            "protocol_attention",
            source.description,
            numbers,
            protocol_section,
            inputs,
            transcripts,
            outputs,
            claim,
        )
    return result


def bit_counts(
    model: Transformer, numbers: harness.Numbers, length: int, variant: str
) -> dict[str, Any]:
    """The bit counts a run reports beside what it sent (:data:`COUNTS`)."""
    cfg, one_way = model.config, variant == ONE_WAY
    formula, itemised = paper_bits(
        model.head_dim, cfg.width, numbers.bits, length, cfg.heads, one_way
    )
    run_count = None
    if numbers.held:
        run_count = bounds.thm4_held_bits(
            model.head_dim,
            cfg.heads,
            numbers.bits,
            length,
            alphabet=cfg.vocab_size,
            single_output=variant == SINGLE_OUTPUT,
        )["total"]
    elif not one_way:
        run_count = bounds.thm4_run_bits(
            model.head_dim,
            cfg.heads,
            numbers.bits,
            length,
            frac=numbers.frac,
            alphabet=cfg.vocab_size,
            single_output=variant == SINGLE_OUTPUT,
        )["total"]
    return {
        "bits_formula": HELD_FORMULAS[variant] if numbers.held else FORMULAS[variant],
        "bits_run_count": run_count,
        "bits_paper_formula": formula,
        "bits_paper_itemised": itemised,
        "counts": COUNTS,
    }


def replay_setup(
    model: Transformer, protocol: dict[str, Any], inputs: torch.Tensor, numbers: harness.Numbers
) -> harness.Setup:
    """The setup a certificate's ``protocol`` section {"partition", "variant", "query_token"}
    describes."""
    check(model.config.layers, inputs.shape[1], numbers)
    part = Partition.parse(protocol["partition"], inputs.shape[1])
    return setup(model, part, inputs, numbers, protocol["variant"], protocol["query_token"])
