"""The mixture-of-parrots figures from a store of fake runs shaped like the trainer's."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from paper_figures import make_figure, paper_of
from simulations.store import Store

CLIMBING = {("length2-path", 8, 4, 4), ("memorize", 512, 4, 4)}
"""(task, |V| or n, width or m', K) still climbing when their budget ran out: undecided."""


def fake(task: str, length: int, width: int, accuracy: float, **options) -> dict:
    config = {"task": task, "arch": "concat-transformer", "width": width, "layers": 1,
              "length": length, "steps": 100, "lr": 0.01, "seed": 0, "batch": 64, "heads": 1,
              "target": 1.0 if task == "memorize" else 0.99, "eval_every": 50,
              "eval_samples": 100, **options}  # fmt: skip
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "accuracy": accuracy,
        "best_accuracy": accuracy,
        "steps": 100,
        "curve": curve(
            accuracy,
            (
                task,
                length,
                options.get("mlp_width", width) if task == "memorize" else width,
                options.get("experts", 1),
            )
            in CLIMBING,
        ),
        "parameters": 1,
        "state_numel": None,
        "config": config,
        "config_hash": digest,
        "seed": 0,
        "device": "cpu",
        "checkpoint": None,
        "wall_seconds": 1.0,
    }


def curve(accuracy: float, climbing: bool) -> list[list[float]]:
    """Evaluations every 10 steps ending at ``accuracy``: climbing to the end (undecided below
    the target), or there from step 60 on (plateaued below it, or reached)."""
    return [[s, accuracy * (s / 100 if climbing else min(1.0, s / 60))] for s in range(10, 101, 10)]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("parrots") / "parrots.db"
    with Store(path) as s:
        for v in (4, 8):
            for w in (2, 4, 8):
                for k in (1, 4):
                    s.add_run(
                        fake("length2-path", v, w, 1.0 if w >= v else 0.7, experts=k, mlp_width=32)
                    )
        s.add_run(fake("length2-path", 8, 8, 1.0))  # Cor 3.3: dense, m' = m
        s.add_run(fake("length2-path", 8, 5, 0.8, experts=4))
        s.add_run(fake("length2-path", 8, 2, 0.6, experts=16))
        for n in (128, 256, 512):
            for hidden, k, ok in ((4, 1, 128), (16, 1, 512), (4, 4, 256), (2, 1, 0)):
                accuracy = 1.0 if n <= ok and (hidden, n) != (16, 256) else 0.9
                s.add_run(fake("memorize", n, 16, accuracy, mlp_width=hidden, experts=k))
    return path


def rows(path: Path) -> list[dict]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_reasoning_figure(store: Path, tmp_path: Path) -> None:
    result = make_figure("parrots-reasoning", tmp_path, store=store)
    assert result["missing"] == [] and paper_of("parrots-reasoning") == "parrots"
    table = rows(tmp_path / "parrots-reasoning.csv")
    reached = {(r["vertices"], r["experts"]): r["min_mH"] for r in table if r["min_mH"]}
    assert reached == {("4", "1"): "4", ("4", "4"): "4", ("8", "1"): "8"}
    # |V| = 8, K = 4: width 4 missed while still climbing, so the smallest width is open
    (open_,) = [r for r in table if r["panel"] == "a" and r["verdict"] == "undecided"]
    assert (open_["vertices"], open_["experts"], open_["min_mH"], open_["at_most"]) == (
        "8",
        "4",
        "",
        "8",
    )
    assert {r["verdict"] for r in table if r["panel"] == "b"} == {
        "reached",
        "plateaued",
        "undecided",
    }
    assert "1 was undecided" in result["caption"] or "were undecided" in result["caption"]
    matched = [(r["experts"], r["width"]) for r in table if r["panel"] == "c"]
    assert matched == [("1", "8"), ("4", "5"), ("16", "2")]  # Cor 3.3's widths at |V| = 8
    lower = [r for r in table if r["bound"] == "thm3_1_min_width" and r["vertices"] == "8"]
    assert lower[0]["value"] == "1"
    exact = {r["vertices"]: r["value"] for r in table if r["bound"] == "thm3_1_exact_min_width"}
    paper = {r["vertices"]: r["value"] for r in table if r["bound"] == "thm3_1_min_width"}
    from ccomplexity import bounds

    assert sorted(map(int, exact)) == [2, 4, 8, 16, 32]  # fitted: half to four times the data
    thm, thm_exact = bounds.get("parrots.thm3_1"), bounds.get("parrots.thm3_1_exact")
    assert (exact["32"], paper["32"]) == (
        str(thm_exact.value(vertices=32, precision=16)),
        str(thm.min_width(32, 16, 1)),
    )  # both counts drawn at p = 16
    curves = {(r["vertices"], r["experts"], r["width"]) for r in table if r["panel"] == "d"}
    assert curves == {
        ("4", "1", "8"),
        ("4", "4", "8"),
        ("8", "1", "8"),
        ("8", "4", "8"),
        ("8", "16", "2"),
    }
    assert "float32" in result["caption"]
    counts = {(r["experts"], r["width"]): int(r["parameters"]) for r in table if r["panel"] == "c"}
    said = ", ".join(f"K = {k}, m = {w}: {p:,}" for (k, w), p in counts.items())
    assert f"parameters compared: |V| = 8: {said}." in result["caption"]


def test_memorization_figure(store: Path, tmp_path: Path) -> None:
    result = make_figure("parrots-memorization", tmp_path, store=store)
    assert result["missing"] == []
    every = rows(tmp_path / "parrots-memorization.csv")
    table = [r for r in every if r["n_star"]]
    n_star = {(r["mlp_width"], r["experts"]): r["n_star"] for r in table}
    # the largest n memorised, even where a smaller one was missed (m' = 16 at n = 256); none
    # for m' = 2; and for K = 4 an undecided n = 512 leaves n* open: at least 256, no number
    assert n_star == {("4", "1"): "128", ("16", "1"): "512", ("2", "1"): "0"}
    moe = [r for r in every if r["experts"] == "4"]
    assert {r["n_star_at_least"] for r in moe} == {"256"} and {r["n_star"] for r in moe} == {""}
    assert {(r["examples"], r["verdict"]) for r in moe} == {
        ("128", "reached"),
        ("256", "reached"),
        ("512", "undecided"),
    }
    moe = next(r for r in every if r["experts"] == "4")
    dense = next(r for r in every if r["experts"] == "1" and r["mlp_width"] == "4")
    # K experts add only the router (K m) to the active parameters
    assert int(moe["active_parameters"]) == int(dense["active_parameters"]) + 4 * 16
    assert int(moe["total_parameters"]) > int(dense["total_parameters"])
    assert (tmp_path / "parrots-memorization.png").stat().st_size > 0
    said = f"{int(moe['active_parameters']):,} / {int(moe['total_parameters']):,}"
    assert "Parameters compared (active / total): " in result["caption"]
    assert f"K = 4: {said}" in result["caption"]
