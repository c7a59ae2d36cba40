"""Where models meet mathematics: protocols, tasks, training, sweeps and the results store.

The names most code needs are exported here (``from simulations import train``; see
docs/python-api.md); each is imported from its module on first use, so importing the package
(and with it :mod:`simulations.store`) does not load torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "TrainConfig": "simulations.run_config",
    "TaskSpec": "simulations.run_config",
    "ModelSpec": "simulations.run_config",
    "Evaluation": "simulations.run_config",
    "Recipe": "simulations.recipes",
    "train": "simulations.training",
    "load_spec": "simulations.sweeps",
    "run_sweep": "simulations.sweeps",
    "runs": "simulations.store",
    "run_rnn_protocol": "simulations.protocols.rnn",
    "AttentionProtocolRequest": "simulations.protocols.requests",
    "ParrotsProtocolRequest": "simulations.protocols.requests",
    "RnnProtocolRequest": "simulations.protocols.requests",
    "run_protocol": "simulations.protocols.run",
    "verify_protocol_certificate": "simulations.protocols.certificate",
}
"""Exported name -> the module that defines it."""

if TYPE_CHECKING:
    from simulations.protocols.certificate import verify_protocol_certificate
    from simulations.protocols.requests import (
        AttentionProtocolRequest,
        ParrotsProtocolRequest,
        RnnProtocolRequest,
    )
    from simulations.protocols.rnn import run_rnn_protocol
    from simulations.protocols.run import run_protocol
    from simulations.recipes import Recipe
    from simulations.run_config import Evaluation, ModelSpec, TaskSpec, TrainConfig
    from simulations.store import runs
    from simulations.sweeps import load_spec, run_sweep
    from simulations.training import train


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'simulations' has no attribute {name!r}")


__all__ = [
    "AttentionProtocolRequest",
    "Evaluation",
    "ModelSpec",
    "ParrotsProtocolRequest",
    "Recipe",
    "RnnProtocolRequest",
    "TaskSpec",
    "TrainConfig",
    "load_spec",
    "run_protocol",
    "run_rnn_protocol",
    "run_sweep",
    "runs",
    "train",
    "verify_protocol_certificate",
]
