"""Lemma A.3 / Thm A.4 on the concat-transformer: bit-exact, one-way, isolated; the reduction."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.bounds.parrots import one_way_bits
from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from simulations.protocols import harness, parrots
from simulations.protocols.requests import ParrotsProtocolRequest


def run_parrots(vertices, width, heads, precision, samples, seed, **options):
    """The runner on a request made of these fields."""
    request = ParrotsProtocolRequest(
        vertices=vertices,
        width=width,
        heads=heads,
        precision=precision,
        samples=samples,
        seed=seed,
        **options,
    )
    return parrots.run_parrots_protocol(request)


@pytest.mark.parametrize(
    "arch, experts, heads", [("moe", 4, 2), ("dense", 1, 1), ("moe", 3, 1), ("construction", 1, 1)]
)
def test_protocol_reproduces_the_model_bit_for_bit(arch, experts, heads):
    out = run_parrots(6, 4, heads, 12, 50, 1, arch=arch, experts=experts)
    assert out["one_way"] and out["agreement"] == out["logits_exact"] == 1.0
    assert (
        out["bits_sent"]
        == out["bits_exact_formula"]
        == one_way_bits(out["width"], out["heads"], 12, 6)
    )
    assert out["exhaustive"] and out["samples"] == 4**6


def test_parties_see_only_their_side():
    layout = graphs.Layout(5, 2)
    model, _ = parrots.build_model("moe", 5, 3, 1, 4, layout, seed=0)
    numbers = harness.finite_numbers(model, harness.fixed_point(12, None))
    data = parrots.instances(layout, 5, 10, 0)
    tokens = data["tokens"]
    alice, bob, _ = layout.positions()
    flipped = tokens.clone()
    flipped[:, bob[0]] = layout.vertices + 1 + 1 - (tokens[:, bob[0]] - layout.vertices - 1)
    with torch.no_grad():
        sent = parrots.setup(model, layout, tokens, numbers).parties["alice"].send(parrots.VALUES)
        again = parrots.setup(model, layout, flipped, numbers).parties["alice"].send(parrots.VALUES)
        assert sent == again  # Bob's token does not reach Alice's message
        t1, o1 = harness.run(parrots.setup(model, layout, tokens, numbers), len(tokens))
        t2, o2 = harness.run(parrots.setup(model, layout, flipped, numbers), len(tokens))
    assert [t.messages for t in t1] == [t.messages for t in t2]


def test_reduction_below_the_bound_shows_errors_and_a_forced_failure():
    out = parrots.run_length2_path_reduction("moe", 1, 4, 0, 300, vertices=24, experts=4)
    assert out["below_lower_bound"] and out["bits_sent"] < 24
    assert out["protocol_agreement"] == 1.0 and out["errors"] > 0 and out["failures"]
    forced = out["forced_failure"]
    assert forced is not None and forced["same_transcript_checked"]
    assert forced["answers"][0] != forced["answers"][1]
    assert forced["predicted"][0] == forced["predicted"][1]


def test_reduction_on_the_construction_solves_everything():
    out = parrots.run_length2_path_reduction("construction", None, 12, 0, 100, vertices=6)
    assert out["solved_fraction"] == 1.0 and not out["below_lower_bound"]
    assert out["failures"] == []


def test_bad_input():
    with pytest.raises(InputError, match="unknown arch"):
        run_parrots(4, 2, 1, 12, 10, 0, arch="rnn")
    with pytest.raises(InputError, match="needs --experts"):
        run_parrots(4, 2, 1, 12, 10, 0, arch="moe", experts=1)
    with pytest.raises(InputError, match="vertices 1000000 exceeds the limit of 512"):
        run_parrots(10**6, 2, 1, 12, 10, 0, arch="dense")


def test_protocol_on_a_trained_checkpoint(tmp_path):
    from simulations.training import TrainConfig, train

    config = TrainConfig.of(
        task="length2-path",
        arch="concat-transformer",
        width=4,
        layers=1,
        length=3,
        heads=1,
        steps=20,
        batch=16,
        eval_every=20,
        eval_samples=50,
        experts=2,
        gate="softmax",
    )
    path = train(config, checkpoint_dir=tmp_path, progress=False, device="cpu")["checkpoint"]
    out = run_parrots(None, None, 1, 16, 10, 0, checkpoint=path)
    assert out["arch"] == "checkpoint" and out["vertices"] == 3 and out["experts"] == 2
    assert out["agreement"] == out["logits_exact"] == 1.0 and out["samples"] == 4**3
    with pytest.raises(InputError, match="knows 3 vertices"):
        run_parrots(5, None, 1, 16, 10, 0, checkpoint=path)


@pytest.mark.parametrize("vertices, precision, heads", [(24, 3, 1), (40, 3, 2)])
def test_measured_message_meets_the_exact_count_at_its_min_width(vertices, precision, heads):
    from ccomplexity import bounds

    m = bounds.get("parrots.thm3_1_exact").value(
        vertices=vertices, precision=precision, heads=heads
    )
    assert m > 1
    for width, enough in ((m, True), (m - 1, False)):
        out = run_parrots(vertices, width, heads, precision, 20, 0, arch="moe", experts=2)
        assert out["logits_exact"] == 1.0
        assert (out["bits_sent"] >= vertices) is enough
