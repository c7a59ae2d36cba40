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
CHANCE_SAMPLES = 4096
"""Examples of each of the two samples :meth:`Task.chance` draws: one to find the most frequent
class at each counted position, one to measure that answer's accuracy."""
CHANCE_SEED = 0xC4A1CE
"""The seed of the generator :meth:`Task.chance` draws from: chance is the task's, not a run's."""
CHANCE_CHUNK = 512
"""Examples drawn per call of the sampler while measuring chance."""


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

    def chance(self, length: int) -> dict[str, Any]:
        """The accuracy at exactly ``length`` of the best answer that ignores the input, as
        sequence-level accuracy counts it: at every counted position, the class most frequent
        there. ``{"accuracy", "examples"}``: with a fixed training set, exact on that set (what
        evaluation measures; ``examples`` None); else the answer is found on
        :data:`CHANCE_SAMPLES` fresh examples and measured on as many others (so it is never
        favoured by the sample that chose it), ``examples`` that count. The chance floor of the
        verdict rule (:mod:`simulations.verdicts`) reads it."""
        fixed = self.training_set(length)
        if fixed is not None:
            targets, mask = fixed[1], fixed[2]
            return {"accuracy": _constant_accuracy(targets, mask, targets, mask), "examples": None}
        g = torch.Generator().manual_seed(CHANCE_SEED)
        fit, measure = (self._chance_sample(length, g) for _ in range(2))
        return {"accuracy": _constant_accuracy(*fit, *measure), "examples": CHANCE_SAMPLES}

    def _chance_sample(self, length: int, g: torch.Generator) -> tuple[Tensor, Tensor]:
        """(targets, mask) of :data:`CHANCE_SAMPLES` evaluation examples at ``length``, padded
        to one width."""
        parts = []
        for done in range(0, CHANCE_SAMPLES, CHANCE_CHUNK):
            _, targets, mask = self.sample(
                min(CHANCE_CHUNK, CHANCE_SAMPLES - done), length, g, train=False
            )
            parts.append((targets, mask))
        width = max(t.shape[1] for t, _ in parts)
        pad = [
            (
                torch.nn.functional.pad(t, (0, width - t.shape[1])),
                torch.nn.functional.pad(m, (0, width - m.shape[1])),
            )
            for t, m in parts
        ]
        return torch.cat([t for t, _ in pad]), torch.cat([m for _, m in pad])

    def eval_lengths(self, length: int) -> tuple[int, ...]:
        """Further lengths a model trained at ``length`` is evaluated at after training (none;
        addition reports the paper's evaluation operand counts)."""
        return ()

    @abc.abstractmethod
    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        """The task's own sampler, called with validated arguments."""


def _constant_accuracy(
    fit_targets: Tensor, fit_mask: Tensor, targets: Tensor, mask: Tensor
) -> float:
    """The sequence-level accuracy on (targets, mask) of answering, at every position, the class
    most frequent there among the counted positions of (fit_targets, fit_mask)."""
    width = max(fit_targets.shape[1], targets.shape[1])
    classes = int(max(fit_targets.max(), targets.max())) + 1
    counts = torch.zeros(width, classes, dtype=torch.long)
    rows, cols = fit_mask.nonzero(as_tuple=True)
    counts.index_put_((cols, fit_targets[rows, cols]), torch.ones_like(cols), accumulate=True)
    answer = counts.argmax(dim=1)[: targets.shape[1]]
    right = (targets == answer) | ~mask
    return float(right.all(dim=1).double().mean())


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
