"""Theorem 2 run on every recurrent model: exact agreement, m p bits, party isolation."""

from __future__ import annotations

import pytest
import torch

from ccomplexity.errors import InputError
from simulations.protocols import harness, rnn
from simulations.protocols.requests import RnnProtocolRequest
from simulations.protocols.rnn import run_rnn_protocol


def run_rnn(arch, width, length, cut, precision, samples=2, seed=0, **options):
    """The runner on a request made of these fields."""
    request = RnnProtocolRequest(
        arch=arch,
        width=width,
        length=length,
        cut=cut,
        precision=precision,
        samples=samples,
        seed=seed,
        **options,
    )
    return run_rnn_protocol(request)


ARCHS = ["lstm", "gru", "mamba", "dss", "linear-transformer", "retnet"]


def test_every_recurrent_model_is_covered():
    assert sorted(rnn.recurrent_archs()) == sorted(ARCHS)


@pytest.mark.parametrize("arch", ARCHS)
def test_agreement_and_bits(arch):
    r = run_rnn(arch, width=8, length=10, cut=4, precision=12, samples=6, seed=0)
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["max_logit_error"] == 0.0
    assert r["bits_sent"] == r["state_numel"] * 12 == r["bits_theorem"]
    assert r["bits_by_step"] == {"hidden_state": r["bits_sent"]}
    assert r["bits_by_direction"] == {"alice->bob": r["bits_sent"]}
    assert r["one_way"] is True and r["samples"] == 6 and r["frac"] == 6


@pytest.mark.parametrize("cut", [1, 9])
def test_two_layers_and_extreme_cuts(cut):
    r = run_rnn(
        "lstm", width=4, length=10, cut=cut, precision=16, samples=5, seed=2, layers=2, frac=10
    )
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["state_numel"] == 2 * 2 * 4  # h and c of both layers
    assert r["bits_sent"] == 16 * 16


def test_the_message_is_the_complete_state():
    model = rnn.recurrent_source("mamba", 8, seed=0).model
    numbers = harness.finite_numbers(model, harness.fixed_point(12, None))
    inputs = harness.random_tokens(3, 7, 8, seed=1)
    with torch.no_grad():
        setup = rnn.setup(model, 3, inputs, numbers)
        bits = setup.parties["alice"].send("hidden_state")
        _, state = model.run_steps(inputs[:, :3])
    fmt = model.quant.fmt
    assert len(bits[0]) == model.state_numel() * 12
    decoded = torch.tensor(fmt.from_bits(bits[0]), dtype=torch.float64) / 2.0**fmt.frac
    flat = torch.cat([t[0].reshape(-1) for t in state.values()])  # conv buffer, then SSM state
    assert torch.equal(decoded, flat)


def test_alice_sees_only_her_tokens_and_ignores_bobs():
    model = rnn.recurrent_source("gru", 8, seed=0).model
    numbers = harness.finite_numbers(model, harness.fixed_point(12, None))
    inputs = harness.random_tokens(4, 9, 8, seed=5)
    changed = inputs.clone()
    changed[:, 6] = (changed[:, 6] + 1) % 8  # a token of Bob's (cut 4)
    with torch.no_grad():
        first = rnn.setup(model, 4, inputs, numbers)
        second = rnn.setup(model, 4, changed, numbers)
        assert first.parties["alice"].tokens.shape == (4, 4)
        assert second.parties["bob"].tokens.shape == (4, 5)
        t1, out1 = harness.run(first, 4)
        t2, out2 = harness.run(second, 4)
    assert [t.messages for t in t1] == [t.messages for t in t2]  # Alice sends before receiving
    assert not torch.equal(out1["bob"], out2["bob"])
    assert all(t.total == sum(len(m.bits) for m in t.messages) for t in t1)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cut": 0},
        {"cut": 10},
        {"arch": "transformer"},
        {"arch": "rnn"},
        {"precision": 1},
        {"samples": 0},
        {"frac": 12},
        {"seed": -1},
    ],
)
def test_bad_input(kwargs):
    args = {"arch": "gru", "width": 4, "length": 10, "cut": 3, "precision": 12, "samples": 2,
            "seed": 0, **kwargs}  # fmt: skip
    with pytest.raises(InputError):
        run_rnn(**args)
