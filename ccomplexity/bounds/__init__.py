"""Registry of every statement with a bound, one module per paper.

:mod:`~ccomplexity.bounds.base` holds the :class:`Bound` type, its parameters and its exact
inversions; each paper module (``separations``, ``parrots``, ``looped``, ``kg``) lists its
statements in a tuple ``BOUNDS``. Ids have the form ``paper.statement``. Which bound constrains
which task on which model family is not here but in :mod:`ccomplexity.claims`.
"""

from __future__ import annotations

import re

from ccomplexity.bounds import kg, looped, parrots, separations
from ccomplexity.bounds.base import KINDS, PARAMS, Bound, Param, define_param
from ccomplexity.bounds.separations import (
    Thm4Bits,
    thm4_closed_form,
    thm4_held_bits,
    thm4_itemised,
    thm4_run_bits,
)
from ccomplexity.errors import InputError

PAPERS = {"separations": separations, "parrots": parrots, "looped": looped, "kg": kg}
"""Paper id -> module; each module's ``BOUNDS`` lists its statements."""

PAPER_NAMES = {
    "separations": "transformers vs RNNs",
    "parrots": "mixture of parrots",
    "looped": "looped reasoning",
    "kg": "KG looping",
}
"""Paper id -> the few words that name it in labels and captions."""

_KINDS = {"Theorem": "Thm", "Corollary": "Cor", "Lemma": "Lemma", "Proposition": "Prop",
          "Fact": "Fact", "Algorithm": "Alg"}  # fmt: skip


def _registry() -> tuple[dict[str, Bound], dict[str, str]]:
    by_id: dict[str, Bound] = {}
    alias: dict[str, str] = {}
    for paper, module in PAPERS.items():
        for b in module.BOUNDS:
            if b.paper != paper:
                raise RuntimeError(f"{b.id} is registered under paper {paper!r}")
            for key in (b.id, *b.aliases):
                if key in by_id or key in alias:
                    raise RuntimeError(f"duplicate theorem id {key!r}")  # programming error
            by_id[b.id] = b
            alias.update({a: b.id for a in b.aliases})
    return by_id, alias


_BY_ID, _ALIASES = _registry()


def ids() -> list[str]:
    """Every registered id, aliases included, sorted."""
    return sorted([*_BY_ID, *_ALIASES])


def get(theorem: str) -> Bound:
    """The bound with this id or alias; InputError naming the known ids otherwise."""
    key = _ALIASES.get(theorem, theorem) if isinstance(theorem, str) else None
    if key not in _BY_ID:
        raise InputError(f"unknown theorem {theorem!r}; known: {', '.join(ids())}")
    return _BY_ID[key]


def all_bounds() -> list[Bound]:
    """Every registered bound once (aliases are not repeated), paper by paper in registry order."""
    return list(_BY_ID.values())


def short_name(theorem: str) -> str:
    """The statement as its paper numbers it (``Thm 3.1``), read from the citation's first
    numbered statement; the bound's name where the paper numbers none (or where the statement
    is the toolkit's own)."""

    bound = get(theorem)
    found = re.search(r"\b(" + "|".join(_KINDS) + r")\s+([A-Z]?[\d.]*\d)", bound.citation)
    if found is None or bound.citation.startswith("not in the paper"):
        return bound.name
    return f"{_KINDS[found.group(1)]} {found.group(2)}"


def label(theorem: str) -> str:
    """A label for figures and tables: the statement and the paper in words,
    ``Thm 3.1, mixture of parrots`` (never the internal id)."""
    return f"{short_name(theorem)}, {PAPER_NAMES[get(theorem).paper]}"


def describe(theorem: str, **params: object) -> dict[str, object]:
    """JSON-ready description of bound ``theorem`` evaluated at ``params`` (see Bound.describe)."""
    return get(theorem).describe(**params)


__all__ = [
    "KINDS",
    "PAPERS",
    "PARAMS",
    "Bound",
    "Param",
    "Thm4Bits",
    "PAPER_NAMES",
    "all_bounds",
    "label",
    "short_name",
    "define_param",
    "describe",
    "get",
    "ids",
    "thm4_closed_form",
    "thm4_itemised",
    "thm4_held_bits",
    "thm4_run_bits",
]
