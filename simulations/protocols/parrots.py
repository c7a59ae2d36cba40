"""Lemma A.3 / Thm A.4 of the mixture-of-parrots paper run on its one-layer class, bit for bit,
and the reduction from set disjointness (Lemma A.2) that makes it a lower bound.

The model is ``concat-transformer`` (dense psi, or K experts behind a router) on length-2 path
in the Thm 3.2 layout (``ccomplexity.languages.graphs.Layout``): Alice holds the r positions of
the edges at s, Bob the r positions of the edges at d, and the middle edges and the query token
are fixed and public, so both parties know them. The protocol is one message, Alice -> Bob:

1. Alice computes every head's query from the public query token and, over her own positions,
   Z_{h,A} = sum_A e_t and L_{h,A} = sum_A Q(e_t v_t), with e_t = Q(exp(Q(a_t - c))) against the
   model's fixed public offset c. Both are exact sums of grid values (models/concat_transformer),
   so she sends them exactly: Z in p - 1 + ceil(log2 |A|) bits unsigned, each of the m
   coordinates of L in p + ceil(log2 |A|) bits of two's complement
   (``ccomplexity.bounds.parrots.one_way_bits``), H(m + 1) numbers in all, against the paper's
   H (m + 1) p.
2. Bob adds his and the fixed positions' sums, divides per head, concatenates, routes and
   applies the chosen expert: the model's own ``combine`` and ``readout``.

Because the sums are exact, Bob's logits equal the model's own finite-precision output at the
last position bit for bit (``logits_exact``), whatever the router and the number of experts:
the bottleneck is the mH-dimensional attention output, not psi (Thm A.4, step 3).

**Reduction.** Answers are scored by the class's own rule, class 1 iff f > 0 (logits (0, f),
a tie is class 0). A model that solves length-2 path on r items is then a one-way protocol for
DISJ_r, whose one-way complexity is r bits (``separations.fact1``). When the message is shorter,
two of Alice's sets a != a' send the same message, and for b = {i} with i in exactly one of them
Bob answers both instances alike while DISJ differs: the model errs on one of them. Alice's
message is base + sum_{i in a} delta_i for integer vectors delta_i (each item's token against
(s, 0)), so such a pair is a signed zero sum of the delta_i; :func:`forced_failure` looks for one
(equal or zero deltas first, then a birthday search over random subsets) and replays both
instances through the channel to confirm it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ccomplexity import bounds
from ccomplexity.bounds.parrots import one_way_bits, one_way_widths, paper_one_way_bits
from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from ccomplexity.protocol import decode_uints, encode_uints
from models.concat_transformer import ConcatTransformer
from models.constructions.parrots import length2_path_model
from simulations.protocols import harness
from simulations.protocols.requests import ParrotsProtocolRequest

SUMS, VALUES = "partial_softmax_sums", "partial_value_sums"
SCHEDULE: harness.Schedule = (("alice", "bob", SUMS), ("alice", "bob", VALUES))
ARCHS = ("moe", "dense", "construction")
"""``moe``: a seeded concat-transformer with K experts; ``dense``: with K = 1;
``construction``: Thm 3.2's weights (width |V|)."""
MAX_VERTICES = 256
MAX_SAMPLES = 1 << 16
BIRTHDAY_SUBSETS = 1 << 17
FAILURES_SHOWN = 5


class Alice(harness.Party):
    """Alice: the tokens of her positions and the public query token; one message."""

    def __init__(
        self,
        model: ConcatTransformer,
        tokens: torch.Tensor,
        query: torch.Tensor,
        numbers: harness.Numbers,
    ) -> None:
        self.numbers, self.heads, self.width = numbers, model.heads, model.width
        self.z_bits, self.l_bits = one_way_widths(numbers.bits, tokens.shape[1])
        q = model.queries(model.embed(query[:, None]))  # (B, H, 1, m)
        self.z, self.l = model.partial_sums(q, model.embed(tokens))

    def send(self, step: str) -> list[str]:
        if step == SUMS:
            raw = self.numbers.codes(self.z.reshape(len(self.z), -1)).tolist()
            return [encode_uints(row, self.z_bits) for row in raw]
        if step == VALUES:
            return self.numbers.encode(
                self.numbers.codes(self.l.reshape(len(self.l), -1)), self.l_bits
            )
        return super().send(step)


