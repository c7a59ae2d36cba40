"""Theorem 4 of the separations paper (Sec. 4, App. D) run on the zoo's one-layer Transformer,
and the one-way variant of the mixture-of-parrots paper (Lemma A.3, Thm 3.1).

**Two-way (Thm 4), any partition, any number of heads H.** The output is the model's logits at
position N. Whoever holds N sends its token (the position N is public: both know the partition);
then each party, for its own positions S and per head,

1. computes the logits A_N,i (i in S) and sends its largest, p bits; both get M = max;
2. computes Z_S = sum_S exp(A_N,i - M) (each term on the grid, in [0, 1]) and sends it exactly:
   a non-negative multiple of 2^-frac at most |S| <= N, sent in p + ceil(log2 N) bits;
3. both get Z = Q(Z_A + Z_B); computes U_S = sum_S Q(exp(A_N,i - M) / Z) v_i exactly and sends
   it: its 2^-2frac multiple has |raw| <= 2^frac (2^(p-1) - 1) since the floored weights sum to
   at most 1, so p + frac bits of two's complement per coordinate;
4. both finish: U = U_A + U_B, then W_O, residual, MLP and readout (``Transformer.finish``).

Every sum is exact (models/base.py), so this equals ``forward(tokens)[:, -1]`` bit for bit. Bits:
``ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2 H dh (p + frac)``, dh = width / H the paper's m.

**One-way (Lemma A.3).** The query position N is Bob's and its token is public, as the fixed
query of Lemma A.3 (Alice cannot form a logit without it). Alice sends, per head, her largest
logit M_A (p bits), Z'_A = sum_A exp(A_N,i - M_A) exactly (p + ceil(log2 N) bits) and her own
softmax mean Q(sum_A exp(A_N,i - M_A) v_i / Z'_A), dh grid values (dh p bits): H((dh + 2) p +
ceil(log2 N)) bits against the paper's H (m + 1) p. Bob rescales her part by exp(M_A - M) and
finishes. This is *not* bit-exact: the model rounds each weight exp(A_N,i - M) / Z, with the
global M and Z, onto the grid, and no fixed-size summary of Alice's side determines that sum
of floors for every (M, Z) Bob may hold. Its agreement is measured, never assumed.

Numbers are on the model's p-bit grid (floor rounding, ``frac`` fractional bits, default p // 2);
the softmax sum Z <= N must fit on the grid, N 2^frac <= 2^(p-1) - 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ccomplexity import bounds, limits
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

QUERY, MAX, SUMS, VALUES, MEAN = (
    "query_token",
    "max_logit",
    "partial_softmax_sums",
    "partial_value_sums",
    "partial_value_mean",
)
ONE_WAY_STEPS = (MAX, SUMS, MEAN)


@dataclass(frozen=True)
class Widths:
    """Bits of each number sent, known to both parties in advance."""

    token: int  # ceil(log2 V); grid values (maxima, means) take p bits via FixedPoint.to_bits
    sums: int  # an exact partial softmax sum Z_S in [0, N]: p + ceil(log2 N)
    values: int  # an exact partial value sum's 2^-2frac multiple: p + frac

    @classmethod
    def of(cls, model: Transformer, fmt: FixedPoint, length: int) -> Widths:
        return cls(
            token=ceil_log2(model.config.vocab_size),
            sums=fmt.bits + ceil_log2(length),
            values=fmt.bits + fmt.frac,
        )


class _Side(harness.Party):
    """Keys and values of one party's own positions; the logits once the query is known."""

    def __init__(
        self, model: Transformer, length: int, positions: tuple[int, ...], tokens: torch.Tensor
    ) -> None:
        self.model = model
        self.fmt: FixedPoint = model.quant.fmt
        self.widths = Widths.of(model, self.fmt, length)
        self.last = length - 1
        self.heads, self.head_dim = model.heads, model.head_dim
        self.positions = positions
        self.tokens = tokens  # (B, n)
        x = model.embed(tokens, torch.tensor(positions))  # (B, n, d)
        _, self.k, self.v = model.qkv(x)  # own keys and values, each (B, H, n, dh)

    def set_query(self, token: torch.Tensor) -> None:
        """The token (B,) at position N: its residual stream and every head's logits here."""
        self.x_last = self.model.embed(token[:, None], torch.tensor([self.last]))  # (B, 1, d)
        q_last = self.model.qkv(self.x_last)[0]  # (B, H, 1, dh)
        self.logits = self.model.attention_logits(q_last, self.k)  # (B, H, 1, n)
        self.local_max = self.logits.amax(-1, keepdim=True)  # (B, H, 1, 1)

    def grid_bits(self, x: torch.Tensor) -> list[str]:
        """Grid values (B, ...) as p bits each, one string per input."""
        raw = harness.grid_raw(x.reshape(len(x), -1), self.fmt.frac).numpy()
        return [self.fmt.to_bits(row) for row in raw]

    def read_grid(self, messages: list[str], shape: tuple[int, ...]) -> torch.Tensor:
        raw = np.stack([self.fmt.from_bits(bits, count=int(np.prod(shape))) for bits in messages])
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


