"""Pinned details of the mixture-of-parrots one-way protocol and its reduction (``parrots``).

Pinned here: the model's own class is read at the LAST position (models whose class at position
1 and N - 1 differs), float predictions restore a held model's message grid and read token ids
of any dtype, the run's seed reaches the instances and the collision search, :func:`collision`
returns boolean masks whose sums agree exactly (int64, beyond float64's 2^53), each item's delta
against the message of Alice's actual sets, the forced failure's public middle edge (1, 2), its
classes and answers, the transcript check actually comparing the two messages, the reduction's
defaults and its run on a checkpoint.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from simulations.protocols import harness, parrots
from simulations.protocols.requests import ParrotsProtocolRequest
from tests.simulations.protocols.untrained import save_untrained


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("parrots_checkpoints")
    common = {"task": "length2-path", "arch": "concat-transformer", "width": 2, "heads": 1,
              "length": 3, "experts": 2}  # fmt: skip
    return {
        "path": save_untrained(folder, **common, gate="softmax"),
        "held": save_untrained(folder, **common, precision=4),
    }


@pytest.fixture
def small_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A birthday search over 2^10 random subsets (2^17 in a run): fast, same code path."""
    monkeypatch.setattr(parrots, "BIRTHDAY_SUBSETS", 1 << 10)


def run_parrots(**fields: Any) -> dict[str, Any]:
    base = {"vertices": 3, "width": 2, "heads": 1, "precision": 8, "samples": 4, "seed": 4,
            "arch": "moe", "experts": 2}  # fmt: skip
    return parrots.run_parrots_protocol(ParrotsProtocolRequest(**{**base, **fields}))


def seeded(r: int, middle: int, width: int, heads: int, precision: int, seed: int) -> tuple:
    layout = graphs.Layout(r, middle)
    model, _ = parrots.build_model("moe", r, width, heads, 2, layout, seed)
    numbers = harness.finite_numbers(model, harness.fixed_point(precision, None))
    return model, layout, numbers


# ----------------------------------------------------------------------------- the last position


def test_float_agreement_compares_classes_at_the_last_position() -> None:
    # seed 4, |V| = 3, M = 4, m = 2, p = 8: float and grid classes differ on 3 of 64 inputs
    out = run_parrots()
    model, layout, _ = seeded(3, 4, 2, 1, 8, 4)
    tokens = parrots.instances(layout, 3, 4, 4)["tokens"]
    with torch.no_grad():
        grid = model(tokens)[:, -1].argmax(-1)
        model.set_precision(None)
        floats = model(tokens)[:, -1].argmax(-1)
    assert len(tokens) == 64 and int((floats != grid).sum()) == 3
    assert out["float_agreement"] == 61 / 64
    assert grid.tolist().count(1) == 58  # the classes vary: not one flat index of the logits


def test_float_predictions_read_the_last_position_of_any_integer_dtype() -> None:
    model, layout, _ = seeded(3, 4, 2, 1, 8, 4)
    tokens = parrots.instances(layout, 3, 4, 4)["tokens"]
    with torch.no_grad():
        got = parrots._float_predictions(model, tokens)
        as_float = parrots._float_predictions(model, tokens.to(torch.float64))
        model.set_precision(None)
        logits = model(tokens)
    assert got.tolist() == logits[:, -1].argmax(-1).tolist() == as_float.tolist()
    # this model's class at position 1 and at N - 1 differs from the last one on some inputs
    assert (logits[:, 1].argmax(-1) != logits[:, -1].argmax(-1)).any()
    assert (logits[:, -2].argmax(-1) != logits[:, -1].argmax(-1)).any()


def test_float_predictions_restore_a_held_models_messages(ckpt: dict[str, str]) -> None:
    model = harness.model_source(None, None, 0, ckpt["held"]).model
    messages = model.messages
    assert messages is not None and model.quant is None
    tokens = parrots.instances(graphs.Layout(3, 4), 3, 4, 0)["tokens"]
    with torch.no_grad():
        held = model(tokens)[:, -1]
        parrots._float_predictions(model, tokens)
        assert model.messages is messages and model.quant is None
        assert torch.equal(model(tokens)[:, -1], held)


def test_reduction_agreement_is_at_the_last_position(small_search: None) -> None:
    # seed 4, |V| = 3, M = 1, m = 2, p = 8: classes at positions 1 and N - 1 differ from the last
    model, layout, _ = seeded(3, 1, 2, 1, 8, 4)
    tokens = parrots.instances(layout, 3, 8, 4)["tokens"]
    with torch.no_grad():
        logits = model(tokens)
    last = logits[:, -1].argmax(-1)
    assert int((logits[:, 1].argmax(-1) != last).sum()) == 33
    assert int((logits[:, -2].argmax(-1) != last).sum()) == 24
    out = parrots.run_length2_path_reduction("moe", 2, 8, 4, 8, vertices=3, experts=2, middle=1)
    assert out["protocol_agreement"] == 1.0 and out["instances"] == 64