class Bob(harness.OutputParty):
    """Bob: his positions and the fixed ones (the query among them); routes and outputs."""

    def __init__(
        self,
        model: ConcatTransformer,
        tokens: torch.Tensor,
        alice_positions: int,
        numbers: harness.Numbers,
    ) -> None:
        self.model, self.numbers = model, numbers
        self.heads, self.width = model.heads, model.width
        self.z_bits, self.l_bits = one_way_widths(numbers.bits, alice_positions)
        x = model.embed(tokens)  # his positions, then the fixed ones; the query is last
        self.z, self.l = model.partial_sums(model.queries(x[:, -1:]), x)

    def receive(self, step: str, messages: list[str]) -> None:
        if step == SUMS:
            raw = [decode_uints(bits, self.z_bits, self.heads) for bits in messages]
            self.z_alice = self.numbers.values(raw).reshape(self.z.shape)
        elif step == VALUES:
            raw = self.numbers.decode(messages, self.heads * self.width, self.l_bits)
            self.l_alice = self.numbers.values(raw).reshape(self.l.shape)
        else:
            super().receive(step, messages)

    def output(self) -> torch.Tensor:
        y = self.model.combine(self.z + self.z_alice, self.l + self.l_alice)  # exact sums
        return self.model.readout(y)


def setup(
    model: ConcatTransformer, layout: graphs.Layout, inputs: torch.Tensor, numbers: harness.Numbers
) -> harness.Setup:
    """Alice gets the columns of her positions and the query token; Bob his and the fixed ones."""
    r = (inputs.shape[1] - layout.middle - 1) // 2
    alice, bob, fixed = layout.positions(r)
    query = inputs[:, fixed[-1]].clone()
    parties = {
        "alice": Alice(model, inputs[:, list(alice)].clone(), query, numbers),
        "bob": Bob(model, inputs[:, [*bob, *fixed]].clone(), len(alice), numbers),
    }
    return harness.Setup(parties, SCHEDULE, ("bob",))


def build_model(
    arch: str,
    vertices: int,
    width: int | None,
    heads: int,
    experts: int,
    layout: graphs.Layout,
    seed: int,
    gate: str = "argmax",
) -> tuple[ConcatTransformer, dict[str, Any]]:
    """The model a run uses and its description (registry name, config, seed or construction)."""
    if arch not in ARCHS:
        raise InputError(f"unknown arch {arch!r} for length-2 path; choose one of {ARCHS}")
    if arch == "construction":
        model = length2_path_model(layout)
        return model, {"name": model.name, "config": model.config.to_dict(), "construction": True}
    if width is None:
        raise InputError(f"--arch {arch} needs --width")
    k = experts
    if arch == "dense" and k != 1:
        raise InputError("--arch dense has one expert; use --arch moe for K > 1")
    if arch == "moe" and k < 2:
        raise InputError("--arch moe needs --experts K >= 2")
    config = {"vocab_size": layout.vocab_size, "n_out": 2, "width": width, "heads": heads,
              "experts": k, "gate": gate}  # fmt: skip
    model, sha = harness.build_seeded("concat-transformer", config, seed)
    info = {"name": model.name, "config": model.config.to_dict(), "init_seed": seed}
    return model, {**info, "state_sha256": sha}  # type: ignore[return-value]


