"""Pinned values of the protocols run on real models: Thm 2 (``rnn``), Thm 4 and Lemma A.3
(``attention``), and the mixture-of-parrots one-way protocol and its reduction (``parrots``).

Pinned here, on tiny models (width 2-4, length <= 8): every message's bits against the paper's
count, step by step and direction by direction, and the exact schedule of each variant; the
decoded message equal to the state or sums it carries; every check at, below and above its
limit, with its message; each party refusing a step it has no part in; the certificates replayed
by the verifier; checkpoints (saved untrained, as training saves them, also trained at p bits);
and the reduction's collision search against hand-made deltas.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from ccomplexity import bounds
from ccomplexity.bounds.parrots import one_way_bits, paper_one_way_bits
from ccomplexity.errors import InputError
from ccomplexity.languages import graphs
from ccomplexity.problems import Partition
from ccomplexity.protocol import Transcript
from simulations.protocols import attention, harness, parrots, rnn
from simulations.protocols.certificate import verify_protocol_certificate
from simulations.protocols.requests import (
    AttentionProtocolRequest,
    ParrotsProtocolRequest,
    RnnProtocolRequest,
)
from tests.simulations.protocols.untrained import save_untrained

# Thm 4's two-way run, (sender, receiver, step): Bob's query token, then both parties' maxima,
# partial softmax sums and partial value sums.
TWO_WAY_SCHEDULE = [
    ("bob", "alice", "query_token"), ("bob", "alice", "max_logit"), ("alice", "bob", "max_logit"),
    ("bob", "alice", "partial_softmax_sums"), ("alice", "bob", "partial_softmax_sums"),
    ("bob", "alice", "partial_value_sums"), ("alice", "bob", "partial_value_sums"),
]  # fmt: skip


def log2c(n: int) -> int:
    return math.ceil(math.log2(n))


def schedule(t: Transcript) -> list[tuple[str, str, str]]:
    return [(m.sender, m.receiver, m.step) for m in t.messages]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("protocol_checkpoints")
    save = functools.partial(save_untrained, folder)
    return {
        "gru": save(task="dyck", arch="gru", width=2, length=6),
        "gru-held": save(task="index-lookup", arch="gru", width=2, length=4, symbols=2,
                         precision=3),
        "transformer": save(task="dyck", arch="transformer", width=4, heads=2, length=6),
        "transformer-held": save(task="dyck", arch="transformer", width=4, heads=2, length=6,
                                 precision=4),
        "path": save(task="length2-path", arch="concat-transformer", width=2, heads=1, length=3,
                     experts=2, gate="softmax"),
        "path-held": save(task="length2-path", arch="concat-transformer", width=2, heads=1,
                          length=3, experts=2, precision=4),
        "path-lstm": save(task="length2-path", arch="lstm", width=2, length=3),
    }  # fmt: skip


# ============================================================================= Thm 2 (rnn)


def run_rnn(**fields: Any) -> dict[str, Any]:
    base = {"arch": "lstm", "width": 2, "length": 6, "cut": 2, "precision": 10, "samples": 3}
    return rnn.run_rnn_protocol(RnnProtocolRequest(**{**base, **fields}))


def test_rnn_run_reports_the_theorem_count() -> None:
    r = run_rnn(frac=4, seed=1, vocab_size=5)
    assert r["bits_sent"] == r["bits_theorem"] == 4 * 10  # h and c, width 2
    assert (r["arch"], r["width"], r["layers"], r["vocab_size"], r["length"], r["cut"]) == (
        "lstm", 2, 1, 5, 6, 2,
    )  # fmt: skip
    assert (r["precision"], r["frac"], r["samples"], r["seed"]) == (10, 4, 3, 1)
    assert r["checkpoint"] is None and r["bound"] is None and r["state_numel"] == 4
    assert r["grid"] == harness.fixed_point(10, 4).describe()
    assert r["bits_by_step"] == {"hidden_state": 40}
    assert r["bits_by_direction"] == {"alice->bob": 40} and r["one_way"] is True
    assert r["agreement"] == r["logits_exact"] == 1.0 and r["max_logit_error"] == 0.0
    assert "certificate" not in r
    assert rnn.STEP == "hidden_state" and rnn.SCHEDULE == (("alice", "bob", "hidden_state"),)


def test_rnn_message_is_the_state_in_order() -> None:
    source = rnn.recurrent_source("lstm", 2, 0, vocab_size=4)
    model = source.model
    numbers = harness.finite_numbers(model, harness.fixed_point(8, 3))
    inputs = harness.random_tokens(2, 5, 4, seed=2)
    with torch.no_grad():
        setup = rnn.setup(model, 3, inputs, numbers)
        assert setup.outputs == ("bob",) and setup.schedule == rnn.SCHEDULE
        assert setup.parties["alice"].tokens.tolist() == inputs[:, :3].tolist()
        assert setup.parties["bob"].tokens.tolist() == inputs[:, 3:].tolist()
        bits = setup.parties["alice"].send("hidden_state")
        _, state = model.run_steps(inputs[:, :3])
        setup.parties["bob"].receive("hidden_state", bits)
    assert list(state) == list(model.initial_state(1))
    for row, message in enumerate(bits):
        assert len(message) == 4 * 8
        codes = [int(message[i : i + 8], 2) for i in range(0, 32, 8)]
        values = [(c - 256 if c >= 128 else c) / 8 for c in codes]
        flat = torch.cat([t[row].reshape(-1) for t in state.values()]).tolist()
        assert values == flat
    for name, t in state.items():  # Bob rebuilt every tensor of the state, in its shape
        assert torch.equal(setup.parties["bob"].state[name], t)


def test_rnn_parties_refuse_other_steps() -> None:
    model = rnn.recurrent_source("gru", 2, 0).model
    numbers = harness.finite_numbers(model, harness.fixed_point(8, None))
    setup = rnn.setup(model, 1, harness.random_tokens(1, 3, 8, 0), numbers)
    with pytest.raises(ValueError, match="^Alice sends nothing at step 'other'$"):
        setup.parties["alice"].send("other")
    with pytest.raises(ValueError, match="^Bob receives nothing at step 'other'$"):
        setup.parties["bob"].receive("other", ["0"])


def test_rnn_cut_at_its_ends() -> None:
    rnn.check_cut(1, 2)
    rnn.check_cut(5, 6)
    for cut, length in ((0, 6), (6, 6), (1, 1)):
        with pytest.raises(
            InputError, match=rf"^cut K must satisfy 1 <= K <= N - 1 = {length - 1}, got {cut}$"
        ):
            rnn.check_cut(cut, length)
    assert run_rnn(cut=5)["cut"] == 5 and run_rnn(cut=1)["cut"] == 1


def test_recurrent_source_seeded_and_refused() -> None:
    s = rnn.recurrent_source("gru", 3, 4, layers=2, vocab_size=6, n_out=2)
    cfg = s.model.config
    assert (cfg.width, cfg.layers, cfg.vocab_size, cfg.n_out) == (3, 2, 6, 2)
    assert s.description["init_seed"] == 4
    assert rnn.recurrent_source("gru", 3, 4).model.config.vocab_size == 8
    assert rnn.recurrent_source("gru", 3, 4).model.config.layers == 1
    assert sorted(rnn.recurrent_archs()) == sorted(
        ["lstm", "gru", "mamba", "dss", "linear-transformer", "retnet"]
    )
    with pytest.raises(
        InputError, match=r"^unknown recurrent arch 'transformer'; choose one of \["
    ):
        rnn.recurrent_source("transformer", 2, 0)


def test_rnn_certificate_is_replayed() -> None:
    r = run_rnn(certificate=True, samples=2)
    cert = r["certificate"]
    assert cert["kind"] == "protocol_rnn" and cert["protocol"] == {"cut": 2}
    assert cert["claim"] == {k: r[k] for k in ("bits_sent", "one_way", "samples", "agreement",
                                               "logits_exact", "max_logit_error")}  # fmt: skip
    assert verify_protocol_certificate(cert).valid
    cert["protocol"] = {"cut": 6}
    verdict = verify_protocol_certificate(cert)
    assert not verdict.valid and "cut K must satisfy 1 <= K <= N - 1 = 5, got 6" in verdict.reason


def test_rnn_replay_setup_checks_the_cut() -> None:
    model = rnn.recurrent_source("gru", 2, 0).model
    numbers = harness.finite_numbers(model, harness.fixed_point(8, None))
    inputs = harness.random_tokens(1, 4, 8, 0)
    setup = rnn.replay_setup(model, {"cut": 3}, inputs, numbers)
    assert setup.parties["bob"].tokens.shape == (1, 1)
    with pytest.raises(InputError, match="= 3, got 4"):
        rnn.replay_setup(model, {"cut": 4}, inputs, numbers)


def test_rnn_on_checkpoints(ckpt: dict[str, str]) -> None:
    r = run_rnn(arch=None, width=None, length=None, checkpoint=ckpt["gru"], cut=5)
    assert r["length"] == 6 and r["checkpoint"] == ckpt["gru"] and r["arch"] == "gru"
    assert r["bound"] is None and r["bits_sent"] == 2 * 10  # no lower bound for Dyck
    held = run_rnn(arch=None, width=None, length=None, checkpoint=ckpt["gru-held"], cut=3,
                   precision=3)  # fmt: skip
    assert held["grid"]["kind"] == "message-grid" and held["bits_sent"] == 2 * 3
    assert held["agreement"] == held["logits_exact"] == 1.0
    assert held["bound"]["id"] == "separations.thm3" and held["length"] == 4
    with pytest.raises(
        InputError,
        match=f"^checkpoint {ckpt['transformer']} holds a transformer, not a recurrent model; "
        f"choose one of {', '.join(rnn.recurrent_archs())}$",
    ):
        run_rnn(arch=None, width=None, checkpoint=ckpt["transformer"])
    with pytest.raises(InputError, match="arch 'lstm' disagrees with checkpoint"):
        run_rnn(arch="lstm", width=None, checkpoint=ckpt["gru"])
    with pytest.raises(InputError, match="width 3 disagrees with checkpoint"):
        run_rnn(arch=None, width=3, checkpoint=ckpt["gru"])


# ============================================================================= Thm 4 (attention)


def attend(**fields: Any) -> dict[str, Any]:
    base = {"width": 4, "heads": 2, "length": 6, "partition": "prefix:3", "precision": 10,
            "samples": 3}  # fmt: skip
    return attention.run_attention_protocol(AttentionProtocolRequest(**{**base, **fields}))


def thm4_steps(v: int, h: int, dh: int, p: int, frac: int, n: int, single: bool) -> dict:
    """The paper's count per step (Thm 4; single-output: P's sums, O's total)."""
    if single:
        return {"query_token": log2c(v), "max_logit": 2 * h * p,
                "partial_softmax_sums": h * (p + log2c(n)), "softmax_sum": h * p,
                "partial_value_sums": h * dh * (p + frac)}  # fmt: skip
    return {"query_token": log2c(v), "max_logit": 2 * h * p,
            "partial_softmax_sums": 2 * h * (p + log2c(n)),
            "partial_value_sums": 2 * h * dh * (p + frac)}  # fmt: skip


