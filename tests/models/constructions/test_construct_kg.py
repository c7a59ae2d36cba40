"""The knowledge-graph constructions (Thm 5.1, Prop B.13, Thm 5.3): exact on every query of small
graphs, their parameters and FLOPs measured equal to the formulas, and failing when broken."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ccomplexity.bounds.kg import construction_counts, substitute_flops
from ccomplexity.errors import InputError
from ccomplexity.languages.kg import MatchingKG, QueryVocabulary, query_tokens
from models.constructions.kg import Trace, _all_queries, _run, build_kg_path, verify_kg_path


@pytest.mark.parametrize(
    ("entities", "relations", "hops", "experts"),
    [(8, 2, 3, None), (12, 3, 2, 5), (6, 4, 3, 1), (5, 2, 1, 5), (9, 2, 5, 4)],
)
def test_every_query_of_small_graphs_is_answered(entities, relations, hops, experts):
    out = verify_kg_path(entities, relations, hops, samples=64, seed=3, experts=experts)
    assert out["exhaustive"] and out["exhaustive_queries"] == entities * relations**hops
    assert out["accuracy"] == out["exhaustive_accuracy"] == 1.0
    assert out["attention_margin"] == 1.0 and out["double_detections"] == 0
    for name in ("standard", "looped", "looped_moe"):
        report = out[name]
        assert report["exhaustive_accuracy"] == 1.0
        assert report["parameters"] == report["parameters_formula"]
    for name in ("standard", "looped"):  # dense: the same FLOPs for every query
        assert out[name]["flops_per_query"] == out[name]["flops_formula"]
        assert out[name]["lookup_parameters"] == out[name]["lookup_parameters_formula"]
    assert out["standard"]["parameters"] == hops * out["looped"]["parameters"]
    for name, composition in (
        ("standard", "standard"),
        ("looped", "looped"),
        ("looped_moe", "looped-moe"),
    ):
        paper = construction_counts(
            composition, entities, relations, hops, experts if composition == "looped-moe" else None
        )
        assert out[name]["paper_parameters"] == paper["paper_parameters"]
        assert out[name]["paper_parameters"] > out[name]["parameters"]
        assert "assign" in out[name]["parameters_counted"]
    moe = out["looped_moe"]
    assert moe["active_lookup_parameters"] == moe["active_lookup_parameters_formula"]
    assert moe["flops_per_query"] <= moe["flops_formula"]
    assert sum(moe["expert_triples"]) == entities * relations
    assert sum(moe["expert_hits"]) <= sum(moe["expert_rows"]) == 64 * hops * hops


def test_expert_flops_are_the_routed_ones():
    """Measured FLOPs of the expert lookup = router + each row's own expert, exactly."""
    e, r, q, k = 16, 3, 3, 5
    graph = MatchingKG.generate(e, r, 1)
    model = build_kg_path(graph, q, "looped-moe", k)
    vocab = QueryVocabulary(e, r, q)
    rng = np.random.default_rng(0)
    starts, words = rng.integers(0, e, 50), rng.integers(0, r, (50, q))
    trace = Trace()
    accuracy, flops = _run(
        model, query_tokens(vocab, starts, words), graph.answer(starts, words), trace
    )
    b = vocab.code_bits
    sizes = [x.keys.shape[0] for x in model.blocks[0].lookup.experts]
    expected = 50 * (q * (substitute_flops(q, b) + 2 * q * b * k) + 2 * b * e)
    expected += sum(
        rows * 2 * t * (3 * b + 1) for rows, t in zip(trace.expert_rows, sizes, strict=True)
    )
    assert accuracy == 1.0 and flops == expected
    worst = construction_counts("looped-moe", e, r, q, k)["flops"]
    assert flops <= 50 * worst


def solved_rows(model, graph: MatchingKG, starts, words) -> bool:
    """Whether row i of every query ends with (code of the answer of its first i hops, 1)."""
    vocab = model.vocab
    b = vocab.code_bits
    with torch.no_grad():
        x = model.solve(torch.from_numpy(query_tokens(vocab, starts, words)))
    for i in range(words.shape[1]):
        prefix = graph.answer(starts, words[:, : i + 1])
        if not (
            torch.equal(x[:, i, 3 * b : 4 * b], model.codes[prefix]) and (x[:, i, -1] == 1).all()
        ):
            return False
    return True


@pytest.mark.parametrize("composition", ["standard", "looped", "looped-moe"])
def test_every_row_holds_its_prefix_answer(composition):
    graph = MatchingKG.generate(7, 3, 4)
    starts, words = _all_queries(7, 3, 4)
    assert solved_rows(
        build_kg_path(graph, 4, composition, 3 if composition == "looped-moe" else None),
        graph,
        starts,
        words,
    )


def test_a_broken_construction_fails():
    graph = MatchingKG.generate(6, 2, 0)
    vocab = QueryVocabulary(6, 2, 3)
    starts, words = _all_queries(6, 2, 3)
    tokens, answers = query_tokens(vocab, starts, words), graph.answer(starts, words)
    model = build_kg_path(graph, 3, "looped")
    assert _run(model, tokens, answers, Trace())[0] == 1.0
    with torch.no_grad():
        model.blocks[0].lookup.tails[0, 0] *= -1  # one bit of one stored tail
    assert _run(model, tokens, answers, Trace())[0] < 1.0
    model = build_kg_path(graph, 3, "looped")
    with torch.no_grad():
        model.blocks[0].sink -= 2  # the sink no longer beats a mismatch: solved heads drift
    assert not solved_rows(model, graph, starts, words)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"entities": 1}, "entities must be an integer >= 2"),
        ({"hops": 65}, "hops must be at most 64"),
        ({"entities": 1024, "relations": 64, "hops": 5}, "the limit is 262144"),
        ({"experts": 9}, "at most E = 8 experts"),
        ({"samples": 0}, "samples must lie in 1.."),
    ],
)
def test_bad_input_is_refused_before_building(kwargs, message):
    args = {"entities": 8, "relations": 2, "hops": 2, "samples": 10, "seed": 0, **kwargs}
    with pytest.raises(InputError, match=message):
        verify_kg_path(**args)