def instances(layout: graphs.Layout, r: int, samples: int, seed: int) -> dict[str, Any]:
    """Every (a, b) when 4^r <= ``samples`` cap allows it (r <= 8), else ``samples`` of the task
    law; middle edges uniform, all from numpy's generator of ``seed``."""
    rng = np.random.default_rng(seed)
    if 4**r <= MAX_SAMPLES:
        codes = np.arange(4**r)
        a = (codes[:, None] >> np.arange(r)) & 1 > 0
        b = (codes[:, None] >> (r + np.arange(r))) & 1 > 0
        exhaustive = True
    else:
        a, b, _ = graphs.sample_disjointness(r, samples, rng)
        exhaustive = False
    if layout.middle and r < 2:
        raise InputError("middle edges need |V| >= 2")
    u = rng.integers(1, max(r, 2), size=(len(a), layout.middle))
    v = u + 1 + np.floor(rng.random(u.shape) * (r - u)).astype(np.int64)
    tokens = torch.from_numpy(layout.encode(a, b, np.stack([u, v], -1)))
    return {"a": a, "b": b, "tokens": tokens, "exhaustive": exhaustive}


def _check(vertices: int, samples: int) -> None:
    """The method's own limits (its instances are enumerated or drawn in numpy)."""
    if vertices > MAX_VERTICES:
        raise InputError(f"vertices must be at most {MAX_VERTICES}, got {vertices}")
    if samples > MAX_SAMPLES:
        raise InputError(f"samples must be at most {MAX_SAMPLES}, got {samples}")


def _prepare(
    arch: str,
    vertices: int | None,
    width: int | None,
    heads: int,
    experts: int,
    precision: int,
    frac: int | None,
    middle: int,
    seed: int,
    checkpoint: str | None,
) -> tuple[ConcatTransformer, dict[str, Any], graphs.Layout, int, harness.Numbers]:
    """The model on the grid its protocol runs on, its description, the layout and |V|."""
    if checkpoint is not None:
        source = harness.model_source(None, None, 0, checkpoint)
        model, info, config = source.model, source.description, source.training
        if not isinstance(model, ConcatTransformer) or model.tok is None:
            raise InputError(f"checkpoint {checkpoint} is not a concat-transformer on tokens")
        if config.task.name != "length2-path":
            raise InputError(f"checkpoint {checkpoint} was trained on {config.task.name}")
        layout = graphs.Layout(config.task.length, 4)  # the training task's default middle edges
        r = config.task.length if vertices is None else vertices
        if r > config.task.length:
            raise InputError(f"the checkpoint knows {config.task.length} vertices, got {r}")
        return model, info, layout, r, harness.hold_numbers(source, precision, frac)
    if vertices is None:
        raise InputError("give --vertices |V| (or --checkpoint)")
    _check(vertices, 1)  # before the model's vocabulary is built
    layout = graphs.Layout(vertices, middle)
    model, info = build_model(arch, vertices, width, heads, experts, layout, seed)
    numbers = harness.finite_numbers(model, harness.fixed_point(precision, frac))
    return model, info, layout, vertices, numbers


def _run(
    model: ConcatTransformer,
    layout: graphs.Layout,
    r: int,
    samples: int,
    seed: int,
    numbers: harness.Numbers,
) -> tuple[dict[str, Any], list[Any], dict[str, torch.Tensor]]:
    """The instances of a run, and the protocol's transcripts and outputs on them."""
    _check(r, samples)
    data = instances(layout, r, samples, seed)
    with torch.no_grad():
        protocol = setup(model, layout, data["tokens"], numbers)
        transcripts, outputs = harness.run(protocol, len(data["tokens"]))
    return data, transcripts, outputs


def _float_predictions(model: ConcatTransformer, inputs: torch.Tensor) -> torch.Tensor:
    """The model's classes in float mode (no grid), its grid restored after."""
    quant, messages = model.quant, model.messages
    model.set_precision(None)
    model.messages = None
    try:
        return model(inputs.to(torch.long))[:, -1].argmax(-1)
    finally:
        model.messages = messages
        if quant is not None:
            model.set_precision(quant.fmt)


