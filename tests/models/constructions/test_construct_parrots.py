"""Thm 3.2's width-|V| model and the A.11 / A.12 memorisers, run as real weights."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity import bounds
from ccomplexity.errors import InputError
from ccomplexity.languages.memorization import MemorizationSize
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
    # without padding every expert holds its own N_j neurons, sum N_j = n
    assert out["total_parameters_unpadded"] == 3 * m * m + k * m + 2000 * (m + 2)
    assert out["bits_per_parameter_a12"] is None  # d = 64: the proof's margin is negative


def test_measured_bias_range_against_the_weights_themselves():
    """The reported biases are those of the model that ccx builds: -||S_i||^2 + d / (2n)."""
    from models.constructions.parrots import _trial, memorizer_model

    out = constructions.run("memorize", examples=50, dim=32, experts=3, trials=2, seed=4)
    size = MemorizationSize(50, 8, 32)
    biases = []
    for seed in (4, 5):
        model = memorizer_model(_trial(size, 3, seed), size)
        held = model.psi.w_out[..., 0] != 0  # the neurons in use (the rest is padding)
        biases.append(model.psi.b_in[held].detach().numpy())
    measured = np.concatenate(biases)
    assert out["bias_min_measured"] == pytest.approx(measured.min())
    assert out["bias_max_measured"] == pytest.approx(measured.max())
    assert out["bias_abs_max_measured"] <= out["bias_bound_stated"]
    assert out["weight_abs_max_measured"] <= out["weight_bound"]
    dense = constructions.run("memorize", examples=50, dim=32, trials=2, seed=4)
    assert dense["bias_bound_stated"] == pytest.approx(4 * (1 + np.sqrt(2 * np.log(5000) / 32)))
    assert dense["theorem"] == "parrots.thmA_11" and out["theorem"].startswith("parrots.thmA_12")
    a12 = bounds.describe("parrots.thmA_12", examples=50, length=8, dim=32, experts=3)
    assert (out["bias_bound_stated"], out["weight_bound"]) == (
        a12["bias_bound"],
        a12["weight_bound"],
    )


def test_a12_total_bits_padded_and_not():
    out = constructions.run("memorize", examples=100, dim=2048, experts=4, trials=1)
    per = out["bits_per_parameter_a12"]
    assert per is not None and per > 0
    assert out["total_bits"] == per * out["total_parameters"]
    assert out["total_bits_unpadded"] == per * out["total_parameters_unpadded"]
    assert out["total_bits_unpadded"] <= out["total_bits"]


def test_bad_options():
    with pytest.raises(InputError, match="no option"):
        constructions.run("memorize", vertices=3)
    with pytest.raises(InputError, match="experts <= examples"):
        constructions.run("memorize", examples=10, dim=4, experts=11)
