"""The torch task of a plugin task (:mod:`ccomplexity.plugins`): words of exactly length N over
the plugin's alphabet, labelled by its word function at the last position.

Tokens are the symbols 0..|Sigma|-1 themselves (no padding: every word has length N, in
training too); the target is the word function's value (0/1, or a label) at the last position,
the only counted one. Training words come from the plugin's own sampler when it has one, else
from :func:`balanced_words`: for accept/reject tasks half positives and half negatives, drawn
uniformly by rejection; for label tasks uniform words. Draws use a numpy Generator seeded from
the torch generator, so a batch is a fixed function of the generator's state. Evaluation
(``train=False``) uses the same law: accuracy is measured on balanced classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ccomplexity.errors import InputError
from ccomplexity.plugins import TaskDefinition
from simulations.tasks.base import Batch, Task, at_positions

RAREST = 1024
"""A class drawn by rejection must hold at least about 1 in ``RAREST`` uniform words: a batch
needing k words of a class draws at most ``2 * RAREST * k + 4096`` words (twice the expected
number at that rate), and at most :data:`REJECTION_SYMBOLS` symbols, before it gives up."""
REJECTION_SYMBOLS = 1 << 26
"""Most symbols one batch draws by rejection (64 Mi: about a second of drawing and evaluating
in numpy); at long lengths it gives up after fewer words."""
CHUNK_SYMBOLS = 1 << 22
"""Most symbols drawn at once (32 MiB of int64 words)."""


def balanced_words(
    definition: TaskDefinition, batch: int, length: int, rng: np.random.Generator
) -> np.ndarray:
    """``batch`` words of length N: uniform words for label tasks; for accept/reject tasks
    ``batch // 2`` positives then the rest negatives (rows shuffled), each drawn uniformly from
    its class by rejection. InputError when a class is too rare to draw: fewer than needed
    among the words :data:`RAREST` allows."""
    a = definition.alphabet
    if not definition.accept_reject:
        return rng.integers(0, a, (batch, length), dtype=np.int64)
    need = {1: batch // 2, 0: batch - batch // 2}
    found: dict[int, list[np.ndarray]] = {0: [], 1: []}
    have = {0: 0, 1: 0}
    most = min(2 * RAREST * max(need.values()) + 4096, max(batch, REJECTION_SYMBOLS // length))
    draws, chunk, widest = 0, max(64, 4 * batch), max(1, CHUNK_SYMBOLS // length)
    while any(have[c] < need[c] for c in need) and draws < most:
        chunk = min(chunk, widest)
        size = min(chunk, most - draws)
        words = rng.integers(0, a, (size, length), dtype=np.int64)
        labels = definition.evaluate(words)
        draws += size
        for c in (0, 1):
            if have[c] < need[c]:
                picked = words[labels == c][: need[c] - have[c]]
                found[c].append(picked)
                have[c] += len(picked)
        chunk = min(2 * chunk, 1 << 16)
    short = [c for c in need if have[c] < need[c]]
    if short:
        what = "positives" if short[0] == 1 else "negatives"
        raise InputError(
            f"task {definition.name}: {what} are too rare to draw by rejection at length "
            f"{length} ({have[short[0]]} among {draws} uniform words, {need[short[0]]} needed); "
            "give the task a sampler= (batch, length, rng) -> words"
        )
    out = np.concatenate(found[1] + found[0])
    return out[rng.permutation(len(out))]


@dataclass(frozen=True)
class PluginTask(Task):
    """A plugin task at lengths up to ``max_length``: tokens = the word (batch, N), class at
    the last position = the word function's value."""

    definition: TaskDefinition = field(default=None, repr=False)  # type: ignore[assignment]

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        return self.definition.check_length(n)

    def words(self, batch: int, length: int, g: torch.Generator) -> np.ndarray:
        """Training words from the plugin's sampler, or :func:`balanced_words`."""
        seed = int(torch.randint(0, 2**62, (1,), generator=g))
        rng = np.random.default_rng(seed)
        sampler = self.definition.sampler
        if sampler is None:
            return balanced_words(self.definition, batch, length, rng)
        words = np.asarray(sampler(batch, length, rng))
        if words.shape != (batch, length) or not np.issubdtype(words.dtype, np.integer):
            raise InputError(
                f"task {self.name}: the sampler must return ({batch}, {length}) integers, got "
                f"{words.shape} {words.dtype}"
            )
        if words.size and (words.min() < 0 or words.max() >= self.definition.alphabet):
            raise InputError(f"task {self.name}: sampled symbols outside the alphabet")
        return words.astype(np.int64)

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        words = self.words(batch, length, g)
        labels = torch.from_numpy(self.definition.evaluate(words).astype(np.int64))
        tokens = torch.from_numpy(words)
        targets, mask = at_positions(batch, length, torch.full((batch,), length - 1), labels)
        return tokens, targets, mask


def plugin_task(definition: TaskDefinition, max_length: int) -> PluginTask:
    """The torch task of ``definition`` for lengths up to ``max_length``."""
    definition.check_length(max_length)
    return PluginTask(
        definition.name,
        definition.alphabet,
        definition.classes,
        max_length,
        max_length,
        None,
        definition,
    )
