"""The tasks of the mixture-of-parrots paper (spec sections 2.1 and 2.4), as training tasks.

* ``length2-path`` (Sec. 3.1): the Thm 3.2 token layout of ``ccomplexity.languages.graphs``
  (``Layout``): r tokens (s, i)/(s, 0), ``middle`` edges (u, v) among the items, r tokens
  (d, i)/(d, 0), the query; the label (class 1 = a length-2 path s - i - d exists, i.e. DISJ)
  at the query. ``length`` is |V| = r (the number of items besides s and d); sequences have
  2r + middle + 1 tokens. Instances follow ``graphs.sample_disjointness`` (half positive, each
  positive meeting in exactly one item), middle edges are uniform pairs u < v. Training and
  evaluation draw from the same law.
* ``memorize`` (Sec. 3.2): a fixed training set of n = ``length`` sequences of ``seq_length``
  Gaussian vectors in R^``dim`` with random labels (``ccomplexity.languages.memorization``,
  seeded by ``data_seed``, nested in n), label at the last token (class 1 = y = +1). The
  inputs are vectors, so models read them with phi the identity (width = ``dim``). Batches are
  drawn from the n examples, and accuracy is measured on all of them (:meth:`training_set`):
  memorised means every sign right.

Both take their data from the exact modules of ``ccomplexity`` (numpy generators seeded from
the torch generator), so labels come from the oracles themselves.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from ccomplexity.languages import graphs
from ccomplexity.languages.memorization import MemorizationSize, gaussian_memorization
from simulations.tasks.base import Batch, Task, at_positions, options


def _numpy_rng(g: torch.Generator) -> np.random.Generator:
    """A numpy generator seeded from the torch generator (so batches follow its state)."""
    return np.random.default_rng(int(torch.randint(0, 2**62, (1,), generator=g)))


@dataclass(frozen=True)
class Length2PathTask(Task):
    """Length-2 path on r = ``length`` items in the Thm 3.2 layout (see the module docstring)."""

    middle: int = graphs.DEFAULT_MIDDLE

    @property
    def layout(self) -> graphs.Layout:
        return graphs.Layout(self.max_length, self.middle)

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        rng = _numpy_rng(g)
        a, b, answer = graphs.sample_disjointness(length, batch, rng)
        if self.middle:
            u = rng.integers(1, length, size=(batch, self.middle))
            v = u + 1 + np.floor(rng.random((batch, self.middle)) * (length - u)).astype(np.int64)
            edges = np.stack([u, v], axis=-1)
        else:
            edges = np.zeros((batch, 0, 2), dtype=np.int64)
        tokens = torch.from_numpy(self.layout.encode(a, b, edges))
        last = torch.full((batch,), tokens.shape[1] - 1)
        targets, mask = at_positions(batch, tokens.shape[1], last, torch.from_numpy(answer).long())
        return tokens, targets, mask


@functools.lru_cache(maxsize=8)
def _memorization_set(examples: int, length: int, dim: int, seed: int) -> tuple[Any, Any]:
    x, y = gaussian_memorization(MemorizationSize(examples, length, dim), seed)
    return torch.from_numpy(x).float(), torch.from_numpy((y > 0).astype(np.int64))


@dataclass(frozen=True)
class MemorizeTask(Task):
    """n = ``length`` Gaussian sequences with random labels, a fixed training set."""

    seq_length: int = 8
    dim: int = 16
    data_seed: int = 0

    def input_dim(self) -> int | None:
        return self.dim

    def _set(self, examples: int) -> tuple[torch.Tensor, torch.Tensor]:
        return _memorization_set(examples, self.seq_length, self.dim, self.data_seed)

    def training_set(self, length: int | None = None) -> Batch:
        n = self.max_length if length is None else self.check_length(length)
        x, y = self._set(n)
        last = torch.full((n,), self.seq_length - 1)
        targets, mask = at_positions(n, self.seq_length, last, y)
        return x, targets, mask

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        x, y = self._set(length)
        pick = torch.randperm(length, generator=g)[:batch] if batch <= length else None
        if pick is None:
            pick = torch.randint(0, length, (batch,), generator=g)
        last = torch.full((len(pick),), self.seq_length - 1)
        targets, mask = at_positions(len(pick), self.seq_length, last, y[pick])
        return x[pick], targets, mask


def _length2_path(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"middle": graphs.DEFAULT_MIDDLE})
    middle = check_int(
        o["middle"], "middle edges", 0, limits.VERTICES.most, "use fewer middle edges"
    )
    if middle and n < 2:
        raise InputError("length2-path with middle edges needs |V| >= 2")
    layout = graphs.Layout(n, middle)
    return Length2PathTask(name, layout.vocab_size, 2, n, layout.length(), None, middle)


def _memorize(name: str, n: int, given: dict[str, Any]) -> Task:
    o = options(name, given, {"seq_length": 8, "dim": 16, "data_seed": 0})
    size = MemorizationSize(
        n, limits.LENGTH.check(o["seq_length"], "seq_length"), limits.DIM.check(o["dim"], "dim")
    )
    seed = limits.SEED.check(o["data_seed"], "data_seed")
    return MemorizeTask(name, 1, 2, n, size.length, None, size.length, size.dim, seed)


BUILDERS = {"length2-path": _length2_path, "memorize": _memorize}
"""Task name -> builder(name, max_length, options); options: length2-path ``middle`` (4);
memorize ``seq_length`` (8), ``dim`` (16), ``data_seed`` (0)."""
