"""Exact lower bounds on two-party communication: fooling sets, ranks, one-way and tree search.

Everything here is exact: integer arithmetic, exhaustive or symbolic (automaton) reasoning, and
branch and bound for the maximum fooling set. One module per method:

- :mod:`~ccomplexity.lower_bounds.fooling` (Def. 1, App. B.1): pairs S with f = b on S and, for
  distinct pairs, f(x1, y2) != b or f(x2, y1) != b. Fact 4: D(f) >= log2 |S|; since a protocol
  exchanges a whole number of bits, D(f) >= ceil(log2 |S|), which is what ``bits`` reports.
  Lemma 1 (App. E): all Dyck-(2,2) words of length N, split odd/even, form a fooling set of size
  2^(N-1). Errata item 12: the proof shows x -> y only; y -> x is needed too and is checked.
- :mod:`~ccomplexity.lower_bounds.max_fooling`: the maximum fooling set of a matrix as a maximum
  clique of non-crossing cells, exact or, within a budget, the best found with an upper bound.
- :mod:`~ccomplexity.lower_bounds.rank`: log-rank, D(f) >= log2 rank(M_f) over GF(p).
- :mod:`~ccomplexity.lower_bounds.one_way` (Thm 2, Fact 3): D^{A->B}(f) = ceil(log2 #distinct
  rows of M_f), exactly.
- :mod:`~ccomplexity.lower_bounds.exact`: exact two-way D(M) by search over protocol trees.
- :mod:`~ccomplexity.lower_bounds.matrix`: the helpers they share.
- :mod:`~ccomplexity.lower_bounds.kg`: the witnesses of the knowledge-graph path-query split
  (E distinct rows, a fooling set of size E), exact for every graph without the matrix.
- :mod:`~ccomplexity.lower_bounds.word_problem`: the fooling set of a finite group's word
  problem at any cut (|G| pairs).
- :mod:`~ccomplexity.lower_bounds.automaton`: one-way bits at every cut and the maximum fooling
  set under prefix:K of a language given by an automaton, at any length (on states, not words).

User errors raise :class:`ccomplexity.errors.InputError` with one line naming the limit.
"""

from ccomplexity.lower_bounds.exact import (
    EXACT_BUDGET,
    EXACT_ENTRY_LIMIT,
    ExactResult,
    ProtocolCheck,
    check_protocol_tree,
    exact_bits,
)
from ccomplexity.lower_bounds.fooling import (
    EXHAUSTIVE_LIMIT,
    EXHAUSTIVE_MEMBER_LIMIT,
    MATERIALISE_LIMIT,
    PAIRWISE_LIMIT,
    SYMBOLIC_LIMIT,
    FoolingCheck,
    FoolingSet,
    disjointness_fooling_set,
    dyck_fooling_set,
    dyck_fooling_symbolic,
    equality_fooling_set,
    verify_fooling_set,
    verify_fooling_words,
)
from ccomplexity.lower_bounds.kg import kg_fooling_set, one_way_bits_kg
from ccomplexity.lower_bounds.max_fooling import (
    MAX_FOOLING_CELL_LIMIT,
    MAX_FOOLING_ENTRY_LIMIT,
    MaxFoolingSet,
    max_fooling_set,
)
from ccomplexity.lower_bounds.one_way import (
    OneWayResult,
    check_one_way_witness,
    one_way_bits,
    one_way_bits_dyck,
)
from ccomplexity.lower_bounds.rank import DEFAULT_PRIME, RANK_ENTRY_LIMIT, RankResult, rank_mod_p
from ccomplexity.lower_bounds.word_problem import word_problem_fooling_set

__all__ = [
    "DEFAULT_PRIME",
    "EXACT_BUDGET",
    "EXACT_ENTRY_LIMIT",
    "EXHAUSTIVE_LIMIT",
    "EXHAUSTIVE_MEMBER_LIMIT",
    "MATERIALISE_LIMIT",
    "MAX_FOOLING_CELL_LIMIT",
    "MAX_FOOLING_ENTRY_LIMIT",
    "PAIRWISE_LIMIT",
    "RANK_ENTRY_LIMIT",
    "SYMBOLIC_LIMIT",
    "ExactResult",
    "FoolingCheck",
    "FoolingSet",
    "MaxFoolingSet",
    "OneWayResult",
    "ProtocolCheck",
    "RankResult",
    "check_one_way_witness",
    "check_protocol_tree",
    "disjointness_fooling_set",
    "dyck_fooling_set",
    "dyck_fooling_symbolic",
    "equality_fooling_set",
    "exact_bits",
    "kg_fooling_set",
    "max_fooling_set",
    "one_way_bits",
    "one_way_bits_dyck",
    "one_way_bits_kg",
    "rank_mod_p",
    "verify_fooling_set",
    "verify_fooling_words",
    "word_problem_fooling_set",
]
