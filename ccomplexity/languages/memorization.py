"""The memorisation task of the mixture-of-parrots paper (Sec. 3.2, App. A.2), and its notation.

n sequences X^i in R^{N x m}, every token X^i[j] ~ N(0, I_m) i.i.d., with arbitrary labels
y_i in {+1, -1}; a model memorises them when sign f(X^i) = y_i for every i (f read at the last
token). The labels here are uniform random signs.

**Notation warning** (spec, "Notation warning"): the paper uses two conventions, and this is the
one place that converts between them. The toolkit speaks the main text's everywhere else.

=====================  =================  =================  ==========
                       sequence length    examples           dimension
=====================  =================  =================  ==========
main text, Sec. 3      N                  n                  m
App. A.2               n                  N                  d
App. B (experiments)   --                 --                 d (width)
this toolkit           ``length``         ``examples``       ``dim``
=====================  =================  =================  ==========
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ccomplexity.errors import InputError, check_int

MAX_NUMBERS = 1 << 27
"""Most Gaussian numbers (examples x length x dim) one data set may hold (1 GiB of float64)."""


@dataclass(frozen=True)
class MemorizationSize:
    """Sizes in the main text's names: n ``examples`` of ``length`` N tokens in R^``dim`` (m)."""

    examples: int
    length: int
    dim: int

    def __post_init__(self) -> None:
        for name in ("examples", "length", "dim"):
            check_int(getattr(self, name), name, 1)
        if self.examples * self.length * self.dim > MAX_NUMBERS:
            raise InputError(
                f"examples x length x dim = {self.examples * self.length * self.dim} exceeds "
                f"{MAX_NUMBERS} Gaussian numbers"
            )

    @classmethod
    def from_appendix(cls, N: int, n: int, d: int) -> MemorizationSize:  # noqa: N803
        """From App. A.2's names: N examples, sequences of length n, dimension d."""
        return cls(examples=N, length=n, dim=d)

    def appendix(self) -> dict[str, int]:
        """The same sizes in App. A.2's names."""
        return {"N": self.examples, "n": self.length, "d": self.dim}


def gaussian_memorization(size: MemorizationSize, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """X (n, N, m) float64 with i.i.d. N(0, 1) entries and labels y (n,) in {-1, +1}.

    Seeded so that the data sets of one seed are nested: the first k examples (and labels) of
    ``examples = n`` are those of ``examples = k``.
    """
    check_int(seed, "seed", 0)
    x = np.random.default_rng([seed, 0]).standard_normal((size.examples, size.length, size.dim))
    y = np.where(np.random.default_rng([seed, 1]).random(size.examples) < 0.5, -1, 1)
    return x, y.astype(np.int64)