@pytest.mark.parametrize(
    ("partition", "holder"), [("prefix:3", "bob"), ("alice:2,6", "alice"), ("odd-even", "bob")]
)
def test_two_way_schedule_and_counts(partition: str, holder: str) -> None:
    r = attend(partition=partition, frac=4, vocab_size=5, seed=2)
    steps = thm4_steps(5, 2, 2, 10, 4, 6, single=False)
    assert r["bits_by_step"] == steps and r["bits_sent"] == sum(steps.values())
    assert r["bits_run_count"] == r["bits_sent"]
    assert r["agreement"] == r["logits_exact"] == 1.0 and r["max_logit_error"] == 0.0
    other = "alice" if holder == "bob" else "bob"
    half = steps["max_logit"] // 2 + steps["partial_softmax_sums"] // 2
    half += steps["partial_value_sums"] // 2
    assert r["bits_by_direction"] == {f"{holder}->{other}": 3 + half, f"{other}->{holder}": half}
    assert (r["query_owner"], r["query"], r["query_token"]) == (holder, "sent", None)
    assert r["outputs"] == ["alice", "bob"] and r["one_way"] is False
    assert r["bits_formula"] == attention.FORMULAS["two-way"]
    assert r["bits_paper_formula"] == bounds.thm4_closed_form(2, 10, 6, 2)
    assert r["bits_paper_itemised"] == bounds.thm4_itemised(2, 4, 10, 6, 2).breakdown()
    assert r["counts"] == attention.COUNTS
    assert (r["variant"], r["width"], r["heads"], r["head_dim"], r["layers"]) == (
        "two-way", 4, 2, 2, 1,
    )  # fmt: skip
    assert (r["layer_norm"], r["vocab_size"], r["length"], r["partition"]) == (
        True, 5, 6, partition,
    )  # fmt: skip
    assert r["partition_resolved"] == attention.resolve_partition(partition, 6, 2).spec
    assert (r["precision"], r["frac"], r["samples"], r["seed"], r["checkpoint"]) == (
        10, 4, 3, 2, None,
    )  # fmt: skip
    assert r["grid"] == harness.fixed_point(10, 4).describe() and r["bound"] is None


