"""Finite groups as permutation groups, and their word problem (looped-reasoning Sec. 2.2.2).

Group composition (Thm 2.1): the input is ``#, g_1, ..., g_n`` with every g_i in a finite group
G, the output ``g_1 ∘ g_2 ∘ ... ∘ g_n``. Groups are named ``Zk`` (cyclic, order k), ``Sk``
(symmetric, k!), ``Ak`` (alternating, k!/2) and ``Dk`` (dihedral, the 2k symmetries of a
k-gon, k >= 3), each realised as permutations of k points. S5 and A5 are not solvable: their
word problem is NC^1-complete (Barrington), the case the paper's depth argument is about.

Conventions: elements are numbered 0..|G|-1 and element 0 is the identity e; ``(a ∘ b)(x) =
a(b(x))``, so ``table[a, b]`` is the index of ``a ∘ b`` and a word is composed left to right.
S_k lists the permutations of 0..k-1 in lexicographic order, A_k the even ones in that order,
Z_k the rotations r^0..r^(k-1), D_k the rotations r^i then the reflections r^i s.

The communication side (the toolkit's own link, not the paper's): the minimal DFA of the word
problem {w in G* : the product of w is e} has exactly |G| states (the running product; g and h
differ on the suffix g^-1), and under a prefix/suffix split the pairs (g e..e, g^-1 e..e) form a
fooling set of size |G| (:func:`ccomplexity.lower_bounds.word_problem_fooling_set`), so one-way
and two-way protocols need ceil(log2 |G|) bits whatever n is, while the looped transformer of
Thm 2.1 pays in depth, ceil(log2 n) loops.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ccomplexity.automata import DFA
from ccomplexity.errors import InputError

GROUP_TABLE_LIMIT = 720
"""Most elements of a group whose multiplication table is built (S6); orders of larger named
groups are still computed exactly (:func:`group_order`)."""
DEGREE_LIMIT = 40
"""Largest k of S_k and A_k that :func:`group_order` accepts (40! has 48 digits)."""
CYCLIC_LIMIT = 10**30
"""Largest k of Z_k and D_k that :func:`group_order` accepts."""

_NAME = re.compile(r"^([SAZD])(\d{1,31})$")
FAMILY_NAMES = {"S": "symmetric", "A": "alternating", "Z": "cyclic", "D": "dihedral"}


def parse_group(name: object) -> tuple[str, int]:
    """``"S5"`` -> ("S", 5); InputError naming the accepted forms and limits otherwise."""
    if not isinstance(name, str):
        raise InputError(f"a group is named like S5, A5, Z7 or D4, got {name!r}")
    match = _NAME.match(name.strip())
    if match is None:
        raise InputError(
            f"unknown group {name!r}: use Sk (symmetric), Ak (alternating), Zk (cyclic) or "
            "Dk (dihedral), e.g. S5, A5, Z7, D4"
        )
    family, k = match.group(1), int(match.group(2))
    if family in "SAZ" and k < 1:
        raise InputError(f"group {name}: k must be >= 1")
    if family == "D" and k < 3:
        raise InputError(f"group {name}: the dihedral group Dk needs k >= 3")
    if family in "SA" and k > DEGREE_LIMIT:
        raise InputError(f"group {name}: degree k must be at most {DEGREE_LIMIT}")
    if family in "ZD" and k > CYCLIC_LIMIT:
        raise InputError(f"group {name}: k must be at most 10^30")
    return family, k


def group_order(name: str) -> int:
    """|G| of a named group, exactly, without building it."""
    family, k = parse_group(name)
    if family == "S":
        return math.factorial(k)
    if family == "A":
        return math.factorial(k) // 2 if k >= 2 else 1
    return k if family == "Z" else 2 * k


def canonical_name(name: str) -> str:
    """The group's name as this module writes it (``" S5 "`` -> ``"S5"``)."""
    family, k = parse_group(name)
    return f"{family}{k}"