class TwoWayParty(_Side, harness.OutputParty):
    """A party of Theorem 4: holds the tokens at ``positions`` (0-based) only."""

    def __init__(
        self, model: Transformer, length: int, positions: tuple[int, ...], tokens: torch.Tensor
    ) -> None:
        super().__init__(model, length, positions, tokens)
        if self.last in positions:
            self.set_query(tokens[:, positions.index(self.last)])

    def send(self, step: str) -> list[str]:
        if step == QUERY:
            token = self.tokens[:, self.positions.index(self.last)]
            return [encode_uints([t], self.widths.token) for t in token.tolist()]
        if step == MAX:
            return self.grid_bits(self.local_max)
        if step == SUMS:
            return self.sums_bits(self.z_own)
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
            z = self.model.q(self.z_own + self.read_sums(messages))
            self.u_own = self.model.value_sums(self.numerators, z, self.v)  # exact, (B, H, 1, dh)
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
        query: torch.Tensor,
    ) -> None:
        super().__init__(model, length, positions, tokens)
        self.set_query(query)
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
    model: Transformer, partition: Partition, inputs: torch.Tensor, one_way: bool
) -> harness.Setup:
    """Each party gets the tokens of its own positions only (and, one-way, the public query)."""
    length = inputs.shape[1]
    last = length - 1
    alice_tokens = inputs[:, list(partition.alice)].clone()
    bob_tokens = inputs[:, list(partition.bob)].clone()
    if one_way:
        if last not in partition.bob:
            raise InputError(
                f"one-way attention protocol: the query position N = {length} must be Bob's; "
                f"partition {partition.spec} gives it to Alice"
            )
        query = inputs[:, last].clone()
        alice = OneWayAlice(model, length, partition.alice, alice_tokens, query)
        bob = OneWayBob(model, length, partition.bob, bob_tokens)
        schedule = tuple(("alice", "bob", step) for step in ONE_WAY_STEPS)
        return harness.Setup({"alice": alice, "bob": bob}, schedule, ("bob",))
    alice = TwoWayParty(model, length, partition.alice, alice_tokens)
    bob = TwoWayParty(model, length, partition.bob, bob_tokens)
    q, o = ("alice", "bob") if last in partition.alice else ("bob", "alice")
    schedule = ((q, o, QUERY),) + tuple(
        pair for step in (MAX, SUMS, VALUES) for pair in ((q, o, step), (o, q, step))
    )
    return harness.Setup({"alice": alice, "bob": bob}, schedule, ("alice", "bob"))


def check(layers: int, length: int, fmt: FixedPoint) -> None:
    if layers != 1:
        raise InputError(
            f"the attention protocol simulates one-layer Transformers (Thm 4), got layers={layers}"
        )
    if length * (1 << fmt.frac) > fmt.max_raw:
        raise InputError(
            f"the softmax sum Z <= N = {length} must fit on the grid: need N * 2^frac <= "
            f"2^(p-1) - 1 = {fmt.max_raw}; lower frac (got {fmt.frac}) or raise precision"
        )


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


