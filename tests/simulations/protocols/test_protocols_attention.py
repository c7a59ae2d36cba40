"""Theorem 4 on the zoo's one-layer Transformer, and the one-way variant (Lemma A.3)."""

from __future__ import annotations

import math

import pytest
import torch

from ccomplexity import bounds
from ccomplexity.errors import InputError
from ccomplexity.problems import Partition
from simulations.protocols import attention, harness
from simulations.protocols.attention import run_attention_protocol

N = 12


def two_way_bits(vocab: int, heads: int, width: int, p: int, frac: int, length: int) -> int:
    """ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2 width (p + frac), width = H dh."""
    log_n = math.ceil(math.log2(length))
    return math.ceil(math.log2(vocab)) + 2 * heads * (2 * p + log_n) + 2 * width * (p + frac)


@pytest.mark.parametrize("partition", ["prefix:5", "odd-even", "random", f"alice:1,4,7,{N}"])
@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("layer_norm", [True, False])
def test_two_way_is_exact(partition, heads, layer_norm):
    r = run_attention_protocol(8, heads, N, partition, precision=16, samples=4, seed=heads,
                               layer_norm=layer_norm)  # fmt: skip
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["max_logit_error"] == 0.0
    assert r["one_way"] is False
    assert r["bits_sent"] == two_way_bits(8, heads, 8, 16, 8, N)
    assert sum(r["bits_by_step"].values()) == r["bits_sent"]
    assert r["bits_by_step"]["partial_value_sums"] == 2 * 8 * (16 + 8)
    assert r["bits_paper_formula"] == bounds.thm4_closed_form(8 // heads, 16, N, heads)
    itemised = bounds.thm4_itemised(8 // heads, 8, 16, N, heads).breakdown()
    assert r["bits_paper_itemised"] == itemised
    assert r["query_owner"] == ("alice" if partition.endswith(str(N)) else "bob")


def test_acceptance_sizes_at_24_bits():
    r = run_attention_protocol(8, 2, 64, "odd-even", precision=24, samples=20, seed=0)
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["bits_sent"] == two_way_bits(8, 2, 8, 24, 12, 64) == 795
    assert r["bits_paper_formula"] == 720.0


def test_random_partition_is_seeded_and_leaves_the_query_to_bob():
    a = attention.resolve_partition("random", 9, seed=4)
    assert a == attention.resolve_partition("random", 9, seed=4)
    assert len(a.alice) == 4 and 8 in a.bob
    assert a.spec.startswith("alice:")
    assert attention.resolve_partition("odd-even", 4, 0).alice == (0, 2)


@pytest.mark.parametrize("partition", ["random", "prefix:3", "odd-even"])
@pytest.mark.parametrize("heads", [1, 2])
def test_one_way_variant(partition, heads):
    r = run_attention_protocol(8, heads, N, partition, precision=20, samples=6, seed=1,
                               one_way=True)  # fmt: skip
    p, dh = 20, 8 // heads
    assert r["one_way"] is True
    assert list(r["bits_by_direction"]) == ["alice->bob"]
    assert r["bits_by_step"] == {
        "max_logit": heads * p,
        "partial_softmax_sums": heads * (p + math.ceil(math.log2(N))),
        "partial_value_mean": heads * dh * p,
    }
    assert r["bits_paper_formula"] == heads * (dh + 1) * p
    # a summary is not bit-exact (see the module docstring), but close: a few grid steps
    assert r["max_logit_error"] < 2.0**-6
    assert 0.0 <= r["logits_exact"] <= 1.0


def test_one_way_needs_the_query_on_bobs_side():
    with pytest.raises(InputError, match="must be Bob's"):
        run_attention_protocol(8, 2, N, f"alice:2,{N}", 16, 2, 0, one_way=True)


def messages_before_first_receipt(transcript, party: str) -> list[str]:
    out = []
    for m in transcript.messages:
        if m.receiver == party:
            break
        out.append(m.bits)
    return out


def run_pair(partition: str, position: int, one_way: bool):
    """Transcripts of the same inputs, and of inputs changed at 0-based ``position``."""
    model = harness.build_seeded("transformer", {"width": 8, "heads": 2, "max_length": N}, 0)[0]
    model.set_precision(harness.fixed_point(16, None))
    part = Partition.parse(partition, N)
    inputs = harness.random_tokens(5, N, 8, seed=3)
    changed = inputs.clone()
    changed[:, position] = (changed[:, position] + 1) % 8
    with torch.no_grad():
        first = harness.run(attention.setup(model, part, inputs, one_way), 5)
        second = harness.run(attention.setup(model, part, changed, one_way), 5)
    return first, second


@pytest.mark.parametrize(
    "partition, position, watched",
    [
        (f"alice:1,5,{N}", 3, "alice"),  # Alice holds the query: a Bob token changes
        ("prefix:6", 2, "bob"),  # Bob holds the query: an Alice token changes
        ("odd-even", 4, "bob"),
    ],
)
def test_two_way_isolation(partition, position, watched):
    (t1, out1), (t2, out2) = run_pair(partition, position, one_way=False)
    for a, b in zip(t1, t2, strict=True):
        early = messages_before_first_receipt(a, watched)
        assert len(early) == 2  # the query token and the watched party's maxima
        assert early == messages_before_first_receipt(b, watched)
        assert a.total == b.total == sum(len(m.bits) for m in a.messages)
    assert any(a.messages != b.messages for a, b in zip(t1, t2, strict=True))
    assert torch.equal(out1["alice"], out1["bob"])


def test_one_way_alice_ignores_bobs_tokens():
    (t1, _), (t2, _) = run_pair("prefix:6", 8, one_way=True)  # position 9 is Bob's, not the query
    assert [t.messages for t in t1] == [t.messages for t in t2]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"layers": 2},
        {"partition": "prefix:12"},
        {"partition": "odd-even", "length": 11},
        {"partition": "sideways"},
        {"heads": 3},
        {"frac": 12},  # N 2^frac > 2^(p-1) - 1: the softmax sum would saturate
    ],
)
def test_bad_input(kwargs):
    args = {"width": 8, "heads": 2, "length": N, "partition": "prefix:4", "precision": 16,
            "samples": 2, "seed": 0, **kwargs}  # fmt: skip
    with pytest.raises(InputError):
        run_attention_protocol(**args)
