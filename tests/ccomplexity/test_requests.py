"""The lower-bound commands as keyword-only requests: the same results as the CLI, refusals
before any work, and plugin tasks measured at every cut."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity import plugins
from ccomplexity.errors import InputError
from ccomplexity.requests import FoolingRequest, OneWayRequest, fooling_set, one_way


def test_requests_are_keyword_only():
    with pytest.raises(TypeError):
        FoolingRequest("equality")  # type: ignore[misc]


def test_fooling_set_of_equality_is_the_diagonal():
    result, cert = fooling_set(FoolingRequest(problem="equality", half=3, certificate=True))
    assert (result["method"], result["size"], result["bits"], result["verified"]) == (
        "diagonal",
        8,
        3,
        True,
    )
    from ccomplexity import verify

    assert verify(cert).valid and verify(cert).claimed_bits == 3


@pytest.mark.parametrize(
    "options, match",
    [
        ({"problem": "equality", "half": 3, "seconds": 1.0}, "--exact search only"),
        ({"problem": "equality", "half": 3, "method": "symbolic"}, "Dyck fooling set only"),
        ({"problem": "dyck", "types": 1, "depth": 1, "length": 4, "method": "x"}, "--method"),
        ({"problem": "nosuch", "length": 4}, "unknown problem 'nosuch'"),
    ],
)
def test_bad_requests_are_refused(options, match):
    with pytest.raises(InputError, match=match):
        fooling_set(FoolingRequest(**options))


def test_one_way_of_index_and_of_a_plugin_task_at_every_cut():
    result, _ = one_way(OneWayRequest(problem="index", length=6))
    assert (result["distinct_rows"], result["bits"]) == (64, 6)  # Fact 3: INDEX_N needs N bits
    with plugins.scope():

        @plugins.task(name="last-symbol-one", alphabet=2, lengths=(2, 16))
        def last_one(words):
            return (words[:, -1] == 1).astype(np.int8)

        result, cert = one_way(OneWayRequest(problem="last-symbol-one", length=5))
        assert cert is None and result["bits"] == 0  # Bob holds the last symbol at every cut
        assert result["per_cut"] == [{"cuts": [1, 4], "distinct_rows": 1, "bits": 0}]
        single, _ = one_way(OneWayRequest(problem="last-symbol-one", length=5, cut=2))
        assert (single["partition"], single["bits"]) == ("prefix:2", 0)
        with pytest.raises(InputError, match="either --cut or --partition"):
            OneWayRequest(problem="last-symbol-one", length=5, cut=2, partition="odd-even")


def test_kg_split_is_exact_for_a_small_graph():
    from ccomplexity.requests import KgSplitRequest, kg_split

    result, cert = kg_split(
        KgSplitRequest(entities=4, relations=2, hops=2, cut=1, certificate=True)
    )
    # Lemma B.18: E distinct rows (the entity Alice's half reaches), a fooling set of size E
    assert (result["method"], result["distinct_rows"], result["fooling_size"]) == ("dense", 4, 4)
    from ccomplexity import verify

    assert verify(cert).valid


def test_rank_and_exact_of_equality():
    from ccomplexity.requests import ExactRequest, RankRequest, exact, rank

    result, cert = rank(RankRequest(problem="equality", half=3, certificate=True))
    assert (result["rank"], result["bits"]) == (8, 3)  # the identity matrix of EQ_3
    from ccomplexity import verify

    assert verify(cert).valid
    # D(EQ_n) = n + 1 (Fact 2), here n = 2 bits per party
    assert exact(ExactRequest(problem="equality", half=2))["bits"] == 3
