"""The communication and automata side of the looped tasks, next to their loop counts.

This link is the toolkit's own, not the looped-reasoning paper's: the paper counts depth (loops
of a block), the toolkit counts what must cross a cut. For each task, exactly:

* group composition: the word problem's one-way complexity across every prefix/suffix cut, the
  verified fooling set {(g e..e, g^-1 e..e)} and the minimal DFA, all |G| and ceil(lg |G|) bits,
  however long the input; against ceil(lg n) loops (Thm 2.1).
* p-hop: the exact one-way complexity (distinct rows of the communication matrix) and the
  maximum fooling set (MaxSAT) across every prefix cut, at small n and alphabet; against
  floor(lg p) + 2 loops (Cor. 2.3).
* n-ary addition: the minimal carry automaton, n + 1 states (n live), ceil(lg n) state bits.
"""

from __future__ import annotations

from typing import Any

from ccomplexity.automata import minimize, state_counts
from ccomplexity.bounds.looped import phop_layers
from ccomplexity.errors import InputError, check_int
from ccomplexity.groups import FiniteGroup, word_problem_dfa
from ccomplexity.integers import ceil_log2
from ccomplexity.languages.arithmetic import carry_dfa
from ccomplexity.lower_bounds import (
    max_fooling_set,
    one_way_bits,
    verify_fooling_set,
    word_problem_fooling_set,
)
from ccomplexity.problems import DENSE_LIMIT, group_word, p_hop

PHOP_ENTRIES_LIMIT = 1 << 22
"""Most entries (|Sigma|^n) of a p-hop communication matrix these tables build."""


def group_cuts(group: FiniteGroup, length: int) -> dict[str, Any]:
    """Per cut K = 1..n-1 of the word problem of ``group`` on n elements: the one-way bits (from
    the dense matrix when it fits, else None) and the verified fooling set; and the DFA."""
    n = check_int(length, "length n", 2)
    rows = []
    for cut in range(1, n):
        problem = group_word(group, n, cut)
        dense = problem.n_rows * problem.n_cols <= DENSE_LIMIT
        fooling = word_problem_fooling_set(group, n, cut)
        check = verify_fooling_set(problem, fooling.rows, fooling.cols, fooling.value)
        one_way = one_way_bits(problem) if dense else None
        rows.append(
            {
                "cut": cut,
                "distinct_rows": None if one_way is None else one_way.distinct_rows,
                "one_way_bits": None if one_way is None else one_way.bits,
                "fooling_set": check.size,
                "fooling_verified": check.valid,
                "fooling_bits": ceil_log2(check.size),
            }
        )
    counts = state_counts(minimize(word_problem_dfa(group)))
    return {
        "task": "group-composition",
        "group": group.name,
        "group_order": group.order,
        "length": n,
        "dfa_states": counts["states"],
        "dfa_live_states": counts["live_states"],
        "loops_thm2_1": ceil_log2(n),
        "cuts": rows,
    }


def phop_cuts(alphabet: int, length: int, hops: int, strict: bool = False) -> dict[str, Any]:
    """Per cut K = 1..n-1 of hop_p on Sigma^n: the exact one-way bits and the maximum fooling
    set (over every answer value; None where MaxSAT's cell limit refuses it)."""
    a, n, p = check_int(alphabet, "alphabet", 2), check_int(length, "length n", 2), hops
    if a**n > PHOP_ENTRIES_LIMIT:
        raise InputError(
            f"p-hop tables build |Sigma|^n <= {PHOP_ENTRIES_LIMIT} matrix entries, got {a}^{n}"
        )
    rows = []
    for cut in range(1, n):
        problem = p_hop(a, n, check_int(p, "hops p"), cut, strict)
        matrix = problem.matrix()
        one_way = one_way_bits(matrix)
        try:
            fooling = max_fooling_set(matrix)
        except InputError:
            size, bits = None, None
        else:
            size, bits = fooling.size, fooling.bits
        rows.append(
            {
                "cut": cut,
                "distinct_rows": one_way.distinct_rows,
                "one_way_bits": one_way.bits,
                "fooling_set": size,
                "fooling_bits": bits,
            }
        )
    return {
        "task": "p-hop",
        "alphabet": a,
        "length": n,
        "hops": p,
        "strict": strict,
        "loops_cor2_3": phop_layers(p),
        "cuts": rows,
    }


def addition_automaton(operands: int) -> dict[str, Any]:
    """The minimal carry automaton of n-ary addition: states, live states, state bits."""
    counts = state_counts(carry_dfa(operands))
    return {
        "task": "addition",
        "operands": operands,
        "dfa_states": counts["states"],
        "dfa_live_states": counts["live_states"],
        "state_bits": ceil_log2(counts["live_states"]),
    }


__all__ = ["addition_automaton", "group_cuts", "phop_cuts"]
