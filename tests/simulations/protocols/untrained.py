"""Checkpoints of freshly initialised models (no training step), saved as training saves them,
for the protocol tests that need a model file but not a trained one."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def save_untrained(folder: Path, **fields: Any) -> str:
    """Build the model of ``TrainConfig.of(**fields)`` (one layer, a 1-step config unless
    ``fields`` say otherwise) and save it into ``folder``; the checkpoint's path."""
    from simulations.checkpoints import save_checkpoint
    from simulations.training import TrainConfig, build_model

    base = {"steps": 1, "batch": 4, "eval_every": 1, "eval_samples": 4, "layers": 1}
    config = TrainConfig.of(**{**base, **fields})
    model, _ = build_model(config)
    return str(save_checkpoint(model, config, folder))