def test_two_way_and_single_output_message_order() -> None:
    model = harness.build_seeded("transformer", {"width": 4, "heads": 2, "max_length": 6}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(10, None))
    inputs = harness.random_tokens(2, 6, 8, seed=1)
    part = Partition.parse("prefix:2", 6)
    with torch.no_grad():
        two = attention.setup(model, part, inputs, numbers, "two-way")
        (t, *_), out = harness.run(two, 2)
        assert torch.equal(out["alice"], out["bob"])
        assert torch.equal(out["bob"], model(inputs)[:, -1])
        single = attention.setup(model, part, inputs, numbers, "single-output")
        (s, *_), out1 = harness.run(single, 2)
        assert list(out1) == ["bob"] and torch.equal(out1["bob"], model(inputs)[:, -1])
        default = attention.setup(model, part, inputs, numbers)
        assert default.schedule == two.schedule and default.outputs == ("alice", "bob")
    b, a = "bob", "alice"
    assert schedule(t) == TWO_WAY_SCHEDULE
    assert schedule(s) == [
        (b, a, "query_token"), (b, a, "max_logit"), (a, b, "max_logit"),
        (a, b, "partial_softmax_sums"), (b, a, "softmax_sum"), (a, b, "partial_value_sums"),
    ]  # fmt: skip
    assert single.outputs == ("bob",)
    token = inputs[0, -1].item()
    assert t.messages[0].bits == format(token, "03b")


def test_single_output_counts() -> None:
    r = attend(variant="single-output", partition="alice:1,5", frac=3, vocab_size=3, length=5)
    steps = thm4_steps(3, 2, 2, 10, 3, 5, single=True)
    assert r["bits_by_step"] == steps and r["bits_sent"] == r["bits_run_count"]
    assert r["outputs"] == ["alice"] and r["query_owner"] == "alice"
    p_to_o = 2 * 10 + 2 * (10 + 3) + 2 * 2 * (10 + 3)
    assert r["bits_by_direction"] == {"alice->bob": sum(steps.values()) - p_to_o,
                                      "bob->alice": p_to_o}  # fmt: skip
    assert r["bits_formula"] == attention.FORMULAS["single-output"]
    assert r["agreement"] == r["logits_exact"] == 1.0


def test_one_way_counts_and_summary() -> None:
    r = attend(variant="one-way", query_token=3, precision=12)
    h, dh, p = 2, 2, 12
    assert r["bits_by_step"] == {"max_logit": h * p, "partial_softmax_sums": h * (p + log2c(6)),
                                 "partial_value_mean": h * dh * p}  # fmt: skip
    assert r["bits_run_count"] is None and r["one_way"] is True
    assert (r["query"], r["query_token"], r["outputs"]) == ("public", 3, ["bob"])
    assert r["bits_paper_formula"] == h * (dh + 1) * p
    assert r["bits_paper_itemised"] == {"Z_A": 24.0, "L_A": 48.0, "total": 72.0}
    assert r["bits_formula"] == attention.FORMULAS["one-way"]
    assert r["max_logit_error"] <= 4 * 2.0**-6  # a few steps of the grid (frac = 6)