# ----------------------------------------------------------------------------- seeds


def test_the_runs_seed_reaches_the_instances(
    monkeypatch: pytest.MonkeyPatch, small_search: None
) -> None:
    seeds: list[Any] = []
    instances = parrots.instances

    def spy(layout: graphs.Layout, r: int, samples: int, seed: int) -> dict[str, Any]:
        seeds.append(seed)
        return instances(layout, r, samples, seed)

    monkeypatch.setattr(parrots, "instances", spy)
    run_parrots(vertices=2, seed=7)
    parrots.run_length2_path_reduction("moe", 1, 3, 5, 4, vertices=2, experts=2, middle=1)
    assert seeds == [7, 5]


def test_the_runs_seed_reaches_the_collision_search(
    monkeypatch: pytest.MonkeyPatch, small_search: None
) -> None:
    seeds: list[Any] = []
    collision = parrots.collision

    def spy(deltas: np.ndarray, seed: int) -> Any:
        seeds.append(seed)
        return collision(deltas, seed)

    monkeypatch.setattr(parrots, "collision", spy)
    parrots.run_length2_path_reduction("moe", 1, 3, 5, 4, vertices=2, experts=2, middle=1)
    model, layout, numbers = seeded(4, 1, 1, 1, 3, 0)
    with torch.no_grad():
        parrots.forced_failure(model, layout, 4, 9, numbers)
    assert seeds == [5, 9]


def test_birthday_search_is_the_seeds(small_search: None) -> None:
    deltas = np.arange(1, 9)[:, None]  # no zero, no repeat: many colliding subset pairs
    results = {}
    for seed in (0, 1):
        a, b = parrots.collision(deltas, seed)
        assert a.dtype == b.dtype == np.bool_
        assert (a != b).any() and int(deltas[a].sum()) == int(deltas[b].sum())
        results[seed] = (a.astype(int).tolist(), b.astype(int).tolist())
        masks = np.random.default_rng(seed).random((parrots.BIRTHDAY_SUBSETS, 8)) < 0.5
        sums = masks.astype(np.int64) @ deltas
        seen: dict[int, int] = {}
        for n, s in enumerate(sums[:, 0].tolist()):  # the first mask whose sum came before
            if s in seen and (masks[seen[s]] != masks[n]).any():
                assert a.tolist() == masks[seen[s]].tolist() and b.tolist() == masks[n].tolist()
                break
            seen.setdefault(s, n)
    assert results[0] != results[1]


# ----------------------------------------------------------------------------- collision


def test_collision_returns_boolean_masks() -> None:
    a, b = parrots.collision(np.array([[1, 2], [0, 0], [0, 0]]), 0)
    assert a.dtype == b.dtype == np.bool_
    assert a.tolist() == [False] * 3 and b.tolist() == [False, True, False]
    a, b = parrots.collision(np.array([[1, 2], [3, 4], [5, 6], [3, 4]]), 0)
    assert a.dtype == b.dtype == np.bool_
    assert a.tolist() == [False, True, False, False] and b.tolist() == [False, False, False, True]


def test_collision_sums_are_exact_beyond_float64(small_search: None) -> None:
    # subset sums of {2^60, 2^60 + 1, 3} are all distinct; in float64 2^60 + 1 rounds to 2^60
    big = np.array([[2**60], [2**60 + 1], [3]], dtype=np.int64)
    assert float(2**60) == float(2**60 + 1)
    assert parrots.collision(big, 0) is None
    values = [2**60, 2**60 + 1, 1, 7]  # {2^60 + 1} and {2^60, 1} meet exactly
    a, b = parrots.collision(np.array(values, dtype=np.int64)[:, None], 0)
    assert (a != b).any()
    assert sum(x for x, m in zip(values, a, strict=True) if m) == sum(
        x for x, m in zip(values, b, strict=True) if m
    )


# ----------------------------------------------------------------------------- item deltas


def test_item_deltas_are_the_change_of_alices_message() -> None:
    # two heads, m = 2, p = 8: delta_i = message(a = {i}) - message(a = {}) in raw codes
    r = 4
    model, layout, numbers = seeded(r, 1, 2, 2, 8, 3)
    with torch.no_grad():
        deltas = parrots.item_deltas(model, layout, r, numbers)
        a = np.vstack([np.zeros(r, dtype=bool), np.eye(r, dtype=bool)])
        tokens = torch.from_numpy(
            layout.encode(a, np.zeros_like(a), np.ones((r + 1, 1, 2)) * [1, 2])
        )
        alice_pos, _, fixed = layout.positions(r)
        alice = parrots.Alice(model, tokens[:, list(alice_pos)], tokens[:, fixed[-1]], numbers)
    raw = torch.cat(
        [numbers.codes(alice.z.reshape(r + 1, -1)), numbers.codes(alice.l.reshape(r + 1, -1))], 1
    ).numpy()
    assert deltas.shape == (r, 2 * (2 + 1)) and deltas.dtype == np.int64
    assert deltas.tolist() == (raw[1:] - raw[0]).tolist()
    assert not (raw[0] == raw[1]).all()  # the empty set's message is not item 1's


