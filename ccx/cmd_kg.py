"""Commands of the layer-looping paper's knowledge graphs: queries, relation products, the query
automaton and the communication of a query split (``ccx kg ...``, ``ccx dfa kg``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ccomplexity import limits
from ccomplexity.errors import InputError
from ccx.app import (
    Certificate,
    JsonFlag,
    app,
    check_certificate_path,
    emit,
    emit_certified,
    ranged,
)
from ccx.cmd_languages import Show, _dfa_result, dfa_app

kg_app = typer.Typer(no_args_is_help=True, help="Matching knowledge graphs and path queries.")
app.add_typer(kg_app, name="kg")

Entities = Annotated[int, ranged(limits.ENTITIES, "--entities", help="Entities E.")]
Relations = Annotated[
    int, ranged(limits.RELATIONS, "--relations", help="Relations R (permutations).")
]
Hops = Annotated[int, ranged(limits.HOPS, "--hops", help="Hops q of a path query.")]
GraphSeed = Annotated[
    int, ranged(limits.SEED, "--seed", help="Seeds the graph (relation r: (seed, r)).")
]


def _graph(entities: int, relations: int, seed: int):
    from ccomplexity import budget
    from ccomplexity.languages.kg import MatchingKG

    what = f"a knowledge graph of {entities} entities and {relations} relations"
    budget.check(what, *budget.kg_graph(entities, relations), "use fewer relations")

    return MatchingKG.generate(entities, relations, seed)


@kg_app.command("sample")
def kg_sample(
    entities: Entities,
    relations: Relations,
    hops: Hops,
    seed: GraphSeed = 0,
    batch: Annotated[int, ranged(limits.DRAWS, "--batch", help="Number of queries.")] = 3,
    as_json: JsonFlag = False,
) -> None:
    """Random q-hop path queries in the paper's token format, with their answers (Eq. 11, 12)."""
    import numpy as np

    from ccomplexity import budget
    from ccomplexity.languages.kg import QueryVocabulary, query_tokens

    tokens = 4 * hops - 1
    what = f"{batch} queries of {hops} hops ({tokens} tokens each) as text"
    budget.check(what, *budget.samples(batch, tokens), "use a smaller --batch or fewer --hops")
    graph = _graph(entities, relations, seed)
    vocab = QueryVocabulary(entities, relations, hops)
    rng = np.random.default_rng(seed)
    starts, words = rng.integers(0, entities, batch), rng.integers(0, relations, (batch, hops))
    names = vocab.names()
    queries = [" ".join(f"[{names[t]}]" for t in row) for row in query_tokens(vocab, starts, words)]
    answers = [f"[e{a}]" for a in graph.answer(starts, words)]
    if as_json:
        emit({"vocabulary": vocab.size, "queries": queries, "answers": answers}, True, "")
    else:
        print("\n".join(f"{q}  ->  {a}" for q, a in zip(queries, answers, strict=True)))


@kg_app.command("products")
def kg_products(
    entities: Entities,
    relations: Relations,
    hops: Hops,
    seed: GraphSeed = 0,
    as_json: JsonFlag = False,
) -> None:
    """Distinct relation products P_{r_1}..P_{r_k} over all R^k words, k = 1..q (Thm B.19 counts
    one monomial per word, which needs them distinct)."""
    from ccomplexity.languages.kg import check_product_work, distinct_products

    check_product_work(entities, relations, hops)
    start = time.perf_counter()
    counts = distinct_products(_graph(entities, relations, seed), hops)
    result: dict[str, Any] = {"entities": entities, "relations": relations, "hops": hops}
    result.update(
        seed=seed, distinct_products=counts, words=[relations**k for k in range(1, hops + 1)]
    )
    result["all_distinct"] = counts[-1] == relations**hops
    result["seconds"] = round(time.perf_counter() - start, 3)
    emit(result, as_json, "Distinct relation products")


@kg_app.command("split")
def kg_split(
    entities: Entities,
    relations: Relations,
    hops: Hops,
    cut: Annotated[int, ranged(limits.CUT, "--cut", help="Alice holds the start and r_1..r_K.")],
    seed: GraphSeed = 0,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """A query split after K relations: exact one-way complexity and a verified fooling set."""
    check_certificate_path(certificate)
    from ccomplexity.requests import KgSplitRequest, kg_split

    request = KgSplitRequest(
        entities=entities,
        relations=relations,
        hops=hops,
        cut=cut,
        seed=seed,
        certificate=certificate is not None,
    )
    emit_certified(kg_split(request), certificate, as_json, "Path-query split")


@dfa_app.command("kg")
def dfa_kg(
    entities: Entities,
    relations: Relations,
    seed: GraphSeed = 0,
    hops: Annotated[
        int | None, ranged(limits.HOPS, "--hops", help="Exactly q hops (default: any number).")
    ] = None,
    show: Show = False,
    as_json: JsonFlag = False,
) -> None:
    """Minimal DFA of a graph's path queries with their answers: e r_1 .. r_q a."""
    from ccomplexity.automata import check_kg_query_dfa, kg_query_dfa

    check_kg_query_dfa(entities, relations, hops)
    graph = _graph(entities, relations, seed)
    hop_text = "any q" if hops is None else f"q = {hops}"
    language = f"e r_1..r_q a, a the answer ({hop_text}; E = {entities}, R = {relations})"
    result = _dfa_result(kg_query_dfa(graph, hops), language, show)
    result.update(entities=entities, relations=relations, seed=seed, hops=hops)
    emit(result, as_json, "Minimal DFA of the path queries")


@kg_app.command("capacity")
def kg_capacity(
    store: Annotated[str, typer.Option("--store", help="Results store of a capacity search.")] = (
        "results/kg.db"
    ),
    as_json: JsonFlag = False,
) -> None:
    """Each stored model's capacity (largest graph, in triples, answered at its target), its
    parameters and FLOPs per query, and the fitted slopes next to the paper's (Sec. 6.1)."""

    from simulations.store import identify

    if not Path(store).is_file():
        raise InputError(f"no results store at {store!r}; run `ccx sweep --profile kg` first")
    identify(store)
    from simulations.capacity import capacities, slopes

    rows = [{k: v for k, v in r.items() if k != "config"} for r in capacities(store)]
    if not rows:
        raise InputError(f"the store {store!r} has no kg-path runs with a relations option")
    fitted = slopes(rows)
    if as_json:
        emit({"store": store, "capacities": rows, "slopes": fitted}, True, "")
        return
    header = ("family", "hops", "width", "layers", "loops", "experts", "parameters",
              "active_parameters", "flops_per_query", "relations", "triples",
              "triples_at_least", "tried", "verdict", "lr")  # fmt: skip
    print("  ".join(header))
    for r in rows:
        print("  ".join(str(r[k]).rjust(max(len(k), 10 * (k == "family"))) for k in header))
    if not fitted:
        print("no slope: no family has two model sizes of one q with decided capacities")
    for s in fitted:
        if "ratio" in s:
            paper = f" (paper: {s['paper_ratio']:g}x)" if s["paper_ratio"] else ""
            shown = f"{s['ratio']:.2f}" if s["ratio"] is not None else f"no ratio ({s['why']})"
            print(f"looped-moe / standard slope at q = {s['hops']}: {shown}{paper}")
        else:
            shown = "n/a" if s["slope"] is None else f"{s['slope']:.4f}"
            paper = "" if s["paper_slope"] is None else f" (paper: {s['paper_slope']:g})"
            print(f"slope {s['family']} q = {s['hops']}: {shown} triples/parameter{paper}")
