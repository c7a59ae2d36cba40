"""Re-check a certificate of a protocol run (kinds ``protocol_rnn`` and ``protocol_attention``).

A certificate (built by :func:`simulations.protocols.harness.certificate`) records the model
(registry name, config, init seed, SHA-256 of its parameters), the precision, the protocol's
parameters, the inputs, every message with its bits, the outputs and the claimed bits and
agreement. :func:`verify_protocol_certificate` trusts none of it:

1. every message's length is its bit string's, and each transcript's totals (total, per step,
   per direction, one-way) are recomputed from the messages; the claimed bits are the longest;
2. the model rebuilt from name, config and seed must have the recorded hash;
3. each party is replayed alone from its own tokens and the messages it received: it must send
   exactly the recorded messages, and the output parties' logits must equal the recorded ones
   (for Thm 2, the message must also be the whole state: state_numel x p bits; for the one-way
   attention protocol every input must carry the public query token at N);
4. the claimed agreement is recomputed against the model's own finite-precision forward.
"""

from __future__ import annotations

from typing import Any

import torch

import models
from ccomplexity import limits, plugins
from ccomplexity.certificates import PROTOCOL_KINDS
from ccomplexity.errors import InputError
from ccomplexity.precision import FixedPoint
from ccomplexity.protocol import Transcript, check_protocol_certificate
from ccomplexity.verifier import (
    InvalidCertificate,
    Verdict,
    exact_keys,
    field,
    require,
)
from simulations.protocols import attention, harness, rnn

MAX_TOKENS = 1 << 22
"""Most input tokens (samples x length) a certificate may ask the verifier to replay."""


def verify_protocol_certificate(cert: dict[str, Any]) -> Verdict:
    """Re-check a parsed protocol certificate; never raises for bad content, says why instead."""
    kind = cert.get("kind") if isinstance(cert, dict) else None
    try:
        transcripts = check_protocol_certificate(cert)
        claim, bits = cert["claim"], cert["claim"]["bits_sent"]
        with torch.no_grad():
            _replay(cert, kind, claim, transcripts)
    except InvalidCertificate as err:
        return Verdict(False, kind if kind in PROTOCOL_KINDS else None, None, str(err))
    return Verdict(True, kind, bits, None)


def _model(cert: dict[str, Any], kind: str) -> tuple[Any, harness.Numbers]:
    """The model rebuilt from name, config and seed (or reloaded from its checkpoint), its hash
    checked, on the recorded grid: the finite-precision grid, or the message grid a model
    trained at p bits holds its numbers on (which its checkpoint must name alike)."""
    spec = cert["model"]
    trained = "checkpoint" in spec  # a trained model: reload the file the run used
    origin = {"checkpoint": str} if trained else {"init_seed": int}
    exact_keys(spec, "model", {"name": str, "config": dict, **origin, "state_sha256": str})
    name = spec["name"]
    allowed = rnn.recurrent_archs() if kind == "protocol_rnn" else ["transformer"]
    if kind == "protocol_rnn" and name not in allowed and name not in models.REGISTRY:
        # a plugin's model that is not loaded: nothing to replay with, not checked
        raise InputError(plugins.not_loaded("model", name, allowed))
    require(name in allowed, f"model {name!r} is not one of {allowed} for {kind}")
    config = spec["config"]
    try:
        if trained:
            source = harness.model_source(None, None, 0, spec["checkpoint"])
            require(
                source.description["name"] == name and source.description["config"] == config,
                "checkpoint holds a different model than the certificate names",
            )
        else:
            source = harness.model_source(name, config, spec["init_seed"])
        model, sha = source.model, source.description["state_sha256"]
        grid = cert["precision"]
        require(isinstance(grid, dict), "precision must be an object")
        if grid.get("kind") == "message-grid":
            require(
                model.messages is not None and model.messages.grid.describe() == grid,
                "the precision names a message grid the model was not trained on",
            )
            numbers = harness.hold_numbers(source, model.messages.grid.bits, grid["frac"])
        else:
            numbers = harness.finite_numbers(model, FixedPoint.from_dict(grid))
    except (ValueError, TypeError, OSError) as err:  # InputError is a ValueError
        raise InvalidCertificate(f"cannot rebuild the model: {err}") from None
    require(sha == spec["state_sha256"], "model hash differs from the rebuilt model")
    return model, numbers


