"""The configuration of one training run: :class:`TrainConfig`, its limits, its hash, and the
model it builds (:func:`model_config`).

Shared by :mod:`simulations.training` (which trains a config and re-exports these names) and
:mod:`simulations.checkpoints` (which validates a saved config against the model it would
build), so that neither imports the other's module for it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import models
from ccomplexity import limits, typed
from ccomplexity.errors import InputError, check_int
from simulations.recipes import RECIPE_DEFAULTS, check_recipe

if TYPE_CHECKING:
    from simulations.tasks import Task

EVAL_BATCH = 500
"""Evaluation examples per forward pass."""
EVAL_SEED_OFFSET = 0x5EED_0001
"""Evaluation data come from ``Generator().manual_seed(seed + EVAL_SEED_OFFSET)``."""
TASK_OPTIONS = (
    "hops",
    "alphabet",
    "group",
    "reverse",
    "digits",
    "entities",
    "relations",
    "graph_seed",
    "depth",
    "query_depth",
)
"""TrainConfig fields passed to the task's builder when set."""
OPTIONAL_FIELDS = ("loops", *TASK_OPTIONS, "reg_lambda", "reg_block")
"""TrainConfig fields left out of ``to_dict`` (and the hash) while None."""


def _model_fields(arch: str) -> set[str]:
    return {f.name for f in dataclasses.fields(models.config_class(models.model_class(arch)))}


