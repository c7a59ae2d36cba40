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
import time
from typing import Any

import numpy as np

from ccomplexity import budget, limits, plugins, problems
from ccomplexity.automata import DFA, minimize, state_counts
from ccomplexity.errors import InputError, shown
from ccomplexity.lower_bounds.automaton import Machine, function_machine, price


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


# ------------------------------------------------------------------------------ automata

PROBE_SYMBOLS = 1 << 16
"""Most symbols of the probe batch that prices a word function (:func:`seconds_per_word`)."""


def seconds_per_word(name: str, length: int) -> float:
    """Seconds the word function of plugin task ``name`` takes per word of length N, measured on
    a probe batch of uniform words (at most 4096 words and :data:`PROBE_SYMBOLS` symbols, at
    least one word):
    the user's code has no formula, so its cost is timed before a command commits to it."""
    task = plugins.require_task(name)
    count = max(1, min(4096, PROBE_SYMBOLS // length))
    words = np.random.default_rng(0).integers(0, task.alphabet, (count, length))
    took = []
    for _ in range(2):  # the faster of two: the first may pay for a warm-up
        start = time.perf_counter()
        task.evaluate(words)
        took.append(time.perf_counter() - start)
    return min(took) / count


def price_words(
    name: str, length: int, words: int, what: str, instead: str, memory: int | None = None
) -> None:
    """Refuse ``what`` (one line, the estimate in it) when evaluating the word function of
    ``name`` on ``words`` words of length N exceeds the budget: first from the count alone (so
    that 2^1000 words are refused without running anything), then at the speed measured on a
    probe batch. ``memory``: what is held at once (default: 48 bytes a word, an automaton's
    levels)."""
    floor = words * (length * 4 + 64)
    held = words * 48 if memory is None else memory
    budget.check(f"{what} ({budget.count_text(words)} words)", held, floor, instead)
    seconds = seconds_per_word(name, length) * words
    budget.check(
        f"{what} ({budget.count_text(words)} words, about {seconds:.3g} s at the speed "
        "measured on a probe batch)",
        0,
        floor + budget.measured(seconds),
        instead,
    )


def task_machine(name: str, length: int, what: str) -> tuple[Machine, str]:
    """The automaton the exact methods work on, priced first, and how it was obtained:
    ``"dfa"``, the plugin's DFA minimised (its language at every length, any N for the same
    cost), or ``"function"``, the minimal automaton of the word function at exactly N, built
    from the value of every word of [alphabet]^N (:func:`~ccomplexity.lower_bounds.automaton.
    function_machine`)."""
    task = plugins.require_task(name)
    n = task.check_length(limits.LENGTH.check(length, "--length"))
    if task.dfa is not None:
        machine = Machine.from_dfa(task.dfa)
        price(machine, n, what)
        return machine, "dfa"
    return function_automaton(name, n, what), "function"


def function_automaton(name: str, length: int, what: str) -> Machine:
    """The minimal automaton of the word function of ``name`` at exactly N (every word of
    [alphabet]^N evaluated once), priced first (:func:`price_words`)."""
    task = plugins.require_task(name)
    a, n = task.alphabet, length
    instead = "use a shorter --length" + ("" if task.dfa else ", or give the task a dfa=")
    what = f"{what}: the word function of {name} on all {a}^{n} words"
    if not limits.power_at_most(a, n, 1 << 62):
        raise InputError(f"{what} (more than 2^62) is far over the budget: {instead}")
    price_words(name, n, a**n, what, instead)
    return function_machine(task.evaluate, a, n)


def minimal_dfa(name: str, length: int | None = None) -> tuple[DFA, str]:
    """The minimal complete DFA of the task and how it was obtained: from the plugin's DFA
    (``"given"``; its language is the task's at every length), or from the word function at
    exactly ``length`` (``"function"``: the minimal automaton of the values of all words of
    length N, :func:`task_machine`, with the states whose words are all rejected merged into
    one sink; a DFA for L ∩ Sigma^N)."""
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
    machine = function_automaton(name, n, "dfa task")
    names = tuple(str(s) for s in range(task.alphabet))
    return minimize(DFA(machine.table, 0, machine.output == 1, names)), "function"


def dfa_agrees(name: str, length: int) -> bool:
    """Whether the plugin's own DFA accepts exactly the words of length ``length`` that its
    word function accepts (every word of [alphabet]^N checked; within the dense limit)."""
    task = plugins.require_task(name)
    n = task.check_length(length)
    if task.dfa is None:
        raise InputError(f"{name} has no DFA of its own")
    if not limits.power_at_most(task.alphabet, n, problems.DENSE_LIMIT):
        raise InputError(f"{name}: {task.alphabet}^{n} words exceed the dense limit")
    what = f"{name}: checking its DFA on all {task.alphabet}^{n} words"
    price_words(name, n, task.alphabet**n, what, "use a shorter --length")
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
        "bound": "one-way",
        "layers": "any",
        "runs_on_a_model": "ccx protocol rnn",
    },
    {
        "family": "attention",
        "bound_id": "separations.thm4",
        "says": "a one-layer transformer (m per head, H heads, p bits) gives a protocol of "
        "3 m (p + log2 N) H bits for every partition, so that is >= log2 of any fooling set "
        "(Fact 4) under any partition; thresholds compare the fooling set under prefix:N/2 "
        "with the bits of the single-output protocol that ccx protocol attention runs",
        "computed_by": "ccx fooling --problem TASK --length N --partition prefix:N/2",
        "bound": "fooling",
        "layers": "1",
        "runs_on_a_model": "ccx protocol attention",
    },
    {
        "family": "any",
        "bound_id": "separations.fact4",
        "says": "every deterministic protocol for the task under a partition sends at least "
        "ceil(log2 S) bits for a fooling set of size S",
        "computed_by": "ccx fooling --problem TASK --length N --partition P --exact",
        "bound": "fooling",
        "layers": "any",
        "runs_on_a_model": "",
    },
)
"""The general theorems that speak about any task, hence about a plugin's."""


def claims_for(name: str) -> dict[str, Any]:
    """What the toolkit can prove about plugin task ``name``: the general theorems that apply
    (with the commands that compute their side), and what it cannot conclude."""
    task = plugins.require_task(name)
    regular = (
        "a DFA is given: one-way bits at every cut and the maximum fooling set under prefix:K "
        "at any length, from the automaton"
        if task.dfa is not None
        else (
            "no DFA: one-way bits and fooling sets under prefix:K from the automaton of the "
            "word function at N, at lengths where alphabet^N words can be evaluated within "
            "the budget"
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
