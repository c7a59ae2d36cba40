"""Checkpoints of trained models: written atomically, read as data.

A checkpoint holds the training config, the model's name and config and its state dict; it is
loaded with ``torch.load(weights_only=True)`` and every field is validated against what
training would build (:func:`load_checkpoint`), so a file from elsewhere never runs code.
"""

from __future__ import annotations

from pathlib import Path

import torch

from ccomplexity import limits
from ccomplexity.errors import InputError
from ccomplexity.files import atomic_open
from models.base import SequenceModel
from simulations.run_config import TrainConfig

CHECKPOINT_FORMAT = "ccomplexity-checkpoint"
CHECKPOINT_VERSION = 1


def save_checkpoint(model: SequenceModel, config: TrainConfig, directory: str | Path) -> Path:
    """Write ``{config_hash}.pt`` into ``directory`` atomically (temporary file, then rename)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "config": config.to_dict(),
        "model": {"name": config.model.arch, "config": model.config.to_dict()},
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }
    path = folder / f"{config.config_hash()}.pt"
    with atomic_open(path, "wb", what="checkpoint") as fh:
        torch.save(payload, fh)
    return path


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def load_checkpoint(path: str | Path) -> tuple[SequenceModel, TrainConfig]:
    """The model (CPU, eval mode) and config of a checkpoint written by :func:`train`.

    Loads with ``torch.load(weights_only=True)`` (files over ``limits.CHECKPOINT_BYTES`` are
    refused unread) and checks every field: format, version, the training config (within the
    limits of :class:`TrainConfig`), the model name and config (types, and agreement with what
    training would build) and every tensor's name, shape, dtype and finiteness (NaN or infinite
    weights are refused). Anything malformed raises a one-line InputError. A model trained at p
    bits comes back holding its messages on the grid its config names.
    """
    where = f"checkpoint {path}"
    payload = _payload(path, where)
    try:
        config = TrainConfig.from_dict(payload["config"])
    except InputError as exc:
        raise InputError(f"{where}: bad config: {_one_line(exc)}") from None
    _check_model_entry(payload["model"], config, where)
    model = config.build_model()
    state = _checked_state(payload["state_dict"], model.state_dict(), where)
    model.load_state_dict(state, strict=True)
    model.eval()
    return model, config


def _payload(path: str | Path, where: str) -> dict:
    """The checkpoint's payload, read as data, with the keys, format and version it must have."""
    limits.check_zip_file(path, limits.CHECKPOINT_BYTES, "checkpoint")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # unpickling and format errors of every kind
        raise InputError(f"{where}: not a readable checkpoint ({_one_line(exc)})") from None
    expected_keys = {"format", "version", "config", "model", "state_dict"}
    if not isinstance(payload, dict) or set(payload) != expected_keys:
        keys = sorted(map(str, payload)) if isinstance(payload, dict) else type(payload).__name__
        raise InputError(f"{where}: expected keys {sorted(expected_keys)}, got {keys}")
    if payload["format"] != CHECKPOINT_FORMAT:
        raise InputError(
            f"{where}: format must be {CHECKPOINT_FORMAT!r}, got {payload['format']!r}"
        )
    version = payload["version"]
    if isinstance(version, bool) or version != CHECKPOINT_VERSION or not isinstance(version, int):
        raise InputError(
            f"{where}: unsupported version {version!r} (expected {CHECKPOINT_VERSION})"
        )
    return payload


def _check_model_entry(spec: object, config: TrainConfig, where: str) -> None:
    """The checkpoint's model name and config must be what ``config`` builds, field for field."""
    if not isinstance(spec, dict) or set(spec) != {"name", "config"}:
        raise InputError(f"{where}: 'model' must be a dict with keys 'name' and 'config'")
    arch = config.model.arch
    if spec["name"] != arch:
        raise InputError(f"{where}: model name {spec['name']!r} differs from arch {arch!r}")
    values = spec["config"]
    if not isinstance(values, dict):
        raise InputError(f"{where}: model config must be a dict")
    expected = config.model_config.to_dict()  # the config training builds, checked once
    if set(values) != set(expected):
        raise InputError(
            f"{where}: model config fields {sorted(map(str, values))} differ from "
            f"{sorted(expected)}"
        )
    for name, value in expected.items():
        if type(values[name]) is not type(value):
            raise InputError(f"{where}: model config {name}={values[name]!r} has the wrong type")
        if values[name] != value:
            raise InputError(
                f"{where}: model config {name}={values[name]!r} disagrees with the training "
                f"config (expected {value!r})"
            )


def _checked_state(
    state: object, reference: dict[str, torch.Tensor], where: str
) -> dict[str, torch.Tensor]:
    """The state dict, every tensor named, shaped and typed as the model's and finite."""
    if not isinstance(state, dict):
        raise InputError(f"{where}: state_dict must be a dict of tensors")
    if set(state) != set(reference):
        missing = sorted(set(reference) - set(state))
        extra = sorted(map(str, set(state) - set(reference)))
        raise InputError(f"{where}: state_dict missing {missing}, unexpected {extra}")
    for name, ref in reference.items():
        tensor = state[name]
        if not isinstance(tensor, torch.Tensor):
            raise InputError(f"{where}: state_dict[{name!r}] is not a tensor")
        if tensor.shape != ref.shape or tensor.dtype != ref.dtype:
            raise InputError(
                f"{where}: state_dict[{name!r}] is {tensor.dtype} {tuple(tensor.shape)}, "
                f"expected {ref.dtype} {tuple(ref.shape)}"
            )
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise InputError(f"{where}: state_dict[{name!r}] holds NaN or infinite values")
    return state
