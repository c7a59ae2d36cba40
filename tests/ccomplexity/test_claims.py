"""The claims table: rows are well formed, cover what thresholds and figures draw, read models."""

from __future__ import annotations

import pytest

from ccomplexity import bounds, claims
from ccomplexity.errors import InputError


def test_every_row_names_a_registered_bound_and_a_known_family():
    models = pytest.importorskip("models")
    families = set(models.FAMILIES.values())
    for claim in claims.CLAIMS:
        assert bounds.get(claim.bound_id) is claim.bound
        assert claim.family in families, claim
        if claim.role == "lower":
            assert claim.bound.kind in ("lower", "fact")
        if claim.construction is not None:
            assert claim.role == "upper"


def test_rows_are_not_repeated():
    keys = [(c.task, c.family, c.layers, c.bound_id) for c in claims.CLAIMS]
    assert len(keys) == len(set(keys))


def test_lookup_by_task_family_and_layers():
    assert claims.lower_bound_for("index-lookup", "recurrent", 3).bound_id == "separations.thm3"
    assert claims.lower_bound_for("dyck", "attention", 1).bound_id == "separations.thm5"
    held = claims.lower_bound_for("dyck", "attention", 1, held=True)
    assert held.bound_id == "separations.thm5_held"  # a model trained at p bits
    assert claims.lower_bound_for("eq-one", "attention", 1, held=True).bound_id.endswith("_held")
    assert claims.lower_bound_for("index-lookup", "recurrent", 1, held=True).bound_id == (
        "separations.thm3"  # a recurrent state is the same message either way
    )
    assert claims.lower_bound_for("dyck", "attention", 2) is None
    assert claims.lower_bound_for("dyck", "recurrent", 1) is None
    assert [c.bound_id for c in claims.claims(task="dyck")] == [
        "separations.thm5",
        "separations.thm5_held",
        "separations.lemma4",
    ]
    assert claims.claims(bound_id="separations.thm10")[0].bound_id == "separations.thm5"


def test_model_params_read_as_the_row_says():
    rnn = claims.lower_bound_for("index-lookup", "recurrent")
    assert rnn.model_params({"width": 16, "heads": None, "state_numel": 32}, 8) == {
        "m": 32,
        "p": 8,
        "H": 1,
        "m_is": "state_numel",
    }
    assert rnn.model_params({"width": 16, "state_numel": None}, 8)["m"] == 16
    tf = claims.lower_bound_for("dyck", "attention", 1)
    assert tf.model_params({"width": 64, "heads": 4}, 32) == {
        "m": 16,
        "p": 32,
        "H": 4,
        "m_is": "width / heads",
    }
    with pytest.raises(InputError, match="not a multiple of heads"):
        tf.model_params({"width": 64, "heads": 3}, 32)


def test_looped_rows():
    assert claims.claims(task="group-composition", family="looped")[0].construction == (
        "group-composition"
    )
    assert claims.lower_bound_for("group-composition", "recurrent").bound_id == (
        "looped.word_problem"
    )
    assert claims.lower_bound_for("dyck", "looped", 1) is None  # not a one-layer transformer
    assert [c.bound_id for c in claims.claims(task="p-hop")] == ["looped.cor2_3", "looped.thmB_6"]


def test_bad_rows_are_refused():
    with pytest.raises(InputError, match="unknown theorem"):
        claims.Claim("dyck", "recurrent", "separations.nosuch", "lower")
    with pytest.raises(InputError, match="role"):
        claims.Claim("dyck", "recurrent", "separations.thm3", "sideways")
    with pytest.raises(InputError, match="m reads"):
        claims.Claim("dyck", "recurrent", "separations.thm3", "lower", m="depth")


def test_reductions_find_the_claim_they_rest_on():
    dyck = claims.reduction_claim("dyck", "attention", "dyck", layers=1)
    assert (dyck.bound_id, dyck.problem) == ("separations.thm5", "separations.lemma1")
    assert claims.reduction_claim("dyck", "recurrent").bound_id == "separations.lemma4"
    eq = claims.reduction_claim("equality", "recurrent", "eq-one")
    assert (eq.task, eq.bound_id, eq.problem) == (
        "eq-one",
        "separations.thm11",
        "separations.fact2",
    )
    assert [c.task for c in claims.claims(reduction="index")] == ["index-lookup"]
    with pytest.raises(InputError, match="for attention models; the table has it for recurrent"):
        claims.reduction_claim("index", "attention")
    with pytest.raises(InputError, match="speaks about nearest-neighbour, not a model trained"):
        claims.reduction_claim("disjointness", "recurrent", "mqar")
    with pytest.raises(InputError, match="needs 1 layer"):
        claims.reduction_claim("dyck", "attention", "dyck", layers=2)
