"""The public surface of :mod:`ccomplexity.lower_bounds` pinned: ``__all__`` exactly, every name
re-exported as the very object of the module that defines it, a star import giving exactly those
names, and the limits it re-exports with their documented values."""

from __future__ import annotations

import ccomplexity.lower_bounds as lb
from ccomplexity.lower_bounds import (
    exact,
    fooling,
    kg,
    max_fooling,
    one_way,
    rank,
    word_problem,
)

EXPORTS = {
    exact: [
        "EXACT_BUDGET",
        "EXACT_ENTRY_LIMIT",
        "ExactResult",
        "ProtocolCheck",
        "check_protocol_tree",
        "exact_bits",
    ],
    fooling: [
        "EXHAUSTIVE_LIMIT",
        "EXHAUSTIVE_MEMBER_LIMIT",
        "MATERIALISE_LIMIT",
        "PAIRWISE_LIMIT",
        "SYMBOLIC_LIMIT",
        "FoolingCheck",
        "FoolingSet",
        "disjointness_fooling_set",
        "dyck_fooling_set",
        "dyck_fooling_symbolic",
        "equality_fooling_set",
        "verify_fooling_set",
        "verify_fooling_words",
    ],
    kg: ["kg_fooling_set", "one_way_bits_kg"],
    max_fooling: [
        "MAX_FOOLING_CELL_LIMIT",
        "MAX_FOOLING_ENTRY_LIMIT",
        "MaxFoolingSet",
        "max_fooling_set",
    ],
    one_way: ["OneWayResult", "check_one_way_witness", "one_way_bits", "one_way_bits_dyck"],
    rank: ["DEFAULT_PRIME", "RANK_ENTRY_LIMIT", "RankResult", "rank_mod_p"],
    word_problem: ["word_problem_fooling_set"],
}


def test_all_lists_exactly_the_re_exports_sorted() -> None:
    names = [name for group in EXPORTS.values() for name in group]
    assert len(names) == len(set(names)) == 34
    assert sorted(lb.__all__) == sorted(names)
    # constants first, then classes, then functions, each alphabetically (ruff's RUF022 order)
    constants = sorted(n for n in names if n.isupper())
    classes = sorted(n for n in names if not n.isupper() and n[0].isupper())
    functions = sorted(n for n in names if n[0].islower())
    assert lb.__all__ == constants + classes + functions


def test_every_name_is_the_defining_modules_object() -> None:
    for module, names in EXPORTS.items():
        for name in names:
            assert getattr(lb, name) is getattr(module, name), name


def test_star_import_gives_exactly_all() -> None:
    space: dict[str, object] = {}
    exec("from ccomplexity.lower_bounds import *", space)  # noqa: S102
    assert sorted(k for k in space if k != "__builtins__") == sorted(lb.__all__)


def test_re_exported_limits_have_their_documented_values() -> None:
    assert lb.EXHAUSTIVE_LIMIT == 20
    assert lb.EXHAUSTIVE_MEMBER_LIMIT == 1 << 20
    assert lb.PAIRWISE_LIMIT == 1 << 26
    assert lb.MATERIALISE_LIMIT == 1 << 24
    assert lb.SYMBOLIC_LIMIT == 1 << 24
    assert lb.MAX_FOOLING_CELL_LIMIT == 8192
    assert lb.MAX_FOOLING_ENTRY_LIMIT == 1 << 20
