"""The one interface every model follows, and finite-precision execution on the p-bit grid.

- A model is built from a typed config (a frozen dataclass); unknown fields are an error.
- ``forward(tokens)`` maps a (batch, length) LongTensor to logits (batch, length, n_out).
- Recurrent models add ``initial_state(batch)``, ``step(state, tokens) -> (state, out)`` and
  ``state_numel()``; ``forward`` equals the composition of steps.
- ``set_precision(fmt)`` switches a model to finite-precision mode: it then computes in float64
  and rounds every value named in its docstring onto the grid of ``fmt``
  (:class:`ccomplexity.precision.FixedPoint`), deterministically. ``set_precision(None)`` returns
  to float mode.

Why finite-precision runs are exact and order-independent: every rounded value is a multiple of
2^-frac, so a product of two is a multiple of 2^-2frac and a float64 sum of n such products is
exact while n · max_raw^2 <= 2^53 (``set_precision`` checks this against the model's longest sum,
:meth:`SequenceModel.exact_sum_terms`). A matmul of grid values then gives the same number in any
summation order, on any device, for any subset of positions split and recombined. Everything else
is one correctly rounded IEEE operation (x / y, sqrt) or a ``math`` function evaluated once per
distinct grid value (:meth:`Quantizer.map`), so each rounded value is a fixed function of its
inputs.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import torch
from torch import nn
from torch.nn import functional as F

from ccomplexity import limits, typed
from ccomplexity.errors import InputError, check_int
from ccomplexity.message_grid import MessageGrid

C = TypeVar("C", bound="ModelConfig")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    """Base of every model config: positive sizes, and unknown fields rejected by ``from_dict``.

    Made once and checked when made, every number against its limit in the one table
    (:data:`ccomplexity.limits.FIELDS`; :data:`~ccomplexity.limits.MODEL_FIELD` for an integer
    it does not name): the layers that build a model from a config trust it."""

    vocab_size: int = 8
    n_out: int | None = None  # output classes; defaults to vocab_size
    width: int = 16
    layers: int = 1

    # integer fields that may be 0 (all others must be >= 1)
    may_be_zero: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        where = f"{type(self).__name__}."
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in limits.FIELDS and value is not None:
                object.__setattr__(self, f.name, limits.check_field(f.name, value, where))
            elif isinstance(value, int) and not isinstance(value, bool):
                least = 0 if f.name in self.may_be_zero else 1
                most, instead = limits.MODEL_FIELD.most, limits.MODEL_FIELD.instead
                check_int(value, f"{where}{f.name}", least, most, instead)

    @property
    def outputs(self) -> int:
        return self.n_out if self.n_out is not None else self.vocab_size

    @classmethod
    def from_dict(cls: type[C], values: dict[str, Any]) -> C:
        """From plain values; unknown fields and wrong types raise InputError."""
        return typed.from_plain(cls, values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def sigmoid(x: float) -> float:
    """Scalar twin of ``torch.sigmoid`` for :meth:`SequenceModel.qmap` (no overflow)."""
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def gelu(x: float) -> float:
    """Scalar twin of ``torch.nn.functional.gelu`` (exact erf form)."""
    return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))


class Quantizer:
    """Rounds float64 tensors onto the grid of a FixedPoint format, exactly as its numpy twin.

    raw = floor(x * 2^frac) (or nearest, ties to even), clipped to [min_raw, max_raw];
    value = raw / 2^frac. Exact in float64 for formats of at most 53 bits.
    """

    def __init__(self, fmt: Any) -> None:
        if fmt.bits > 53:
            raise InputError(f"finite-precision models support at most 53 bits, got {fmt.bits}")
        self.fmt = fmt
        self.scale = float(2**fmt.frac)
        self.lo = float(fmt.min_raw)
        self.hi = float(fmt.max_raw)
        self.nearest = fmt.rounding == "nearest"

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        y = x.double() * self.scale
        y = torch.round(y) if self.nearest else torch.floor(y)  # round: ties to even, as numpy.rint
        return y.clamp(self.lo, self.hi) / self.scale

    def map(self, fn: Callable[[float], float], x: torch.Tensor) -> torch.Tensor:
        """``fn`` of each value of ``x``, rounded onto the grid.

        ``fn`` (from Python's ``math``) runs once per distinct value, so the result is a fixed
        function of the value whatever the device, batch shape or thread count; torch's vectorised
        kernels can differ from its scalar ones in the last bit. Same idea as ``FixedPoint.exp``.
        """
        uniq, inverse = torch.unique(x, return_inverse=True)
        values = torch.tensor([fn(v) for v in uniq.tolist()], dtype=torch.float64)
        return self(values.to(x.device)[inverse])

    def raw(self, x: torch.Tensor) -> torch.Tensor:
        """Integer grid codes (int64) of values already on the grid."""
        return torch.round(x.double() * self.scale).long()


class HeldOnGrid(torch.autograd.Function):
    """Round onto a message grid in the forward pass (nearest, ties to even, saturating); pass
    the gradient straight through in the backward pass. The forward value is exactly the grid
    value (``x + (y - x).detach()`` would not be, for x far off the grid)."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x: torch.Tensor, scale: float, lo: float, hi: float) -> torch.Tensor:
        return torch.round(x * scale).clamp(lo, hi) / scale

    @staticmethod
    def setup_context(ctx, inputs, output) -> None:  # type: ignore[override]
        pass

    @staticmethod
    def backward(ctx, grad: torch.Tensor):  # type: ignore[override]
        return grad, None, None, None


class MessageHold:
    """Holds the numbers a model's protocol sends on a :class:`~ccomplexity.message_grid.
    MessageGrid` (training at p bits): ``hold(x)`` is x on the grid, with a straight-through
    gradient; ``raw(x)`` the codes of values already on it."""

    def __init__(self, grid: MessageGrid) -> None:
        self.grid = grid
        self.scale = float(2**grid.frac)
        self.lo, self.hi = float(grid.min_raw), float(grid.max_raw)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return HeldOnGrid.apply(x, self.scale, self.lo, self.hi)

    def raw(self, x: torch.Tensor) -> torch.Tensor:
        """Integer codes (int64) of values on the grid (RuntimeError for one that is not)."""
        scaled = x.double() * self.scale
        codes = torch.round(scaled)
        if not torch.equal(codes, scaled):
            raise RuntimeError(f"a value held is not a multiple of 2^-{self.grid.frac}")
        return codes.long()


class SequenceModel(nn.Module):
    """Base class: config, parameter count, finite-precision switch, messages held at p bits."""

    name: ClassVar[str]
    recurrent: ClassVar[bool] = False
    least_message_bits: ClassVar[int] = 1
    """The fewest bits p this architecture trains at (:meth:`hold_messages`)."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.quant: Quantizer | None = None
        self.messages: MessageHold | None = None

    def hold_messages(self, grid: MessageGrid | None) -> SequenceModel:
        """Training at p bits: hold every number this model's protocol sends on ``grid`` in
        the forward pass (None: float). Which numbers that is, is the architecture's: see
        :class:`RecurrentModel` and the attention models. The finite-precision mode
        (:meth:`set_precision`) is another thing: it rounds every value."""
        if grid is not None and grid.bits < self.least_message_bits:
            raise InputError(
                f"{self.name} holds its messages on a grid of at least {self.least_message_bits}"
                f" bits (a softmax numerator needs a positive value), got {grid.bits}"
            )
        self.messages = None if grid is None else MessageHold(grid)
        return self

    def held_scores(self, q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
        """Attention logits ``scale <q_i, k_j>`` held on the message grid: (..., nq, d),
        (..., nk, d) -> (..., nq, nk). Each is an elementwise product summed over d, so a logit
        does not depend on which other positions are computed with it (a batched matmul's last
        bits do): a party holding some of the positions computes the model's own numbers."""
        assert self.messages is not None
        return self.messages(scale * (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(-1))

    def set_precision(self, fmt: Any | None) -> SequenceModel:
        """Finite-precision mode on the grid of ``fmt`` (float64 compute), or float mode if None.

        Raises InputError when the model's longest sum of products would not be exact in float64.
        """
        if fmt is not None:
            terms = self.exact_sum_terms()
            if terms * fmt.max_raw**2 > 2**53:
                most = max(b for b in range(2, 54) if terms * (2 ** (b - 1) - 1) ** 2 <= 2**53)
                raise InputError(
                    f"{fmt.bits}-bit precision is not exact in float64 for {self.name}: sums of "
                    f"{terms} products need terms * (2^(bits-1) - 1)^2 <= 2^53, so bits <= {most}"
                )
        self.quant = None if fmt is None else Quantizer(fmt)
        self.to(torch.float64 if fmt is not None else torch.float32)
        return self

    def exact_sum_terms(self) -> int:
        """Most products of grid values that one rounded value sums, which ``set_precision``
        checks stay exact in float64. Models computing through :meth:`linear` override this
        (starting from :meth:`linear_terms`); 1 means the model relies on no such sum."""
        return 1

    def linear_terms(self) -> int:
        """Terms of the longest :meth:`linear` sum: inputs + bias of the widest ``nn.Linear``."""
        return max(
            (m.in_features + 1 for m in self.modules() if isinstance(m, nn.Linear)), default=1
        )

    def q(self, x: torch.Tensor) -> torch.Tensor:
        """Round onto the grid in finite-precision mode; identity in float mode."""
        return x if self.quant is None else self.quant(x)

    def qmap(
        self,
        x: torch.Tensor,
        torch_fn: Callable[[torch.Tensor], torch.Tensor],
        math_fn: Callable[[float], float],
    ) -> torch.Tensor:
        """A nonlinearity: ``torch_fn(x)`` in float mode; ``math_fn`` of each value, rounded, in
        finite-precision mode (see :meth:`Quantizer.map`)."""
        return torch_fn(x) if self.quant is None else self.quant.map(math_fn, x)

    def linear(self, layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
        """``layer(x)``; in finite-precision mode Q(x · Q(W)^T + Q(b)): exact sum, one rounding."""
        if self.quant is None:
            return layer(x)
        bias = None if layer.bias is None else self.q(layer.bias)
        return self.q(F.linear(x, self.q(layer.weight), bias))

    def norm(self, ln: nn.Module, x: torch.Tensor) -> torch.Tensor:
        """``ln(x)`` for a LayerNorm or Identity. In finite-precision mode a LayerNorm rounds the
        mean, the variance, the normalised value (one IEEE division by sqrt(var + eps)), the output.
        """
        if self.quant is None or not isinstance(ln, nn.LayerNorm):
            return ln(x)
        width = x.shape[-1]
        centred = self.q(x - self.q(x.sum(-1, keepdim=True) / width))
        var = self.q((centred * centred).sum(-1, keepdim=True) / width)
        normed = self.q(centred / torch.sqrt(var + ln.eps))
        return self.q(normed * self.q(ln.weight) + self.q(ln.bias))

    def param_count(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def active_param_count(self) -> int:
        """Parameters one token uses: all of them, less the experts of every mixture-of-experts
        layer (``models.moe``) that it is not routed to."""
        unused = (
            m.inactive_parameters() for m in self.modules() if hasattr(m, "inactive_parameters")
        )
        return self.param_count() - sum(unused)

    def aux_loss(self) -> torch.Tensor | None:
        """The auxiliary training loss of the last forward (load balancing of mixture-of-experts
        layers with ``balance`` > 0), or None: the trainer adds it to the task's loss."""
        losses = [m.last_aux for m in self.modules() if getattr(m, "last_aux", None) is not None]
        return torch.stack(losses).sum() if losses else None

    def expert_load(self) -> list[list[int]]:
        """Assignments per expert of each mixture-of-experts layer in the last forward."""
        return [m.last_load.tolist() for m in self.modules() if hasattr(m, "last_load")]

    def state_numel(self) -> int:
        """Numbers in the recurrent state of one sequence (0 for non-recurrent models)."""
        return 0

    def state_bits(self, precision: int) -> int:
        return self.state_numel() * precision

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "recurrent": self.recurrent,
            "config": self.config.to_dict(),
            "parameters": self.param_count(),
            "active_parameters": self.active_param_count(),
            "total_parameters": self.param_count(),
            "state_numel": self.state_numel(),
        }


@dataclasses.dataclass(frozen=True)
class HeadsConfig(ModelConfig):
    """A config with attention (or retention) ``heads`` dividing ``width`` and a feed-forward of
    ``mlp_width`` (default 4 width)."""

    heads: int = 2
    mlp_width: int | None = None  # defaults to 4 * width

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.width % self.heads:
            raise InputError(f"width {self.width} must be a multiple of heads {self.heads}")

    @property
    def hidden(self) -> int:
        return self.mlp_width if self.mlp_width is not None else 4 * self.width


class RecurrentModel(SequenceModel, abc.ABC):
    """A model with an explicit state: ``forward`` must equal stepping token by token.

    Trained at p bits (:meth:`hold_messages`), a recurrent model holds its whole state on the
    grid after every token, the state Theorem 2's protocol sends: its forward is then the
    composition of its steps with the state held between them (a subclass's own ``forward`` is
    wrapped so, plugins' too), and so exactly the protocol's run at any cut."""

    recurrent = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("forward")
        if own is None:
            return

        @functools.wraps(own)
        def forward(self: RecurrentModel, tokens: torch.Tensor) -> torch.Tensor:
            if self.messages is not None:
                return self.run_steps(tokens)[0]
            return own(self, tokens)

        cls.forward = forward  # type: ignore[method-assign]

    def hold_state(self, state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The state held on the message grid (as it is in float mode)."""
        if self.messages is None:
            return state
        return {name: self.messages(t) for name, t in state.items()}

    @abc.abstractmethod
    def initial_state(self, batch: int) -> dict[str, torch.Tensor]:
        """The state before any token: named tensors whose first dimension is the batch."""

    @abc.abstractmethod
    def step(
        self, state: dict[str, torch.Tensor], tokens: torch.Tensor
    ) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """Read one token per sequence (batch,): the new state and the logits (batch, n_out)."""

    def state_numel(self) -> int:
        return sum(t.numel() for t in self.initial_state(1).values())

    def run_steps(self, tokens: torch.Tensor, state: dict[str, torch.Tensor] | None = None):
        """Reference composition of steps: (logits (batch, length, n_out), final state)."""
        batch, length = tokens.shape
        state = self.initial_state(batch) if state is None else state
        outs = []
        for t in range(length):
            state, out = self.step(state, tokens[:, t])
            state = self.hold_state(state)
            outs.append(out)
        return torch.stack(outs, dim=1), state


class HeadedRecurrentModel(RecurrentModel):
    """A recurrent model of stacked blocks with heads (the linear transformer, RetNet): a token
    embedding, ``layers`` blocks of ``block_class``, a final LayerNorm and a linear readout."""

    def __init__(self, config: HeadsConfig, block_class: type[nn.Module]) -> None:
        super().__init__(config)
        self.heads, self.head_dim = config.heads, config.width // config.heads
        self.embedding = nn.Embedding(config.vocab_size, config.width)
        self.blocks = nn.ModuleList(block_class(config) for _ in range(config.layers))
        self.ln_f = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, config.outputs)

    def readout(self, x: torch.Tensor) -> torch.Tensor:
        """Final LayerNorm and readout: (..., width) -> (..., n_out)."""
        return self.linear(self.head, self.norm(self.ln_f, x))
