"""The configuration of one training run, made of four small specs, each checked once when made:

- :class:`TaskSpec`: what is learnt, the task's name, its length N and options;
- :class:`ModelSpec`: the model, an architecture of ``ccx models`` and its sizes;
- :class:`~simulations.recipes.Recipe`: how it is trained (steps, learning rate, batch,
  optimiser, schedule, clipping, regulariser);
- :class:`Evaluation`: how it is judged (target accuracy, evaluation every so many steps on
  so many fresh examples);

and :class:`TrainConfig`, the four with the run's seed. Every number is checked against its
limit in the one table, :data:`ccomplexity.limits.FIELDS`, when its spec is made: the task's,
the recipe's and the evaluation's by the spec itself, the model's sizes by the model's own config
(:class:`models.base.ModelConfig`), which the run makes once (:attr:`TrainConfig.model_config`)
and every layer below builds its model from without checking again.

A run is stored and hashed flat (:meth:`TrainConfig.to_dict`: ``task``, ``arch``, ``width``,
``length``, ``lr``, ...), exactly as before the specs existed, so stored config hashes do not
change; :meth:`TrainConfig.from_dict` reads that form back.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import models
from ccomplexity import limits, typed
from ccomplexity.errors import InputError
from ccomplexity.message_grid import MessageGrid
from simulations.recipes import RECIPE_DEFAULTS, Recipe

if TYPE_CHECKING:
    from models.base import ModelConfig
    from simulations.tasks import Task

EVAL_BATCH = 500
"""Evaluation examples per forward pass."""
EVAL_SEED_OFFSET = 0x5EED_0001
"""Evaluation data come from ``Generator().manual_seed(seed + EVAL_SEED_OFFSET)``."""


@dataclass(frozen=True, kw_only=True)
class TaskSpec:
    """The task a run learns: ``name`` (flat: ``task``) at length N, and the options its builder
    takes (None: not set, left out of the flat form and the hash)."""

    name: str
    length: int
    symbols: int | None = None  # index-lookup: |Sigma| (64)
    hops: int | None = None  # p-hop: hops
    alphabet: int | None = None  # p-hop: |Sigma|
    group: str | None = None  # group-composition: G
    reverse: bool | None = None  # addition: the sum least significant digit first
    digits: int | None = None  # addition: digits per operand (3)
    entities: int | None = None  # kg-path: E
    relations: int | None = None  # kg-path: R (the capacity search grows it)
    graph_seed: int | None = None  # kg-path: the seed of the graph
    depth: int | None = None  # var-assign: the query's depth (i-gsm: the older query_depth)
    # i-gsm: the operations on the longest dependency path to the query; not the model's depth
    # (that is ``layers``, and ``loops`` for looped models)
    query_depth: int | None = None

    def __post_init__(self) -> None:
        typed.check_fields(self)
        self._legacy_igsm_depth()
        limits.check_fields(self, "TaskSpec.")
        from simulations.tasks import check_task  # the samplers' torch: once a spec is made

        check_task(self.name)

    def _legacy_igsm_depth(self) -> None:
        """i-gsm's query depth was stored as ``depth`` before ``query_depth`` named it: such a
        spec reads as ``query_depth`` (and keeps its hash, :meth:`TrainConfig.config_hash`)."""
        if self.name != "i-gsm" or self.depth is None:
            return
        if self.query_depth is not None:
            raise InputError(
                "i-gsm: give query_depth only (depth is its older name; the model's depth is "
                "layers)"
            )
        object.__setattr__(self, "query_depth", self.depth)
        object.__setattr__(self, "depth", None)

    def options(self) -> dict[str, Any]:
        """The options this spec sets, as the task's builder takes them."""
        return {k: getattr(self, k) for k in TASK_OPTIONS if getattr(self, k) is not None}

    def make(self) -> Task:
        """The task at length N with its options (its name and length checked already)."""
        from simulations.tasks import build_task

        return build_task(self.name, self.length, self.options())


TASK_OPTIONS = tuple(f.name for f in dataclasses.fields(TaskSpec))[2:]
"""The options of :class:`TaskSpec` (each None when not set)."""


