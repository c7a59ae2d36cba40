"""Theorem 5.1, Proposition B.13 and Theorem 5.3 (layer-looping paper, App. B.4-B.5; spec
``looping-kg-moe`` 2.2-2.4): hand-wired models answering every q-hop path query over a matching
knowledge graph, standard (q stacked blocks), looped (one block, q loops) and looped with a
mixture-of-experts lookup.

Each token is the +-1 code of its b = ceil(log2 c) bits (App. B.3, ``token_codes``). The q
triple patterns of a query become q rows (the paper's flattening: a fixed gather of the tokens
at 4i, 4i + 1, 4i + 2), each of width 4b + 1 in blocks

    [ H: head | Rl: relation | V: variable | A: answer | f: flag ]      widths b, b, b, b, 1

row i starting as (code(head_i), code(r_i), code(y_i), 0, 0) with head_1 = e, head_i = y_{i-1}.
A block is substitute, then lookup:

* substitute (Prop B.12): hard attention with query H, keys V of every row plus a sink, values
  (A, f) (the sink's 0). <H_i, V_j> is b when row i's head is row j's variable and <= b - 2
  otherwise; the sink scores b - 1, so the argmax is the row that introduced the head's
  variable, or the sink (which keeps rows whose head is already an entity unchanged). The
  attended (a, g) replaces the head, H <- H + ReLU(g) (a - H), with g = 1 only when that row
  is solved. (The paper's block 4, the solved variable, is not stored: keying on V and
  carrying the flag in the value does the same; spec 2.2's validated variant.)
* lookup (Prop B.10): T ReLU detectors z_j = ReLU(<(H, Rl), (code(e_j), code(r_j))> - (2b - 1)):
  the inner product is 2b exactly when the row's (head, relation) is triple j's and <= 2b - 2
  otherwise, so z_j is 1 or 0, and at most one fires (a matching graph's (e, r) has one tail).
  (A, f) <- sum_j z_j (code(t_j), 1), assigned rather than added (Def. B.2, NoResidual), so
  nothing needs clearing. With experts (Prop B.11) a router sends each row to the expert owning
  its head's range (``ccomplexity.bounds.kg.expert_bounds``): K scores (i + 1) u - c_i of the
  head's value u = sum_k 2^(b-1-k) H_k with increasing slopes, whose top-1 is that range; the
  expert holds only its triples' detectors.

After iteration k rows 1..k are solved, each holding the answer of its first hops (the tests
check every row); after q, A of the last row is the answer's code, read
out against the E entity codes (b for the answer, <= b - 2 for any other entity). The paper runs
lookup then substitute; the block here is rotated so that the answer is still in A when the loop
ends (the first substitute has nothing to do). Every value is an integer of magnitude at most 4b,
held in float32 (the router's scores, up to K 2^(b+1), in float64), so each step is exact; the
verification reports the smallest attention margin (top score minus the next, >= 1 by the
argument above) and any row that fired two detectors (none can).

Parameters are the stored tensors (block selections are wiring); FLOPs are those of the matrix
products as ``torch.utils.flop_counter`` counts them. Both are reported next to the exact
formulas of :mod:`ccomplexity.bounds.kg`. That count is of this simplified program (hard-argmax
attention, assignment instead of the residual: no Q, K, V matrices or copy blocks), which each
report says (``parameters_counted``) beside the paper's count of the Layers its proofs write
(``paper_parameters``, :mod:`ccomplexity.bounds.kg_blocks`).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.utils.flop_counter import FlopCounterMode

from ccomplexity import budget
from ccomplexity.bounds.kg import (
    COMPOSITIONS,
    construction_counts,
    default_experts,
    expert_bounds,
)
from ccomplexity.errors import InputError, check_int
from ccomplexity.languages.kg import MatchingKG, QueryVocabulary, query_tokens, token_codes
from ccomplexity.limits import power_at_most
from models.constructions.scoring import strictly_correct

HOPS_LIMIT = 64
"""Most hops q (the query has q rows and the loop q iterations)."""
STORED_TRIPLES_LIMIT = 1 << 18
"""Most triples q T that the standard composition stores (q copies of every triple)."""
EXHAUSTIVE_LIMIT = 1 << 13
"""All E R^q queries are checked when there are at most this many."""
BATCH_NUMBERS = 1 << 21
"""Detector outputs (rows x triples) per batch."""


@dataclass
class Trace:
    """What a run saw: the smallest attention margin, rows that fired two detectors and, with
    experts, the rows each expert served and how many of them found their triple."""

    attention_margin: float = float("inf")
    double_detections: int = 0
    expert_rows: list[int] = field(default_factory=list)
    expert_hits: list[int] = field(default_factory=list)

    def count(self, rows: list[int], hits: list[int]) -> None:
        if not self.expert_rows:
            self.expert_rows, self.expert_hits = [0] * len(rows), [0] * len(rows)
        self.expert_rows = [a + b for a, b in zip(self.expert_rows, rows, strict=True)]
        self.expert_hits = [a + b for a, b in zip(self.expert_hits, hits, strict=True)]


class Lookup(nn.Module):
    """Prop B.10: one ReLU detector per triple; head and relation codes (n, 2b) -> (A, f)."""

    def __init__(self, keys: Tensor, tails: Tensor) -> None:
        super().__init__()
        self.keys = nn.Parameter(keys, requires_grad=False)  # (T, 2b): code(e_j), code(r_j)
        self.tails = nn.Parameter(tails, requires_grad=False)  # (T, b + 1): code(t_j), 1

    def forward(self, hr: Tensor, threshold: Tensor, trace: Trace) -> Tensor:
        z = (hr @ self.keys.T).sub_(threshold).clamp_(min=0)  # (n, T): ReLU, one 1 on a hit
        out = z @ self.tails  # (n, b + 1); the flag column counts the detectors that fired
        trace.double_detections += int((out[:, -1] > 1).sum())
        return out


class ExpertLookup(nn.Module):
    """Prop B.11: top-1 routing by head range to K experts, each the detectors of its triples."""

    def __init__(self, experts: list[Lookup], router: Tensor, offsets: Tensor) -> None:
        super().__init__()
        self.experts = nn.ModuleList(experts)
        self.router = nn.Parameter(router, requires_grad=False)  # (b, K): (i + 1) 2^(b-1-k)
        self.offsets = nn.Parameter(offsets, requires_grad=False)  # (K,): c_i (float64)

    def forward(self, hr: Tensor, threshold: Tensor, trace: Trace) -> Tensor:
        head = hr[:, : self.router.shape[0]].to(torch.float64)  # scores reach K 2^(b+1)
        choice = (head @ self.router - self.offsets).argmax(-1)  # (n,): the top-1 expert
        out = hr.new_zeros(hr.shape[0], self.experts[0].tails.shape[1])  # (n, b + 1)
        rows, hits = [], []
        for i, expert in enumerate(self.experts):
            mine = torch.nonzero(choice == i).flatten()
            if mine.numel():  # the top-1 weight, normalised over the top 1, is exactly 1
                out[mine] = expert(hr[mine], threshold, trace)
            rows.append(mine.numel())
            hits.append(int(out[mine, -1].sum()))
        trace.count(rows, hits)
        return out


class Block(nn.Module):
    """Substitute (Prop B.12), then lookup (Prop B.10 or B.11), on rows (B, q, 4b + 1)."""

    def __init__(self, bits: int, lookup: Lookup | ExpertLookup) -> None:
        super().__init__()
        self.bits = bits
        self.sink = nn.Parameter(torch.tensor(bits - 1.0), requires_grad=False)
        self.threshold = nn.Parameter(torch.tensor(2 * bits - 1.0), requires_grad=False)
        self.lookup = lookup

    def forward(self, x: Tensor, trace: Trace) -> Tensor:
        b = self.bits
        batch, q, _ = x.shape
        head, variable, solved = x[..., :b], x[..., 2 * b : 3 * b], x[..., 3 * b :]
        scores = head @ variable.transpose(1, 2)  # (B, q, q): b on a match
        scores = torch.cat([scores, self.sink.expand(batch, q, 1)], -1)  # (B, q, q + 1)
        top = scores.topk(2, dim=-1).values  # hard attention needs a unique maximum
        gap = float((top[..., 0] - top[..., 1]).min())
        trace.attention_margin = min(trace.attention_margin, gap)
        weights = nn.functional.one_hot(scores.argmax(-1), q + 1).to(x.dtype)  # (B, q, q + 1)
        values = torch.cat([solved, solved.new_zeros(batch, 1, b + 1)], 1)  # (B, q + 1, b + 1)
        attended = weights @ values  # (B, q, b + 1): (a, g), zero from the sink
        a, g = attended[..., :b], attended[..., b:]
        x = x.clone()
        x[..., :b] = head + torch.relu(g) * (a - head)
        rows = x[..., : 2 * b].reshape(batch * q, 2 * b)  # (B q, 2b): head and relation
        x[..., 3 * b :] = self.lookup(rows, self.threshold, trace).reshape(batch, q, b + 1)
        return x


class KGPathModel(nn.Module):
    """``blocks`` applied in order, ``loops`` times, to the rows of a q-hop query."""

    def __init__(self, codes: Tensor, vocab: QueryVocabulary, blocks: list[Block], loops: int):
        super().__init__()
        self.codes = nn.Parameter(codes, requires_grad=False)  # (c, b): the +-1 token codes
        self.vocab = vocab
        self.blocks = nn.ModuleList(blocks)
        self.loops = loops

    def rows(self, tokens: Tensor) -> Tensor:
        """(B, 4q - 1) tokens -> (B, q, 4b + 1) rows (H, Rl, V, 0, 0): the flattening."""
        batch, b = tokens.shape[0], self.codes.shape[1]
        q = (tokens.shape[1] + 1) // 4
        at = 4 * torch.arange(q)[:, None] + torch.arange(3)  # (q, 3): head, relation, variable
        patterns = self.codes[tokens[:, at]].reshape(batch, q, 3 * b)
        return torch.cat([patterns, patterns.new_zeros(batch, q, b + 1)], -1)

    def solve(self, tokens: Tensor, trace: Trace | None = None) -> Tensor:
        """The rows (B, q, 4b + 1) after the loops: row i holds (code of the answer of the first
        i hops, 1) in (A, f)."""
        trace = Trace() if trace is None else trace
        x = self.rows(tokens)
        for _ in range(self.loops):
            for block in self.blocks:
                x = block(x, trace)
        return x

    def forward(self, tokens: Tensor, trace: Trace | None = None) -> Tensor:
        """Entity logits (B, E) at the last position of (B, 4q - 1) query tokens."""
        b = self.codes.shape[1]
        answer = self.solve(tokens, trace)[:, -1, 3 * b : 4 * b]  # (B, b)
        return answer @ self.codes[: self.vocab.entities].T  # (B, E)

    def block_parameters(self) -> int:
        """Numbers stored by the blocks (the token codes excluded)."""
        return sum(p.numel() for p in self.blocks.parameters())


def _detectors(kg: MatchingKG, codes: Tensor, vocab: QueryVocabulary, heads: range) -> Lookup:
    """The detectors of every triple whose head lies in ``heads``."""
    triples = torch.from_numpy(kg.triples())
    mine = triples[(triples[:, 0] >= heads.start) & (triples[:, 0] < heads.stop)]
    keys = torch.cat([codes[mine[:, 0]], codes[vocab.first_relation + mine[:, 1]]], 1)
    tails = torch.cat([codes[mine[:, 2]], codes.new_ones(len(mine), 1)], 1)
    return Lookup(keys, tails)


def _router(bits: int, bounds: list[int]) -> tuple[Tensor, Tensor]:
    """Scores s_i = (i + 1) u - c_i of the head value u = sum_k 2^(b-1-k) H_k (odd integers):
    s_i > s_{i-1} iff u > beta_i = 2 B_i - 2^b (the code of B_i - 1/2), so with c_i the sum of
    beta_1..beta_i, increasing, the top-1 is the range containing the head."""
    k = len(bounds) - 1
    weights = 2.0 ** torch.arange(bits - 1, -1, -1, dtype=torch.float64)  # (b,)
    router = weights[:, None] * torch.arange(1, k + 1, dtype=torch.float64)  # (b, K)
    beta = torch.tensor([0] + [2 * bounds[i] - 2**bits for i in range(1, k)], dtype=torch.float64)
    return router, beta.cumsum(0)


def build_kg_path(
    kg: MatchingKG, hops: int, composition: str, experts: int | None = None
) -> KGPathModel:
    """The ``composition`` (standard, looped or looped-moe) construction for ``hops``-hop queries
    over ``kg``; ``experts`` (looped-moe only) defaults to round(sqrt T)."""
    if composition not in COMPOSITIONS:
        raise InputError(f"composition must be one of {', '.join(COMPOSITIONS)}")
    vocab = QueryVocabulary(kg.entities, kg.relations, hops)
    codes = torch.from_numpy(token_codes(vocab.size)).to(torch.float32)
    b = vocab.code_bits
    if composition == "looped-moe":
        k = default_experts(kg.entities, kg.relations) if experts is None else experts
        bounds = expert_bounds(kg.entities, k)
        parts = [_detectors(kg, codes, vocab, range(bounds[i], bounds[i + 1])) for i in range(k)]
        lookup: Lookup | ExpertLookup = ExpertLookup(parts, *_router(b, bounds))
    else:
        lookup = _detectors(kg, codes, vocab, range(kg.entities))
    block = Block(b, lookup)
    if composition == "standard":  # q blocks, each with its own copy of every triple
        return KGPathModel(codes, vocab, [copy.deepcopy(block) for _ in range(hops)], 1)
    return KGPathModel(codes, vocab, [block], hops)


def _all_queries(entities: int, relations: int, hops: int) -> tuple[np.ndarray, np.ndarray]:
    words = np.indices((relations,) * hops).reshape(hops, -1).T  # (R^q, q)
    starts = np.repeat(np.arange(entities), len(words))
    return starts, np.tile(words, (entities, 1))


@torch.no_grad()
def _run(
    model: KGPathModel, tokens: np.ndarray, answers: np.ndarray, trace: Trace
) -> tuple[float, int]:
    """Accuracy (the answer's logit strictly largest) and the FLOPs of the products run."""
    q = (tokens.shape[1] + 1) // 4
    triples = model.vocab.entities * model.vocab.relations
    batch = max(1, BATCH_NUMBERS // (q * triples))
    correct = 0
    with FlopCounterMode(display=False) as counter:
        for start in range(0, len(tokens), batch):
            logits = model(torch.from_numpy(tokens[start : start + batch]), trace)
            target = torch.from_numpy(answers[start : start + batch])
            correct += int(strictly_correct(logits, target).sum())
    return correct / len(tokens), counter.get_total_flops()


def _composition_report(
    model: Any,
    composition: str,
    formula: dict[str, Any],
    trace: Trace,
    accuracy: float,
    flops: float,
    hops: int,
) -> dict[str, Any]:
    """One composition's measured parameters and FLOPs per query beside its formulas."""
    report: dict[str, Any] = {
        "accuracy": accuracy,
        "blocks": len(model.blocks),
        "iterations": hops,
        "parameters": model.block_parameters(),
        "parameters_formula": formula["parameters"],
        "parameters_counted": formula["parameters_counted"],
        "paper_parameters": formula["paper_parameters"],
        "paper_attention_parameters": formula["paper_attention_parameters"],
        "paper_block_depth": formula["paper_block_depth"],
        "flops_per_query": flops,
        "flops_formula": formula["flops"],
    }
    lookups = [blk.lookup for blk in model.blocks]
    if composition == "looped-moe":
        moe = lookups[0]
        sizes = [x.keys.shape[0] for x in moe.experts]
        largest = max(x.keys.numel() + x.tails.numel() for x in moe.experts)
        report.update(
            experts=len(sizes),
            expert_triples=sizes,
            expert_rows=trace.expert_rows,
            expert_hits=trace.expert_hits,
            active_lookup_parameters=moe.router.numel() + moe.offsets.numel() + largest,
            active_lookup_parameters_formula=formula["active_lookup_parameters"],
            flops_formula_is="worst case: every row at the largest expert",
        )
    else:
        report["lookup_parameters"] = sum(x.keys.numel() + x.tails.numel() for x in lookups)
        report["lookup_parameters_formula"] = formula["lookup_parameters"]
    return report


def _checked_kg_path(
    entities: int, relations: int, hops: int, samples: int, seed: int, experts: int | None
) -> tuple[int, int, int, int, int]:
    """The checked E, R, q, seed and expert count of :func:`verify_kg_path`, once its limits and
    its memory and time budget allow the run (every check before anything is built)."""
    e = check_int(entities, "entities", 2)
    r = check_int(relations, "relations")
    q = check_int(hops, "hops")
    s = check_int(seed, "seed", 0)
    if q > HOPS_LIMIT:
        raise InputError(f"hops must be at most {HOPS_LIMIT}, got {q}")
    if q * e * r > STORED_TRIPLES_LIMIT:
        raise InputError(
            f"the standard composition stores q T = {q * e * r} triples; the limit is "
            f"{STORED_TRIPLES_LIMIT}"
        )
    if not 1 <= samples <= 10**6:
        raise InputError(f"samples must lie in 1..{10**6}, got {samples}")
    if experts is not None:
        expert_bounds(e, check_int(experts, "experts"))  # at most E experts
    every = e * r**q if power_at_most(r, q, EXHAUSTIVE_LIMIT) else EXHAUSTIVE_LIMIT + 1
    queries = samples + (every if every <= EXHAUSTIVE_LIMIT else 0)
    moe = default_experts(e, r) if experts is None else experts
    cost = budget.kg_construction(e, r, q, queries, QueryVocabulary(e, r, q).code_bits, moe)
    graph = budget.kg_graph(e, r)
    budget.check(
        f"the KG path constructions over E = {e}, R = {r} at q = {q} on {queries} queries",
        cost[0] + graph[0],
        cost[1] + graph[1],
        "use fewer entities, relations, hops or samples",
    )
    return e, r, q, s, moe


def verify_kg_path(
    entities: int,
    relations: int,
    hops: int,
    samples: int,
    seed: int,
    experts: int | None = None,
) -> dict[str, Any]:
    """Build the three compositions over the seeded graph and check them on ``samples`` random
    queries (and on all E R^q when there are at most EXHAUSTIVE_LIMIT); report each one's
    parameters and FLOPs per query, measured, next to ``ccomplexity.bounds.kg``'s formulas."""
    e, r, q, s, moe = _checked_kg_path(entities, relations, hops, samples, seed, experts)
    start_time = time.perf_counter()
    kg = MatchingKG.generate(e, r, s)
    vocab = QueryVocabulary(e, r, q)
    rng = np.random.default_rng(s)
    starts, words = rng.integers(0, e, samples), rng.integers(0, r, (samples, q))
    tokens, answers = query_tokens(vocab, starts, words), kg.answer(starts, words)
    exhaustive = e * r**q <= EXHAUSTIVE_LIMIT
    if exhaustive:
        all_starts, all_words = _all_queries(e, r, q)
        all_tokens = query_tokens(vocab, all_starts, all_words)
        all_answers = kg.answer(all_starts, all_words)
    out: dict[str, Any] = {
        "task": "kg-path",
        "entities": e,
        "relations": r,
        "hops": q,
        "triples": e * r,
        "vocabulary": vocab.size,
        "code_bits": vocab.code_bits,
        "seed": s,
        "samples": samples,
        "exhaustive": exhaustive,
    }
    margin, doubles, reports = float("inf"), 0, {}
    for composition in COMPOSITIONS:
        k = experts if composition == "looped-moe" else None
        model = build_kg_path(kg, q, composition, k)
        formula = construction_counts(composition, e, r, q, k)
        trace, full = Trace(), Trace()
        accuracy, flops = _run(model, tokens, answers, trace)
        report = _composition_report(
            model, composition, formula, trace, accuracy, flops / samples, q
        )
        if exhaustive:
            report["exhaustive_accuracy"], _ = _run(model, all_tokens, all_answers, full)
        margin = min(margin, trace.attention_margin, full.attention_margin)
        doubles += trace.double_detections + full.double_detections
        reports[composition.replace("-", "_")] = report
    out["accuracy"] = min(x["accuracy"] for x in reports.values())
    if exhaustive:
        out["exhaustive_queries"] = len(all_tokens)
        out["exhaustive_accuracy"] = min(x["exhaustive_accuracy"] for x in reports.values())
    out["lookup_parameters"] = reports["looped"]["lookup_parameters"]
    out["active_lookup_parameters"] = reports["looped_moe"]["active_lookup_parameters"]
    out["experts"] = reports["looped_moe"]["experts"]
    out["attention_margin"] = margin
    out["double_detections"] = doubles
    out.update(reports)
    out["seconds"] = round(time.perf_counter() - start_time, 2)
    return out
