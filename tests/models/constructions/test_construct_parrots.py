"""Thm 3.2's width-|V| model and the A.11 / A.12 memorisers, run as real weights."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from models import constructions


@pytest.mark.parametrize("vertices", [2, 5, 8])
def test_thm3_2_is_exact_on_every_instance(vertices):
    out = constructions.run("length2-path", vertices=vertices)
    assert out["exhaustive"] and out["samples"] == 4**vertices
    assert out["accuracy"] == out["float_accuracy"] == 1.0 and out["width"] == vertices


def test_thm3_2_sampled_and_grid_needed():
    out = constructions.run("length2-path", vertices=20, samples=300, seed=1)
    assert out["accuracy"] == 1.0 and not out["exhaustive"] and out["length"] == 45
    assert 2 ** out["frac"] > out["length"]  # Q(2/N) N - 1 > 0 needs 2^frac > N


def test_a11_success_table_regression():
    """Spec 3.4's A.10 table (sigma = 1, 20 trials): N = 100 at d = 64 and N = 1000 at
    d = 128 always succeed; N = 1000 at d = 32 never; the strict condition fails at d = 128."""
    assert constructions.run("memorize", examples=100, dim=64, trials=20)["success_rate"] == 1.0
    big = constructions.run("memorize", examples=1000, dim=128, trials=5)
    assert big["success_rate"] == 1.0 and big["strict_success_rate"] == 0.0
    assert big["model_success_first_trial"] and big["model_signs_match_first_trial"]
    assert constructions.run("memorize", examples=1000, dim=32, trials=3)["success_rate"] == 0.0


def test_a12_loads_and_counts():
    out = constructions.run("memorize", examples=2000, dim=64, experts=20, trials=3)
    assert out["min_expert_load"] < 100 < out["max_expert_load"]  # uneven: spec gap (a)
    m, w, k = 64, out["max_expert_load"], 20
    assert out["total_parameters"] == 3 * m * m + k * m + k * w * (m + 2)
    assert out["active_parameters"] == 3 * m * m + k * m + w * (m + 2)
    assert out["model_signs_match_first_trial"]


def test_bad_options():
    with pytest.raises(InputError, match="no option"):
        constructions.run("memorize", vertices=3)
    with pytest.raises(InputError, match="experts <= examples"):
        constructions.run("memorize", examples=10, dim=4, experts=11)