def config_fields(arch: str) -> set[str]:
    """The fields of ``arch``'s model config (InputError naming an unknown architecture)."""
    cls = models.config_class(models.model_class(arch))
    return {f.name for f in dataclasses.fields(cls)}


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """The model of a run: ``arch`` (a model of ``ccx models``) of ``width`` with ``layers``,
    ``heads`` where it has attention heads, ``loops`` L where it loops a block, and the
    feed-forward options of the architectures that have them (mixture of experts: ``experts``
    K, ``top_k``, ``gate`` rule and ``balance`` loss; ``mlp_width`` and the ``expert`` kind,
    e.g. the GLU of the layer-looping paper). At their defaults (:data:`MODEL_OPTIONS`) these
    are left out of the hash, so runs stored before they existed keep their hashes.

    The sizes the architecture's config takes are checked when the run makes that config
    (:attr:`TrainConfig.model_config`); the others here."""

    arch: str
    width: int
    layers: int
    heads: int = 4
    loops: int | None = None
    experts: int = 1
    top_k: int = 1
    gate: str = ""  # "": the architecture's default gate rule
    balance: float = 0.0
    mlp_width: int | None = None
    expert: str = ""  # "": the architecture's default feed-forward; "relu", "gelu" or "glu"
    # The sizes of a state-space layer (Mamba): None, the architecture's default.
    d_state: int | None = None
    d_conv: int | None = None
    expand: int | None = None
    # Training at p bits: every number the model's protocol sends held on a grid of
    # ``precision`` bits with ``frac`` fractional bits (default p // 2); None: float.
    precision: int | None = None
    frac: int | None = None

    def __post_init__(self) -> None:
        typed.check_fields(self)
        self._resolve_grid()
        taken = self.fields_taken()  # InputError naming an unknown architecture
        if "loops" in taken:
            object.__setattr__(self, "loops", 1 if self.loops is None else self.loops)
        elif self.loops is not None:
            raise InputError(f"loops applies to looped architectures, not {self.arch!r}")
        for name, default in {**MODEL_OPTIONS, **dict.fromkeys(STATE_SIZES)}.items():
            value = getattr(self, name)
            if value != default and name not in taken:
                raise InputError(f"{self.arch} has no option {name} (got {value!r})")
        for f in dataclasses.fields(self):  # the sizes no model config will check
            value = getattr(self, f.name)
            grid = f.name in ("precision", "frac")  # checked by _resolve_grid
            if f.name not in taken and f.name in limits.FIELDS and value is not None and not grid:
                limits.check_field(f.name, value, "ModelSpec.")

    def _resolve_grid(self) -> None:
        """frac only with a precision; its default (p // 2) written out, so that a stored run
        names the grid it trained on."""
        if self.precision is None:
            if self.frac is not None:
                raise InputError("frac applies to training at p bits: give precision too")
            return
        limits.check_field("precision", self.precision, "ModelSpec.")
        if self.frac is None:
            object.__setattr__(self, "frac", MessageGrid.default_frac(self.precision))
        limits.check_field("frac", self.frac, "ModelSpec.")

    def grid(self) -> MessageGrid | None:
        """The grid the model holds its protocol's numbers on, or None (float)."""
        return None if self.precision is None else MessageGrid(self.precision, self.frac)

    def fields_taken(self) -> set[str]:
        """The fields of the architecture's model config."""
        return config_fields(self.arch)

    def arguments(self, task: Task) -> dict[str, Any]:
        """The model config's fields for ``task``: sizes from this spec, vocabulary and classes
        from the task, ``heads`` where the architecture has heads and ``max_length`` (the task's
        longest token sequence) where it has learned positions."""
        taken = self.fields_taken()
        out: dict[str, Any] = {
            "vocab_size": task.vocab_size,
            "n_out": task.n_out,
            "width": self.width,
            "layers": self.layers,
        }
        if "heads" in taken:
            out["heads"] = self.heads
        if "max_length" in taken:
            out["max_length"] = task.max_tokens
        out.update({k: getattr(self, k) for k, v in MODEL_OPTIONS.items() if getattr(self, k) != v})
        out.update({k: getattr(self, k) for k in STATE_SIZES if getattr(self, k) is not None})
        if task.input_dim() is not None:
            if "input_dim" not in taken:
                raise InputError(f"{task.name} has vector inputs; {self.arch} reads tokens")
            out["input_dim"] = task.input_dim()
        if "loops" in taken:
            out["loops"] = self.loops
        return out


MODEL_OPTIONS: dict[str, Any] = {
    "experts": 1,
    "top_k": 1,
    "gate": "",
    "balance": 0.0,
    "mlp_width": None,
    "expert": "",
}
"""ModelSpec fields passed to the model config when not at these defaults."""
STATE_SIZES = ("d_state", "d_conv", "expand")
"""ModelSpec fields passed to the model config when set (not None)."""


