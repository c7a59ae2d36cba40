"""The task interface: a seeded torch sampler of (tokens, targets, mask) at a maximal length.

Every task turns a ``torch.Generator`` into a batch ``(tokens, targets, mask)``:

* ``tokens``  (batch, T) long: the model input, or (batch, T, dim) float for tasks whose inputs
  are vectors (:meth:`Task.input_dim` is then ``dim``);
* ``targets`` (batch, T) long: the class each position should output (0 where it does not count);
* ``mask``    (batch, T) bool: the positions that count for the loss and for accuracy.

A sequence is correct when every counted position is right (sequence-level accuracy, App. H).
A task with a fixed finite training set (memorisation) returns it from :meth:`Task.training_set`;
its accuracy is then measured on that set instead of on fresh examples.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from ccomplexity import budget
from ccomplexity.errors import InputError, check_int

Batch = tuple[Tensor, Tensor, Tensor]


def uniform_int(lo: Tensor | int, hi: Tensor | int, size: int, g: torch.Generator) -> Tensor:
    """Integers uniform in [lo, hi] (inclusive, broadcast per row), shape (size,)."""
    u = torch.rand(size, generator=g, dtype=torch.float64)
    span = torch.as_tensor(hi) - torch.as_tensor(lo) + 1
    return (torch.as_tensor(lo) + (u * span).floor().long()).clamp(max=torch.as_tensor(hi))


@dataclass(frozen=True)
class Task(abc.ABC):
    """A task at a fixed maximal length: vocabulary, classes and a seeded sampler.

    ``max_length`` is the largest N that :meth:`sample` accepts, ``max_tokens`` the longest token
    sequence it produces (what a Transformer needs as ``max_length``) and ``pad`` the padding
    token of training batches (None where all training sequences have one length).
    """

    name: str
    vocab_size: int
    n_out: int
    max_length: int
    max_tokens: int
    pad: int | None

    def check_length(self, length: int) -> int:
        """``length`` as an int, or InputError if this task cannot produce it."""
        n = check_int(length, f"{self.name} length", 1)
        if n > self.max_length:
            raise InputError(
                f"{self.name}: length {n} exceeds the task's max_length {self.max_length}"
            )
        return n

    def sample(
        self, batch: int, length: int, generator: torch.Generator, train: bool = True
    ) -> Batch:
        """``batch`` fresh examples: (tokens, targets, mask), each (batch, T), on the CPU.

        ``train=True``: lengths from the App. H.1 / H.2 training distribution up to ``length``;
        ``train=False``: exactly ``length``. Deterministic given the generator's state.
        """
        size = check_int(batch, "batch", 1)
        n = self.check_length(length)
        if not isinstance(generator, torch.Generator) or generator.device.type != "cpu":
            raise InputError("generator must be a CPU torch.Generator")
        tokens, targets, mask = self._sample(size, n, generator, bool(train))
        return tokens, targets, mask

    def sampling_cost(self, batch: int, length: int) -> tuple[int, int]:
        """(memory, work) of drawing and printing ``batch`` samples at ``length``
        (:func:`ccomplexity.budget.samples` of its tokens); a task that draws in Python adds
        its own cost."""
        return budget.samples(batch, self.max_tokens)

    def input_dim(self) -> int | None:
        """The dimension of vector inputs, or None for token ids."""
        return None

    def training_set(self, length: int | None = None) -> Batch | None:
        """The whole fixed training set at ``length`` (default max_length), or None when every
        batch is fresh."""
        return None

    def eval_lengths(self, length: int) -> tuple[int, ...]:
        """Further lengths a model trained at ``length`` is evaluated at after training (none;
        addition reports the paper's evaluation operand counts)."""
        return ()

    @abc.abstractmethod
    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        """The task's own sampler, called with validated arguments."""


def at_positions(batch: int, width: int, where: Tensor, values: Tensor) -> tuple[Tensor, Tensor]:
    """targets/mask with one counted position per row: ``where`` (batch,) gets ``values``."""
    rows = torch.arange(batch)
    targets = torch.zeros(batch, width, dtype=torch.long)
    mask = torch.zeros(batch, width, dtype=torch.bool)
    targets[rows, where] = values
    mask[rows, where] = True
    return targets, mask


def options(name: str, given: dict[str, Any], allowed: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise InputError(f"task {name!r} has no option(s) {', '.join(unknown)}; known: {known}")
    return {**allowed, **given}
