"""Random generators for the language samplers' tests: a real numpy Generator whose uniform
draws are pinned, to drive a sampler to the exact edge of a rejection or a threshold."""

from __future__ import annotations

import numpy as np


class ConstantUniform(np.random.Generator):
    """A real Generator whose ``random`` returns one chosen double (integers etc. stay random)."""

    def __init__(self, value: float, seed: int = 0) -> None:
        super().__init__(np.random.PCG64(seed))
        self.value = value

    def random(self, size=None, dtype=np.float64, out=None):  # type: ignore[no-untyped-def, override]
        return self.value if size is None else np.full(size, self.value)
