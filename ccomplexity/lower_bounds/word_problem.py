"""The word problem of a finite group split at a cut (looped-reasoning paper, toolkit link):
Alice holds g_1..g_K, Bob g_(K+1)..g_n, f = 1 iff the product is e
(:func:`ccomplexity.problems.group_word`). The |G| pairs (g e..e, g^-1 e..e) form a fooling set
at every cut, so even two-way protocols need ceil(log2 |G|) bits there.
"""

from __future__ import annotations

import numpy as np

from ccomplexity.errors import InputError
from ccomplexity.groups import FiniteGroup
from ccomplexity.lower_bounds.fooling import FoolingSet
from ccomplexity.problems import group_word


def word_problem_fooling_set(group: FiniteGroup, length: int, cut: int) -> FoolingSet:
    """The fooling set {(g e..e, g^-1 e..e) : g in G} of the prefix/suffix word problem.

    f(x_g, y_h) = [g ∘ h^-1 = e] = [g = h], so every pair is a 1 and every cross pair a 0:
    |G| pairs, ceil(log2 |G|) bits, for every n and every cut (Def. 1, Fact 4 of the
    separations paper).
    """
    problem = group_word(group, length, cut)
    a, b = problem.alice_length, problem.bob_length
    if group.order ** max(a, b) >= 1 << 62:
        raise InputError(
            f"{group.name}: words of {max(a, b)} elements number |G|^{max(a, b)} >= 2^62 inputs, "
            "the limit (64-bit numbering); use a shorter length"
        )
    g = np.arange(group.order, dtype=np.int64)
    rows = g * group.order ** (a - 1)  # digits are big-endian: g first, then the identity 0
    cols = group.inverse[g] * group.order ** (b - 1)
    return FoolingSet(problem, rows, cols, 1)


__all__ = ["word_problem_fooling_set"]
