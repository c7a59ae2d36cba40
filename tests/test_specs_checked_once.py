"""Every user-set value is checked in exactly one place: when the spec or request that holds it
is made (its limit in the one table, ``ccomplexity.limits.FIELDS``), never again by the layers
below that take the spec. Counted here by watching every limit check while a value travels from
the command line, or the Python API, down to the trainer and the protocol runners."""

from __future__ import annotations

from collections import Counter

import pytest

from ccomplexity import limits
from simulations.protocols.requests import RnnProtocolRequest
from simulations.protocols.rnn import run_rnn_protocol
from simulations.run_config import TrainConfig
from simulations.training import train

WATCHED = ("precision", "width", "seed", "length", "steps", "lr")
FLAT = {"task": "index-lookup", "arch": "gru", "width": 3, "layers": 1, "length": 6,
        "steps": 2, "lr": 0.01, "seed": 4, "precision": 2, "symbols": 2, "eval_every": 2,
        "eval_samples": 10, "batch": 4}  # fmt: skip


@pytest.fixture
def checks(monkeypatch) -> Counter:
    """How many times each limit was checked, by its name."""
    seen: Counter = Counter()
    for kind in (limits.Limit, limits.Interval):
        original = kind.check

        def counting(self, value, name=None, original=original):
            seen[self.name] += 1
            return original(self, value, name)

        monkeypatch.setattr(kind, "check", counting)
    return seen


def watched(counts: Counter) -> dict[str, int]:
    return {name: counts[name] for name in WATCHED}


def test_a_run_is_checked_once_when_made_and_never_below(checks):
    config = TrainConfig.of(**FLAT)
    assert watched(checks) == dict.fromkeys(WATCHED, 1)
    checks.clear()
    train(config, progress=False, device="cpu")
    assert watched(checks) == dict.fromkeys(WATCHED, 0)


def test_the_command_line_hands_its_values_to_the_spec(checks, ccx, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    given = {k: v for k, v in FLAT.items() if k not in ("eval_every", "eval_samples")}
    args = [x for k, v in given.items() for x in (f"--{k.replace('_', '-')}", str(v))]
    code, _, err = ccx("train", *args, "--checkpoint-dir", "ck", "--json")
    assert code == 0, err
    assert watched(checks) == dict.fromkeys(WATCHED, 1)


def test_a_protocol_request_is_checked_once_and_its_runner_trusts_it(checks):
    request = RnnProtocolRequest(
        arch="gru", width=3, length=6, cut=3, precision=8, samples=4, seed=2
    )
    made = watched(checks)
    assert made == {**dict.fromkeys(WATCHED, 1), "width": 0, "steps": 0, "lr": 0}
    checks.clear()
    out = run_rnn_protocol(request)
    assert out["agreement"] == 1.0
    # the model's width, checked by the model's config when the runner builds it; nothing else
    assert watched(checks) == {**dict.fromkeys(WATCHED, 0), "width": 1}
