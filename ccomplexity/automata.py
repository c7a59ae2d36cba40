"""Deterministic finite automata: construction, execution and state counts.

A :class:`DFA` is complete (every state has a transition on every symbol) and immutable.
Symbols are integers ``0 .. alphabet_size - 1``; ``alphabet`` gives their printable names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ccomplexity import budget, limits
from ccomplexity.errors import InputError, check_int, shown
from ccomplexity.languages.dyck import dyck_alphabet
from ccomplexity.languages.kg import MatchingKG


@dataclass(frozen=True, eq=False)
class DFA:
    """A complete DFA. ``transitions[q, a]`` is the state reached from ``q`` on symbol ``a``."""

    transitions: np.ndarray
    start: int
    accepting: np.ndarray
    alphabet: tuple[str, ...]

    def __post_init__(self) -> None:
        t = np.asarray(self.transitions)
        acc = np.asarray(self.accepting, dtype=bool)
        if t.ndim != 2 or t.shape[0] == 0 or t.shape[1] == 0:
            raise InputError(
                f"transitions must be a non-empty (states, symbols) table, got {t.shape}"
            )
        if not np.issubdtype(t.dtype, np.integer):
            raise InputError("transitions must be integers")
        if t.min() < 0 or t.max() >= t.shape[0]:
            raise InputError(f"transition targets must lie in 0..{t.shape[0] - 1}")
        if acc.shape != (t.shape[0],):
            raise InputError(
                f"accepting must have one flag per state ({t.shape[0]}), got {acc.shape}"
            )
        start = check_int(self.start, "start state", 0, t.shape[0] - 1)
        if len(self.alphabet) != t.shape[1]:
            raise InputError(f"alphabet has {len(self.alphabet)} names for {t.shape[1]} symbols")
        t = t.astype(np.int64)
        t.setflags(write=False)
        acc = acc.copy()
        acc.setflags(write=False)
        object.__setattr__(self, "transitions", t)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "accepting", acc)
        object.__setattr__(self, "alphabet", tuple(self.alphabet))

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])

    @property
    def alphabet_size(self) -> int:
        return int(self.transitions.shape[1])

    def run(self, words: np.ndarray, states: np.ndarray | None = None) -> np.ndarray:
        """States reached after reading each row of ``words`` (batch, length), vectorised."""
        w = np.asarray(words)
        if w.ndim == 1:
            w = w[None, :]
        if w.size and (w.min() < 0 or w.max() >= self.alphabet_size):
            raise InputError(f"symbols must lie in 0..{self.alphabet_size - 1}")
        q = np.full(w.shape[0], self.start, dtype=np.int64) if states is None else states.copy()
        for t in range(w.shape[1]):
            q = self.transitions[q, w[:, t]]
        return q

    def accepts(self, words: np.ndarray) -> np.ndarray:
        """Membership of each row of ``words`` (batch, length) as a boolean array."""
        return self.accepting[self.run(words)]

    def reachable(self) -> np.ndarray:
        """Boolean mask of states reachable from the start state."""
        seen = np.zeros(self.n_states, dtype=bool)
        seen[self.start] = True
        frontier = np.array([self.start])
        while frontier.size:
            nxt = np.unique(self.transitions[frontier].ravel())
            frontier = nxt[~seen[nxt]]
            seen[frontier] = True
        return seen

    def coreachable(self) -> np.ndarray:
        """Boolean mask of states from which some accepting state can be reached."""
        good = self.accepting.copy()
        while True:
            new = good | good[self.transitions].any(axis=1)
            if (new == good).all():
                return good
            good = new

    def live_states(self) -> np.ndarray:
        """Boolean mask of live states: reachable and co-reachable (not a dead sink)."""
        return self.reachable() & self.coreachable()


def dyck_dfa(n_types: int, depth: int) -> DFA:
    """The complete DFA of Dyck-(n,k): states are stack contents of height <= k, plus one sink.

    State 0 is the empty stack (start, the only accepting state); the sink is the last state.
    Live states number sum_{i=0..k} n^i (7 for Dyck-(2,2)); the complete DFA has one more.
    """
    if n_types < 1 or depth < 0:
        raise InputError(
            f"Dyck-(n,k) needs n >= 1 types and depth k >= 0, got n={n_types}, k={depth}"
        )
    if limits.levels_at_most(n_types, depth, STATE_LIMIT) is None:
        raise InputError(
            f"Dyck-({n_types},{depth}) has more than {STATE_LIMIT} live states, the limit; "
            "use fewer types or a smaller depth"
        )
    states = limits.levels_at_most(n_types, depth, STATE_LIMIT)
    budget.check(
        f"the Dyck-({n_types},{depth}) automaton ({states} stacks of up to {depth} brackets)",
        *budget.dyck_automaton(n_types, depth, states or 0),
        "use fewer types or a smaller depth",
    )
    stacks: list[tuple[int, ...]] = [()]
    index: dict[tuple[int, ...], int] = {(): 0}
    for stack in stacks:  # breadth-first; the list grows while iterating
        if len(stack) < depth:
            for t in range(n_types):
                child = (*stack, t)
                index[child] = len(stacks)
                stacks.append(child)
    sink = len(stacks)
    table = np.full((sink + 1, 2 * n_types), sink, dtype=np.int64)
    for stack, q in index.items():
        for t in range(n_types):
            if len(stack) < depth:
                table[q, 2 * t] = index[(*stack, t)]
            if stack and stack[-1] == t:
                table[q, 2 * t + 1] = index[stack[:-1]]
    accepting = np.zeros(sink + 1, dtype=bool)
    accepting[0] = True
    return DFA(table, 0, accepting, dyck_alphabet(n_types))


# --- minimisation and state counts (Lemma 4 / Thm 11 proof 2; App. E "7 states") -------------

STATE_LIMIT = 1_000_000
"""Most states that the DFA constructions below build (equality, products, tries)."""

RESIDUAL_WORK_LIMIT = 1 << 28
"""Most (length + 1) * states * symbols steps that :func:`residual_counts` performs."""


def _dense(keys: np.ndarray) -> np.ndarray:
    """Relabel integer keys as 0..m-1 (equal keys, equal labels)."""
    return np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _combine(classes: np.ndarray, successors: np.ndarray) -> np.ndarray:
    """Dense labels of the rows (classes[q], successors[q, 0], successors[q, 1], ...).

    One symbol at a time, re-densifying after each so the combined key stays below n^2.
    """
    key = classes
    bound = int(successors.max()) + 1 if successors.size else 1
    for a in range(successors.shape[1]):
        key = _dense(key * bound + successors[:, a])
    return key


def _bfs_order(table: np.ndarray, start: int) -> np.ndarray:
    """States reachable from ``start`` in breadth-first discovery order, symbols in order.

    Level by level: successors of the ordered frontier, row-major, first occurrences kept,
    which is exactly the order a FIFO queue would discover them in.
    """
    seen = np.zeros(table.shape[0], dtype=bool)
    seen[start] = True
    levels = [np.array([start], dtype=np.int64)]
    frontier = levels[0]
    while frontier.size:
        nxt = table[frontier].reshape(-1)
        nxt = nxt[~seen[nxt]]
        _, first = np.unique(nxt, return_index=True)
        frontier = nxt[np.sort(first)]
        seen[frontier] = True
        levels.append(frontier)
    return np.concatenate(levels)


def minimize(dfa: DFA) -> DFA:
    """The minimal complete DFA of L(dfa), states renumbered in BFS order from the start (0).

    Unreachable states are dropped, then Moore partition refinement: start from
    {accepting, rejecting} and split classes by the tuple of successor classes until the number
    of classes stops growing (each round is a few ``np.unique`` calls; rounds <= states).
    The dead sink, if the language needs one, is kept: this is the minimal COMPLETE DFA, whose
    size is the Myhill-Nerode index used by Lemma 4 / Theorem 11 (proof 2).
    """
    keep = np.flatnonzero(dfa.reachable())
    new_id = np.full(dfa.n_states, -1, dtype=np.int64)
    new_id[keep] = np.arange(keep.size)
    table = new_id[dfa.transitions[keep]]
    accepting = dfa.accepting[keep]
    classes = _dense(accepting.astype(np.int64))
    count = int(classes.max()) + 1
    while True:
        refined = _combine(classes, classes[table])
        new_count = int(refined.max()) + 1
        if new_count == count:  # a refinement with as many classes is the same partition
            break
        classes, count = refined, new_count
    _, rep = np.unique(classes, return_index=True)  # one representative state per class
    quotient = classes[table[rep]]
    order = _bfs_order(quotient, int(classes[new_id[dfa.start]]))
    rank = np.empty(count, dtype=np.int64)
    rank[order] = np.arange(count)
    return DFA(rank[quotient[order]], 0, accepting[rep][order], dfa.alphabet)


def state_counts(dfa: DFA) -> dict[str, int]:
    """``{"states": complete minimal count, "live_states": without the dead sink}``.

    Dyck-(2,2) gives 8 and 7: the paper's "7 states" (App. E) counts live states (spec §5.10).
    """
    m = minimize(dfa)
    dead = int((~m.coreachable()).sum())  # at most one in a minimal DFA
    return {"states": m.n_states, "live_states": m.n_states - dead}


def _symbol_names(alphabet: int) -> tuple[str, ...]:
    return tuple(str(a) for a in range(alphabet))


def equality_dfa(half: int, alphabet: int) -> DFA:
    """Minimal complete DFA of {ww : w in [A]^H} (EQ on words of length 2H, Sec. 4.2 / App. F).

    Built directly: a trie over the first half (prefixes of length < H), then states "must read
    exactly r" for every remaining string r (the rest of w still to be matched), an accepting
    "done" state and a dead sink; then :func:`minimize` (which only renumbers: this is already
    minimal, with sum_{t<H} A^t + sum_{r<=H} A^r + 1 states). Refuses above :data:`STATE_LIMIT`.
    """
    h = check_int(half, "half", 0)
    a = check_int(alphabet, "alphabet", 1)
    if h > STATE_LIMIT or not limits.power_at_most(a, h, STATE_LIMIT):  # total > A^H and > H
        raise InputError(
            f"equality_dfa(half={shown(h)}, alphabet={shown(a)}) needs more than {STATE_LIMIT} "
            "states, the limit; use a smaller half or alphabet"
        )
    first = [a**t for t in range(h)]  # trie levels t = 0..H-1
    need = [a**r for r in range(h + 1)]  # "must read exactly r", |r| = 0..H
    total = sum(first) + sum(need) + 1
    if total > STATE_LIMIT:
        raise InputError(
            f"equality_dfa(half={h}, alphabet={a}) needs {total} states; the limit is {STATE_LIMIT}"
        )
    off_first = np.cumsum([0, *first])
    off_need = sum(first) + np.cumsum([0, *need])
    dead = total - 1
    table = np.full((total, a), dead, dtype=np.int64)
    for t in range(h):
        v = np.arange(first[t])
        nxt = off_first[t + 1] if t + 1 < h else off_need[h]
        table[off_first[t] + v] = nxt + v[:, None] * a + np.arange(a)[None, :]
    for r in range(1, h + 1):
        v = np.arange(need[r])
        lead, rest = v // a ** (r - 1), v % a ** (r - 1)  # next symbol, remainder after it
        table[off_need[r] + v, lead] = off_need[r - 1] + rest
    accepting = np.zeros(total, dtype=bool)
    accepting[off_need[0]] = True
    start = 0 if h else int(off_need[0])
    return minimize(DFA(table, start, accepting, _symbol_names(a)))


def complement(dfa: DFA) -> DFA:
    """The complete DFA of Sigma* minus L(dfa): same table, accepting flags flipped."""
    return DFA(dfa.transitions, dfa.start, ~dfa.accepting, dfa.alphabet)


def exact_length(dfa: DFA, length: int) -> DFA:
    """Minimal DFA of L(dfa) ∩ Sigma^N: product with a length counter 0..N, N+1 meaning "over"."""
    big_n = check_int(length, "length", 0)
    width = big_n + 2
    total = dfa.n_states * width
    if total > STATE_LIMIT:
        raise InputError(
            f"exact_length: {dfa.n_states} states x {width} lengths = {total} states; "
            f"the limit is {STATE_LIMIT}"
        )
    q = np.repeat(np.arange(dfa.n_states), width)
    lengths = np.tile(np.arange(width), dfa.n_states)
    table = dfa.transitions[q] * width + np.minimum(lengths + 1, big_n + 1)[:, None]
    accepting = dfa.accepting[q] & (lengths == big_n)
    return minimize(DFA(table, dfa.start * width, accepting, dfa.alphabet))


def inequality_dfa(half: int, alphabet: int) -> DFA:
    """Minimal DFA of INEQ on [A]^{2H}: {xy : |x| = |y| = H, x != y} (Sec. 4.2, Thm 11).

    The complement of :func:`equality_dfa` taken within Sigma^{2H} (so words of other lengths
    are rejected), minimised.
    """
    h = check_int(half, "half", 0)
    return exact_length(complement(equality_dfa(h, alphabet)), 2 * h)


def finite_language_dfa(words: Iterable[Sequence[int]], alphabet_size: int) -> DFA:
    """Minimal complete DFA accepting exactly ``words`` over symbols 0..A-1 (trie + minimise).

    The trie is built per symbol in Python (words may have different lengths); refuses tries
    of more than :data:`STATE_LIMIT` nodes.
    """
    a = check_int(alphabet_size, "alphabet_size", 1)
    children: list[list[int]] = [[-1] * a]
    accepting = [False]
    for word in words:
        q = 0
        for raw in word:
            s = check_int(raw, "symbol", 0)
            if s >= a:
                raise InputError(f"symbols must lie in 0..{a - 1}, got {s}")
            if children[q][s] < 0:
                if len(children) >= STATE_LIMIT:
                    raise InputError(f"the trie exceeds {STATE_LIMIT} nodes, the limit")
                children[q][s] = len(children)
                children.append([-1] * a)
                accepting.append(False)
            q = children[q][s]
        accepting[q] = True
    sink = len(children)
    table = np.array(children + [[sink] * a], dtype=np.int64)
    table[table < 0] = sink
    return minimize(DFA(table, 0, np.array(accepting + [False]), _symbol_names(a)))


def residual_counts(dfa: DFA, length: int) -> list[int]:
    """Myhill-Nerode classes of length-t prefixes of L ∩ Sigma^N, for t = 0..N (Thm 11 proof 2).

    Two prefixes u, u' of length t are equivalent iff {s in Sigma^{N-t} : us in L} equals the
    same set for u'. Computed on the DFA: R_t = states reachable by words of length exactly t;
    class_r[q] identifies the set of words of length exactly r accepted from q (class_0 =
    accepting; class_r = the tuple of class_{r-1} of the successors), and the count at t is
    the number of distinct class_{N-t} over R_t. Prefixes with an empty residual form one
    class. No words are enumerated. Refuses beyond :data:`RESIDUAL_WORK_LIMIT`.
    """
    big_n = check_int(length, "length", 0)
    work = (big_n + 1) * dfa.n_states * dfa.alphabet_size
    if work > RESIDUAL_WORK_LIMIT:
        raise InputError(
            f"residual_counts: (length + 1) x states x symbols = {work}; "
            f"the limit is {RESIDUAL_WORK_LIMIT}"
        )
    reach = [np.array([dfa.start], dtype=np.int64)]
    for _ in range(big_n):
        reach.append(np.unique(dfa.transitions[reach[-1]].reshape(-1)))
    counts = [0] * (big_n + 1)
    classes = _dense(dfa.accepting.astype(np.int64))
    for r in range(big_n + 1):
        if r:
            # the set for length r is the union over a of a . (set for length r-1 from q.a)
            succ = classes[dfa.transitions]
            classes = _combine(np.zeros(dfa.n_states, dtype=np.int64), succ)
        counts[big_n - r] = int(np.unique(classes[reach[big_n - r]]).size)
    return counts


TABLE_LIMIT = 1 << 22
"""Most transition-table entries (states x symbols) that :func:`kg_query_dfa` builds."""


def check_kg_query_dfa(entities: int, relations: int, hops: int | None = None) -> int | None:
    """Refuse a query DFA (:func:`kg_query_dfa`) whose table would exceed :data:`TABLE_LIMIT`
    entries, before the graph is generated; returns the word length (None: any number of hops).
    """
    e, r = entities, relations
    length = None if hops is None else check_int(hops, "hops", 0) + 2
    total = (e + 3) * (1 if length is None else length + 2)
    if total * (e + r) > TABLE_LIMIT:
        raise InputError(
            f"the query DFA has {total} states x {e + r} symbols before minimising; "
            f"the limit is {TABLE_LIMIT} entries"
        )
    rounds = total if length is None else length + 2  # layers part one round at a time
    memory, work = budget.automaton(total, e + r, rounds)
    graph_memory, graph_work = budget.kg_graph(e, r)
    budget.check(
        f"the query DFA of {total} states x {e + r} symbols (its graph included)",
        memory + graph_memory,
        work + graph_work + (e + r) * (1 << 18),  # and a fixed cost per symbol of a DFA
        "use fewer entities, relations or hops",
    )
    return length


def kg_query_dfa(kg: MatchingKG, hops: int | None = None) -> DFA:
    """Minimal complete DFA of the path queries of ``kg`` with their answers (layer-looping
    paper, Sec. 4): the words e r_1 .. r_q a with a = pi_{r_q}(... pi_{r_1}(e)), over the E
    entity symbols then the R relation symbols; q >= 0 hops, or exactly ``hops``.

    Built from the permutations: a start state, one state per current entity (relations move
    it by pi_r, reading a entity accepts iff it is the current one), an accepting state and a
    dead sink; :func:`minimize` then keeps what the language distinguishes. Entities u != v stay
    apart (u accepts the answer u), so E + 3 states remain for any matching graph, and
    (q + 1) E + 3 with the hop count fixed: the current entity is what a model reading the
    query must carry, ceil(log2 E) bits. Refuses tables beyond :data:`TABLE_LIMIT` entries.
    """
    e, r = kg.entities, kg.relations
    n_states = e + 3
    length = check_kg_query_dfa(e, r, hops)
    start, accept, dead = e, e + 1, e + 2  # entity states are 0..E-1
    table = np.full((n_states, e + r), dead, dtype=np.int64)
    table[start, :e] = np.arange(e)
    table[np.arange(e), np.arange(e)] = accept
    table[:e, e:] = kg.permutations.T  # from entity u on relation r: pi_r(u)
    accepting = np.zeros(n_states, dtype=bool)
    accepting[accept] = True
    names = tuple(f"e{i}" for i in range(e)) + tuple(f"r{i}" for i in range(r))
    dfa = DFA(table, start, accepting, names)
    return minimize(dfa) if length is None else exact_length(dfa, length)