@dataclass(frozen=True, kw_only=True)
class Evaluation:
    """How a run is judged: every ``eval_every`` steps (and after the last) its accuracy on
    ``eval_samples`` fresh examples at exactly N; it stops once that reaches ``target``."""

    target: float = 0.99
    eval_every: int = 100
    eval_samples: int = 1000

    def __post_init__(self) -> None:
        typed.check_fields(self)
        limits.check_fields(self, "Evaluation.")


@dataclass(frozen=True, kw_only=True)
class TrainConfig:
    """One training run: its :class:`TaskSpec`, :class:`ModelSpec`,
    :class:`~simulations.recipes.Recipe`, :class:`Evaluation` and ``seed`` (the model's
    initialisation and its data).

    Made, it holds the model's config (:attr:`model_config`, checked once) and has checked that
    the model and its largest activation are within their limits, before a sweep touches its
    store or a model is allocated."""

    task: TaskSpec
    model: ModelSpec
    recipe: Recipe = field(default_factory=Recipe)
    evaluation: Evaluation = field(default_factory=Evaluation)
    seed: int = 0
    model_config: ModelConfig = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, kind in (
            ("task", TaskSpec),
            ("model", ModelSpec),
            ("recipe", Recipe),
            ("evaluation", Evaluation),
        ):
            if not isinstance(getattr(self, name), kind):
                raise InputError(f"TrainConfig.{name} must be a {kind.__name__}")
        typed.check_value("TrainConfig.seed", self.seed, int)
        limits.check_field("seed", self.seed, "TrainConfig.")
        self._check_regulariser()
        task = self.make_task()
        cls = models.config_class(models.model_class(self.model.arch))
        object.__setattr__(self, "model_config", cls(**self.model.arguments(task)))
        models.check_size(self.model.arch, self.model_config)
        self._check_grid()
        self._check_activations(task)

    def _check_grid(self) -> None:
        """A grid the architecture can hold its messages on (a few bits: attention's softmax
        numerators need a positive value, so p >= 2 there)."""
        grid = self.model.grid()
        least = models.model_class(self.model.arch).least_message_bits
        if grid is not None and grid.bits < least:
            raise InputError(
                f"{self.model.arch} holds its messages on a grid of at least {least} bits "
                f"(a softmax numerator needs a positive value), got precision {grid.bits}"
            )

    def _check_regulariser(self) -> None:
        block, layers = self.recipe.reg_block, self.model.layers
        if block is None:
            return
        if self.model.arch != "transformer":
            raise InputError(
                f"the block-cosine regulariser is for 'transformer', not {self.model.arch!r}"
            )
        if layers % block or layers // block < 2:
            raise InputError(f"reg_block {block} must split the {layers} layers into >= 2 blocks")

    def _check_activations(self, task: Task) -> None:
        """The largest activation of this run's forward passes (a training batch, or an
        evaluation chunk of up to ``EVAL_BATCH``: :func:`ccomplexity.limits.forward_numbers`,
        pairs of positions counted per head where the model has heads) within
        ``limits.FORWARD_NUMBERS``."""
        numbers = self.activations(task)
        what = f"a {self.model.arch} batch of {self._rows()} x {task.max_tokens} tokens"
        limits.check_numbers(numbers, what)

    def _rows(self) -> int:
        return max(self.recipe.batch, min(EVAL_BATCH, self.evaluation.eval_samples))

    def activations(self, task: Task | None = None) -> int:
        """Numbers in the largest activation of this run's forward passes."""
        task = self.make_task() if task is None else task
        heads = getattr(self.model_config, "heads", 0)  # models with heads score position pairs
        depth = self.model.layers * (self.model.loops or 1)  # a looped block runs once per loop
        return limits.forward_numbers(self._rows(), task.max_tokens, self.model.width, heads, depth)

    def make_task(self) -> Task:
        """The run's task at its length N with its options."""
        return self.task.make()

    def build_model(self) -> Any:
        """A fresh model of :attr:`model_config` (initialised from torch's current seed),
        holding its protocol's numbers on the run's grid when it trains at p bits."""
        model = models.model_class(self.model.arch)(self.model_config)
        return model.hold_messages(self.model.grid())

    def value(self, key: str) -> Any:
        """The value of flat field ``key`` (:data:`FLAT`): ``config.value("relations")``."""
        part, name = FLAT[key]
        return getattr(getattr(self, part), name) if part else getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        """The flat form: every field of the four specs and the seed, each under its own name
        (the task's under ``task``); options not set (None) are left out."""
        values = ((key, self.value(key)) for key in FLAT)
        return {k: v for k, v in values if not (k in OPTIONAL_FIELDS and v is None)}

    @classmethod
    def from_dict(cls, values: object) -> TrainConfig:
        """From the flat form; unknown or missing keys and wrong types raise InputError."""
        if not isinstance(values, dict):
            raise InputError(f"TrainConfig must be a table of fields, got {type(values).__name__}")
        unknown = sorted(str(k) for k in values if k not in FLAT)
        if unknown:
            known = ", ".join(sorted(FLAT))
            raise InputError(f"TrainConfig has no field(s) {', '.join(unknown)}; known: {known}")
        missing = [k for k in REQUIRED if k not in values]
        if missing:
            raise InputError(f"TrainConfig is missing field(s) {', '.join(missing)}")
        parts: dict[str, dict[str, Any]] = {part: {} for part in PARTS}
        seed = values.get("seed", 0)
        for key, value in values.items():
            part, name = FLAT[key]
            if part:
                parts[part][name] = value
        made = {part: kind(**parts[part]) for part, kind in PARTS.items()}
        return cls(**made, seed=seed)  # type: ignore[arg-type]

    @classmethod
    def of(cls, **flat: Any) -> TrainConfig:
        """From flat fields: ``TrainConfig.of(task="dyck", arch="lstm", width=16, layers=1,
        length=20, lr=3e-3)``, as :meth:`from_dict`."""
        return cls.from_dict(flat)

    def replace(self, **changes: Any) -> TrainConfig:
        """This run with flat fields changed (``config.replace(steps=2000)``), checked anew."""
        return TrainConfig.from_dict({**self.to_dict(), **changes})

    def config_hash(self) -> str:
        """First 16 hex digits of the sha256 of the canonical JSON of :meth:`to_dict`, less the
        model options and the recipe at their defaults. i-gsm's ``query_depth`` is hashed under
        its older name ``depth``, so that runs stored before the rename keep their hashes."""
        defaults = {**MODEL_OPTIONS, **RECIPE_DEFAULTS}
        fields = {
            k: v for k, v in self.to_dict().items() if not (k in defaults and v == defaults[k])
        }
        if "query_depth" in fields and self.task.name == "i-gsm":
            fields["depth"] = fields.pop("query_depth")
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


