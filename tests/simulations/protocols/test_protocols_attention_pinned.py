"""Pinned details of the attention protocols (Thm 4, Lemma A.3) on tiny transformers.

Pinned here: the runner's ``seed`` picks both the random partition and the inputs (against
:func:`attention.resolve_partition` and :func:`harness.random_tokens` called directly); the
defaults of :func:`attention.transformer_source` (one layer, 8 tokens, LayerNorm); a width given
beside a checkpoint must be its own; and the exact numbers sent at the widest grid a transformer
allows (p = 26 at width 1, p = 25 at width 4), where a partial softmax sum or a value sum has
more significant bits than float32 holds: decoded exactly, and the run still bit-exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from ccomplexity.errors import InputError
from ccomplexity.problems import Partition
from simulations.protocols import attention, harness
from simulations.protocols.requests import AttentionProtocolRequest
from tests.simulations.protocols.untrained import save_untrained


def attend(**fields: Any) -> dict[str, Any]:
    base = {"width": 4, "heads": 2, "length": 6, "partition": "prefix:3", "precision": 10,
            "samples": 3}  # fmt: skip
    return attention.run_attention_protocol(AttentionProtocolRequest(**{**base, **fields}))


def test_random_partition_follows_the_request_seed() -> None:
    """N = 20: C(19, 10) = 92378 random partitions, so another seed's draw would differ."""
    for seed in (1, 2):
        r = attend(length=20, partition="random", precision=16, seed=seed, samples=1)
        expected = attention.resolve_partition("random", 20, seed)
        assert r["partition_resolved"] == expected.spec
        assert r["partition"] == "random"
    one = attention.resolve_partition("random", 20, 1)
    assert one != attention.resolve_partition("random", 20, 2)


@pytest.mark.parametrize("variant", ["two-way", "one-way"])
def test_inputs_follow_the_request_seed(variant: str) -> None:
    """The certificate's inputs are ``harness.random_tokens(samples, N, V, seed)`` (one-way,
    with the public query token written at N)."""
    one_way = variant == "one-way"
    extra = {"query_token": 3} if one_way else {}
    r = attend(
        length=8, samples=6, seed=5, vocab_size=5, variant=variant, certificate=True, **extra
    )
    expected = harness.random_tokens(6, 8, 5, 5)
    if one_way:
        expected[:, -1] = 3
    assert r["certificate"]["inputs"] == expected.tolist()


def test_transformer_source_defaults() -> None:
    source = attention.transformer_source(4, 2, 6, 0)
    cfg = source.model.config
    assert (cfg.layers, cfg.vocab_size, cfg.layer_norm) == (1, 8, True)
    assert (cfg.width, cfg.heads, cfg.max_length) == (4, 2, 6)
    seeded = harness.build_seeded(
        "transformer",
        {"vocab_size": 8, "width": 4, "heads": 2, "layers": 1, "max_length": 6,
         "layer_norm": True},
        0,
    )  # fmt: skip
    assert source.description["state_sha256"] == seeded[1]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An untrained transformer (width 4, 2 heads, N = 6) saved as training saves it."""
    folder: Path = tmp_path_factory.mktemp("attention_checkpoint")
    return save_untrained(folder, task="dyck", arch="transformer", width=4, heads=2, length=6)


def test_checkpoint_width_must_be_its_own(checkpoint: str) -> None:
    with pytest.raises(InputError, match="^width 2 disagrees with checkpoint .*, trained with "
                       "width 4 \\(leave it out\\)$"):  # fmt: skip
        attend(width=2, heads=None, length=None, checkpoint=checkpoint)
    with pytest.raises(InputError, match="^width 8 disagrees with checkpoint"):
        attention.transformer_source(8, 2, None, 0, checkpoint=checkpoint)
    own = attention.transformer_source(4, 2, None, 0, checkpoint=checkpoint)
    assert (own.model.config.width, own.model.config.heads) == (4, 2)


def test_partial_softmax_sums_are_read_back_exactly() -> None:
    """p = 26, frac = 22, N = 7: a partial sum Z_S <= N has 2^-22 steps, up to 25 significant
    bits, more than float32's 24; each is read back exactly."""
    model = harness.build_seeded("transformer", {"width": 1, "heads": 1, "max_length": 7}, 0)[0]
    harness.finite_numbers(model, harness.fixed_point(26, 22))
    tokens = harness.random_tokens(3, 7, 8, seed=1)
    party = attention.Thm4Party(model, 7, (0, 1, 2), tokens[:, :3])
    raw = [2**24 + 1, 7 * 2**22 - 1, 3]
    z = torch.tensor(raw, dtype=torch.float64).reshape(3, 1, 1, 1) / 2.0**22
    bits = party.sums_bits(z)
    assert [len(b) for b in bits] == [26 + 3] * 3
    back = party.read_sums(bits)
    assert back.dtype == torch.float64 and back.shape == (3, 1, 1, 1)
    assert (back * 2.0**22).reshape(-1).tolist() == raw


@pytest.mark.parametrize(
    ("width", "heads", "precision", "frac", "length"),
    [(1, 1, 26, 22, 7), (4, 2, 25, 21, 6)],
)
@pytest.mark.parametrize("variant", ["two-way", "single-output"])
def test_widest_grid_stays_bit_exact(
    width: int, heads: int, precision: int, frac: int, length: int, variant: str
) -> None:
    """Value sums are sent as 2^-2frac multiples of up to p + frac bits, far beyond float32:
    the parties still reproduce the model bit for bit at the widest grid it allows."""
    r = attend(width=width, heads=heads, length=length, partition="alice:1,3,5",
               precision=precision, frac=frac, samples=4, seed=1, variant=variant)  # fmt: skip
    assert r["agreement"] == r["logits_exact"] == 1.0 and r["max_logit_error"] == 0.0
    assert (r["precision"], r["frac"]) == (precision, frac)


def test_received_value_sums_are_exact() -> None:
    """Bob decodes Alice's value sums (2^-2frac multiples, p + frac bits) exactly."""
    n = 6
    model = harness.build_seeded("transformer", {"width": 4, "heads": 2, "max_length": n}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(25, 21))
    inputs = harness.random_tokens(2, n, 8, seed=2)
    part = Partition.parse("prefix:3", n)
    with torch.no_grad():
        setup = attention.setup(model, part, inputs, numbers, "two-way")
        alice, bob = setup.parties["alice"], setup.parties["bob"]
        alice.receive("query_token", bob.send("query_token"))  # Bob holds N
        for step in ("max_logit", "partial_softmax_sums"):
            a, b = alice.send(step), bob.send(step)
            alice.receive(step, b)
            bob.receive(step, a)
        bob.u_own = torch.zeros_like(bob.u_own)
        alice.u_own = alice.u_own + 2.0**-42  # a 2^-42 step on a value of size ~1
        bob.receive("partial_value_sums", alice.send("partial_value_sums"))
    assert bob.u.dtype == torch.float64
    assert torch.equal(bob.u, alice.u_own)
    assert bool((alice.u_own * 2.0**24 != torch.round(alice.u_own * 2.0**24)).any())
