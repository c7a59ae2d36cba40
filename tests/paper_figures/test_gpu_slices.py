"""The GPU slices of the other three papers (profiles ``parrots-gpu``, ``looped-gpu``, ``kg-gpu``)
are what their figures read: a store holding each slice's runs (fake results, no training) draws
the panels the slices are for."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from paper_figures import make_figure
from simulations.capacity import every_round
from simulations.store import Store
from simulations.sweeps import load_spec


def fake(config, accuracy: float) -> dict:
    """A result dict for ``config`` with a plateaued curve ending at ``accuracy``."""
    steps = config.recipe.steps
    curve = [
        [s, accuracy]
        for s in range(config.evaluation.eval_every, steps + 1, config.evaluation.eval_every)
    ]
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": steps,
        "wall_seconds": 1.0,
        "checkpoint": None,
        "curve": curve,
        "parameters": 1000 * config.model.width,
        "state_numel": None,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
        "seed": config.seed,
        "device": "cuda",
    }


def store_of(profile: str, path: Path, keep=lambda c: True) -> Path:
    spec = load_spec(profile)
    configs = every_round(spec).configs if spec.grow else spec.configs
    with Store(path) as store:
        for c in configs:
            if keep(c):  # wider models and shorter inputs do better, so thresholds fall inside
                store.add_run(
                    fake(c, max(0.0, min(1.0, 0.5 + c.model.width / 64 - c.task.length / 400)))
                )
        store.note_sweep(profile)
    return path


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory):
    """Each slice's store, built once."""
    folder, built = tmp_path_factory.mktemp("slices"), {}

    def get(profile: str) -> Path:
        if profile not in built:

            def keep(c) -> bool:  # one seed (every cell keeps its runs), kg's first rounds
                return c.seed == 0 and (profile != "kg-gpu" or c.task.relations <= 12)

            built[profile] = store_of(profile, folder / f"{profile}.db", keep)
        return built[profile]

    return get


def rows(result: dict) -> list[dict]:
    path = next(f for f in result["files"] if f.endswith(".csv"))
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    ("figure", "profile", "check"),
    [
        (
            "parrots-reasoning",
            "parrots-gpu",
            lambda r: len({x["vertices"] for x in r if x["panel"] == "a" and x["experts"]}) >= 3,
        ),
        (
            "parrots-memorization",
            "parrots-gpu",  # dense and MoE at the same active width
            lambda r: {"1", "4", "16"} <= {x["experts"] for x in r if x["examples"]},
        ),
        (
            "looped-loops",
            "looped-gpu",
            lambda r: max(int(x["x"]) for x in r if x["task"] == "p-hop") >= 16,
        ),
        (
            "kg-capacity",
            "kg-gpu",
            lambda r: {"3", "4"} <= {x["hops"] for x in r if x["kind"] == "trained"},
        ),
    ],
)
def test_each_gpu_slice_fills_its_figure(figure, profile, check, stores, tmp_path):
    result = make_figure(figure, tmp_path / "out", store=stores(profile))
    assert check(rows(result)), figure