PARTS: dict[str, type] = {
    "task": TaskSpec,
    "model": ModelSpec,
    "recipe": Recipe,
    "evaluation": Evaluation,
}
"""The specs of a :class:`TrainConfig`, by attribute."""


def _flat_keys() -> dict[str, tuple[str, str]]:
    """Flat key -> (spec attribute, field), in the order runs have always been stored."""
    where = {"task": ("task", "name"), "seed": ("", "seed")}
    for part, kind in PARTS.items():
        for f in dataclasses.fields(kind):
            if (part, f.name) != ("task", "name"):
                where.setdefault(f.name, (part, f.name))
    order = (
        "task", "arch", "width", "layers", "length", "steps", "lr", "seed", "batch", "heads",
        "target", "eval_every", "eval_samples", *MODEL_OPTIONS, *RECIPE_DEFAULTS, "loops",
        *TASK_OPTIONS, "reg_lambda", "reg_block", *STATE_SIZES, "precision", "frac",
    )  # fmt: skip
    if set(order) != set(where) or len(order) != len(where):
        raise RuntimeError("the flat form of TrainConfig does not list every spec field once")
    return {key: where[key] for key in order}


FLAT = _flat_keys()
"""Flat key of :meth:`TrainConfig.to_dict` -> (spec attribute, field name)."""
REQUIRED = ("task", "arch", "width", "layers", "length")
"""Flat keys a stored config must give."""


def flat_types() -> dict[str, Any]:
    """Flat key of :meth:`TrainConfig.to_dict` -> the type of its spec field, in flat order."""
    hints = {part: typed.field_types(kind) for part, kind in PARTS.items()}
    return {key: hints[part][name] if part else int for key, (part, name) in FLAT.items()}


OPTIONAL_FIELDS = ("loops", *TASK_OPTIONS, "reg_lambda", "reg_block", *STATE_SIZES, "precision",
                   "frac")  # fmt: skip
"""Flat keys left out of ``to_dict`` (and the hash) while None."""


__all__ = [
    "EVAL_BATCH",
    "EVAL_SEED_OFFSET",
    "FLAT",
    "MODEL_OPTIONS",
    "OPTIONAL_FIELDS",
    "TASK_OPTIONS",
    "Evaluation",
    "ModelSpec",
    "TaskSpec",
    "TrainConfig",
    "config_fields",
    "flat_types",
]