def run_attention_protocol(
    width: int,
    heads: int,
    length: int,
    partition: str,
    precision: int,
    samples: int,
    seed: int,
    layers: int = 1,
    one_way: bool = False,
    vocab_size: int = 8,
    frac: int | None = None,
    layer_norm: bool = True,
    certificate: bool = False,
    checkpoint: str | None = None,
) -> dict[str, Any]:
    """Run Theorem 4's protocol (or the one-way variant) on ``samples`` random inputs.

    The model is a one-layer ``transformer`` (max_length = N) initialised after
    ``torch.manual_seed(seed)``, on the p-bit grid (``frac`` default p // 2, floor rounding).
    With ``checkpoint`` the trained transformer saved there is used instead (its width, heads,
    layers and vocabulary are read from it).
    Inputs are uniform tokens from ``numpy.random.default_rng(seed)``; ``partition`` is
    prefix:K, odd-even, alice:i,j,... or random (see :func:`resolve_partition`).
    """
    limits.LENGTH.check(length, "length")
    fmt = harness.fixed_point(precision, frac)
    if checkpoint is None:
        config = {
            "vocab_size": vocab_size,
            "width": width,
            "heads": heads,
            "layers": layers,
            "max_length": length,
            "layer_norm": layer_norm,
        }
        model, sha = harness.build_seeded("transformer", config, seed)
        info = {"name": "transformer", "config": model.config.to_dict(), "init_seed": seed}
    else:
        model, info = harness.from_checkpoint(checkpoint)
        if model.name != "transformer":
            raise InputError(f"checkpoint {checkpoint} holds a {model.name}, not a transformer")
        cfg = model.config
        if cfg.max_length < length:
            raise InputError(f"checkpoint {checkpoint} has positions up to {cfg.max_length} only")
        width, heads, layers, vocab_size, layer_norm = (
            cfg.width, cfg.heads, cfg.layers, cfg.vocab_size, cfg.layer_norm
        )  # fmt: skip
        sha = info["state_sha256"]
    check(layers, length, fmt)
    harness.check_run(samples, length, seed, model)
    part = resolve_partition(partition, length, seed)
    model.set_precision(fmt)
    inputs = harness.random_tokens(samples, length, vocab_size, seed)
    with torch.no_grad():
        transcripts, outputs = harness.run(setup(model, part, inputs, one_way), samples)
        scores = harness.compare(outputs, model(inputs)[:, -1])
    formula, itemised = paper_bits(model.head_dim, width, precision, length, heads, one_way)
    result = {
        "width": width,
        "heads": heads,
        "head_dim": model.head_dim,
        "layers": layers,
        "layer_norm": layer_norm,
        "vocab_size": vocab_size,
        "length": length,
        "partition": partition,
        "partition_resolved": part.spec,
        "query_owner": "alice" if length - 1 in part.alice else "bob",
        "precision": precision,
        "frac": fmt.frac,
        "rounding": fmt.rounding,
        "samples": samples,
        "seed": seed,
        "checkpoint": checkpoint,
        **harness.worst_transcript(transcripts),
        "bits_formula": (
            "H p + H (p + ceil(log2 N)) + H dh p"
            if one_way
            else "ceil(log2 V) + 2 H p + 2 H (p + ceil(log2 N)) + 2 H dh (p + frac)"
        ),
        "bits_paper_formula": formula,
        "bits_paper_itemised": itemised,
        **scores,
    }
    if certificate:
        info["state_sha256"] = sha
        protocol = {"partition": part.spec, "one_way": one_way}
        claim = {k: result[k] for k in ("bits_sent", "one_way", "samples", *scores)}
        result["certificate"] = harness.certificate(
            "protocol_attention", info, fmt, protocol, inputs, transcripts, outputs, claim
        )
    return result


def replay_setup(
    model: Transformer, protocol: dict[str, Any], inputs: torch.Tensor
) -> harness.Setup:
    """The setup a certificate's ``protocol`` section {"partition", "one_way"} describes."""
    check(model.config.layers, inputs.shape[1], model.quant.fmt)
    part = Partition.parse(protocol["partition"], inputs.shape[1])
    return setup(model, part, inputs, protocol["one_way"])
