"""The kg-path sampler against the oracle of ccomplexity.languages.kg: format, labels, growth and
a training set that uses every triple."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages.kg import MatchingKG, QueryVocabulary, covered, parse_queries
from simulations.tasks import get_task


def gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize(("hops", "train"), [(1, True), (3, False), (4, True)])
def test_queries_and_labels_match_the_oracle(hops, train):
    task = get_task("kg-path", 4, entities=20, relations=5, graph_seed=7)
    vocab = QueryVocabulary(20, 5, 4)
    assert (task.vocab_size, task.n_out, task.max_tokens, task.pad) == (vocab.size, 20, 15, None)
    tokens, targets, mask = task.sample(500, hops, gen(1), train=train)
    assert tokens.shape == targets.shape == mask.shape == (500, 4 * hops - 1)
    assert mask[:, -1].all() and int(mask.sum()) == 500  # only the answer counts (Eq. 12)
    starts, words = parse_queries(vocab, tokens.numpy())  # the Sec. 4 format, or an error
    answers = MatchingKG.generate(20, 5, 7).answer(starts, words)
    assert np.array_equal(targets[:, -1].numpy(), answers)
    assert len(np.unique(starts)) == 20 and len(np.unique(words)) == 5


def test_growing_the_graph_keeps_its_relations_and_token_ids():
    small = get_task("kg-path", 2, entities=16, relations=4)
    big = get_task("kg-path", 2, entities=16, relations=6)
    assert torch.equal(big.permutations[:4], small.permutations)
    assert big.vocab_size == small.vocab_size + 2  # only relation tokens are appended
    tokens, targets, _ = small.sample(100, 2, gen(3))
    starts, words = parse_queries(big.vocab, tokens.numpy())  # same ids in the bigger format
    assert np.array_equal(
        targets[:, -1].numpy(),
        big.queries(torch.from_numpy(starts), torch.from_numpy(words))[1][:, -1].numpy(),
    )


def test_training_set_uses_every_triple():
    task = get_task("kg-path", 3, entities=12, relations=3)
    tokens, targets, _ = task.covering_set(12 * 3 * 4, 3, gen(0))
    starts, words = parse_queries(task.vocab, tokens.numpy())
    graph = MatchingKG.generate(12, 3, 0)
    assert covered(graph, starts, words).all()
    assert np.array_equal(targets[:, -1].numpy(), graph.answer(starts, words))
    again = task.covering_set(12 * 3 * 4, 3, gen(0))[0]
    assert torch.equal(tokens, again)  # seeded
    with pytest.raises(InputError, match="needs size >= 36"):
        task.covering_set(35, 3, gen(0))


def test_bad_options():
    with pytest.raises(InputError, match="no option"):
        get_task("kg-path", 2, vertices=3)
    with pytest.raises(InputError, match="entities must be an integer in 2..65536"):
        get_task("kg-path", 2, entities=1)
    with pytest.raises(InputError, match="entities 131072 exceeds the limit of 65536"):
        get_task("kg-path", 2, entities=1 << 17)
    with pytest.raises(InputError, match="exceeds"):
        get_task("kg-path", 2).sample(2, 3, gen())