def run_parrots_protocol(request: ParrotsProtocolRequest) -> dict[str, Any]:
    """Run the one-way protocol on ``request.samples`` length-2 path instances (the training
    law, or all of them for |V| <= 8) and compare Bob's logits with the model's own forward (a
    model trained at p bits on its message grid, any other in finite precision)."""
    q = request
    model, info, layout, r, numbers = _prepare(
        q.arch,
        q.vertices,
        q.width,
        q.heads,
        q.experts,
        q.precision,
        q.frac,
        4,
        q.seed,
        q.checkpoint,
    )
    data, transcripts, outputs = _run(model, layout, r, q.samples, q.seed, numbers)
    inputs = data["tokens"]
    with torch.no_grad():
        reference = model(inputs)[:, -1]
        float_pred = _float_predictions(model, inputs)
    scores = harness.compare(outputs, reference)
    cfg = model.config
    return {
        "task": "length2-path",
        "arch": q.arch if q.checkpoint is None else "checkpoint",
        "vertices": r,
        "middle": layout.middle,
        "length": inputs.shape[1],
        "width": cfg.width,
        "heads": cfg.heads,
        "experts": cfg.experts,
        "gate": cfg.gate,
        "precision": numbers.bits,
        "frac": numbers.frac,
        "grid": numbers.description,
        "softmax_offset": cfg.softmax_offset,
        "samples": len(inputs),
        "exhaustive": data["exhaustive"],
        "seed": q.seed,
        "checkpoint": q.checkpoint,
        "model": info.get("name"),
        **harness.worst_transcript(transcripts),
        "bits_formula": "H ((p - 1 + ceil(log2 |A|)) + m (p + ceil(log2 |A|)))",
        "bits_exact_formula": one_way_bits(cfg.width, cfg.heads, numbers.bits, r),
        "bits_paper_formula": paper_one_way_bits(cfg.width, cfg.heads, numbers.bits),
        "lower_bound_bits": r,
        **scores,
        "float_agreement": float((float_pred == reference.argmax(-1)).double().mean()),
        "expert_load": model.expert_load(),
    }


# ----------------------------------------------------------------------------- the reduction


def _bits(row: np.ndarray) -> str:
    return "".join("1" if v else "0" for v in row)


def item_deltas(
    model: ConcatTransformer, layout: graphs.Layout, r: int, numbers: harness.Numbers
) -> np.ndarray:
    """delta_i (r, H(m + 1)) int64: the raw change of Alice's message when item i joins a."""
    query = model.embed(torch.tensor([[layout.query]]))
    q = model.queries(query)
    tokens = torch.arange(r + 1)[:, None]  # (s, 0), (s, 1), ..., (s, r), one per row
    z, l = model.partial_sums(q.expand(r + 1, -1, -1, -1), model.embed(tokens))  # noqa: E741
    raw = torch.cat(
        [numbers.codes(z.reshape(r + 1, -1)), numbers.codes(l.reshape(r + 1, -1))], dim=1
    ).numpy()
    return raw[1:] - raw[0]


