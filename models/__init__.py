"""Torch sequence models with exposed state, built by name from plain config values.

Modules (and torch) are imported only when a model is built or described, so importing
``models`` is cheap and torch-free: :data:`REGISTRY` and :data:`FAMILIES` can be read by code that
never trains (thresholds, claims). A model's config class is the type of its constructor's
``config`` argument. A model of a loaded plugin (:mod:`ccomplexity.plugins`) is found by the
same functions (:func:`model_class`, :func:`family`, :func:`names`) under its own name.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import itertools
import typing
from typing import TYPE_CHECKING, Any

from ccomplexity import limits, plugins
from ccomplexity.errors import InputError

if TYPE_CHECKING:
    from models.base import ModelConfig, SequenceModel

REGISTRY: dict[str, str] = {
    "transformer": "models.transformer:Transformer",
    "lstm": "models.lstm:LSTM",
    "gru": "models.lstm:GRU",
    "mamba": "models.mamba:Mamba",
    "dss": "models.dss:DSS",
    "linear-transformer": "models.linear_transformer:LinearTransformer",
    "retnet": "models.retnet:RetNet",
    "concat-transformer": "models.concat_transformer:ConcatTransformer",
    "looped": "models.looped:LoopedTransformer",
}
"""Model name -> ``module:Class``."""

FAMILIES: dict[str, str] = {
    "transformer": "attention",
    "lstm": "recurrent",
    "gru": "recurrent",
    "mamba": "recurrent",
    "dss": "recurrent",
    "linear-transformer": "recurrent",
    "retnet": "recurrent",
    "concat-transformer": "concat-attention",
    "looped": "looped",
}
"""Model name -> family, the axis the claims table (``ccomplexity.claims``) speaks of:
``recurrent`` (a state of ``state_numel`` numbers carried token to token: Thm 2's one-way
protocol), ``attention`` (softmax attention over the whole prefix: Thm 4's protocol) or
``concat-attention`` (the mixture-of-parrots paper's one-layer class: heads of full width m
concatenated, so m is the width itself) or
``looped`` (a k-layer block applied L times: its depth is kL, so claims about one-layer
transformers must not match a looped model with a one-layer block). A test checks it against
each class's ``recurrent`` flag."""


plugins.declare("model", REGISTRY)
plugins.declare("family", FAMILIES.values())


def _unknown(name: str) -> InputError:
    return InputError(plugins.not_loaded("model", name, names()))


def names() -> list[str]:
    """The registered models, then the models of loaded plugins (:mod:`ccomplexity.plugins`)."""
    return [*REGISTRY, *plugins.model_names()]


def family(name: str) -> str:
    """The family of model ``name`` (a plugin model's: the one it declares); InputError lists
    the known names."""
    if name in FAMILIES:
        return FAMILIES[name]
    found = plugins.model_definition(name)
    if found is None:
        raise _unknown(name)
    return found.family


def model_class(name: str) -> type[SequenceModel]:
    """The class registered under ``name``, or a loaded plugin's model of that name;
    InputError lists the known names."""
    if name not in REGISTRY:
        found = plugins.model_definition(name)
        if found is None:
            raise _unknown(name)
        return found.cls
    module, cls = REGISTRY[name].split(":")
    return getattr(importlib.import_module(module), cls)


@functools.cache
def config_class(cls: type[SequenceModel]) -> type[ModelConfig]:
    """The config class of model class ``cls``: the annotation of its ``config`` argument; an
    InputError naming the model when there is none (a plugin's class)."""
    from models.base import ModelConfig  # loaded with the class itself

    try:
        found = typing.get_type_hints(cls.__init__).get("config")
    except Exception:  # a plugin's annotation that does not resolve
        found = None
    if not (isinstance(found, type) and issubclass(found, ModelConfig)):
        raise InputError(
            f"model {getattr(cls, 'name', cls.__name__)!r}: its __init__(self, config) must "
            "annotate config with its ModelConfig class"
        )
    return found


def build(name: str, **config: Any) -> SequenceModel:
    """A fresh model: ``build("lstm", width=32)``; unknown config fields, sizes beyond their
    limits and models of more than ``limits.MODEL_NUMBERS`` numbers raise InputError (before
    anything is allocated)."""
    cls = model_class(name)
    cfg = config_class(cls).from_dict(config)
    check_size(name, cfg)
    return cls(cfg)


def check_size(name: str, config: ModelConfig) -> int:
    """The numbers (parameters and buffers) model ``name`` would hold with ``config``; InputError
    beyond :data:`ccomplexity.limits.MODEL_NUMBERS`."""
    numbers = _numbers(name, config)
    if numbers > limits.MODEL_NUMBERS:
        raise InputError(
            f"model {name!r} of width {config.width} with {config.layers} layer(s) would hold "
            f"{numbers} numbers; the limit is "
            f"{limits.MODEL_NUMBERS} (2^27); use a smaller width, fewer layers or fewer positions"
        )
    return numbers


@functools.lru_cache(maxsize=4096)
def _numbers(name: str, config: ModelConfig) -> int:
    """Counted on torch's meta device: the model is built without memory or random draws. Its
    random initialisations are skipped: on the meta device torch runs them through its
    decompositions, whose first use imports some 800 modules (sympy among them), about 2 s in
    each process that counts a model (every sweep and every ``ccx`` command that checks one)."""
    import torch

    with torch.device("meta"), _skip_random_init():
        model = model_class(name)(config)
    return sum(t.numel() for t in itertools.chain(model.parameters(), model.buffers()))


RANDOM_INIT = frozenset({"normal_", "uniform_", "trunc_normal_"})
"""In-place random fills (``torch.nn.init`` and the tensor methods) that :func:`_numbers`
skips: they change values, never shapes."""


def _skip_random_init() -> Any:
    """A torch function mode in which :data:`RANDOM_INIT` calls return their tensor unchanged."""
    import torch

    class SkipRandomInit(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if getattr(func, "__name__", None) in RANDOM_INIT:
                return args[0] if args else kwargs["tensor"]
            return func(*args, **kwargs)

    return SkipRandomInit()


def describe_models() -> list[dict[str, Any]]:
    """For each registered model: name, recurrent, config fields with their defaults (None: derived
    from the others, see the config class) and the first line of the class docstring."""
    out = []
    for name in names():
        cls = model_class(name)
        fields = {f.name: f.default for f in dataclasses.fields(config_class(cls))}
        description = next(iter(str(cls.__doc__ or "").strip().splitlines()), "")
        out.append(
            {"name": name, "recurrent": cls.recurrent, "config": fields, "description": description}
        )
    return out
