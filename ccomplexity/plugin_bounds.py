"""Lower bounds on a plugin task (:mod:`ccomplexity.plugins`) at the lengths a user cares about,
each priced before it starts.

- One-way complexity (Thm 2 of the separations paper): at every cut at once
  (:func:`one_way_per_cut`) or at one cut with a witness (:func:`one_way_at`), from the task's
  automaton (:func:`ccomplexity.plugin_problems.task_machine`): its own DFA at any N, the work
  set by the DFA and not by N, else the minimal automaton of its word function at exactly N.
- Fooling sets (Def. 1, Fact 4; :func:`fooling_set`), by the first method that applies: under
  ``prefix:K`` with a DFA, the exact maximum from the automaton
  (:mod:`~ccomplexity.lower_bounds.automaton`); with ``exact``, the clique search on the dense
  matrix (or from the automaton of the word function at N under ``prefix:K`` when the matrix is
  too large); else the plugin's own construction (``fooling=`` of ``@task``); else a greedy set,
  on the dense matrix when it is small, on sampled words (seeded) when it is not.

Whatever produced a set, it is checked by evaluating the word function on every pair (never by
trusting the method), and its certificate lists the words, which ``ccx verify`` evaluates again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ccomplexity import budget, certificates, plugins, problems
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2
from ccomplexity.lower_bounds import automaton
from ccomplexity.lower_bounds.fooling import verify_fooling_words
from ccomplexity.lower_bounds.max_fooling import MAX_FOOLING_ENTRY_LIMIT, max_fooling_set
from ccomplexity.plugin_problems import price_words, problem, seconds_per_word, task_machine

SAMPLE_WORDS = 1024
"""Most words the sampled greedy fooling set draws (their cross matrix is evaluated whole)."""
PROGRESS_SECONDS = 1.0
"""A length whose bound takes this long is reported to :func:`bound_profile`'s ``progress``."""
CERTIFIED_PAIRS = 8192
"""Most pairs of an explicit fooling-set certificate (``certificates.MAX_PAIRWISE``)."""


def _check_length(name: str, length: int) -> int:
    n = plugins.require_task(name).check_length(length)
    if n < 2:
        raise InputError(f"{name}: a cut needs length >= 2, got {n}")
    return n


# ------------------------------------------------------------------------------ one way


def one_way_per_cut(name: str, length: int) -> tuple[list[dict[str, Any]], str]:
    """The exact one-way complexity Alice -> Bob at every cut K = 1..N-1 (Alice holds s_1..s_K)
    as runs of cuts with equal counts, [{"cuts": [first K, last K], "distinct_rows", "bits"}],
    and the automaton's origin ("dfa" or "function"). Thm 2: a recurrent model whose state is m
    numbers of p bits solves the task at N only if m p >= these bits at every K."""
    n = _check_length(name, length)
    machine, method = task_machine(name, n, f"cc oneway on {name} at N = {n}")
    runs = automaton.one_way_runs(machine, n)
    out = [{"cuts": [lo, hi], "distinct_rows": c, "bits": ceil_log2(c)} for lo, hi, c in runs]
    return out, method


BOUND_KINDS = {
    "one-way": "the most one-way bits over the cuts at N (what a recurrent state must carry)",
    "fooling": "ceil(log2 S) of a verified fooling set under prefix:N/2 (what any protocol "
    "under that partition sends)",
}
"""What :func:`bound_profile` computes at each length, by kind."""