def collision(deltas: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Two sets a != a' with sum_a delta = sum_a' delta, or None if none was found."""
    r = len(deltas)
    zero = np.flatnonzero(~deltas.any(1))
    if zero.size:
        return np.zeros(r, dtype=bool), np.eye(r, dtype=bool)[zero[0]]
    _, first, inverse = np.unique(deltas, axis=0, return_index=True, return_inverse=True)
    repeated = np.flatnonzero(first[inverse.reshape(-1)] != np.arange(r))
    if repeated.size:
        j = int(repeated[0])
        return np.eye(r, dtype=bool)[first[inverse.reshape(-1)[j]]], np.eye(r, dtype=bool)[j]
    masks = np.random.default_rng(seed).random((BIRTHDAY_SUBSETS, r)) < 0.5
    sums = masks.astype(np.int64) @ deltas
    _, first, inverse = np.unique(sums, axis=0, return_index=True, return_inverse=True)
    for n in np.flatnonzero(first[inverse.reshape(-1)] != np.arange(len(sums))):
        other = masks[first[inverse.reshape(-1)[n]]]
        if (other != masks[n]).any():
            return other, masks[n]
    return None


def forced_failure(
    model: ConcatTransformer, layout: graphs.Layout, r: int, seed: int, numbers: harness.Numbers
) -> dict[str, Any] | None:
    """Two instances the protocol cannot tell apart whose DISJ answers differ, checked by
    running both through the channel; None when no colliding pair of Alice's sets was found."""
    pair = collision(item_deltas(model, layout, r, numbers), seed)
    if pair is None:
        return None
    a, a_other = pair
    i = int(np.flatnonzero(a != a_other)[0])
    b = np.eye(r, dtype=bool)[i]
    middle = np.tile(np.stack([np.ones(layout.middle), np.full(layout.middle, 2)], -1), (2, 1, 1))
    tokens = torch.from_numpy(layout.encode(np.stack([a, a_other]), np.stack([b, b]), middle))
    transcripts, outputs = harness.run(setup(model, layout, tokens, numbers), 2)
    messages = ["|".join(m.bits for m in t.messages) for t in transcripts]
    predicted = outputs["bob"].argmax(-1).tolist()
    answers = graphs.disjointness(np.stack([a, a_other]), np.stack([b, b])).astype(int).tolist()
    return {
        "a": _bits(a),
        "a_other": _bits(a_other),
        "b": _bits(b),
        "answers": answers,
        "predicted": predicted,
        "same_transcript_checked": messages[0] == messages[1],
        "why": "same message: Bob answers both alike, but only one of the sets meets b",
    }


def run_length2_path_reduction(
    arch: str,
    width: int | None,
    precision: int,
    seed: int,
    samples: int,
    vertices: int | None = None,
    heads: int = 1,
    experts: int = 1,
    checkpoint: str | None = None,
    middle: int = 4,
) -> dict[str, Any]:
    """DISJ_|V| -> length-2 path (Lemma A.2) -> the one-way protocol (Lemma A.3 / Thm A.4) on a
    model: bits sent against |V|, where the model errs, and a forced failure when it must."""
    model, info, layout, r, numbers = _prepare(
        arch, vertices, width, heads, experts, precision, None, middle, seed, checkpoint
    )
    data, transcripts, outputs = _run(model, layout, r, samples, seed, numbers)
    inputs = data["tokens"]
    with torch.no_grad():
        agreement = harness.compare(outputs, model(inputs)[:, -1])["agreement"]
        forced = forced_failure(model, layout, r, seed, numbers)
    target = graphs.disjointness(data["a"], data["b"]).astype(np.int64)
    logits = outputs["bob"]
    right = (logits.argmax(-1) == torch.from_numpy(target)).numpy()  # class 1 iff f > 0
    wrong = np.flatnonzero(~right)
    predicted = logits.argmax(-1).tolist()
    failures = [
        {
            "a": _bits(data["a"][n]),
            "b": _bits(data["b"][n]),
            "expected": int(target[n]),
            "predicted": predicted[n],
            "logits": [float(v) for v in logits[n]],
        }
        for n in wrong[:FAILURES_SHOWN]
    ]
    cfg = model.config
    worst = harness.worst_transcript(transcripts)
    messages = {"|".join(m.bits for m in t.messages) for t in transcripts}
    return {
        "reduction": "length2-path",
        "theorem": "parrots.thm3_1 (Lemma A.2, Lemma A.3 / Thm A.4)",
        "problem": f"DISJ_{r}: Alice a = N(s), Bob b = N(d) in {{0,1}}^{r}; 1 iff they meet",
        "arch": arch if checkpoint is None else "checkpoint",
        "vertices": r,
        "length": inputs.shape[1],
        "width": cfg.width,
        "heads": cfg.heads,
        "experts": cfg.experts,
        "precision": numbers.bits,
        "frac": numbers.frac,
        "seed": seed,
        "checkpoint": checkpoint,
        "instances": len(inputs),
        "exhaustive": data["exhaustive"],
        **worst,
        "bits_paper_formula": paper_one_way_bits(cfg.width, cfg.heads, numbers.bits),
        "lower_bound_bits": bounds.get("separations.fact1").value(length=r),
        "lower_bound": "separations.fact1: the one-way complexity of DISJ_|V| is |V| bits",
        "below_lower_bound": worst["bits_sent"] < r,
        "protocol_agreement": agreement,
        "solved_fraction": float(right.mean()),
        "errors": int(wrong.size),
        "failures": failures,
        "distinct_messages": len(messages),
        "forced_failure": forced,
        "model": info.get("name"),
    }
