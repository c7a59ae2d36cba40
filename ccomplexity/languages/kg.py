"""Matching knowledge graphs and their q-hop path queries (layer-looping paper, Sec. 4, App. B.3
and B.6; spec ``looping-kg-moe`` sections 1 and 2.5).

A matching graph has E entities and R relations, each relation one-to-one, i.e. a permutation
pi_r of the entities; its triples are (e, r, pi_r(e)), T = E R of them. Relation r is drawn from
its own seed (``seed``, r), so a graph grows by adding relations without changing the ones it
has (the paper's capacity search grows the graph that way).

A path query is a start entity e and relations r_1 .. r_q; its answer is
pi_{r_q}( ... pi_{r_1}(e)), i.e. e^T P_{r_1} ... P_{r_q} with P_r the permutation matrices.
In tokens (Eq. 11) it is ``[e] [r_1] [y_1] [and] [y_1] [r_2] [y_2] ... [y_{q-1}] [r_q] [y_q]``,
4q - 1 tokens, and only the last position is labelled (with the answer, Eq. 12).

Everything here is exact integer arithmetic on numpy arrays, vectorised over a leading batch axis.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from ccomplexity.integers import ceil_log2

TRIPLE_LIMIT = 1 << 24
"""Most triples T = E R of a generated graph."""
PRODUCT_WORK_LIMIT = 1 << 25
"""Most entries (products x E) that :func:`distinct_products` forms at one length."""


def check_graph_size(entities: int, relations: int) -> tuple[int, int]:
    """(E, R) as ints, or InputError if a graph of that size is beyond the limits (checked
    before anything is generated)."""
    e = check_int(entities, "entities", 1)
    r = check_int(relations, "relations", 1)
    if e > limits.ENTITIES.most or e * r > TRIPLE_LIMIT:
        raise InputError(
            f"a graph is limited to {limits.ENTITIES.most} entities and {TRIPLE_LIMIT} triples, "
            f"got E = {e}, T = {e * r}"
        )
    return e, r


@dataclass(frozen=True, eq=False)
class MatchingKG:
    """A matching knowledge graph: ``permutations[r, e]`` is the tail of the triple (e, r, .).

    Immutable; ``seed`` is the seed it was generated from (None when given explicitly).
    """

    permutations: np.ndarray
    seed: int | None = None

    def __post_init__(self) -> None:
        p = np.asarray(self.permutations)
        if p.ndim != 2 or p.shape[0] < 1 or p.shape[1] < 1:
            raise InputError(f"permutations must be a non-empty (R, E) table, got {p.shape}")
        if not np.issubdtype(p.dtype, np.integer):
            raise InputError("permutations must hold integer entity ids")
        relations, entities = p.shape
        if entities > limits.ENTITIES.most or relations * entities > TRIPLE_LIMIT:
            raise InputError(
                f"a graph is limited to {limits.ENTITIES.most} entities and {TRIPLE_LIMIT} "
                "triples, "
                f"got E = {entities}, T = {relations * entities}"
            )
        if not (np.sort(p, axis=1) == np.arange(entities)).all():
            r = int(np.flatnonzero((np.sort(p, axis=1) != np.arange(entities)).any(1))[0])
            raise InputError(f"relation {r} is not a permutation of the {entities} entities")
        table = p.astype(np.int64)
        table.setflags(write=False)
        object.__setattr__(self, "permutations", table)

    @classmethod
    def generate(cls, entities: int, relations: int, seed: int = 0) -> MatchingKG:
        """R uniform random permutations of E entities; relation r from seed (``seed``, r)."""
        e, r = check_graph_size(entities, relations)
        s = check_int(seed, "seed", 0)
        rows = [np.random.default_rng([s, k]).permutation(e) for k in range(r)]
        return cls(np.stack(rows), s)

    @property
    def entities(self) -> int:
        return int(self.permutations.shape[1])

    @property
    def relations(self) -> int:
        return int(self.permutations.shape[0])

    @property
    def n_triples(self) -> int:
        return self.entities * self.relations

    def with_relations(self, relations: int) -> MatchingKG:
        """The graph grown (or cut) to ``relations`` relations; the first ones are unchanged."""
        if self.seed is None:
            raise InputError("only a generated graph (with a seed) can grow")
        r = check_int(relations, "relations", 1)
        if r <= self.relations:
            return MatchingKG(self.permutations[:r], self.seed)
        grown = MatchingKG.generate(self.entities, r, self.seed)
        if not np.array_equal(grown.permutations[: self.relations], self.permutations):
            raise InputError(
                f"this graph's relations are not the ones seed {self.seed} generates, "
                "so it cannot grow from that seed"
            )
        return grown

    def triples(self) -> np.ndarray:
        """All T triples (head, relation, tail) as a (T, 3) array, head-major: row e R + r."""
        e, r = np.meshgrid(np.arange(self.entities), np.arange(self.relations), indexing="ij")
        heads, rels = e.reshape(-1), r.reshape(-1)
        return np.stack([heads, rels, self.permutations[rels, heads]], axis=1)

    def answer(self, starts: np.ndarray, relations: np.ndarray) -> np.ndarray:
        """Answers of the path queries (starts (B,), relations (B, q)): the entities reached."""
        s = np.asarray(starts, dtype=np.int64).reshape(-1)
        w = np.asarray(relations, dtype=np.int64)
        if w.ndim != 2 or w.shape[0] != s.shape[0]:
            raise InputError(f"relations must be ({s.shape[0]}, q), got shape {w.shape}")
        if s.size and (s.min() < 0 or s.max() >= self.entities):
            raise InputError(f"start entities must lie in 0..{self.entities - 1}")
        if w.size and (w.min() < 0 or w.max() >= self.relations):
            raise InputError(f"relations must lie in 0..{self.relations - 1}")
        out = s.copy()
        for hop in range(w.shape[1]):
            out = self.permutations[w[:, hop], out]
        return out

    def sha256(self) -> str:
        """SHA-256 of the permutation table (little-endian int64), naming the graph exactly."""
        return hashlib.sha256(self.permutations.astype("<i8").tobytes()).hexdigest()


def covered(kg: MatchingKG, starts: np.ndarray, relations: np.ndarray) -> np.ndarray:
    """Which triples the queries use at some hop: an (E, R) boolean array (App. B.3: training
    must use every triple at least once)."""
    s = np.asarray(starts, dtype=np.int64).reshape(-1)
    w = np.asarray(relations, dtype=np.int64)
    kg.answer(s, w)  # validates the shapes and ranges
    used = np.zeros((kg.entities, kg.relations), dtype=bool)
    here = s
    for hop in range(w.shape[1]):
        used[here, w[:, hop]] = True
        here = kg.permutations[w[:, hop], here]
    return used


def check_product_work(entities: int, relations: int, hops: int) -> None:
    """Refuse, before any graph is drawn, a query length whose products could form more than
    :data:`PRODUCT_WORK_LIMIT` entries: length k forms (distinct products of length k - 1) x R x E
    entries, and there are at most min(R^(k-1), E!) distinct products of length k - 1."""
    q = limits.HOPS.check(hops, "hops")
    most_products = math.factorial(min(entities, 20))  # E! >= 20! exceeds every bound below
    for k in range(1, q + 1):
        bound = min(relations ** (k - 1), most_products)
        if bound * relations * entities > PRODUCT_WORK_LIMIT:
            raise InputError(
                f"products of length {k} could form {bound} x {relations} x {entities} "
                f"entries; the limit is {PRODUCT_WORK_LIMIT}: use fewer hops, relations or entities"
            )


def distinct_products(kg: MatchingKG, hops: int) -> list[int]:
    """Number of distinct permutations P_{r_1} ... P_{r_k} over all R^k words, for k = 1..q.

    Thm B.19 counts one monomial per path query, which needs these R^q products pairwise distinct
    (its hidden assumption). Exact: the products of length k + 1 are {P_u P_r}, so each length is
    deduplicated before the next (equal rows compared byte for byte by ``np.unique``), and the
    work is the number of distinct products, not R^q. Refuses (:func:`check_product_work`) a
    length that could form more than :data:`PRODUCT_WORK_LIMIT` entries, before forming any.
    """
    check_product_work(kg.entities, kg.relations, hops)
    e = kg.entities
    level = np.arange(e, dtype=np.uint16)[None, :]  # the empty product
    counts = []
    for _ in range(hops):
        # following u then r: e -> pi_r(pi_u(e)), one row per (product u, relation r)
        grown = kg.permutations.astype(np.uint16)[:, level].transpose(1, 0, 2).reshape(-1, e)
        rows = np.ascontiguousarray(grown).view(np.dtype((np.void, 2 * e)))[:, 0]
        _, first = np.unique(rows, return_index=True)
        level = grown[np.sort(first)]
        counts.append(int(level.shape[0]))
    return counts


# --- the token format of Sec. 4 (Eq. 11, 12) and the theory's +-1 codes (App. B.3) ------------


@dataclass(frozen=True)
class QueryVocabulary:
    """Token ids of the path-query format for up to ``hops`` hops.

    Entities 0..E-1 (so an answer's class is its token), then [and], then the variables
    y_1..y_q, then the relations; relations come last so that growing R keeps every id.
    """

    entities: int
    relations: int
    hops: int

    def __post_init__(self) -> None:
        limits.ENTITIES.check(self.entities, "entities")
        limits.RELATIONS.check(self.relations, "relations")
        limits.HOPS.check(self.hops, "hops")

    @property
    def and_token(self) -> int:
        return self.entities

    @property
    def first_variable(self) -> int:
        return self.entities + 1

    @property
    def first_relation(self) -> int:
        return self.entities + 1 + self.hops

    @property
    def size(self) -> int:
        """c, the vocabulary size."""
        return self.entities + 1 + self.hops + self.relations

    @property
    def code_bits(self) -> int:
        """b = ceil(log2 c): the width of each token's +-1 code (App. B.3)."""
        return max(1, ceil_log2(self.size))

    def names(self) -> list[str]:
        """Printable token names: e0.., and, y1.., r0.."""
        return (
            [f"e{i}" for i in range(self.entities)]
            + ["and"]
            + [f"y{i + 1}" for i in range(self.hops)]
            + [f"r{i}" for i in range(self.relations)]
        )


def query_length(hops: int) -> int:
    """Tokens of a q-hop query: q patterns of three tokens joined by q - 1 [and]s, 4q - 1."""
    return 4 * limits.HOPS.check(hops, "hops") - 1


def query_tokens(vocab: QueryVocabulary, starts: np.ndarray, relations: np.ndarray) -> np.ndarray:
    """Path queries as (B, 4q - 1) token arrays: e r_1 y_1 [and] y_1 r_2 y_2 ... y_{q-1} r_q y_q."""
    s = np.asarray(starts, dtype=np.int64).reshape(-1)
    w = np.asarray(relations, dtype=np.int64)
    if w.ndim != 2 or w.shape[0] != s.shape[0] or not 1 <= w.shape[1] <= vocab.hops:
        raise InputError(f"relations must be ({s.shape[0]}, q) with 1 <= q <= {vocab.hops}")
    if s.size and (s.min() < 0 or s.max() >= vocab.entities):
        raise InputError(f"start entities must lie in 0..{vocab.entities - 1}")
    if w.size and (w.min() < 0 or w.max() >= vocab.relations):
        raise InputError(f"relations must lie in 0..{vocab.relations - 1}")
    q = w.shape[1]
    variables = vocab.first_variable + np.arange(q)
    patterns = np.empty((s.shape[0], q, 4), dtype=np.int64)
    patterns[:, 0, 0] = s
    patterns[:, 1:, 0] = variables[:-1]
    patterns[:, :, 1] = vocab.first_relation + w
    patterns[:, :, 2] = variables
    patterns[:, :, 3] = vocab.and_token
    return patterns.reshape(s.shape[0], 4 * q)[:, :-1]


def parse_queries(vocab: QueryVocabulary, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, relations) of token arrays in the format of :func:`query_tokens`; a row in any
    other format is an InputError naming it."""
    t = np.asarray(tokens, dtype=np.int64)
    if t.ndim != 2 or (t.shape[1] + 1) % 4 or t.shape[1] + 1 > 4 * vocab.hops:
        raise InputError(f"queries must be (B, 4q - 1) tokens with q <= {vocab.hops}")
    q = (t.shape[1] + 1) // 4
    starts = t[:, 0]
    relations = t[:, 1::4] - vocab.first_relation
    expected = query_tokens(
        vocab, np.clip(starts, 0, vocab.entities - 1), np.clip(relations, 0, vocab.relations - 1)
    )
    bad = np.flatnonzero((expected != t).any(axis=1))
    if bad.size:
        raise InputError(f"row {int(bad[0])} is not a {q}-hop path query in the Sec. 4 format")
    return starts, relations


def token_codes(size: int) -> np.ndarray:
    """The theory encoding (App. B.3): token t as the +-1 code of its b = ceil(log2 c) bits,
    most significant first, so a code's prefix is its leading bits. (c, b) int8."""
    c = check_int(size, "vocabulary size", 1)
    b = max(1, ceil_log2(c))
    bits = (np.arange(c)[:, None] >> np.arange(b - 1, -1, -1)[None, :]) & 1
    return (2 * bits - 1).astype(np.int8)