def bound_profile(
    name: str,
    kind: str,
    lengths: list[int],
    progress: Callable[[str], None] | None = None,
) -> dict[int, dict[str, Any]]:
    """At each of ``lengths`` the task is defined at: {"bits", "method"} of kind ``kind`` (see
    :data:`BOUND_KINDS`), or {"refused": the one line} where its price is over the budget (so
    a length is never silently missing). ``progress`` is told, in a line, each length that took
    :data:`PROGRESS_SECONDS` or more."""
    task = plugins.require_task(name)
    if kind not in BOUND_KINDS:
        raise InputError(f"bound kind must be one of {', '.join(BOUND_KINDS)}, got {kind!r}")
    wanted = [n for n in sorted(set(lengths)) if max(2, task.lengths[0]) <= n <= task.lengths[1]]
    out: dict[int, dict[str, Any]] = {}
    for i, n in enumerate(wanted):
        start = time.perf_counter()
        try:
            if kind == "one-way":
                runs, origin = one_way_per_cut(name, n)
                out[n] = {"bits": max(r["bits"] for r in runs), "method": f"automaton ({origin})"}
            else:
                found = fooling_set(name, n, f"prefix:{n // 2}")[0]
                if not found["verified"]:  # a construction that fails is no bound
                    raise InputError(f"the fooling set does not verify: {found['reason']}")
                out[n] = {"bits": found["bits"], "method": found["method"]}
        except InputError as err:
            out[n] = {"refused": str(err)}
        took = time.perf_counter() - start
        if progress is not None and took >= PROGRESS_SECONDS:
            shown = out[n].get("bits", "not computed")
            progress(
                f"[{i + 1}/{len(wanted)}] {kind} bound of {name} at N = {n}: {shown} ({took:.1f} s)"
            )
    return out