@dataclass(frozen=True)
class TrainConfig:
    """One training run. ``length`` is the task's N (evaluation length, training maximum);
    ``heads`` applies to architectures with attention heads; ``target`` is the early-stopping
    accuracy; ``eval_samples`` fresh examples at exactly N every ``eval_every`` steps.

    The model options after ``eval_samples`` (:data:`MODEL_OPTIONS`: mixture-of-experts
    ``experts``, ``top_k``, ``gate`` and ``balance``, the feed-forward width ``mlp_width`` and
    its kind ``expert``, e.g. the GLU of the layer-looping paper)
    go to architectures that have them; at their defaults they are left out of the config hash,
    so runs stored before they existed keep their hash. So is the recipe after them
    (:data:`simulations.recipes.RECIPE_DEFAULTS`: ``optimizer``, ``weight_decay``, ``schedule``
    with its ``warmup`` steps, gradient ``clip``; the default is App. H's Adam at a constant
    rate)."""

    task: str
    arch: str
    width: int
    layers: int
    length: int
    steps: int = 1000
    lr: float = 1e-3
    seed: int = 0
    batch: int = 64
    heads: int = 4
    target: float = 0.99
    eval_every: int = 100
    eval_samples: int = 1000
    experts: int = 1
    top_k: int = 1
    gate: str = ""  # "": the architecture's default gate rule
    balance: float = 0.0
    mlp_width: int | None = None
    expert: str = ""  # "": the architecture's default feed-forward; "relu", "gelu" or "glu"
    # The recipe (simulations.recipes): left out of the config hash at its defaults.
    optimizer: str = "adam"  # adam | adamw | adafactor (torch's own)
    weight_decay: float = 0.0
    schedule: str = "constant"  # constant | warmup-cosine | warmup-linear
    warmup: int = 0  # steps of linear warm-up
    clip: float = 0.0  # max gradient norm; 0: no clipping
    # Settings of some architectures and tasks only. None means unused: such a field is then
    # left out of to_dict() and so of the config hash, and runs stored before it existed keep
    # their hashes.
    loops: int | None = None  # looped architectures: loops L of the block (default 1)
    hops: int | None = None  # task option: p of p-hop
    alphabet: int | None = None  # task option: |Sigma| of p-hop
    group: str | None = None  # task option: G of group-composition
    reverse: bool | None = None  # task option: addition's sum least significant digit first
    digits: int | None = None  # task option: addition's digits per operand (3)
    entities: int | None = None  # task option: E of kg-path
    relations: int | None = None  # task option: R of kg-path (the capacity search grows it)
    graph_seed: int | None = None  # task option: the seed of kg-path's graph
    depth: int | None = None  # task option: var-assign's query depth (i-gsm: legacy query_depth)
    # task option: i-gsm's query depth, the operations on the longest dependency path to the
    # query; not the model's depth (that is ``layers``, and ``loops`` for looped models)
    query_depth: int | None = None
    reg_lambda: float | None = None  # transformer: lambda of the block-cosine regulariser (Eq. 5)
    reg_block: int | None = None  # its block size k (layers k i + j and k (i + 1) + j are pulled)

    def __post_init__(self) -> None:
        typed.check_fields(self)
        self._legacy_igsm_depth()
        for name, limit in _LIMITS.items():
            if getattr(self, name) is not None:  # None: a setting this run does not use
                limit.check(getattr(self, name), f"TrainConfig.{name}")
        from simulations.tasks import check_task  # the samplers' torch only when used

        check_task(self.task)
        models.model_class(self.arch)  # InputError naming it when unknown
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise InputError(f"TrainConfig.lr must be a positive number, got {self.lr}")
        if not 0 < self.target <= 1:
            raise InputError(f"TrainConfig.target must lie in (0, 1], got {self.target}")
        if self.mlp_width is not None:
            most, instead = limits.MODEL_FIELD.most, limits.MODEL_FIELD.instead
            check_int(self.mlp_width, "TrainConfig.mlp_width", 1, most, instead)
        if not (math.isfinite(self.balance) and self.balance >= 0):
            raise InputError(f"TrainConfig.balance must be >= 0, got {self.balance}")
        try:
            check_recipe(self.optimizer, self.weight_decay, self.schedule, self.warmup,
                         self.clip, self.steps)  # fmt: skip
        except InputError as err:
            raise InputError(f"TrainConfig.{err}") from None
        self._check_architecture_fields()
        # The model this run builds, and its largest activation, within their limits: checked
        # here, before a sweep touches its store or a model is allocated.
        self.activations()

    def activations(self, model_size: bool = True) -> int:
        """Numbers in the largest activation of this run's forward passes (a training batch, or
        an evaluation chunk of up to ``EVAL_BATCH``: :func:`ccomplexity.limits.forward_numbers`,
        pairs of positions counted per head where the model has heads); InputError if the task
        cannot have this length, the model exceeds its size limit (``model_size``: checked here,
        by counting the model's numbers on the meta device; a planner that only needs the count
        of a config already made passes False) or the activation ``limits.FORWARD_NUMBERS``."""
        task = self.make_task()
        cfg = models.config_class(models.model_class(self.arch)).from_dict(model_config(self, task))
        if model_size:
            models.check_size(self.arch, cfg)
        heads = getattr(cfg, "heads", 0)  # every model with heads scores pairs of positions
        rows = max(self.batch, min(EVAL_BATCH, self.eval_samples))
        depth = self.layers * (self.loops or 1)  # a looped block runs its layers once per loop
        numbers = limits.forward_numbers(rows, task.max_tokens, self.width, heads, depth)
        limits.check_numbers(numbers, f"a {self.arch} batch of {rows} x {task.max_tokens} tokens")
        return numbers

    def _legacy_igsm_depth(self) -> None:
        """i-gsm's query depth was stored as ``depth`` before ``query_depth`` named it: such a
        config reads as ``query_depth`` (and keeps its hash, :meth:`config_hash`)."""
        if self.task != "i-gsm" or self.depth is None:
            return
        if self.query_depth is not None:
            raise InputError(
                "i-gsm: give query_depth only (depth is its older name; the model's depth is "
                "layers)"
            )
        object.__setattr__(self, "query_depth", self.depth)
        object.__setattr__(self, "depth", None)

    def _check_architecture_fields(self) -> None:
        fields = _model_fields(self.arch)
        if "loops" in fields:
            object.__setattr__(self, "loops", 1 if self.loops is None else self.loops)
        elif self.loops is not None:
            raise InputError(f"loops applies to looped architectures, not {self.arch!r}")
        if (self.reg_lambda is None) != (self.reg_block is None):
            raise InputError("the block-cosine regulariser needs both reg_lambda and reg_block")
        if self.reg_block is not None:
            if self.arch != "transformer":
                raise InputError(
                    f"the block-cosine regulariser is for 'transformer', not {self.arch!r}"
                )
            if self.layers % self.reg_block or self.layers // self.reg_block < 2:
                raise InputError(
                    f"reg_block {self.reg_block} must split the {self.layers} layers into "
                    ">= 2 blocks"
                )

    def task_options(self) -> dict[str, Any]:
        """The task options this run sets (:data:`TASK_OPTIONS`)."""
        return {k: getattr(self, k) for k in TASK_OPTIONS if getattr(self, k) is not None}

    def make_task(self) -> Task:
        """The run's task at its length N with its options."""
        from simulations.tasks import get_task

        return get_task(self.task, self.length, **self.task_options())

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain values; unused optional fields (None) are left out. Every field is
        a scalar, so no copy is made (with ``dataclasses.asdict``, which deep-copies, a call took
        73 us against 22 us on the 2-core machine)."""
        values = ((f.name, getattr(self, f.name)) for f in dataclasses.fields(self))
        return {k: v for k, v in values if not (k in OPTIONAL_FIELDS and v is None)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        """From plain values; unknown or missing keys and wrong types raise InputError."""
        return typed.from_plain(cls, d)

    def config_hash(self) -> str:
        """First 16 hex digits of the sha256 of the canonical JSON of :meth:`to_dict`, less the
        model options and the recipe at their defaults. i-gsm's ``query_depth`` is hashed under
        its older name ``depth``, so that runs stored before the rename keep their hashes."""
        defaults = {**MODEL_OPTIONS, **RECIPE_DEFAULTS}
        fields = {
            k: v for k, v in self.to_dict().items() if not (k in defaults and v == defaults[k])
        }
        if "query_depth" in fields and self.task == "i-gsm":
            fields["depth"] = fields.pop("query_depth")
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


MODEL_OPTIONS: dict[str, Any] = {
    "experts": 1,
    "top_k": 1,
    "gate": "",
    "balance": 0.0,
    "mlp_width": None,
    "expert": "",
}
"""TrainConfig fields passed to the model config when not at these defaults."""

_LIMITS = {
    "width": limits.WIDTH,
    "layers": limits.LAYERS,
    "length": limits.LENGTH,
    "steps": limits.STEPS,
    "seed": limits.SEED,
    "batch": limits.BATCH,
    "heads": limits.HEADS,
    "eval_every": limits.STEPS,
    "eval_samples": limits.SAMPLES,
    "experts": limits.EXPERTS,
    "top_k": limits.EXPERTS,
    "loops": limits.LOOPS,
    "hops": limits.HOPS,
    "digits": limits.DIGITS,
    "alphabet": limits.ALPHABET,
    "entities": limits.ENTITIES,
    "relations": limits.RELATIONS,
    "graph_seed": limits.SEED,
    "depth": limits.IGSM_DEPTH,
    "query_depth": limits.IGSM_DEPTH,
    "reg_block": limits.LAYERS,
    "warmup": limits.WARMUP,
}
"""The limit of each integer field of :class:`TrainConfig`, shared with the ``ccx`` options."""


def model_config(config: TrainConfig, task: Task) -> dict[str, Any]:
    """The ``models.build`` arguments of a run: sizes from the config, vocabulary and classes
    from the task, ``heads`` where the architecture has heads and ``max_length`` (the task's
    longest token sequence) where it has learned positions."""
    fields = _model_fields(config.arch)
    out: dict[str, Any] = {
        "vocab_size": task.vocab_size,
        "n_out": task.n_out,
        "width": config.width,
        "layers": config.layers,
    }
    if "heads" in fields:
        out["heads"] = config.heads
    if "max_length" in fields:
        out["max_length"] = task.max_tokens
    for name, default in MODEL_OPTIONS.items():
        value = getattr(config, name)
        if value != default:
            if name not in fields:
                raise InputError(f"{config.arch} has no option {name} (got {value!r})")
            out[name] = value
    if task.input_dim() is not None:
        if "input_dim" not in fields:
            raise InputError(f"{config.task} has vector inputs; {config.arch} reads tokens")
        out["input_dim"] = task.input_dim()
    if "loops" in fields:
        out["loops"] = config.loops
    return out


__all__ = [
    "EVAL_BATCH",
    "EVAL_SEED_OFFSET",
    "MODEL_OPTIONS",
    "OPTIONAL_FIELDS",
    "TASK_OPTIONS",
    "TrainConfig",
    "model_config",
]
