"""The i-GSM task of the looped-reasoning paper (Sec. 2.1, Table 2; App. A.1) as a sampler.

``N`` is the number of statements; options ``query_depth`` (the query's depth: operations on
the longest dependency path to the queried variable, 1) and ``modulus`` (the prime P, 7). The
query depth is a property of the problems, not of the model: the paper's Table 2 varies the
*model's* depth (layers, and loops of a looped model) on one problem distribution. The option
was once named ``depth``; that name is refused here (stored runs that used it are read by
:class:`simulations.run_config.TrainConfig` as ``query_depth``).

Every problem is drawn by :func:`ccomplexity.languages.igsm.sample_problem`
with the N variable names 0..N-1 and checked by the independent evaluator
:func:`~ccomplexity.languages.igsm.solve`, which must agree on the answer and the depth. Rows are
left-aligned and padded after (statements take 4 or 6 tokens); the target is the answer at the
``?`` token. Training and evaluation draw the same distribution: exactly N statements and the
given query depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ccomplexity import budget, limits
from ccomplexity.errors import InputError
from ccomplexity.languages import igsm
from simulations.tasks.base import Batch, Task, at_positions, options


@dataclass(frozen=True)
class IGSMTask(Task):
    """Tokens of :class:`ccomplexity.languages.igsm.Vocabulary` over N names, then [pad];
    classes the values 0..P-1."""

    query_depth: int = 1
    modulus: int = 7

    def check_length(self, length: int) -> int:
        n = super().check_length(length)
        if n < self.query_depth + 1:
            raise InputError(
                f"i-GSM: query_depth {self.query_depth} needs at least query_depth + 1 = "
                f"{self.query_depth + 1} statements, got length {n}"
            )
        return n

    def _sample(self, batch: int, length: int, g: torch.Generator, train: bool) -> Batch:
        if batch * length > limits.STATEMENT_CELLS:
            raise InputError(
                f"i-GSM: batch x statements = {batch * length} exceeds "
                f"{limits.STATEMENT_CELLS}; use a smaller batch"
            )
        rng = np.random.default_rng(int(torch.randint(0, 2**62, (1,), generator=g)))
        tokens = torch.full((batch, self.max_tokens), self.pad)
        answers = torch.zeros(batch, dtype=torch.long)
        ends = torch.zeros(batch, dtype=torch.long)
        for row in range(batch):
            problem = igsm.sample_problem(
                rng, length, self.query_depth, self.max_length, self.modulus
            )
            seq = igsm.encode(problem, self.max_length)
            solved = igsm.solve(seq, self.max_length, self.modulus)
            if (solved["answer"], solved["depth"]) != (problem.answer, self.query_depth):
                raise RuntimeError("i-GSM generator: the evaluator disagrees with the sampler")
            tokens[row, : len(seq)] = torch.tensor(seq)
            answers[row], ends[row] = problem.answer, len(seq) - 1
        targets, mask = at_positions(batch, self.max_tokens, ends, answers)
        return tokens, targets, mask

    def sampling_cost(self, batch: int, length: int) -> tuple[int, int]:
        """Each of the batch x N statements is drawn, encoded and solved in Python."""
        memory, work = super().sampling_cost(batch, length)
        return memory, work + budget.igsm_statements(batch * length)

    def render(self, tokens: list[int]) -> str:
        return igsm.render(tokens, self.max_length, self.modulus)


def default_length(query_depth: int) -> int:
    """Statements when none are given: 8, or query_depth + 4 for deeper queries."""
    return max(8, query_depth + 4)


def _refuse_depth(given: dict[str, Any]) -> None:
    if "depth" in given:
        raise InputError(
            "i-gsm: the query's depth is the option query_depth (the model's depth is layers)"
        )


def _igsm(name: str, n: int, given: dict[str, Any]) -> Task:
    _refuse_depth(given)
    o = options(name, given, {"query_depth": 1, "modulus": 7})
    depth = limits.IGSM_DEPTH.check(o["query_depth"], "query_depth")
    modulus = igsm.check_modulus(o["modulus"])
    limits.STATEMENTS.check(n, "i-GSM length (statements)")
    vocab = igsm.Vocabulary(n, modulus).size
    return IGSMTask(name, vocab + 1, modulus, n, 6 * n + 2, vocab, depth, modulus)


def _default_length(options: dict[str, Any]) -> int:
    _refuse_depth(options)
    return default_length(limits.IGSM_DEPTH.check(options.get("query_depth", 1), "query_depth"))


BUILDERS = {"i-gsm": _igsm}
"""Task name -> builder(name, max_length, options); i-gsm options ``query_depth`` (1) and
``modulus`` (7, a prime up to 97)."""
DEFAULT_LENGTHS = {"i-gsm": _default_length}
"""Tasks whose length has a default (``ccx task NAME`` without ``--length``)."""
