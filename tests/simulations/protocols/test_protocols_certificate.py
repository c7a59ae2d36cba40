"""Certificates of protocol runs: round trip through a file, and tampering is rejected."""

from __future__ import annotations

import copy
import json

import pytest

from ccomplexity.certificates import write_certificate
from simulations.protocols import harness
from simulations.protocols.attention import run_attention_protocol
from simulations.protocols.certificate import verify_protocol_certificate
from simulations.protocols.requests import AttentionProtocolRequest, RnnProtocolRequest
from simulations.protocols.rnn import run_rnn_protocol

TWO_WAY = {"width": 8, "heads": 2, "length": 8, "precision": 16, "samples": 4, "seed": 7,
           "certificate": True}  # fmt: skip


@pytest.fixture(scope="module")
def certs() -> dict[str, dict]:
    runs = {
        "rnn": run_rnn_protocol(
            RnnProtocolRequest(
                arch="lstm",
                width=4,
                length=8,
                cut=3,
                precision=12,
                samples=4,
                seed=7,
                certificate=True,
            )
        ),
        "two_way": run_attention_protocol(
            AttentionProtocolRequest(partition="odd-even", **TWO_WAY)
        ),
        "single_output": run_attention_protocol(
            AttentionProtocolRequest(partition="odd-even", variant="single-output", **TWO_WAY)
        ),
        "one_way": run_attention_protocol(
            AttentionProtocolRequest(partition="random", variant="one-way", **TWO_WAY)
        ),
    }
    return {name: json.loads(json.dumps(r["certificate"])) for name, r in runs.items()}


@pytest.mark.parametrize("name", ["rnn", "two_way", "single_output", "one_way"])
def test_round_trip_through_a_file(certs, name, tmp_path):
    path = write_certificate(certs[name], tmp_path / "cert.json")
    cert = json.loads(path.read_text())
    verdict = verify_protocol_certificate(cert)
    assert verdict.valid, verdict.reason
    assert verdict.claimed_bits == cert["claim"]["bits_sent"]
    assert verdict.kind == ("protocol_rnn" if name == "rnn" else "protocol_attention")


def test_certificate_contents(certs):
    cert = certs["rnn"]
    assert cert["model"]["name"] == "lstm" and cert["model"]["init_seed"] == 7
    assert len(cert["model"]["state_sha256"]) == 64
    assert cert["precision"] == {"bits": 12, "frac": 6, "rounding": "floor", "overflow": "saturate"}
    assert cert["protocol"] == {"cut": 3}
    assert len(cert["inputs"]) == len(cert["transcripts"]) == 4
    (message,) = cert["transcripts"][0]["messages"]
    assert message["length"] == len(message["bits"]) == 2 * 4 * 12  # h and c, 12 bits each
    assert cert["claim"]["bits_sent"] == 96 and cert["claim"]["agreement"] == 1.0
    assert certs["two_way"]["protocol"] == {
        "partition": "alice:1,3,5,7",
        "variant": "two-way",
        "query_token": None,
    }
    assert certs["single_output"]["protocol"]["variant"] == "single-output"
    assert set(certs["single_output"]["outputs"]) == {"bob"}  # the holder of N = 8 only
    assert certs["one_way"]["protocol"]["query_token"] == 0
    assert all(row[-1] == 0 for row in certs["one_way"]["inputs"])


def flip(bits: str, i: int) -> str:
    return bits[:i] + ("1" if bits[i] == "0" else "0") + bits[i + 1 :]


def tamper_message(cert, transcript, message):
    m = cert["transcripts"][transcript]["messages"][message]
    m["bits"] = flip(m["bits"], 1)


def tamper_length(cert):
    cert["transcripts"][2]["messages"][0]["length"] += 1


def tamper_total(cert):
    cert["transcripts"][0]["total"] += 1


def tamper_step_total(cert):
    steps = cert["transcripts"][1]["bits_by_step"]
    steps[next(iter(steps))] -= 1


def tamper_output(cert):
    out = cert["outputs"]["bob"]
    out["logits_raw"][2][0] += 1


def tamper_prediction(cert):
    out = cert["outputs"]["bob"]
    out["prediction"][0] = (out["prediction"][0] + 1) % 8


def tamper_claim(cert):
    cert["claim"]["bits_sent"] -= 1


def tamper_agreement(cert):
    cert["claim"]["logits_exact"] = 0.5


def tamper_one_way(cert):
    cert["claim"]["one_way"] = not cert["claim"]["one_way"]


def tamper_input(cert):
    cert["inputs"][0][-1] = (cert["inputs"][0][-1] + 1) % 8


def tamper_hash(cert):
    cert["model"]["state_sha256"] = "0" * 64


def tamper_seed(cert):
    cert["model"]["init_seed"] += 1


def tamper_kind(cert):
    cert["kind"] = "fooling_set"


TAMPERS = {
    "first message bit": lambda c: tamper_message(c, 0, 0),
    "last message bit": lambda c: tamper_message(c, 3, -1),
    "message length": tamper_length,
    "total": tamper_total,
    "step total": tamper_step_total,
    "output": tamper_output,
    "prediction": tamper_prediction,
    "claimed bits": tamper_claim,
    "claimed agreement": tamper_agreement,
    "claimed one-way": tamper_one_way,
    "input": tamper_input,
    "hash": tamper_hash,
    "seed": tamper_seed,
    "kind": tamper_kind,
}


@pytest.mark.parametrize("name", ["rnn", "two_way", "single_output", "one_way"])
@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_tampering_is_rejected(certs, name, tamper):
    cert = copy.deepcopy(certs[name])
    TAMPERS[tamper](cert)
    verdict = verify_protocol_certificate(cert)
    assert not verdict.valid
    assert verdict.reason


def test_garbage_is_rejected_not_raised(certs):
    assert not verify_protocol_certificate([]).valid
    cert = copy.deepcopy(certs["two_way"])
    cert["protocol"]["variant"] = "single-output"  # the messages do not follow that schedule
    assert not verify_protocol_certificate(cert).valid
    cert = copy.deepcopy(certs["two_way"])
    cert["protocol"]["query_token"] = 0  # two-way sends the query token: none is public
    assert not verify_protocol_certificate(cert).valid
    cert = copy.deepcopy(certs["one_way"])
    cert["protocol"]["query_token"] = 1  # the inputs carry 0 at N
    assert "replay failed" in verify_protocol_certificate(cert).reason
    for huge in (10**30, -1, 8):  # beyond int64, negative, the vocabulary's size: no replay
        cert = copy.deepcopy(certs["one_way"])
        cert["protocol"]["query_token"] = huge
        assert "public query token, in 0..7" in verify_protocol_certificate(cert).reason
    cert = copy.deepcopy(certs["one_way"])
    del cert["protocol"]["query_token"]
    assert not verify_protocol_certificate(cert).valid
    cert = copy.deepcopy(certs["rnn"])
    cert["model"]["config"]["width"] = "wide"
    assert not verify_protocol_certificate(cert).valid


def test_seeded_models_are_reproducible():
    config = {"width": 4, "vocab_size": 5}
    assert harness.build_seeded("gru", config, 3)[1] == harness.build_seeded("gru", config, 3)[1]
    assert harness.build_seeded("gru", config, 3)[1] != harness.build_seeded("gru", config, 4)[1]