def one_way_at(name: str, length: int, cut: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """One-way complexity at the cut after ``cut`` symbols from the automaton, with its witness
    (one prefix per distinct row, suffixes that tell them apart) checked on the word function:
    (result, certificate)."""
    n = _check_length(name, length)
    prob = problem(name, n, f"prefix:{cut}")
    machine, method = task_machine(name, n, f"cc oneway on {name} at N = {n}")
    xs, ys = automaton.one_way_witness(automaton.split_at(machine, n, cut))
    x, y = np.array(xs, dtype=np.int64), np.array(ys, dtype=np.int64)
    price_evaluations(name, n, len(x) * len(y), f"checking the witness of {len(x)} rows")
    sub = _cross(prob, x, y)
    if len(np.unique(sub, axis=0)) != len(x):
        if method != "dfa":
            raise RuntimeError(f"{name}: the automaton's one-way witness does not check")  # a bug
        raise InputError(
            f"the dfa= of task {name} does not accept its language: its {len(x)} rows at cut "
            f"{cut} are not told apart by the word function (ccx dfa task {name} --length N "
            "compares them)"
        )
    result = {**prob.describe(), "method": f"automaton ({method})", "distinct_rows": len(x)}
    result["bits"] = ceil_log2(len(x))
    return result, certificates.one_way_words_certificate(prob, x, y)


def _cross(prob: problems.TwoPartyProblem, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """f(x_i, y_j) for every i, j, in chunks of bounded symbols."""
    rows = np.repeat(np.arange(len(x)), len(y))
    cols = np.tile(np.arange(len(y)), len(x))
    step = max(1, (1 << 22) // (x.shape[1] + y.shape[1]))
    out = np.empty(len(rows), dtype=np.int8)
    for s in range(0, len(rows), step):
        out[s : s + step] = prob.on_words(x[rows[s : s + step]], y[cols[s : s + step]])
    return out.reshape(len(x), len(y))


def price_evaluations(name: str, length: int, words: int, what: str) -> None:
    """Refuse (one line, with the estimate) evaluating the word function of ``name`` on
    ``words`` words of length N beyond the budget, at the speed measured on a probe batch."""
    chunk = budget.words(min(words, max(1, (1 << 22) // length)), length)
    price_words(
        name,
        length,
        words,
        f"{what}: the word function of {name} at N = {length}",
        "use a shorter --length",
        chunk,
    )


# ------------------------------------------------------------------------------ fooling sets


def fooling_set(
    name: str,
    length: int,
    partition: str | None,
    *,
    exact: bool = False,
    seconds: float | None = None,
    nodes: int | None = None,
    seed: int = 0,
    certificate: bool = False,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A fooling set of the plugin task ``name`` at length N under ``partition`` (default
    ``prefix:N//2``), verified on the word function: (result, certificate or None). The
    result holds the ``method`` (see the module docstring), ``size``, ``value``, ``bits`` =
    ceil(log2 size), ``verified``, and ``exact`` with ``upper_bound`` where a search gives them
    (``exact`` False for a construction or a greedy set: their size is only a lower bound)."""
    task = plugins.require_task(name)
    prob = problem(name, length, partition)
    n, part = int(prob.params["length"]), prob.partition
    result: dict[str, Any] = prob.describe()
    prefix = part.spec.startswith("prefix:")
    dense = prob.n_rows * prob.n_cols <= MAX_FOOLING_ENTRY_LIMIT
    if prefix and (task.dfa is not None or (exact and not dense)):
        x, y, value = _from_automaton(name, n, len(part.alice), seconds, nodes, result)
    elif exact or (task.fooling is None and dense):
        x, y, value = _dense_search(name, prob, exact, seconds, nodes, result)
    else:
        found = _construction(task, n, part) if task.fooling is not None else None
        if found is not None:
            x, y = found
            value = int(prob.on_words(x[:1], y[:1])[0])
            result.update(method="construction", exact=False)
        elif dense:
            x, y, value = _dense_search(name, prob, False, None, None, result)
        else:
            x, y, value = _sampled(task, prob, seed, result)
    price_evaluations(name, n, len(x) * len(x), f"verifying {len(x)} pairs")
    check = verify_fooling_words(prob, x, y, value)
    result.update(size=check.size, value=value, verified=check.valid, bits=ceil_log2(check.size))
    if not check.valid:
        result["reason"] = check.reason
    cert = None
    if certificate:
        if not check.valid:
            raise InputError("no certificate written: the fooling set did not verify")
        cert = certificates.fooling_words_certificate(prob, x, y, value)
    return result, cert


def _from_automaton(
    name: str,
    n: int,
    cut: int,
    seconds: float | None,
    nodes: int | None,
    result: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, int]:
    """The maximum fooling set under prefix:cut, from the task's automaton."""
    machine, origin = task_machine(name, n, f"fooling on {name} at N = {n}")
    split = automaton.split_at(machine, n, cut)
    size = min(split.matrix.shape)
    budget.check(
        f"fooling on {name} at N = {n}: up to {size} pairs of words of length {n}",
        budget.words(2 * size, n, copies=2),
        2 * size * n * 8,
        "use a shorter --length",
    )
    found = automaton.max_fooling_at(split, seconds, nodes)
    result.update(method=f"automaton ({origin})", exact=found.exact)
    result.update(upper_bound=found.upper_bound, nodes=found.nodes)
    return np.array(found.prefixes), np.array(found.suffixes), found.value


def _dense_search(
    name: str,
    prob: problems.TwoPartyProblem,
    exact: bool,
    seconds: float | None,
    nodes: int | None,
    result: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, int]:
    """The clique search on the dense matrix: exact (within ``seconds`` / ``nodes``), or its
    greedy start improved locally (one node)."""
    if prob.n_rows * prob.n_cols > MAX_FOOLING_ENTRY_LIMIT:
        raise InputError(
            f"the exact maximum fooling set materialises the matrix: limited to "
            f"{MAX_FOOLING_ENTRY_LIMIT} entries, got {budget.count_text(prob.n_rows)} x "
            f"{budget.count_text(prob.n_cols)}; under prefix:K it comes from the task's automaton"
            "; without --exact: the plugin's construction (fooling= of @task) or a seeded "
            "greedy set on sampled words"
        )
    price_evaluations(name, int(prob.params["length"]), prob.n_rows * prob.n_cols, "the matrix")
    found = max_fooling_set(prob, seconds=seconds, nodes=nodes if exact else 1)
    result.update(method="exact-clique" if exact else "greedy", exact=found.exact)
    result.update(upper_bound=found.upper_bound)
    if exact:
        result["nodes"] = found.nodes
    return prob.alice_inputs(found.rows), prob.bob_inputs(found.cols), found.value


def most_pairs(name: str, length: int) -> int:
    """The most pairs a set at length N may have and still be checked by ``ccx verify`` within
    the work budget (S^2 words evaluated), at most :data:`CERTIFIED_PAIRS`."""
    per_word = budget.evaluated(1, length)
    return max(1, min(CERTIFIED_PAIRS, math.isqrt(budget.work_budget() // per_word)))


def _construction(
    task: plugins.TaskDefinition, n: int, part: problems.Partition
) -> tuple[np.ndarray, np.ndarray] | None:
    """The plugin's own fooling set, split into Alice's and Bob's words; None where it has
    none for this partition. Its output is data to check: shape, symbols, size."""
    most = most_pairs(task.name, n)
    where = f"task {task.name} ({task.source}): its fooling construction"
    try:
        words = task.fooling(n, part.alice, most)
    except InputError:
        raise
    except Exception as err:  # the user's code: one line
        raise InputError(f"{where} failed: {type(err).__name__}: {err}") from None
    if words is None:
        return None
    w = np.asarray(words)
    if w.ndim != 2 or w.shape[1] != n or not 1 <= len(w) <= most:
        raise InputError(
            f"{where} returned shape {w.shape}: it must return 1..{most} words of length {n}"
        )
    if not np.issubdtype(w.dtype, np.integer) or w.min() < 0 or w.max() >= task.alphabet:
        raise InputError(f"{where} must return integer symbols in 0..{task.alphabet - 1}")
    w = w.astype(np.int64)
    return w[:, list(part.alice)], w[:, list(part.bob)]


def _sampled(
    task: plugins.TaskDefinition,
    prob: problems.TwoPartyProblem,
    seed: int,
    result: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray, int]:
    """A greedy fooling set among sampled words: W words (half from the plugin's sampler when
    it has one, the rest uniform, from ``seed``) give W Alice halves and W Bob halves; their
    W x W submatrix is evaluated, and for each value the words' own cells are taken in order,
    each when it crosses none taken (a fooling set of a submatrix is one of the matrix)."""
    n = int(prob.params["length"])
    per_word = seconds_per_word(task.name, n)
    affordable = math.isqrt(max(1, budget.work_budget() // budget.measured(per_word)))
    w = max(2, min(SAMPLE_WORDS, affordable))
    rng = np.random.default_rng(seed)
    words = rng.integers(0, task.alphabet, (w, n), dtype=np.int64)
    if task.sampler is not None:
        where = f"task {task.name} ({task.source}): its sampler"
        try:
            drawn = np.asarray(task.sampler(w // 2, n, rng))
        except Exception as err:  # the user's code: one line
            raise InputError(f"{where} failed: {type(err).__name__}: {err}") from None
        if (
            drawn.shape != (w // 2, n)
            or not np.issubdtype(drawn.dtype, np.integer)
            or drawn.min() < 0
            or drawn.max() >= task.alphabet
        ):
            raise InputError(
                f"{where} must return {w // 2} words of {n} symbols in 0..{task.alphabet - 1}"
            )
        words[: w // 2] = drawn
    x, y = words[:, list(prob.partition.alice)], words[:, list(prob.partition.bob)]
    price_evaluations(task.name, n, w * w, f"the sampled {w} x {w} submatrix")
    sub = _cross(prob, x, y)
    best: list[int] = []
    for value in np.unique(np.diagonal(sub)).tolist():
        hit = sub == value
        chosen: list[int] = []
        for i in np.flatnonzero(np.diagonal(sub) == value).tolist():
            if not (hit[i, chosen] & hit[chosen, i]).any():
                chosen.append(i)
        if len(chosen) > len(best):
            best = chosen
    result.update(method="sampled-greedy", exact=False, seed=seed, sampled=w)
    return x[best], y[best], int(sub[best[0], best[0]])
