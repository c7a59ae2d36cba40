"""Titles and conclusions computed from the store: the shared mechanism against known cases, then
every figure held to its words on small stores built to decide each way (more, less, undecided),
read without drawing (each module's ``summary``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from paper_figures import FIGURES, STANDALONE, conclusions, has_data
from paper_figures.conclusions import Known, order
from simulations.store import Store


def test_order_tells_apart_only_what_the_ranges_decide():
    assert order(Known.exactly(5), Known(1, 3)) == "more"
    assert order(Known(1, 3), Known.at_least(4)) == "less"
    assert order(Known(256, 1023), Known(256, 1023)) == "same"  # one grid range
    assert order(Known(0.4, 0.6), Known(0.5, 0.7)) == "same"  # overlapping intervals
    assert order(Known.at_least(512), Known.at_least(512)) == "undecided"
    assert order(Known.at_least(1024), Known(256, 1023)) == "more"  # open, but above
    assert order(Known.at_most(4), Known(2, 8)) == "undecided"
    assert order(Known(None, None), Known.exactly(1)) == "undecided"
    # undecided at N = 20, plateaued at 50: below 50, but not the grid range "below 20"
    assert order(Known(0, 49, undecided=True), Known(0, 19)) == "undecided"
    assert order(Known.at_least(50), Known(0, 49, undecided=True)) == "more"


def test_a_grid_range_ends_below_the_next_size_tried():
    assert conclusions.on_grid(256, [256, 1024, 4096], False) == Known(256, 1023)
    assert conclusions.on_grid(256, [256, 1024], True) == Known.at_least(256)
    assert conclusions.on_grid(4096, [256, 4096], False) == Known.at_least(4096)  # the ceiling
    assert conclusions.on_grid(None, [20, 50], False) == Known(0, 19)
    assert [Known(256, 1023).text(), Known.at_least(8).text(), Known.at_most(4).text()] == [
        "256 to 1,023",
        "at least 8",
        "at most 4",
    ]


def test_ranking_names_the_leader_those_it_beats_and_what_stays_open():
    more = ("leads", "lead")
    ranked = conclusions.ranking(
        {"a": Known.at_least(50), "b": Known(0, 19), "c": Known.at_least(0)}, more, "tie", "?"
    )
    assert ranked == "a leads b; against c undecided"
    assert conclusions.ranking({"a": Known(20, 49), "b": Known(20, 49)}, more, "tie", "?") == (
        "a and b tie"
    )
    assert conclusions.ranking({"a": Known.at_least(0), "b": Known(0, 19)}, more, "tie", "?") == "?"


# ---------------------------------------------------------------------------- stores, built


def run(
    task: str,
    arch: str,
    width: int,
    layers: int,
    length: int,
    best: float,
    verdict: str,
    **config: object,
) -> dict:
    """A stored result of the trainer's shape with its verdict given (so the store keeps it)."""
    full = {
        "task": task,
        "arch": arch,
        "width": width,
        "layers": layers,
        "length": length,
        "steps": 800,
        "lr": 1e-3,
        "seed": 0,
        "batch": 32,
        "heads": 4,
        "target": 0.99,
        "eval_every": 100,
        "eval_samples": 1000,
        **config,
    }
    digest = hashlib.sha256(json.dumps(full, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "config": full,
        "config_hash": digest,
        "accuracy": best,
        "best_accuracy": best,
        "curve": [[100 * i, best] for i in range(1, 9)],
        "verdict": verdict,
        "accuracy_ci": [max(0.0, best - 0.01), min(1.0, best + 0.01)],
        "steps": 800,
        "parameters": 1000,
        "state_numel": 2 * width * layers if arch == "lstm" else None,
        "device": "cpu",
        "seed": config.get("seed", 0),
    }


def store(tmp_path: Path, results: list[dict], name: str = "s.db") -> str:
    path = tmp_path / name
    with Store(path) as s:
        for result in results:
            s.add_run(result)
    return str(path)


def said(name: str, path: str) -> tuple[str, str]:
    found = FIGURES[name].summary(path)
    return found.title, found.conclusion


# ---------------------------------------------------------------------- the mixture of parrots


def memorised(hidden: int, experts: int, by_n: dict[int, tuple[float, str]]) -> list[dict]:
    return [
        run(
            "memorize",
            "concat-transformer",
            16,
            1,
            n,
            acc,
            verdict,
            heads=1,
            target=1.0,
            mlp_width=hidden,
            experts=experts,
        )
        for n, (acc, verdict) in by_n.items()
    ]


@pytest.mark.parametrize(
    ("dense", "moe", "words"),
    [
        (
            {256: (1.0, "reached"), 1024: (1.0, "reached")},
            {256: (1.0, "reached"), 1024: (0.99, "plateaued")},
            "dense m' = 16 memorises more than 16 experts of width 4",
        ),
        (
            {256: (1.0, "reached"), 1024: (0.9, "plateaued")},
            {256: (1.0, "reached"), 1024: (1.0, "reached")},
            "16 experts of width 4 memorise more than dense m' = 16",
        ),
        (
            {256: (1.0, "reached"), 1024: (0.9, "undecided")},
            {256: (1.0, "reached"), 1024: (0.9, "undecided")},
            "whether experts memorise more than a dense model is undecided",
        ),
        (
            {256: (1.0, "reached"), 1024: (0.9, "plateaued")},
            {256: (1.0, "reached"), 1024: (0.9, "plateaued")},
            "16 experts of width 4 and dense m' = 16 memorise the same n",
        ),
    ],
)
def test_memorisation_says_which_memorises_more_at_matched_active_parameters(
    tmp_path, dense, moe, words
):
    path = store(tmp_path, memorised(16, 1, dense) + memorised(4, 16, moe))
    title, conclusion = said("parrots-memorization", path)
    assert words in title
    assert "1,056" in conclusion and "1,096" in conclusion  # the pair's active parameters


def reasoning(v: int, k: int, by_width: dict[int, tuple[float, str]]) -> list[dict]:
    return [
        run("length2-path", "concat-transformer", w, 1, v, acc, verdict, heads=1, experts=k)
        for w, (acc, verdict) in by_width.items()
    ]


@pytest.mark.parametrize(
    ("moe", "words"),
    [
        ({2: (1.0, "reached"), 4: (1.0, "reached")}, "at |V| = 4, experts lower the width (K = 4)"),
        (
            {2: (0.7, "plateaued"), 4: (1.0, "reached")},
            "at |V| = 4, experts do not lower the width",
        ),
        (
            {2: (0.7, "undecided"), 4: (1.0, "reached")},
            "at |V| = 4, whether experts lower the width is undecided",
        ),
    ],
)
def test_reasoning_says_whether_experts_lower_the_width(tmp_path, moe, words):
    dense = reasoning(4, 1, {2: (0.7, "plateaued"), 4: (1.0, "reached")})
    title, conclusion = said("parrots-reasoning", store(tmp_path, dense + reasoning(4, 4, moe)))
    assert words in title and "K = 1: m H 3 to 4" in conclusion


# ----------------------------------------------------------------------------- separations


def lengths(
    task: str, arch: str, by_n: dict[int, tuple[float, str]], width: int = 64, layers: int = 1
) -> list[dict]:
    return [run(task, arch, width, layers, n, acc, verdict) for n, (acc, verdict) in by_n.items()]


REACHED = {20: (1.0, "reached"), 50: (1.0, "reached")}
MISSED = {20: (0.1, "plateaued"), 50: (0.05, "plateaued")}
OPEN = {20: (0.1, "undecided"), 50: (0.05, "undecided")}
OPEN_BELOW_50 = {20: (0.1, "undecided"), 50: (0.05, "plateaued")}


@pytest.mark.parametrize(
    ("transformer", "lstm", "words"),
    [
        (
            REACHED,
            MISSED,
            "Index lookup, transformer layers=1 width=64 holds the target to longer N than "
            "lstm layers=1 width=64",
        ),
        (
            MISSED,
            REACHED,
            "Index lookup, lstm layers=1 width=64 holds the target to longer N than "
            "transformer layers=1 width=64",
        ),
        (REACHED, OPEN, "Index lookup, which model holds the target longest is undecided"),
        # undecided at 20 but plateaued at 50: below 50 whatever N = 20 does, so decided
        (
            REACHED,
            OPEN_BELOW_50,
            "Index lookup, transformer layers=1 width=64 holds the target to longer N than "
            "lstm layers=1 width=64",
        ),
        (MISSED, MISSED, "hold the target to the same N"),
    ],
)
def test_fig2_says_which_model_holds_the_target_longest(tmp_path, transformer, lstm, words):
    path = store(
        tmp_path,
        lengths("index-lookup", "transformer", transformer) + lengths("index-lookup", "lstm", lstm),
    )
    title, conclusion = said("fig2", path)
    assert words in title
    assert "Dyck-(2,2): no runs" in title


def test_fig4_says_when_the_store_has_one_length(tmp_path):
    path = store(
        tmp_path,
        lengths("eq-random", "lstm", {50: (0.995, "reached")})
        + lengths("eq-random", "transformer", {50: (0.92, "undecided")}),
    )
    title, conclusion = said("fig4", path)
    assert title.startswith("Equality tasks") and "Eq-random: one length (N = 50)" in title
    assert "lstm layers=1 width=64 0.995, transformer layers=1 width=64 0.920" in conclusion
    path = store(
        tmp_path,
        lengths("eq-random", "lstm", REACHED) + lengths("eq-random", "transformer", MISSED),
        "two.db",
    )
    assert "Eq-random, lstm layers=1 width=64 holds the target to longer N" in said("fig4", path)[0]


@pytest.mark.parametrize(
    ("narrow", "wide", "words"),
    [
        (
            MISSED,
            {20: (1.0, "reached"), 50: (0.2, "plateaued")},
            "lstm layers=1: its reach grows with width",
        ),
        (MISSED, MISSED, "lstm layers=1 at 0.99 at no width or length tried"),
        (MISSED, OPEN, "lstm layers=1: whether its reach grows with width is undecided"),
        (
            {20: (1.0, "reached"), 50: (0.2, "plateaued")},
            MISSED,
            "lstm layers=1: its reach does not grow with width",
        ),
    ],
)
def test_fig3_says_whether_the_reach_grows_with_width(tmp_path, narrow, wide, words):
    path = store(
        tmp_path,
        lengths("index-lookup", "lstm", narrow, 16) + lengths("index-lookup", "lstm", wide, 64),
    )
    title, _ = said("fig3", path)
    assert words in title


def test_thresholds_say_whether_any_passes_its_bound(tmp_path):
    below = store(tmp_path, lengths("index-lookup", "lstm", REACHED))
    title, conclusion = said("thresholds", below)
    assert title.endswith("every threshold below its bound")
    assert "at N >= 50" in conclusion and "bite from N = 4,096" in conclusion
    # an LSTM of width 1 holds 2 numbers: Thm 3 at p = 32 rules it out beyond N = 64
    beyond = store(tmp_path, lengths("index-lookup", "lstm", {128: (1.0, "reached")}, 1), "b.db")
    title, conclusion = said("thresholds", beyond)
    assert "1 beyond their bound, an error to report" in title
    assert "index lookup: lstm, 1 layer width=1 passed the length" in conclusion


# ------------------------------------------------------------------------ looped reasoning


def loops(by_loops: dict[int, tuple[float, str]], hops: int = 1) -> list[dict]:
    return [
        run("p-hop", "looped", 48, 1, 10, acc, verdict, loops=n, hops=hops)
        for n, (acc, verdict) in by_loops.items()
    ]


@pytest.mark.parametrize(
    ("by_loops", "words"),
    [
        ({1: (0.5, "plateaued"), 2: (1.0, "reached")}, "p-hop, 1 of 1 sizes at the proved count"),
        ({1: (1.0, "reached"), 2: (1.0, "reached")}, "p-hop, 1 of 1 sizes below it"),
        ({1: (0.5, "plateaued"), 2: (0.6, "plateaued")}, "p-hop, 1 of 1 sizes above it"),
        ({1: (0.5, "undecided"), 2: (1.0, "reached")}, "p-hop, 1 of 1 sizes undecided"),
    ],
)
def test_looped_loops_says_the_fewest_loops_against_the_proved_count(tmp_path, by_loops, words):
    title, conclusion = said("looped-loops", store(tmp_path, loops(by_loops)))
    assert words in title and "(proved 2)" in conclusion  # floor(lg 1) + 2 for p = 1


def table(looped: tuple[float, str], deep: tuple[float, str], seeds: int = 1) -> list[dict]:
    shapes = (
        ("transformer", 1, None, (0.5, "plateaued")),
        ("looped", 1, 4, looped),
        ("transformer", 4, None, deep),
    )
    return [
        run(
            "p-hop",
            arch,
            48,
            layers,
            10,
            acc,
            verdict,
            hops=2,
            seed=seed,
            **({"loops": n} if n else {}),
        )
        for arch, layers, n, (acc, verdict) in shapes
        for seed in range(seeds)
    ]


@pytest.mark.parametrize(
    ("looped", "deep", "words"),
    [
        ((0.99, "reached"), (0.993, "reached"), "(1⊗4) level with iso-FLOP"),
        ((0.6, "plateaued"), (0.99, "reached"), "(1⊗4) below iso-FLOP"),
        ((0.6, "undecided"), (0.99, "reached"), "(1⊗4) undecided against iso-FLOP"),
    ],
)
def test_looped_table_compares_each_looped_model_with_its_baselines(tmp_path, looped, deep, words):
    title, conclusion = said("looped-table1", store(tmp_path, table(looped, deep, seeds=3)))
    assert words in title and "(1⊗4) above iso-param" in title
    reached = 3 if looped[0] >= 0.99 else 0
    assert f"({reached} of 3 runs at the target) vs" in conclusion


def regularised(reg: tuple[float, str]) -> list[dict]:
    plain = run("p-hop", "transformer", 32, 4, 16, 0.8, "plateaued", hops=4)
    cosine = {"attn_q": [[1.0, 0.99], [0.99, 1.0]]}
    return [
        plain,
        {
            **run(
                "p-hop",
                "transformer",
                32,
                4,
                16,
                reg[0],
                reg[1],
                hops=4,
                reg_lambda=10.0,
                reg_block=2,
            ),
            "layer_similarity": cosine,
        },
    ]


@pytest.mark.parametrize(
    ("reg", "words"),
    [
        ((0.6, "plateaued"), "accuracy below the plain model"),
        ((0.8, "plateaued"), "accuracy level with the plain model"),
        ((0.6, "undecided"), "accuracy undecided against the plain model"),
    ],
)
def test_regulariser_says_what_it_costs_in_accuracy(tmp_path, reg, words):
    title, _ = said("looped-regularizer", store(tmp_path, regularised(reg)))
    assert title.startswith("Block-cosine regulariser: λ = 10, k = 2") and words in title


# --------------------------------------------------------------------------------- kg looping


def capacity_runs(family_accuracy: dict[str, dict[int, tuple[float, str]]]) -> list[dict]:
    out = []
    for family, by_relations in family_accuracy.items():
        looped = family == "looped-moe"
        extra = {"loops": 1, "experts": 4, "mlp_width": 8} if looped else {}
        for relations, (acc, verdict) in by_relations.items():
            out.append(
                run(
                    "kg-path",
                    "looped" if looped else "transformer",
                    8,
                    1,
                    1,
                    acc,
                    verdict,
                    entities=16,
                    relations=relations,
                    graph_seed=0,
                    heads=2,
                    target=0.97,
                    expert="glu",
                    **extra,
                )
            )
    return out


@pytest.mark.parametrize(
    ("moe", "words"),
    [
        ({1: (1.0, "reached"), 2: (1.0, "reached")}, "q = 1: looped-moe holds more than standard"),
        ({1: (1.0, "reached"), 2: (0.5, "undecided")}, "q = 1: every comparison undecided"),
    ],
)
def test_kg_capacity_compares_looped_moe_with_standard(tmp_path, moe, words):
    standard = {1: (1.0, "reached"), 2: (0.5, "plateaued")}
    path = store(tmp_path, capacity_runs({"standard": standard, "looped-moe": moe}))
    assert words in said("kg-capacity", path)[0]


# ---------------------------------------------------------------- protocols and bounds alone


def test_protocols_say_whether_trained_models_carry_the_bits_their_task_needs():
    from paper_figures.protocols import conclude

    sent = [{"panel": "a", "kind": "measured", "agreement": 1.0, "logits_exact": 1.0}]

    def used(bits: int | None, bound: int, accuracy: float = 1.0) -> list[dict]:
        common = {"panel": "b", "checkpoint": f"{bits}-{bound}", "task_accuracy": accuracy}
        return [
            {**common, "kind": "bits_used", "bits": bits},
            {**common, "kind": "one_way_lower_bound", "bits": bound},
        ]

    at_least = conclude(sent, used(64, 3) + used(128, 12), "s.db")
    assert "each of the 2 trained models that solve their task uses at least" in at_least.title
    assert "(smallest margin 10.7x)" in at_least.conclusion
    fewer = conclude(sent, used(2, 3), "s.db")
    assert "1 of 1 trained models that solve their task use fewer bits" in fewer.title
    none = conclude(sent, used(64, 3, accuracy=0.5), "s.db")
    assert "no model of the store solves its task, not drawn" in none.title
    assert "no recurrent checkpoints" in conclude(sent, [], "s.db").title
    assert "every protocol run reproduces its model bit for bit" in none.title


def test_bounds_are_read_off_the_exact_evaluation():
    from paper_figures.bounds import conclude

    rows = [
        {"panel": "a", "series": "separations.thm3", "width": 64, "precision": 32, "length": 2048},
        {"panel": "b", "n_types": 2, "length": 4, "value": 3},
        {"panel": "c", "n_types": 2, "depth": 2, "value": 8},
    ]
    found = conclude(rows)
    assert "the first rules a model out at N = 2,048" in found.title
    assert "has exactly 2^(N-1) elements at every N from 4 to 4" in found.conclusion
    rows[1]["value"] = 2
    assert "fall short of N - 1 bits" in conclude(rows).conclusion


def test_every_figure_but_the_standalone_ones_says_no_data_for_an_empty_store(tmp_path):
    path = store(tmp_path, [])
    for name in FIGURES:
        assert has_data(name, path) == (name in STANDALONE), name
        if name not in STANDALONE:
            assert said(name, path)[0].endswith("no data in the store")


SHIPPED = Path(__file__).resolve().parents[2] / "shipped"


def test_the_shipped_stores_say_what_their_runs_decide():
    """The memorisation title on the two shipped parrots stores, and which figures the GPU
    store of the separations paper has data for (the report draws only those)."""
    title, conclusion = said("parrots-memorization", str(SHIPPED / "parrots-gpu.db"))
    assert "dense m' = 16 memorises more than 16 experts of width 4" in title
    assert "16 experts of width 4 (1,096 active parameters): n* 256 (1,024 missed)" in conclusion
    title, _ = said("parrots-memorization", str(SHIPPED / "parrots.db"))
    assert "whether experts memorise more than a dense model is undecided" in title
    gpu = str(SHIPPED / "gpu.db")
    drawn = [name for name in FIGURES if has_data(name, gpu)]
    assert drawn == ["thresholds", "bounds", "fig2", "fig3", "fig4", "protocols"]