def _inputs(cert: dict[str, Any], model: Any, kind: str) -> torch.Tensor:
    """The recorded inputs, their number and size bounded before the model runs on them."""
    rows, vocab = cert["inputs"], model.config.vocab_size
    require(len(rows) >= 1 and all(isinstance(r, list) for r in rows), "inputs: lists of tokens")
    length = len(rows[0])
    require(length >= 2 and len(rows) * length <= MAX_TOKENS, f"at most {MAX_TOKENS} tokens")
    ok = all(len(r) == length and all(type(s) is int and 0 <= s < vocab for s in r) for r in rows)
    require(ok, f"inputs must be equal-length rows of tokens in 0..{vocab - 1}")
    cfg = model.config
    heads = cfg.heads if kind == "protocol_attention" else 0
    try:
        limits.check_forward(len(rows), length, cfg.width, heads, cfg.layers, "the replay")
    except InputError as err:
        raise InvalidCertificate(str(err)) from None
    return torch.tensor(rows, dtype=torch.long)


def _setup(
    kind: str,
    model: Any,
    protocol: dict[str, Any],
    inputs: torch.Tensor,
    numbers: harness.Numbers,
) -> harness.Setup:
    if kind == "protocol_rnn":
        require(set(protocol) == {"cut"}, "an rnn protocol section is {cut}")
        field(protocol, "cut", int)
        return rnn.replay_setup(model, protocol, inputs, numbers)
    keys = {"partition", "variant", "query_token"}
    require(set(protocol) == keys, f"protocol section is {sorted(keys)}")
    field(protocol, "partition", str)
    variant = protocol["variant"]
    require(variant in attention.VARIANTS, f"variant must be one of {attention.VARIANTS}")
    public = protocol["query_token"]
    if variant == attention.ONE_WAY:  # the query token is public: fixed, known to both
        vocab = model.config.vocab_size
        require(
            type(public) is int and 0 <= public < vocab,
            f"a one-way run names its public query token, in 0..{vocab - 1}",
        )
    else:  # the holder of N sends it, and it is counted
        require(public is None, f"a {variant} run sends the query token: query_token is null")
    return attention.replay_setup(model, protocol, inputs, numbers)


def _replay(
    cert: dict[str, Any], kind: str, claim: dict[str, Any], transcripts: list[Transcript]
) -> None:
    model, numbers = _model(cert, kind)
    inputs = _inputs(cert, model, kind)
    require(len(transcripts) == len(inputs), "one transcript per input is needed")
    require(claim.get("samples") == len(inputs), "claimed samples differ from the inputs")
    if kind == "protocol_rnn":
        theorem = model.state_numel() * numbers.bits
        require(claim["bits_sent"] == theorem, f"Thm 2 sends the whole state, {theorem} bits")
    try:
        setup = _setup(kind, model, cert["protocol"], inputs, numbers)
        outputs = harness.replay(setup, transcripts)
        reference = model(inputs)[:, -1]
    except (ValueError, harness.ReplayMismatch) as err:  # InputError is a ValueError
        raise InvalidCertificate(f"replay failed: {err}") from None
    recorded = cert["outputs"]
    require(set(recorded) == set(outputs), f"outputs must be those of {sorted(outputs)}")
    for name, logits in outputs.items():
        entry = recorded[name]
        key = "logits" if numbers.held else "logits_raw"
        exact_keys(entry, f"outputs of {name}", {key: list, "prediction": list})
        replayed = harness.recorded_logits(numbers, logits)
        require(entry[key] == replayed[key], f"{name}'s logits differ from its replay")
        require(entry["prediction"] == replayed["prediction"], f"{name}'s predictions differ")
    scores = harness.compare(outputs, reference)
    for key, value in scores.items():
        require(claim.get(key) == value, f"claimed {key} differs from the recomputed {value}")