@pytest.mark.parametrize("precision", [12, 16])
def test_one_way_summary_is_within_two_grid_steps(precision: int) -> None:
    """Lemma A.3's summary is not bit-exact, but on these 40 inputs Bob's logits stay within two
    steps of the grid of the model's own: a summary that forgets to rescale Alice's sum by
    exp(M_A - M), or divides her mean by anything but her own sum, is several steps off."""
    r = attend(variant="one-way", query_token=3, precision=precision, samples=40, seed=0)
    assert r["max_logit_error"] <= 2 * 2.0 ** -(precision // 2)


def test_paper_bits() -> None:
    assert attention.paper_bits(3, 6, 5, 8, 2, True) == (
        40.0, {"Z_A": 10.0, "L_A": 30.0, "total": 40.0},
    )  # fmt: skip
    total, items = attention.paper_bits(3, 6, 5, 8, 2, False)
    assert total == float(bounds.thm4_closed_form(3, 5, 8, 2))
    assert items == bounds.thm4_itemised(3, 6, 5, 8, 2).breakdown()


def test_formula_texts() -> None:
    assert attention.FORMULAS == {
        "two-way": "ceil(log2 V) + 2 H p + 2 H (p + ceil(log2 N)) + 2 H dh (p + frac)",
        "single-output": "ceil(log2 V) + 2 H p + H (p + ceil(log2 N)) + H p + H dh (p + frac)",
        "one-way": "H p + H (p + ceil(log2 N)) + H dh p (the query token is public)",
    }
    assert attention.HELD_FORMULAS == {
        "two-way": "ceil(log2 V) + 2 H p + 2 H (1 + dh) (p + ceil(log2 N))",
        "single-output": "ceil(log2 V) + 2 H p + H (1 + dh) (p + ceil(log2 N))",
    }
    assert attention.COUNTS == {
        "bits_sent": "bits on the channel in the longest run (every run sends the same)",
        "bits_by_step": "bits_sent per protocol step",
        "bits_run_count": "ccomplexity.bounds.thm4_run_bits at this run's frac and vocabulary "
        "(None one-way); Thm 5 and Thm 12 rest on its single-output count at frac = p",
        "bits_paper_formula": "the paper's closed form: Thm 4's 3 m (p + log2 N) H, or Lemma "
        "A.3's H (m + 1) p one-way; m = dh = width / H",
        "bits_paper_itemised": "the paper's steps itemised (Thm 4, spec erratum 1; Lemma A.3)",
    }
    assert (attention.TWO_WAY, attention.SINGLE_OUTPUT, attention.ONE_WAY) == (
        "two-way", "single-output", "one-way",
    )  # fmt: skip


def test_widths() -> None:
    model = harness.build_seeded("transformer", {"width": 4, "heads": 2, "max_length": 6,
                                                 "vocab_size": 9}, 0)[0]  # fmt: skip
    w = attention.Widths.of(model, harness.fixed_point(10, 3), 5)
    assert (w.token, w.sums, w.values) == (4, 13, 13)


def test_the_softmax_sum_must_fit_the_grid() -> None:
    numbers = harness.Numbers(8, 2, False, torch.float64, {})  # 2^(p-1) - 1 = 127
    attention.check(1, 31, numbers)  # 31 * 4 = 124
    with pytest.raises(
        InputError,
        match=r"^the softmax sum Z <= N = 32 must fit on the grid: need N \* 2\^frac <= "
        r"2\^\(p-1\) - 1 = 127; lower frac \(got 2\) or raise precision$",
    ):
        attention.check(1, 32, numbers)
    exact = harness.Numbers(4, 0, False, torch.float64, {})  # frac 0: N = 7 = 2^3 - 1 fits
    attention.check(1, 7, exact)
    with pytest.raises(InputError, match="N = 8 must fit"):
        attention.check(1, 8, exact)
    attention.check(1, 10**6, harness.Numbers(8, 2, True, torch.float32, {}))  # held: exact sums
    with pytest.raises(
        InputError,
        match=r"^the attention protocol simulates one-layer Transformers \(Thm 4\), got layers=2$",
    ):
        attention.check(2, 4, numbers)
    with pytest.raises(InputError, match="got layers=0"):
        attention.check(0, 4, harness.Numbers(8, 2, True, torch.float32, {}))
    # at p = 10, frac 5: N = 15 fits (480 <= 511), N = 16 does not (512)
    assert attend(length=15, frac=5, samples=1)["agreement"] == 1.0
    with pytest.raises(InputError, match="N = 16 must fit"):
        attend(length=16, frac=5, samples=1)


def test_resolve_partition() -> None:
    chosen = np.random.default_rng(7).choice(5, size=3, replace=False)
    expect = tuple(sorted(int(i) for i in chosen))
    part = attention.resolve_partition("random", 6, 7)
    assert part.alice == expect and part.spec == "alice:" + ",".join(str(i + 1) for i in expect)
    two = attention.resolve_partition("random", 2, 0)
    assert two.alice == (0,) and two.bob == (1,)
    with pytest.raises(InputError, match="^a partition needs length >= 2, got 1$"):
        attention.resolve_partition("random", 1, 0)
    p = attention.resolve_partition("prefix:2", 4, 0)
    assert (p.alice, p.spec) == ((0, 1), "alice:1,2")
    assert attention.resolve_partition("alice:3,1", 4, 0).spec == "alice:1,3"


def test_setup_refusals() -> None:
    model = harness.build_seeded("transformer", {"width": 4, "heads": 2, "max_length": 6}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(10, None))
    inputs = harness.random_tokens(2, 6, 8, seed=1)
    part = Partition.parse("prefix:3", 6)
    with pytest.raises(
        InputError,
        match=r"^unknown protocol variant 'x'; choose one of \('two-way', 'single-output', "
        r"'one-way'\)$",
    ):
        attention.setup(model, part, inputs, numbers, "x")
    inputs[:, -1] = 4
    with pytest.raises(
        InputError,
        match="^one-way attention protocol: every input must carry the public query token 5 at "
        "N = 6$",
    ):
        attention.setup(model, part, inputs, numbers, "one-way", 5)
    inputs[0, -1] = 5
    with pytest.raises(InputError, match="public query token 5"):
        attention.setup(model, part, inputs, numbers, "one-way", 5)  # one input differs
    inputs[:, -1] = 5
    one = attention.setup(model, part, inputs, numbers, "one-way", 5)
    assert one.outputs == ("bob",)
    assert one.schedule == (("alice", "bob", "max_logit"), ("alice", "bob", "partial_softmax_sums"),
                            ("alice", "bob", "partial_value_mean"))  # fmt: skip
    assert one.parties["bob"].tokens.shape == (2, 3)


def test_check_one_way() -> None:
    part = Partition.parse("prefix:3", 6)
    attention.check_one_way(part, 6, 0)
    held_n = Partition.parse("alice:6", 6)
    with pytest.raises(
        InputError,
        match="^one-way attention protocol: the query position N = 6 must be Bob's; partition "
        "alice:6 gives it to Alice$",
    ):
        attention.check_one_way(held_n, 6, 0)
    for bad in (-1, True, None, 1.0):
        with pytest.raises(
            InputError,
            match=f"^one-way attention protocol: the public query token must be a token, got "
            f"{bad!r}$".replace("(", r"\(").replace(".", r"\."),
        ):
            attention.check_one_way(part, 6, bad)


def test_one_way_query_token_against_the_vocabulary() -> None:
    assert attend(variant="one-way", query_token=7, samples=1)["query_token"] == 7
    with pytest.raises(InputError, match="^the public query token must be below the vocabulary 8$"):
        attend(variant="one-way", query_token=8, samples=1)


def test_attention_parties_refuse_other_steps() -> None:
    model = harness.build_seeded("transformer", {"width": 4, "heads": 2, "max_length": 4}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(10, None))
    inputs = harness.random_tokens(1, 4, 8, seed=1)
    inputs[:, -1] = 0
    part = Partition.parse("prefix:2", 4)
    two = attention.setup(model, part, inputs, numbers)
    one = attention.setup(model, part, inputs, numbers, "one-way", 0)
    for party, name in ((two.parties["alice"], "Thm4Party"), (one.parties["alice"], "OneWayAlice")):
        with pytest.raises(ValueError, match=f"^{name} sends nothing at step 'x'$"):
            party.send("x")
    for party, name in ((two.parties["bob"], "Thm4Party"), (one.parties["bob"], "OneWayBob")):
        with pytest.raises(ValueError, match=f"^{name} receives nothing at step 'x'$"):
            party.receive("x", ["0"])


def test_attention_certificates_are_replayed() -> None:
    for variant, token in (("two-way", None), ("single-output", None), ("one-way", 2)):
        fields = {"variant": variant, "samples": 2, "certificate": True}
        if token is not None:
            fields["query_token"] = token
        r = attend(**fields)
        cert = r["certificate"]
        assert cert["kind"] == "protocol_attention"
        assert cert["protocol"] == {"partition": r["partition_resolved"], "variant": variant,
                                    "query_token": token}  # fmt: skip
        assert verify_protocol_certificate(cert).valid, variant
    model = harness.build_seeded("transformer", {"width": 4, "heads": 2, "max_length": 6}, 0)[0]
    numbers = harness.finite_numbers(model, harness.fixed_point(10, None))
    inputs = harness.random_tokens(1, 6, 8, seed=1)
    protocol = {"partition": "alice:1", "variant": "single-output", "query_token": None}
    setup = attention.replay_setup(model, protocol, inputs, numbers)
    assert setup.outputs == ("bob",) and setup.parties["alice"].tokens.shape == (1, 1)
    with pytest.raises(InputError, match="N = 6 must fit"):
        attention.replay_setup(model, protocol, inputs, harness.finite_numbers(
            model, harness.fixed_point(8, 5)))  # fmt: skip


def test_attention_on_checkpoints(ckpt: dict[str, str]) -> None:
    plain = attend(width=None, heads=None, length=None, checkpoint=ckpt["transformer"])
    assert plain["length"] == 6 and plain["bound"] is not None and plain["checkpoint"]
    assert plain["agreement"] == plain["logits_exact"] == 1.0
    assert attend(width=None, heads=None, length=6, checkpoint=ckpt["transformer"])["length"] == 6
    shorter = attend(width=None, heads=None, length=4, checkpoint=ckpt["transformer"])
    assert shorter["length"] == 4
    with pytest.raises(
        InputError,
        match=f"^checkpoint {ckpt['transformer']} has positions up to 6 only, not N = 7$",
    ):
        attend(width=None, heads=None, length=7, checkpoint=ckpt["transformer"])
    with pytest.raises(
        InputError, match=f"^checkpoint {ckpt['gru']} holds a gru, not a transformer$"
    ):
        attend(width=None, heads=None, checkpoint=ckpt["gru"])
    with pytest.raises(InputError, match="heads 1 disagrees with checkpoint"):
        attend(width=None, heads=1, checkpoint=ckpt["transformer"])


@pytest.mark.parametrize(
    ("variant", "partition"),
    [("two-way", "prefix:2"), ("single-output", "alice:1,6"), ("single-output", "prefix:3")],
)
def test_held_transformer_counts(ckpt: dict[str, str], variant: str, partition: str) -> None:
    certify = partition == "prefix:2"  # one replay by the verifier is enough
    r = attend(width=None, heads=None, length=None, precision=4, partition=partition,
               variant=variant, checkpoint=ckpt["transformer-held"], certificate=certify,
               samples=2)  # fmt: skip
    h, dh, p, n = 2, 2, 4, 6
    k = 2 if variant == "two-way" else 1
    steps = {"query_token": 2, "max_logit": 2 * h * p,  # Dyck-(2,k): 4 tokens
             "partial_softmax_sums": k * h * (p + log2c(n)),
             "partial_value_sums": k * h * dh * (p + log2c(n))}  # fmt: skip
    assert r["bits_by_step"] == steps and r["bits_sent"] == sum(steps.values())
    assert r["bits_run_count"] == r["bits_sent"]
    assert r["bits_formula"] == attention.HELD_FORMULAS[variant]
    # float32: the parties' finish may differ from the batched forward in the last bit
    assert r["agreement"] == 1.0 and r["max_logit_error"] <= 1e-6
    assert r["grid"]["kind"] == "message-grid"
    holder = "alice" if partition.endswith("6") else "bob"
    assert r["outputs"] == (["alice", "bob"] if variant == "two-way" else [holder])
    if certify:
        assert verify_protocol_certificate(r["certificate"]).valid


def test_held_transformer_parts(ckpt: dict[str, str]) -> None:
    source = attention.transformer_source(None, None, None, 0, checkpoint=ckpt["transformer-held"])
    numbers = harness.hold_numbers(source, 4, None)
    model = source.model
    inputs = harness.random_tokens(2, 6, model.config.vocab_size, seed=3)
    part = Partition.parse("prefix:3", 6)
    with pytest.raises(
        InputError,
        match="^a model trained at p bits runs the two-way or the single-output protocol: its "
        "numerators are held against the global maximum, which one message cannot carry$",
    ):
        attention.setup(model, part, inputs, numbers, "one-way", 0)
    with torch.no_grad():
        two = attention.setup(model, part, inputs, numbers, "two-way")
        (t, *_), out = harness.run(two, 2)
        single = attention.setup(model, part, inputs, numbers, "single-output")
        (s, *_), out1 = harness.run(single, 2)
        assert torch.allclose(out["alice"], model(inputs)[:, -1], rtol=0, atol=1e-6)
        assert torch.allclose(out1["bob"], model(inputs)[:, -1], rtol=0, atol=1e-6)
    b, a = "bob", "alice"
    assert schedule(t) == TWO_WAY_SCHEDULE
    assert schedule(s) == [
        (b, a, "query_token"), (b, a, "max_logit"), (a, b, "max_logit"),
        (a, b, "partial_softmax_sums"), (a, b, "partial_value_sums"),
    ]  # fmt: skip
    assert two.outputs == ("alice", "bob") and single.outputs == ("bob",)
    party = two.parties["alice"]
    assert isinstance(party, attention.HeldParty)
    with pytest.raises(ValueError, match="^HeldParty sends nothing at step 'x'$"):
        party.send("x")
    with pytest.raises(ValueError, match="^HeldParty receives nothing at step 'x'$"):
        party.receive("x", ["0", "0"])


# ============================================================================= parrots


def run_parrots(**fields: Any) -> dict[str, Any]:
    base = {"vertices": 2, "width": 2, "heads": 1, "precision": 8, "samples": 4, "seed": 0,
            "arch": "moe", "experts": 2}  # fmt: skip
    return parrots.run_parrots_protocol(ParrotsProtocolRequest(**{**base, **fields}))


def test_parrots_run_counts_and_fields() -> None:
    r = run_parrots(frac=3, heads=2, width=2)
    assert r["bits_sent"] == r["bits_exact_formula"] == one_way_bits(2, 2, 8, 2)
    z_bits, l_bits = 8 - 1 + 1, 8 + 1  # |A| = 2: ceil(log2 2) = 1
    assert r["bits_by_step"] == {"partial_softmax_sums": 2 * z_bits,
                                 "partial_value_sums": 2 * 2 * l_bits}  # fmt: skip
    assert r["bits_by_direction"] == {"alice->bob": r["bits_sent"]} and r["one_way"] is True
    assert r["agreement"] == r["logits_exact"] == 1.0
    assert r["bits_paper_formula"] == paper_one_way_bits(2, 2, 8)
    assert r["lower_bound_bits"] == 2 and r["exhaustive"] and r["samples"] == 16
    assert (r["task"], r["arch"], r["vertices"], r["middle"], r["width"], r["heads"]) == (
        "length2-path", "moe", 2, 4, 2, 2,
    )  # fmt: skip
    assert (r["experts"], r["precision"], r["frac"], r["seed"], r["checkpoint"]) == (
        2, 8, 3, 0, None,
    )  # fmt: skip
    assert r["length"] == 2 * 2 + 4 + 1 == graphs.Layout(2, 4).length()  # 2r + M + 1
    assert r["gate"] == "argmax" and r["grid"] == harness.fixed_point(8, 3).describe()
    model, _ = parrots.build_model("moe", 2, 2, 2, 2, graphs.Layout(2, 4), 0)
    assert r["softmax_offset"] == model.config.softmax_offset
    assert r["expert_load"] is not None
    inputs = parrots.instances(graphs.Layout(2, 4), 2, 4, 0)["tokens"]
    numbers = harness.finite_numbers(model, harness.fixed_point(8, 3))
    with torch.no_grad():
        reference = model(inputs)[:, -1].argmax(-1)
        floats = parrots._float_predictions(model, inputs)
    assert numbers.frac == 3
    assert r["float_agreement"] == float((floats == reference).double().mean())
    assert r["model"] == "concat-transformer" and 0.0 <= r["float_agreement"] <= 1.0
    assert r["bits_formula"] == "H ((p - 1 + ceil(log2 |A|)) + m (p + ceil(log2 |A|)))"


def test_parrots_messages_are_alices_sums() -> None:
    layout = graphs.Layout(3, 1)
    model, info = parrots.build_model("dense", 3, 2, 1, 1, layout, seed=1)
    assert info["init_seed"] == 1 and info["config"]["experts"] == 1
    numbers = harness.finite_numbers(model, harness.fixed_point(8, None))
    data = parrots.instances(layout, 3, 10, 0)
    tokens = data["tokens"][:5]
    with torch.no_grad():
        setup = parrots.setup(model, layout, tokens, numbers)
        alice, bob = setup.parties["alice"], setup.parties["bob"]
        assert setup.outputs == ("bob",) and setup.schedule == parrots.SCHEDULE
        sums = alice.send(parrots.SUMS)
        values = alice.send(parrots.VALUES)
        bob.receive(parrots.SUMS, sums)
        bob.receive(parrots.VALUES, values)
        assert torch.equal(bob.z_alice, alice.z.reshape(bob.z.shape))
        assert torch.equal(bob.l_alice, alice.l.reshape(bob.l.shape))
        assert torch.equal(bob.output(), model(tokens)[:, -1])
    z_bits, l_bits = 8 - 1 + 2, 8 + 2  # |A| = 3
    assert (alice.z_bits, alice.l_bits) == (z_bits, l_bits) == (bob.z_bits, bob.l_bits)
    assert all(len(m) == z_bits for m in sums) and all(len(m) == 2 * l_bits for m in values)
    raw = [int(sums[0], 2)]
    assert raw == numbers.codes(alice.z[:1].reshape(1, -1)).tolist()[0]
    with pytest.raises(ValueError, match="^Alice sends nothing at step 'x'$"):
        alice.send("x")
    with pytest.raises(ValueError, match="^Bob receives nothing at step 'x'$"):
        bob.receive("x", ["0"])


def test_parrots_instances() -> None:
    layout = graphs.Layout(3, 2)
    data = parrots.instances(layout, 3, 5, 4)
    assert data["exhaustive"] and len(data["tokens"]) == 64
    codes = np.arange(64)
    assert data["a"].tolist() == [[bool((c >> i) & 1) for i in range(3)] for c in codes]
    assert data["b"].tolist() == [[bool((c >> (3 + i)) & 1) for i in range(3)] for c in codes]
    rng = np.random.default_rng(4)
    u = rng.integers(1, 3, size=(64, 2))
    v = u + 1 + np.floor(rng.random(u.shape) * (3 - u)).astype(np.int64)
    expect = layout.encode(data["a"], data["b"], np.stack([u, v], -1))
    assert data["tokens"].tolist() == expect.tolist()
    big = parrots.instances(graphs.Layout(9, 0), 9, 7, 0)
    assert not big["exhaustive"] and len(big["tokens"]) == 7
    at = parrots.instances(graphs.Layout(8, 0), 8, 1, 0)  # 4^8 = 65536 = MAX_SAMPLES
    assert at["exhaustive"] and len(at["tokens"]) == 65536
    one = parrots.instances(graphs.Layout(1, 0), 1, 4, 0)
    assert len(one["tokens"]) == 4
    with pytest.raises(InputError, match=r"^middle edges need \|V\| >= 2$"):
        parrots.instances(graphs.Layout(3, 1), 1, 4, 0)


def test_parrots_limits() -> None:
    parrots._check(256, 65536)
    with pytest.raises(InputError, match="^vertices must be at most 256, got 257$"):
        parrots._check(257, 1)
    with pytest.raises(InputError, match="^samples must be at most 65536, got 65537$"):
        parrots._check(2, 65537)
    assert parrots.MAX_VERTICES == 256 and parrots.MAX_SAMPLES == 1 << 16
    assert parrots.BIRTHDAY_SUBSETS == 1 << 17 and parrots.FAILURES_SHOWN == 5
    with pytest.raises(InputError, match="^vertices must be at most 256, got 257$"):
        run_parrots(vertices=257)
    with pytest.raises(InputError, match="^samples must be at most 65536, got 65537$"):
        run_parrots(vertices=9, samples=65537)


@pytest.mark.parametrize(
    ("arch", "width", "experts", "needle"),
    [
        ("rnn", 2, 2, r"^unknown arch 'rnn' for length-2 path; choose one of \('moe', 'dense', "
         r"'construction'\)$"),
        ("moe", None, 2, "^--arch moe needs --width$"),
        ("dense", 2, 2, "^--arch dense has one expert; use --arch moe for K > 1$"),
        ("moe", 2, 1, "^--arch moe needs --experts K >= 2$"),
    ],
)  # fmt: skip
def test_parrots_build_model_refusals(arch: str, width, experts: int, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        parrots.build_model(arch, 3, width, 1, experts, graphs.Layout(3, 1), 0)


def test_parrots_build_model_kinds() -> None:
    layout = graphs.Layout(3, 1)
    model, info = parrots.build_model("moe", 3, 2, 1, 2, layout, 5, gate="softmax")
    assert info["config"]["gate"] == "softmax" and info["config"]["n_out"] == 2
    assert info["config"]["vocab_size"] == layout.vocab_size and info["config"]["experts"] == 2
    assert info["state_sha256"] == harness.state_sha256(model) and info["name"] == model.name
    assert parrots.build_model("moe", 3, 2, 1, 2, layout, 5)[1]["config"]["gate"] == "argmax"
    built, cinfo = parrots.build_model("construction", 3, None, 1, 1, layout, 0)
    assert cinfo["construction"] is True and "init_seed" not in cinfo
    assert parrots.ARCHS == ("moe", "dense", "construction")


def test_parrots_on_checkpoints(ckpt: dict[str, str]) -> None:
    r = run_parrots(vertices=None, width=None, checkpoint=ckpt["path"], experts=1)
    assert r["arch"] == "checkpoint" and r["vertices"] == 3 and r["middle"] == 4
    assert r["agreement"] == r["logits_exact"] == 1.0 and r["checkpoint"] == ckpt["path"]
    r2 = run_parrots(vertices=2, width=None, checkpoint=ckpt["path"], experts=1)
    assert r2["vertices"] == 2
    r3 = run_parrots(vertices=3, width=None, checkpoint=ckpt["path"], experts=1)
    assert r3["vertices"] == 3
    held = run_parrots(vertices=None, width=None, checkpoint=ckpt["path-held"], precision=4)
    assert held["grid"]["kind"] == "message-grid" and held["max_logit_error"] <= 1e-6
    assert held["bits_sent"] == held["bits_exact_formula"]
    with pytest.raises(InputError, match="^the checkpoint knows 3 vertices, got 4$"):
        run_parrots(vertices=4, width=None, checkpoint=ckpt["path"])
    with pytest.raises(
        InputError, match=f"^checkpoint {ckpt['path-lstm']} is not a concat-transformer on tokens$"
    ):
        run_parrots(vertices=None, width=None, checkpoint=ckpt["path-lstm"])
    with pytest.raises(InputError, match=f"^checkpoint {ckpt['gru']} is not a concat"):
        run_parrots(vertices=None, width=None, checkpoint=ckpt["gru"])
    with pytest.raises(InputError, match=r"^give --vertices \|V\| \(or --checkpoint\)$"):
        run_parrots(vertices=None)


def test_parrots_checkpoint_of_another_task(tmp_path: Path) -> None:
    path = save_untrained(
        tmp_path, task="dyck", arch="concat-transformer", width=2, heads=1, length=4
    )
    with pytest.raises(InputError, match=f"^checkpoint {path} was trained on dyck$"):
        run_parrots(vertices=None, width=None, checkpoint=path)


def test_float_predictions_restore_the_grid() -> None:
    layout = graphs.Layout(2, 1)
    model, _ = parrots.build_model("moe", 2, 2, 1, 2, layout, 0)
    harness.finite_numbers(model, harness.fixed_point(6, None))
    tokens = parrots.instances(layout, 2, 4, 0)["tokens"]
    quant = model.quant
    with torch.no_grad():
        on_grid = model(tokens)[:, -1]
        floats = parrots._float_predictions(model, tokens)
        assert model.quant is not None and model.quant.fmt == quant.fmt
        assert torch.equal(model(tokens)[:, -1], on_grid)
        model.set_precision(None)
        assert floats.tolist() == model(tokens)[:, -1].argmax(-1).tolist()
        assert parrots._float_predictions(model, tokens).tolist() == floats.tolist()
        assert model.quant is None


# ----------------------------------------------------------------------------- the reduction


def test_collision_cases() -> None:
    zero = np.array([[1, 2], [0, 0], [0, 0]])
    a, b = parrots.collision(zero, 0)
    assert a.tolist() == [False] * 3 and b.tolist() == [False, True, False]
    repeated = np.array([[1, 2], [3, 4], [5, 6], [3, 4]])
    a, b = parrots.collision(repeated, 0)
    assert a.tolist() == [False, True, False, False] and b.tolist() == [False, False, False, True]
    summed = np.array([[1, 0], [0, 1], [1, 1], [5, 7]])  # {0, 1} and {2}
    a, b = parrots.collision(summed, 0)
    assert (a != b).any() and ((a.astype(int) - b.astype(int)) @ summed == 0).all()


def test_item_deltas_and_forced_failure() -> None:
    layout = graphs.Layout(4, 1)
    model, _ = parrots.build_model("moe", 4, 1, 1, 2, layout, 0)
    numbers = harness.finite_numbers(model, harness.fixed_point(3, None))
    deltas = parrots.item_deltas(model, layout, 4, numbers)
    assert deltas.shape == (4, 1 * (1 + 1)) and deltas.dtype == np.int64
    q = model.queries(model.embed(torch.tensor([[layout.query]])))
    z, l = model.partial_sums(q.expand(5, -1, -1, -1), model.embed(torch.arange(5)[:, None]))  # noqa: E741
    raw = torch.cat([numbers.codes(z.reshape(5, -1)), numbers.codes(l.reshape(5, -1))], 1).numpy()
    assert deltas.tolist() == (raw[1:] - raw[0]).tolist()
    forced = parrots.forced_failure(model, layout, 4, 0, numbers)
    assert forced is not None and forced["same_transcript_checked"] is True
    assert forced["answers"][0] != forced["answers"][1]
    assert forced["predicted"][0] == forced["predicted"][1]
    assert len(forced["a"]) == len(forced["b"]) == 4 and forced["b"].count("1") == 1
    i = forced["b"].index("1")
    assert forced["a"][i] != forced["a_other"][i]
    assert forced["why"].startswith("same message")


def test_reduction_report() -> None:
    out = parrots.run_length2_path_reduction("moe", 1, 3, 0, 16, vertices=4, experts=2, middle=1)
    assert out["reduction"] == "length2-path" and out["vertices"] == 4
    assert out["lower_bound_bits"] == 4 and out["below_lower_bound"] is (out["bits_sent"] < 4)
    assert out["bits_paper_formula"] == paper_one_way_bits(1, 1, 3)
    assert out["instances"] == 256 and out["exhaustive"] is True
    assert out["protocol_agreement"] == 1.0
    assert out["errors"] == round((1 - out["solved_fraction"]) * 256)
    assert len(out["failures"]) == min(5, out["errors"])
    for f in out["failures"]:
        a = [c == "1" for c in f["a"]]
        b = [c == "1" for c in f["b"]]
        assert f["expected"] == int(any(x and y for x, y in zip(a, b, strict=True)))
        assert f["predicted"] != f["expected"] and len(f["logits"]) == 2
    assert 1 <= out["distinct_messages"] <= 16
    assert (out["width"], out["heads"], out["experts"], out["precision"]) == (1, 1, 2, 3)
    assert out["arch"] == "moe" and out["checkpoint"] is None and out["seed"] == 0
    assert out["model"] == "concat-transformer" and out["frac"] == 1
    assert out["theorem"] == "parrots.thm3_1 (Lemma A.2, Lemma A.3 / Thm A.4)"
    assert out["problem"] == "DISJ_4: Alice a = N(s), Bob b = N(d) in {0,1}^4; 1 iff they meet"
    assert out["lower_bound"] == "separations.fact1: the one-way complexity of DISJ_|V| is |V| bits"
    assert out["length"] == 2 * 4 + 1 + 1
    forced = out["forced_failure"]
    if out["bits_sent"] < 4:
        assert forced is not None and forced["same_transcript_checked"] is True


def test_reduction_at_the_lower_bound_is_not_below_it() -> None:
    # |V| = 11, m = 1, p = 2: (p - 1 + 4) + (p + 4) = 11 bits, exactly the bound
    assert one_way_bits(1, 1, 2, 11) == 11
    out = parrots.run_length2_path_reduction("moe", 1, 2, 0, 4, vertices=11, experts=2, middle=1)
    assert out["bits_sent"] == out["lower_bound_bits"] == 11
    assert out["below_lower_bound"] is False and out["exhaustive"] is False
    assert out["instances"] == 4


# ============================================================================= second round


def test_rnn_inputs_come_from_the_seed() -> None:
    r = run_rnn(certificate=True, samples=3, seed=7, vocab_size=5)
    assert r["certificate"]["inputs"] == harness.random_tokens(3, 6, 5, 7).tolist()


def test_rnn_one_input_rebuilds_the_state() -> None:
    # one input: Bob splits the decoded numbers by the size of one row of each state tensor
    r = run_rnn(samples=1, precision=12, frac=6)
    assert r["bits_sent"] == 4 * 12 and r["agreement"] == r["logits_exact"] == 1.0


def test_rnn_bound_of_a_held_checkpoint_is_at_its_length_and_precision(
    ckpt: dict[str, str],
) -> None:
    held = run_rnn(arch=None, width=None, length=None, checkpoint=ckpt["gru-held"], cut=1,
                   precision=3)  # fmt: skip
    source = rnn.recurrent_source(None, None, 0, ckpt["gru-held"])
    assert held["bound"] == harness.trained_bound(source, 4, 3, 1)
    assert held["bound"] != harness.trained_bound(source, 3, 1, 1)
    assert held["bound"] != harness.trained_bound(source, 4, 1, None)


def test_rnn_bound_of_a_plugin_task_is_at_the_cut(tmp_path: Path) -> None:
    from ccomplexity import plugins
    from ccomplexity.plugin_bounds import one_way_per_cut

    with plugins.scope():

        @plugins.task(name="first-equals-last", alphabet=2, lengths=(2, 8))
        def fel(words: np.ndarray) -> np.ndarray:
            return (words[:, 0] == words[:, -1]).astype(np.int8)

        path = save_untrained(tmp_path, task="first-equals-last", arch="gru", width=2, length=4)
        runs, origin = one_way_per_cut("first-equals-last", 4)
        for cut in (1, 3):
            r = run_rnn(arch=None, width=None, length=None, checkpoint=path, cut=cut)
            bits = next(x["bits"] for x in runs if x["cuts"][0] <= cut <= x["cuts"][1])
            assert r["bound"] == {
                "id": "separations.thm2",
                "task": "first-equals-last",
                "cut": cut,
                "bits_needed": bits,
                "method": f"one-way complexity ({origin})",
            }
