"""The exact core on a plugin task (:mod:`ccomplexity.plugins`): its two-party problem, the
one-way complexity at every cut (what any recurrent model's state must carry, Thm 2 of the
separations paper), its minimal DFA, and the general theorems that apply to it.

A plugin task's problem at length N is its word function on ``[alphabet]^N`` with Alice's
positions given by a partition (Def. 1; ``prefix:K`` by default at K = N // 2). A certificate
of it carries, besides the problem's description, the plugin's source name and the SHA-256 of
that source: :func:`problem_from_spec` rebuilds the function from the loaded plugin only when
the hashes agree, so a certificate is never checked against other code than the one it names.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from ccomplexity import budget, limits, plugins, problems
from ccomplexity.automata import DFA, minimize, residual_counts, state_counts
from ccomplexity.errors import InputError, shown
from ccomplexity.integers import ceil_log2

TRIE_STATE_LIMIT = 1 << 22
"""Most states of the prefix tree that :func:`minimal_dfa` builds from a word function."""


def problem(name: str, length: int, partition: str | None = None) -> problems.TwoPartyProblem:
    """The plugin task ``name`` at length ``length`` as a two-party problem, Alice holding the
    positions of ``partition`` (default ``prefix:N//2``)."""
    task = plugins.require_task(name)
    n = task.check_length(limits.LENGTH.check(length, "--length"))
    part = problems.Partition.parse(partition or f"prefix:{n // 2}", n)
    made = problems.string_problem(name, {"length": n}, task.evaluate, task.alphabet, n, part)
    embedded = {"plugin": {"source": task.source, "sha256": task.sha256}}
    return dataclasses.replace(made, embedded=embedded)


def problem_from_spec(spec: dict[str, Any]) -> problems.TwoPartyProblem:
    """A certificate's plugin problem ``{"problem", "length", "partition", "plugin": {"source",
    "sha256"}}`` rebuilt from the loaded plugin. A malformed spec is a ValueError (the
    certificate is invalid); a plugin not loaded, or loaded from other bytes than the ones
    certified, is an InputError (nothing was checked)."""
    keys = {"problem": str, "length": int, "partition": str, "plugin": dict}
    if set(spec) != set(keys) or any(type(spec[k]) is not t for k, t in keys.items()):
        raise ValueError(f"a plugin problem has exactly the fields {sorted(keys)}")
    plugin = spec["plugin"]
    if set(plugin) != {"source", "sha256"} or not all(isinstance(v, str) for v in plugin.values()):
        raise ValueError("the plugin field has exactly the strings 'source' and 'sha256'")
    name, source, sha = spec["problem"], plugin["source"], plugin["sha256"]
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise ValueError("the plugin's sha256 must be 64 lowercase hex digits")
    task = plugins.task_definition(name)
    # the certificate's own strings, shown cut and quoted: the message stays one line
    if task is None:
        raise InputError(
            f"the certificate is about task {shown(name)} of plugin {shown(source)} (sha256 "
            f"{sha[:12]}); load that plugin: ccx verify --plugin FILE.py CERTIFICATE"
        )
    if task.sha256 != sha:
        raise InputError(
            f"plugin {task.source} defining {name!r} has sha256 {task.sha256[:12]}, the "
            f"certificate was made with {shown(source)} of sha256 {sha[:12]}: not the same code"
        )
    try:
        made = problem(name, spec["length"], spec["partition"])
    except InputError as err:
        raise ValueError(f"bad problem: {err}") from None
    if made.describe() != {k: v for k, v in spec.items() if k != "plugin"}:
        raise ValueError("problem description is not canonical")
    return made


# ------------------------------------------------------------------------------ one way


def one_way_per_cut(name: str, length: int) -> list[dict[str, Any]]:
    """For every cut K = 1..N-1: the exact one-way complexity Alice -> Bob of the task at length
    N with Alice holding s_1..s_K, ceil(log2 #distinct rows) (Thm 2: an RNN whose state is m
    numbers of p bits solves the task only if m p >= these bits at every K). From the plugin's
    DFA when it has one (Myhill-Nerode classes of the length-K prefixes of L ∩ Sigma^N,
    :func:`ccomplexity.automata.residual_counts`), else from the dense matrix at each cut."""
    from ccomplexity.lower_bounds import one_way_bits

    task = plugins.require_task(name)
    n = task.check_length(limits.LENGTH.check(length, "--length"))
    if n < 2:
        raise InputError(f"{name}: a cut needs length >= 2, got {n}")
    out = []
    if task.dfa is not None:
        counts = residual_counts(task.dfa, n)
        for k in range(1, n):
            out.append({"cut": k, "distinct_rows": counts[k], "bits": ceil_log2(counts[k])})
        return out
    if task.alphabet**n > problems.DENSE_LIMIT:
        raise InputError(
            f"{name}: {task.alphabet}^{n} words exceed the dense limit of {problems.DENSE_LIMIT} "
            "matrix entries; give the task a dfa= or use a shorter --length"
        )
    for k in range(1, n):
        res = one_way_bits(problem(name, n, f"prefix:{k}"))
        out.append({"cut": k, "distinct_rows": res.distinct_rows, "bits": res.bits})
    return out


def one_way_profile(name: str, lengths: list[int]) -> dict[int, int]:
    """{N: the most one-way bits over the cuts at N} for each of ``lengths`` the task is
    defined at and that can be computed (within the dense limit, or any N with a DFA)."""
    task = plugins.require_task(name)
    out = {}
    for n in sorted(set(lengths)):
        lo, hi = task.lengths
        if n < max(2, lo) or n > hi:
            continue
        if task.dfa is None and task.alphabet**n > problems.DENSE_LIMIT:
            continue
        out[n] = max(row["bits"] for row in one_way_per_cut(name, n))
    return out


# ------------------------------------------------------------------------------ automata


def minimal_dfa(name: str, length: int | None = None) -> tuple[DFA, str]:
    """The minimal complete DFA of the task and how it was obtained: from the plugin's DFA
    (``"given"``; its language is the task's at every length), or from the word function at
    exactly ``length`` (``"function"``: the prefix tree of [alphabet]^{<=N}, accepting the
    words of length N the function accepts, minimised; a DFA for L ∩ Sigma^N)."""
    task = plugins.require_task(name)
    if not task.accept_reject:
        raise InputError(f"{name} has {task.classes} labels: a DFA needs an accept/reject task")
    if length is None:
        if task.dfa is None:
            raise InputError(f"{name} has no DFA of its own: give --length N (a bounded length)")
        states, symbols = task.dfa.transitions.shape
        what = f"{name}: minimising its DFA of {states} states x {symbols} symbols"
        budget.check(what, *budget.automaton(states, symbols), "give a smaller DFA")
        return minimize(task.dfa), "given"
    n = task.check_length(limits.LENGTH.check(length, "--length"))
    a = task.alphabet
    total = limits.levels_at_most(a, n, TRIE_STATE_LIMIT)  # never a huge power
    if total is None or total + 1 > TRIE_STATE_LIMIT:
        raise InputError(
            f"{name}: the prefix tree at length {n} over {a} symbols has more than "
            f"{TRIE_STATE_LIMIT} states, the limit: use a shorter --length"
        )
    total += 1  # and the sink
    sizes = [a**level for level in range(n + 1)]
    memory, work = budget.automaton(total, a, rounds=n + 2)  # a tree parts by depth in n + 2
    what = f"{name}: the minimal DFA of its word function at N = {n} ({total} states x {a} symbols)"
    budget.check(what, memory + budget.words(sizes[n], n), work + budget.evaluated(sizes[n], n),
                 "use a shorter --length")  # fmt: skip
    offsets = np.cumsum([0, *sizes])
    sink = total - 1
    table = np.full((total, a), sink, dtype=np.int64)
    for level in range(n):
        ids = np.arange(sizes[level])
        table[offsets[level] + ids] = offsets[level + 1] + ids[:, None] * a + np.arange(a)
    accepting = np.zeros(total, dtype=bool)
    words = problems.digits(np.arange(sizes[n]), a, n)
    accepting[offsets[n] : offsets[n] + sizes[n]] = task.evaluate(words) == 1
    return minimize(DFA(table, 0, accepting, tuple(str(s) for s in range(a)))), "function"


def dfa_agrees(name: str, length: int) -> bool:
    """Whether the plugin's own DFA accepts exactly the words of length ``length`` that its
    word function accepts (every word of [alphabet]^N checked; within the dense limit)."""
    task = plugins.require_task(name)
    n = task.check_length(length)
    if task.dfa is None:
        raise InputError(f"{name} has no DFA of its own")
    if not limits.power_at_most(task.alphabet, n, problems.DENSE_LIMIT):
        raise InputError(f"{name}: {task.alphabet}^{n} words exceed the dense limit")
    count = task.alphabet**n
    budget.check(f"{name}: checking its DFA on all {count} words of length {n}",
                 budget.words(count, n), budget.evaluated(count, n) + count * n,
                 "use a shorter --length")  # fmt: skip
    words = problems.digits(np.arange(task.alphabet**n), task.alphabet, n)
    return bool(np.array_equal(task.dfa.accepts(words), task.evaluate(words) == 1))


def dfa_summary(name: str, length: int | None = None) -> dict[str, Any]:
    """``ccx dfa task``: the minimal DFA's state counts, how it was obtained, and whether the
    given DFA agrees with the word function at ``length`` (when both are there)."""
    dfa, method = minimal_dfa(name, None if plugins.require_task(name).dfa else length)
    out: dict[str, Any] = {"task": name, "method": method, **state_counts(dfa)}
    if method == "function":
        out["length"] = length
    elif length is not None:
        out.update(length=length, agrees_with_function=dfa_agrees(name, length))
    out["alphabet"] = list(dfa.alphabet)
    return out


# ------------------------------------------------------------------------------ claims


GENERAL_CLAIMS: tuple[dict[str, str], ...] = (
    {
        "family": "recurrent",
        "bound_id": "separations.thm2",
        "says": "a recurrent model whose state is m numbers of p bits solving the task at "
        "length N gives a one-way protocol of m p bits at every cut K, so m p >= the one-way "
        "complexity at every cut",
        "computed_by": "ccx cc oneway --problem TASK --length N",
        "runs_on_a_model": "ccx protocol rnn",
    },
    {
        "family": "attention",
        "bound_id": "separations.thm4",
        "says": "a one-layer transformer (m per head, H heads, p bits) gives a protocol of "
        "3 m (p + log2 N) H bits for every partition, so that is >= log2 of any fooling set "
        "(Fact 4) under any partition",
        "computed_by": "ccx fooling --problem TASK --length N --partition P --exact",
        "runs_on_a_model": "ccx protocol attention",
    },
    {
        "family": "any",
        "bound_id": "separations.fact4",
        "says": "every deterministic protocol for the task under a partition sends at least "
        "ceil(log2 S) bits for a fooling set of size S",
        "computed_by": "ccx fooling --problem TASK --length N --partition P --exact",
        "runs_on_a_model": "",
    },
)
"""The general theorems that speak about any task, hence about a plugin's."""


def claims_for(name: str) -> dict[str, Any]:
    """What the toolkit can prove about plugin task ``name``: the general theorems that apply
    (with the commands that compute their side), and what it cannot conclude."""
    task = plugins.require_task(name)
    regular = (
        "a DFA is given: one-way bits at any length"
        if task.dfa is not None
        else (
            "no DFA: one-way bits by dense matrices, lengths with alphabet^N <= "
            f"{problems.DENSE_LIMIT}"
        )
    )
    return {
        "task": name,
        **{k: v for k, v in task.describe().items() if k != "task"},
        "claims": [dict(c, task=name) for c in GENERAL_CLAIMS],
        "exact_at": regular,
        "cannot_conclude": [
            "no closed-form bound in N: the bounds are computed length by length",
            "no upper bound: no construction is known to the toolkit for a plugin task",
            "trained accuracy is evidence, not proof: a bound is only the computed bits",
        ],
    }
