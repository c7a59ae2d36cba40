"""A model trained at p bits *is* its protocol: for every architecture, the protocol run on its
checkpoint at its own p reproduces the model's output bit for bit and sends exactly the
theorem's count for that model."""

from __future__ import annotations

import pytest
import torch

from ccomplexity import bounds
from ccomplexity.errors import InputError
from simulations.protocols.attention import run_attention_protocol
from simulations.protocols.certificate import verify_protocol_certificate
from simulations.protocols.parrots import run_parrots_protocol
from simulations.protocols.requests import (
    AttentionProtocolRequest,
    ParrotsProtocolRequest,
    RnnProtocolRequest,
)
from simulations.protocols.rnn import run_rnn_protocol
from simulations.run_config import TrainConfig
from simulations.training import train

RECURRENT = ["lstm", "gru", "mamba", "dss", "linear-transformer", "retnet"]
TINY = {"steps": 3, "batch": 8, "eval_every": 3, "eval_samples": 20, "layers": 1}


def trained(tmp_path, **fields) -> dict:
    config = TrainConfig.of(**TINY, **fields)
    return train(config, checkpoint_dir=tmp_path, progress=False, device="cpu")


@pytest.mark.parametrize("arch", RECURRENT)
@pytest.mark.parametrize("precision", [1, 3])
def test_every_recurrent_model_is_its_protocol(tmp_path, arch, precision):
    sizes = {"d_state": 2, "expand": 1, "d_conv": 2} if arch == "mamba" else {}
    run = trained(
        tmp_path,
        task="index-lookup",
        arch=arch,
        width=4,
        length=6,
        symbols=2,
        precision=precision,
        **sizes,
    )
    assert run["precision"] == precision and run["state_bits"] == run["state_numel"] * precision
    for cut in (1, 3, 5):
        request = RnnProtocolRequest(
            cut=cut, precision=precision, samples=8, checkpoint=run["checkpoint"]
        )
        out = run_rnn_protocol(request)
        assert out["length"] == 6  # the checkpoint's N
        assert out["agreement"] == out["logits_exact"] == 1.0 and out["max_logit_error"] == 0.0
        assert out["bits_sent"] == out["bits_theorem"] == run["state_bits"]
        assert out["grid"]["kind"] == "message-grid" and out["grid"]["bits"] == precision


def test_a_held_run_certificate_is_replayed_and_tampering_is_caught(tmp_path):
    run = trained(
        tmp_path, task="index-lookup", arch="gru", width=3, length=6, symbols=2, precision=2
    )
    request = RnnProtocolRequest(
        cut=3, precision=2, samples=6, checkpoint=run["checkpoint"], certificate=True
    )
    cert = run_rnn_protocol(request)["certificate"]
    verdict = verify_protocol_certificate(cert)
    assert verdict.valid and verdict.claimed_bits == 3 * 2, verdict.reason
    cert["outputs"]["bob"]["logits"][0][0] += 2.0**-20
    assert not verify_protocol_certificate(cert).valid
    cert["precision"] = {**cert["precision"], "frac": 0}
    assert not verify_protocol_certificate(cert).valid


def test_a_held_model_runs_only_at_its_own_p(tmp_path):
    run = trained(
        tmp_path, task="index-lookup", arch="lstm", width=2, length=6, symbols=2, precision=2
    )
    for precision, frac in ((3, None), (2, 0)):
        request = RnnProtocolRequest(
            cut=3, precision=precision, frac=frac, checkpoint=run["checkpoint"]
        )
        with pytest.raises(InputError, match="runs at --precision 2"):
            run_rnn_protocol(request)


@pytest.mark.parametrize("variant", ["two-way", "single-output"])
@pytest.mark.parametrize("partition", ["odd-even", "prefix:3", "random"])
def test_a_one_layer_transformer_is_its_protocol(tmp_path, variant, partition):
    run = trained(
        tmp_path, task="dyck", arch="transformer", width=4, heads=2, length=8, precision=3
    )
    request = AttentionProtocolRequest(
        partition=partition, precision=3, samples=16, variant=variant, checkpoint=run["checkpoint"]
    )
    out = run_attention_protocol(request)
    assert out["agreement"] == out["logits_exact"] == 1.0 and out["max_logit_error"] == 0.0
    count = bounds.thm4_held_bits(2, 2, 3, 8, alphabet=4, single_output=variant != "two-way")
    assert out["bits_sent"] == out["bits_run_count"] == count.pop("total")
    assert out["bits_by_step"] == count
    if variant == "two-way":
        assert out["bits_sent"] == run["protocol_bits"]
    assert out["bound"]["id"] == "separations.thm5_held"


def test_a_held_transformer_refuses_the_one_way_summary(tmp_path):
    run = trained(
        tmp_path, task="dyck", arch="transformer", width=4, heads=1, length=8, precision=3
    )
    request = AttentionProtocolRequest(
        partition="prefix:4", precision=3, variant="one-way", checkpoint=run["checkpoint"]
    )
    with pytest.raises(InputError, match="two-way or the single-output"):
        run_attention_protocol(request)


def test_a_one_layer_mixture_of_experts_is_its_protocol(tmp_path):
    run = trained(
        tmp_path,
        task="length2-path",
        arch="concat-transformer",
        width=4,
        heads=1,
        length=4,
        experts=2,
        precision=4,
    )
    out = run_parrots_protocol(
        ParrotsProtocolRequest(precision=4, samples=20, checkpoint=run["checkpoint"])
    )
    assert out["agreement"] == out["logits_exact"] == 1.0
    assert out["bits_sent"] == out["bits_exact_formula"]
    assert out["grid"]["kind"] == "message-grid"


def test_attention_models_need_two_bits(tmp_path):
    with pytest.raises(InputError, match="at least 2 bits"):
        TrainConfig.of(
            task="dyck", arch="transformer", width=4, heads=1, layers=1, length=8, precision=1
        )


def test_the_held_state_is_on_the_grid_and_the_forward_is_the_steps(tmp_path):
    config = TrainConfig.of(
        task="index-lookup",
        arch="lstm",
        width=3,
        layers=1,
        length=6,
        symbols=2,
        precision=2,
        frac=1,
    )
    torch.manual_seed(0)
    model = config.build_model()
    tokens = torch.randint(0, 3, (5, 7))
    logits, state = model.run_steps(tokens)
    assert torch.equal(model(tokens), logits)
    codes = {v for t in state.values() for v in (t * 2).flatten().tolist()}
    assert codes <= {-2.0, -1.0, 0.0, 1.0}  # every one of the 2^2 codes, and nothing else
    model.hold_messages(None)
    assert not torch.equal(model(tokens), logits)  # float: the fused LSTM, unheld