@dataclass(frozen=True, eq=False)
class FiniteGroup:
    """A finite group as permutations of ``degree`` points, with its multiplication table.

    ``perms[g]`` is element g as a permutation (an array of images), ``table[a, b]`` the index of
    a ∘ b, ``inverse[g]`` that of g^-1; element 0 is the identity.
    """

    name: str
    degree: int
    perms: np.ndarray
    table: np.ndarray
    inverse: np.ndarray

    @property
    def order(self) -> int:
        return int(self.perms.shape[0])

    @property
    def identity(self) -> int:
        return 0

    def element_name(self, g: int) -> str:
        """Element g in cycle notation on the points 1..k, e.g. ``(1 2 3)(4 5)``; ``e``."""
        perm = self.perms[g]
        seen, cycles = set(), []
        for start in range(self.degree):
            if start in seen or perm[start] == start:
                continue
            cycle, x = [], start
            while x not in seen:
                seen.add(x)
                cycle.append(str(x + 1))
                x = int(perm[x])
            cycles.append("(" + " ".join(cycle) + ")")
        return "".join(cycles) or "e"

    def element_names(self) -> tuple[str, ...]:
        return tuple(self.element_name(g) for g in range(self.order))

    def compose(self, words: np.ndarray) -> np.ndarray:
        """g_1 ∘ ... ∘ g_n of each row of ``words`` (batch, n) of element indices: (batch,).

        An empty word composes to the identity. Rows are composed left to right with the table.
        """
        w = np.asarray(words)
        if w.ndim == 1:
            w = w[None, :]
        if w.ndim != 2 or (w.size and not np.issubdtype(w.dtype, np.integer)):
            raise InputError(f"words must be a (batch, n) integer array, got shape {w.shape}")
        if w.size and (w.min() < 0 or w.max() >= self.order):
            raise InputError(f"{self.name}: elements must lie in 0..{self.order - 1}")
        out = np.zeros(w.shape[0], dtype=np.int64)
        for t in range(w.shape[1]):
            out = self.table[out, w[:, t]]
        return out

    def is_abelian(self) -> bool:
        return bool((self.table == self.table.T).all())

    def subgroup_generated(self, elements: np.ndarray) -> np.ndarray:
        """Sorted indices of the subgroup generated by ``elements`` (closure under the table)."""
        members = np.zeros(self.order, dtype=bool)
        members[0] = True
        gens = np.unique(np.asarray(elements, dtype=np.int64))
        frontier = np.array([0], dtype=np.int64)
        while frontier.size:
            nxt = np.unique(self.table[np.ix_(frontier, gens)].ravel()) if gens.size else frontier
            frontier = nxt[~members[nxt]]
            members[frontier] = True
        return np.flatnonzero(members)

    def derived_series(self) -> list[int]:
        """Orders of G, [G, G], [[G, G], [G, G]], ... until the series stops shrinking."""
        current = np.arange(self.order)
        orders = [self.order]
        while True:
            a, b = np.meshgrid(current, current, indexing="ij")
            # commutator a^-1 b^-1 a b
            inv = self.inverse
            comm = self.table[self.table[self.table[inv[a], inv[b]], a], b].ravel()
            nxt = self.subgroup_generated(comm)
            if nxt.size == current.size:
                return orders
            current = nxt
            orders.append(int(nxt.size))

    def is_solvable(self) -> bool:
        """Whether the derived series reaches the trivial group."""
        return self.derived_series()[-1] == 1


def _permutations(family: str, k: int) -> np.ndarray:
    if family == "S":
        return np.array(list(itertools.permutations(range(k))), dtype=np.int64).reshape(-1, k)
    if family == "A":
        perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64).reshape(-1, k)
        i, j = np.triu_indices(k, 1)
        inversions = (perms[:, i] > perms[:, j]).sum(axis=1)
        return perms[inversions % 2 == 0]
    points = np.arange(k)
    rotations = (points[None, :] + points[:, None]) % k  # r^i: x -> x + i
    if family == "Z":
        return rotations
    return np.concatenate([rotations, rotations[:, (-points) % k]])  # r^i s with s: x -> -x


@lru_cache(maxsize=16)
def _build(family: str, k: int) -> FiniteGroup:
    perms = _permutations(family, k)
    order = perms.shape[0]
    # An element is determined by its images of a base: all points for S_k and A_k (k <= 6
    # here), the points 0 and 1 for rotations and reflections of a k-gon. Images of the base,
    # read as a number in base k, index a dense lookup table.
    base = np.arange(k) if family in "SA" else np.arange(min(k, 2))
    weights = k ** np.arange(base.size - 1, -1, -1, dtype=np.int64)
    lookup = np.full(k**base.size, -1, dtype=np.int64)
    lookup[perms[:, base] @ weights] = np.arange(order)
    composed = perms[np.arange(order)[:, None, None], perms[None, :, base]]  # a(b(x)), x in base
    table = lookup[composed @ weights]
    inverse = np.argmax(table == 0, axis=1).astype(np.int64)
    for array in (perms, table, inverse):
        array.setflags(write=False)
    return FiniteGroup(f"{family}{k}", k, perms, table, inverse)


def get_group(name: str) -> FiniteGroup:
    """The named group with its multiplication table; InputError above :data:`GROUP_TABLE_LIMIT`
    elements (its order is still available from :func:`group_order`)."""
    family, k = parse_group(name)
    order = group_order(name)
    if order > GROUP_TABLE_LIMIT:
        raise InputError(
            f"group {family}{k} has {order} elements; tables are built for at most "
            f"{GROUP_TABLE_LIMIT} (S6)"
        )
    return _build(family, k)


def word_problem_dfa(group: FiniteGroup) -> DFA:
    """The DFA of {g_1..g_n in G* : g_1 ∘ ... ∘ g_n = e} over the alphabet G (no '#').

    States are the running products (start and only accepting state: e); reading h moves g to
    g ∘ h. Every state is live and any two g != h are told apart by the suffix g^-1, so this DFA
    is minimal with exactly |G| states (tested through :func:`ccomplexity.automata.minimize`).
    """
    accepting = np.zeros(group.order, dtype=bool)
    accepting[0] = True
    return DFA(group.table, 0, accepting, group.element_names())


__all__ = [
    "DEGREE_LIMIT",
    "FAMILY_NAMES",
    "GROUP_TABLE_LIMIT",
    "FiniteGroup",
    "canonical_name",
    "get_group",
    "group_order",
    "parse_group",
    "word_problem_dfa",
]
