"""The task of the layer-looping paper's experiments (Sec. 4 and 6.1; spec looping-kg-moe 1, 3).

* ``kg-path``: q-hop path queries over a seeded matching knowledge graph of E entities and R
  relations (:class:`ccomplexity.languages.kg.MatchingKG`), in the format of Eq. 11,
  ``[e] [r_1] [y_1] [and] [y_1] [r_2] [y_2] ... [y_{q-1}] [r_q] [y_q]`` (4q - 1 tokens, the
  token ids of :class:`~ccomplexity.languages.kg.QueryVocabulary`), labelled only at the last
  position with the answer entity (Eq. 12; classes = entities). The task's length is the number
  of hops q; training and evaluation queries both have exactly q hops (the paper does not say
  that it mixes hop counts), with the start and the relations uniform.

Options: ``entities`` (128), ``relations`` (8) and ``graph_seed`` (0), the paper's starting
graph (Sec. 6.1 step 1). Growing ``relations`` keeps the first relations and every token id,
and only appends relation tokens at the end of the vocabulary. :meth:`KGPathTask.covering_set`
draws a query set that uses every triple, as Sec. 4 assumes (the trainer draws fresh uniform
queries every step instead, which cover every triple within a few batches; it is not
:meth:`Task.training_set`, which would make evaluation read a fixed set). Answers are computed in
torch from the permutations; the tests check them against the oracle of
``ccomplexity.languages.kg``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from ccomplexity.languages.kg import MatchingKG, QueryVocabulary, check_graph_size
from simulations.tasks.base import Batch, Task, at_positions, options


@dataclass(frozen=True)
class KGPathTask(Task):
    """q-hop path queries (q <= ``max_length``) over the graph (``entities``, ``relations``,
    ``graph_seed``)."""

    entities: int = 128
    relations: int = 8
    graph_seed: int = 0

    @property
    def vocab(self) -> QueryVocabulary:
        return QueryVocabulary(self.entities, self.relations, self.max_length)

    @functools.cached_property
    def permutations(self) -> Tensor:
        """(R, E) long: the tail of (e, r) at [r, e]."""
        graph = MatchingKG.generate(self.entities, self.relations, self.graph_seed)
        return torch.from_numpy(graph.permutations.copy())

    def queries(self, starts: Tensor, relations: Tensor) -> Batch:
        """(tokens, targets, mask) of the queries (starts (B,), relations (B, q))."""
        batch, q = relations.shape
        v = self.vocab
        variables = v.first_variable + torch.arange(q)
        patterns = torch.empty(batch, q, 4, dtype=torch.long)  # head, relation, variable, [and]
        patterns[:, 0, 0] = starts
        patterns[:, 1:, 0] = variables[:-1]
        patterns[:, :, 1] = v.first_relation + relations
        patterns[:, :, 2] = variables
        patterns[:, :, 3] = v.and_token
        tokens = patterns.reshape(batch, 4 * q)[:, :-1]
        answers = starts
        for hop in range(q):
            answers = self.permutations[relations[:, hop], answers]
        targets, mask = at_positions(batch, 4 * q - 1, torch.full((batch,), 4 * q - 2), answers)
        return tokens, targets, mask

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        starts = torch.randint(0, self.entities, (batch,), generator=g)
        relations = torch.randint(0, self.relations, (batch, length), generator=g)
        return self.queries(starts, relations)

    def covering_set(self, size: int, hops: int, generator: torch.Generator) -> Batch:
        """``size`` >= T queries of ``hops`` hops in which every triple occurs: the first T have
        (start, first relation) running over all (e, r), the rest are uniform; shuffled."""
        q = self.check_length(hops)
        t = self.entities * self.relations
        n = check_int(size, "size", 1)
        if n < t:
            raise InputError(f"a training set using all T = {t} triples needs size >= {t}")
        starts = torch.randint(0, self.entities, (n,), generator=generator)
        relations = torch.randint(0, self.relations, (n, q), generator=generator)
        starts[:t] = torch.arange(self.entities).repeat_interleave(self.relations)
        relations[:t, 0] = torch.arange(self.relations).repeat(self.entities)
        order = torch.randperm(n, generator=generator)
        return self.queries(starts[order], relations[order])


def _kg_path(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"entities": 128, "relations": 8, "graph_seed": 0})
    e = check_int(o["entities"], "entities", 2, limits.ENTITIES.most, limits.ENTITIES.instead)
    r = limits.RELATIONS.check(o["relations"], "relations")
    limits.SEED.check(o["graph_seed"], "graph_seed")
    vocab = QueryVocabulary(e, r, n)
    check_graph_size(e, r)  # the graph itself is generated at first use, once the model fits
    return KGPathTask(name, vocab.size, e, n, 4 * n - 1, None, e, r, o["graph_seed"])


BUILDERS = {"kg-path": _kg_path}
"""Task name -> builder(name, max_length = most hops, options); kg-path options ``entities``
(128), ``relations`` (8), ``graph_seed`` (0)."""
