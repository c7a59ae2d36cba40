"""Torch sequence models with exposed state, built by name from plain config values.

Modules are imported only when a model is built or described, so importing ``models`` is cheap.
A model's config class is the type of its constructor's ``config`` argument.
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from typing import Any

from ccomplexity.errors import InputError
from models.base import ModelConfig, SequenceModel

REGISTRY: dict[str, str] = {
    "transformer": "models.transformer:Transformer",
    "lstm": "models.lstm:LSTM",
    "gru": "models.lstm:GRU",
    "mamba": "models.mamba:Mamba",
    "dss": "models.dss:DSS",
    "linear-transformer": "models.linear_transformer:LinearTransformer",
    "retnet": "models.retnet:RetNet",
}


def model_class(name: str) -> type[SequenceModel]:
    """The class registered under ``name``; InputError lists the known names."""
    if name not in REGISTRY:
        raise InputError(f"unknown model {name!r}; known: {', '.join(REGISTRY)}")
    module, cls = REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), cls)


def config_class(cls: type[SequenceModel]) -> type[ModelConfig]:
    return typing.get_type_hints(cls.__init__)["config"]


def build(name: str, **config: Any) -> SequenceModel:
    """A fresh model: ``build("lstm", width=32)``; unknown config fields raise InputError."""
    cls = model_class(name)
    return cls(config_class(cls).from_dict(config))


def describe_models() -> list[dict[str, Any]]:
    """For each registered model: name, recurrent, config fields with their defaults (None: derived
    from the others, see the config class) and the first line of the class docstring."""
    out = []
    for name in REGISTRY:
        cls = model_class(name)
        fields = {f.name: f.default for f in dataclasses.fields(config_class(cls))}
        description = (cls.__doc__ or "").strip().splitlines()[0]
        out.append(
            {"name": name, "recurrent": cls.recurrent, "config": fields, "description": description}
        )
    return out