# ----------------------------------------------------------------------------- forced failure


def test_forced_failure_replays_the_public_middle_edge() -> None:
    # seed 11, |V| = 8, M = 1, m = 1, p = 6: Bob answers class 1 on the pair with middle edge
    # (1, 2), class 0 with (1, 3)
    r = 8
    model, layout, numbers = seeded(r, 1, 1, 1, 6, 11)
    with torch.no_grad():
        forced = parrots.forced_failure(model, layout, r, 11, numbers)
        assert forced is not None
        a = np.array([c == "1" for c in forced["a"]])
        a_other = np.array([c == "1" for c in forced["a_other"]])
        b = np.array([c == "1" for c in forced["b"]])
        logits = {}
        for v in (2, 3):
            middle = np.array([[[1, v]], [[1, v]]])
            tokens = torch.from_numpy(
                layout.encode(np.stack([a, a_other]), np.stack([b, b]), middle)
            )
            logits[v] = model(tokens)[:, -1]
    assert forced["predicted"] == logits[2].argmax(-1).tolist() == [1, 1]
    assert logits[3].argmax(-1).tolist() == [0, 0]
    answers = forced["answers"]
    assert sorted(answers) == [0, 1] and all(type(x) is int for x in answers)
    assert answers == [int((a & b).any()), int((a_other & b).any())]
    assert forced["same_transcript_checked"] is True
    assert forced["why"] == "same message: Bob answers both alike, but only one of the sets meets b"


def test_forced_failure_checks_the_two_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    # a pair whose messages differ (a made-up collision) is reported as not the same transcript
    model, layout, numbers = seeded(4, 1, 1, 1, 8, 0)
    with torch.no_grad():
        deltas = parrots.item_deltas(model, layout, 4, numbers)
    assert deltas[0].any()  # item 0 changes Alice's message
    pair = (np.zeros(4, dtype=bool), np.eye(4, dtype=bool)[0])
    monkeypatch.setattr(parrots, "collision", lambda deltas, seed: pair)
    with torch.no_grad():
        forced = parrots.forced_failure(model, layout, 4, 0, numbers)
    assert forced is not None and forced["same_transcript_checked"] is False
    assert (forced["a"], forced["a_other"], forced["b"]) == ("0000", "1000", "1000")


# ----------------------------------------------------------------------------- the reduction


def test_reduction_defaults(small_search: None) -> None:
    out = parrots.run_length2_path_reduction("dense", 1, 3, 0, 4, vertices=2)
    assert out["experts"] == 1 and out["length"] == 2 * 2 + 4 + 1
    with pytest.raises(InputError, match="^--arch moe needs --experts K >= 2$"):
        parrots.run_length2_path_reduction("moe", 1, 3, 0, 4, vertices=2)


def test_reduction_on_checkpoints(ckpt: dict[str, str], small_search: None) -> None:
    out = parrots.run_length2_path_reduction("moe", None, 8, 0, 4, checkpoint=ckpt["path"])
    assert out["arch"] == "checkpoint" and out["checkpoint"] == ckpt["path"]
    assert out["vertices"] == 3 and out["experts"] == 2 and out["protocol_agreement"] == 1.0
    held = parrots.run_length2_path_reduction("dense", None, 4, 0, 4, checkpoint=ckpt["held"])
    assert held["arch"] == "checkpoint" and held["precision"] == 4


def test_frac_reaches_a_checkpoints_grid(ckpt: dict[str, str]) -> None:
    r = run_parrots(vertices=None, width=None, checkpoint=ckpt["path"], frac=3)
    assert r["frac"] == 3 and r["grid"] == harness.fixed_point(8, 3).describe()
    with pytest.raises(InputError, match="was trained holding its messages at p = 4 bits"):
        run_parrots(vertices=None, width=None, checkpoint=ckpt["held"], precision=4, frac=0)


# ----------------------------------------------------------------------------- construction


def test_construction_description() -> None:
    layout = graphs.Layout(3, 1)
    model, info = parrots.build_model("construction", 3, None, 1, 1, layout, 0)
    assert info == {"name": model.name, "config": model.config.to_dict(), "construction": True}
