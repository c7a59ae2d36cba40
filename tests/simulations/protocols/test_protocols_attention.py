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
from simulations.protocols.requests import AttentionProtocolRequest

N = 12


def attend(width, heads, length, partition, precision, samples=2, seed=0, **options):
    """The runner on a request made of these fields."""
    request = AttentionProtocolRequest(
        width=width,
        heads=heads,
        length=length,
        partition=partition,
        precision=precision,
        samples=samples,
        seed=seed,
        **options,
    )
    return run_attention_protocol(request)


def two_way_bits(vocab: int, heads: int, width: int, p: int, frac: int, length: int) -> int:
    """ceil(log2 V) + 2Hp + 2H(p + ceil(log2 N)) + 2 width (p + frac), width = H dh."""
    log_n = math.ceil(math.log2(length))
    return math.ceil(math.log2(vocab)) + 2 * heads * (2 * p + log_n) + 2 * width * (p + frac)


@pytest.mark.parametrize("partition", ["prefix:5", "odd-even", "random", f"alice:1,4,7,{N}"])
@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("layer_norm", [True, False])
def test_two_way_is_exact(partition, heads, layer_norm):
    r = attend(8, heads, N, partition, precision=16, samples=4, seed=heads, layer_norm=layer_norm)
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["max_logit_error"] == 0.0
    assert r["one_way"] is False and r["variant"] == "two-way"
    assert r["outputs"] == ["alice", "bob"] and r["query"] == "sent"
    assert r["bits_sent"] == two_way_bits(8, heads, 8, 16, 8, N)
    assert sum(r["bits_by_step"].values()) == r["bits_sent"]
    assert r["bits_by_step"]["partial_value_sums"] == 2 * 8 * (16 + 8)
    assert r["bits_paper_formula"] == bounds.thm4_closed_form(8 // heads, 16, N, heads)
    itemised = bounds.thm4_itemised(8 // heads, 8, 16, N, heads).breakdown()
    assert r["bits_paper_itemised"] == itemised
    assert r["query_owner"] == ("alice" if partition.endswith(str(N)) else "bob")


RUN_CASES = [  # width, heads, length, partition, precision, frac, vocab
    (8, 1, 6, "prefix:3", 12, None, 8),
    (8, 2, 12, "odd-even", 16, None, 8),
    (8, 4, 12, "random", 16, 6, 5),
    (16, 2, 33, "alice:1,2,9,33", 20, 9, 4),
    (16, 4, 20, "prefix:19", 18, 7, 3),
    (12, 3, 9, "alice:2,3,5", 14, 5, 2),
    (4, 1, 2, "prefix:1", 10, 5, 16),
]


@pytest.mark.parametrize("variant", ["two-way", "single-output"])
@pytest.mark.parametrize("case", RUN_CASES)
def test_bits_sent_are_the_registry_count_and_the_output_is_exact(variant, case):
    """Both Theorem 4 protocols reproduce the model bit for bit, and send exactly what
    ``bounds.thm4_run_bits`` counts (at the run's frac and vocabulary), step by step."""
    width, heads, length, partition, p, frac, vocab = case
    r = attend(
        width,
        heads,
        length,
        partition,
        p,
        samples=5,
        seed=length,
        variant=variant,
        frac=frac,
        vocab_size=vocab,
    )
    assert r["agreement"] == r["logits_exact"] == 1.0 and r["max_logit_error"] == 0.0
    single = variant == "single-output"
    count = bounds.thm4_run_bits(
        width // heads, heads, p, length, frac=r["frac"], alphabet=vocab, single_output=single
    )
    assert r["bits_sent"] == r["bits_run_count"] == count.pop("total")
    assert r["bits_by_step"] == count
    holder = r["query_owner"]
    other = "bob" if holder == "alice" else "alice"
    if single:
        assert r["outputs"] == [holder]
        assert r["bits_by_direction"][f"{other}->{holder}"] == heads * (
            p + math.ceil(math.log2(length)) + p + width // heads * (p + r["frac"])
        )  # P's maximum, partial softmax sum and value sums
    else:
        assert r["outputs"] == ["alice", "bob"]


def test_acceptance_sizes_at_24_bits():
    r = attend(8, 2, 64, "odd-even", precision=24, samples=20, seed=0)
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["bits_sent"] == two_way_bits(8, 2, 8, 24, 12, 64) == 795
    assert r["bits_paper_formula"] == 720.0
    single = attend(8, 2, 64, "odd-even", precision=24, samples=20, seed=0, variant="single-output")
    assert single["agreement"] == single["logits_exact"] == 1.0
    # log2 8 + 2*2*24 + 2*(24 + 6) + 2*24 + 2*4*(24 + 12): the query, maxima, Z_P, Z, U_P
    assert single["bits_sent"] == 3 + 96 + 60 + 48 + 288 == 495
    assert single["bits_sent"] <= single["bits_paper_formula"] == 720.0


def test_random_partition_is_seeded_and_leaves_the_query_to_bob():
    a = attention.resolve_partition("random", 9, seed=4)
    assert a == attention.resolve_partition("random", 9, seed=4)
    assert len(a.alice) == 4 and 8 in a.bob
    assert a.spec.startswith("alice:")
    assert attention.resolve_partition("odd-even", 4, 0).alice == (0, 2)


@pytest.mark.parametrize("partition", ["random", "prefix:3", "odd-even"])
@pytest.mark.parametrize("heads", [1, 2])
def test_one_way_variant(partition, heads):
    r = attend(
        8, heads, N, partition, precision=20, samples=6, seed=1, variant="one-way", query_token=5
    )
    p, dh = 20, 8 // heads
    assert r["one_way"] is True and r["outputs"] == ["bob"]
    assert (r["query"], r["query_token"]) == ("public", 5)
    assert list(r["bits_by_direction"]) == ["alice->bob"]
    assert r["bits_by_step"] == {
        "max_logit": heads * p,
        "partial_softmax_sums": heads * (p + math.ceil(math.log2(N))),
        "partial_value_mean": heads * dh * p,
    }  # nothing for the query token: it is public
    assert r["bits_paper_formula"] == heads * (dh + 1) * p
    assert r["bits_run_count"] is None
    # a summary is not bit-exact (see the module docstring), but close: a few grid steps
    assert r["max_logit_error"] < 2.0**-6
    assert 0.0 <= r["logits_exact"] <= 1.0


def test_one_way_needs_the_query_on_bobs_side():
    with pytest.raises(InputError, match="must be Bob's"):
        attend(8, 2, N, f"alice:2,{N}", 16, 2, 0, variant="one-way")


def test_one_way_query_token_is_public_and_carried_by_every_input():
    """Alice is handed the public token, never an input's: every input must carry it at N, and
    her messages follow the public token, not Bob's inputs."""
    model = harness.build_seeded("transformer", {"width": 8, "heads": 2, "max_length": N}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(16, None))
    part = Partition.parse("prefix:6", N)
    inputs = harness.random_tokens(4, N, 8, seed=3)
    inputs[:, -1] = 2
    with pytest.raises(InputError, match="public query token 5"):
        attention.setup(model, part, inputs, numbers, "one-way", query_token=5)
    alice = attention.setup(model, part, inputs, numbers, "one-way", query_token=2).parties["alice"]
    assert alice.tokens.shape == (4, 6)  # her own positions only
    other = inputs.clone()
    other[:, -1] = 7
    moved = attention.setup(model, part, other, numbers, "one-way", query_token=7).parties["alice"]
    assert alice.send("max_logit") != moved.send("max_logit")


def messages_before_first_receipt(transcript, party: str) -> list[str]:
    out = []
    for m in transcript.messages:
        if m.receiver == party:
            break
        out.append(m.bits)
    return out


def run_pair(partition: str, position: int, variant: str):
    """Transcripts of the same inputs, and of inputs changed at 0-based ``position``."""
    model = harness.build_seeded("transformer", {"width": 8, "heads": 2, "max_length": N}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(16, None))
    part = Partition.parse(partition, N)
    inputs = harness.random_tokens(5, N, 8, seed=3)
    public = 0 if variant == "one-way" else None
    if public is not None:
        inputs[:, -1] = public
    changed = inputs.clone()
    changed[:, position] = (changed[:, position] + 1) % 8
    with torch.no_grad():
        first = harness.run(attention.setup(model, part, inputs, numbers, variant, public), 5)
        second = harness.run(attention.setup(model, part, changed, numbers, variant, public), 5)
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
    (t1, out1), (t2, out2) = run_pair(partition, position, "two-way")
    for a, b in zip(t1, t2, strict=True):
        early = messages_before_first_receipt(a, watched)
        assert len(early) == 2  # the query token and the watched party's maxima
        assert early == messages_before_first_receipt(b, watched)
        assert a.total == b.total == sum(len(m.bits) for m in a.messages)
    assert any(a.messages != b.messages for a, b in zip(t1, t2, strict=True))
    assert torch.equal(out1["alice"], out1["bob"])


@pytest.mark.parametrize("partition, position", [("prefix:6", 2), ("odd-even", 4)])
def test_single_output_isolation(partition, position):
    """The holder of N (Bob here) sends its token and maxima before it hears anything: a change
    on Alice's side cannot reach them; only Bob outputs."""
    (t1, out1), (t2, _) = run_pair(partition, position, "single-output")
    assert list(out1) == ["bob"]
    for a, b in zip(t1, t2, strict=True):
        early = messages_before_first_receipt(a, "bob")
        assert [m.step for m in a.messages[:2]] == ["query_token", "max_logit"]
        assert early == messages_before_first_receipt(b, "bob") and len(early) == 2
    assert any(a.messages != b.messages for a, b in zip(t1, t2, strict=True))


def test_one_way_alice_ignores_bobs_tokens():
    (t1, _), (t2, _) = run_pair("prefix:6", 8, "one-way")  # position 9 is Bob's, not the query
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
        {"variant": "sideways"},
        {"variant": "one-way", "query_token": 8},  # beyond the vocabulary
        {"variant": "one-way", "query_token": -1},
    ],
)
def test_bad_input(kwargs):
    args = {"width": 8, "heads": 2, "length": N, "partition": "prefix:4", "precision": 16,
            "samples": 2, "seed": 0, **kwargs}  # fmt: skip
    with pytest.raises(InputError):
        attend(**args)
