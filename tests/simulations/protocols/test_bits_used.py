"""Bits a float recurrent model uses at a cut: agreement by precision, distinct states, bounds."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from simulations.protocols.bits_used import bits_used


def test_agreement_grows_with_precision_and_reaches_one():
    r = bits_used("linear-transformer", width=32, length=12, cut=6, seed=0, samples=500,
                  precisions=[2, 4, 8, 16, 24])  # fmt: skip
    agree = r["agreement_by_precision"]
    assert agree[2] < 1.0 and agree[16] == agree[24] == 1.0
    assert agree[2] <= agree[4] <= agree[8] + 1e-12
    p = r["smallest_full_agreement_precision"]
    assert p is not None and r["bits_used"] == p * r["state_numel"]
    assert r["reference_majority_fraction"] < 1.0


def test_distinct_states_are_bounded_by_the_prefixes():
    r = bits_used("lstm", width=4, length=10, cut=5, seed=0, samples=200, precisions=range(2, 13))
    assert r["exhaustive"] and r["prefixes_at_cut"] == 4**5
    counts = r["distinct_states_by_precision"]
    assert all(1 <= c <= 4**5 for c in counts.values())
    assert counts[2] <= counts[12] <= r["distinct_float_states"] <= 4**5
    assert r["one_way_lower_bound_bits"] == 2  # depth after 5 symbols is odd: 1, or dead


def test_index_task_bound_is_the_cut():
    r = bits_used("gru", width=4, length=10, cut=7, seed=0, task="index", samples=100,
                  precisions=[4, 20])  # fmt: skip
    assert r["one_way_lower_bound_bits"] == 7 and r["prefixes_at_cut"] == 2**7
    assert r["distinct_states_at_cut"] <= 2**7


@pytest.mark.parametrize(
    "kwargs",
    [
        {"task": "copy"},
        {"cut": 12},
        {"precisions": [1]},
        {"checkpoint": "x"},
        {"arch": "transformer"},
    ],
)
def test_user_errors(kwargs):
    with pytest.raises(InputError):
        bits_used(**{"arch": "lstm", "width": 2, "length": 12, "cut": 4, "seed": 0, **kwargs})
