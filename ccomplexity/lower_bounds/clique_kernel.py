"""The compiled kernel of the maximum fooling set search: a bitset maximum-clique branch and
bound on fixed-width bitsets (rows of uint64 words), resumable, compiled by numba.

numba is a dependency for this kernel alone: the same search in Python on arbitrary-precision
ints spends ~200 us per node, here a node costs ~1-5 us (measured in
``benchmarks/max_fooling.py``). It is imported only when an exact fooling set is searched, and
the machine code is cached on disk (``cache=True``), so the first call of a fresh install pays
the compilation once (a few seconds) and later processes load it.

Graph: vertex v is a cell; bit u of ``adj[v]`` says cells u and v do not cross (an edge of the
compatibility graph). The search keeps one frame per depth: the candidates ``P[d]``, the
vertices to branch on ``V[d, :n]`` with their colours ``C[d, :n]`` (non-decreasing) and the
next index ``top[d]``, so that it can stop after a number of nodes and resume where it was.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ONE = np.uint64(1)
M1 = np.uint64(0x5555555555555555)
M2 = np.uint64(0x3333333333333333)
M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
H01 = np.uint64(0x0101010101010101)

# Fields of the int64 ``state`` array shared with the caller.
DEPTH, NODES, BEST, ROOT_COLOUR, STAMP = range(5)
PAUSED, FINISHED = 0, 1
FREE, UNIT, CONSUMED = 0, 1, 2  # kept classes in the MaxSAT reasoning


@njit(cache=True)
def popcount(x: np.uint64) -> int:
    x = x - ((x >> ONE) & M1)
    x = (x & M2) + ((x >> np.uint64(2)) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return int((x * H01) >> np.uint64(56))


@njit(cache=True)
def lowest(x: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero word."""
    return popcount((x & (~x + ONE)) - ONE)


@njit(cache=True)
def _crossing_count(adj_v: np.ndarray, cls: np.ndarray) -> tuple[int, int]:
    """How many vertices of class ``cls`` are adjacent to v (0, 1 or 2 meaning >= 2), and the
    one when there is exactly one."""
    found = -1
    for t in range(cls.shape[0]):
        h = adj_v[t] & cls[t]
        if h:
            if found >= 0 or h & (h - ONE):
                return 2, -1
            found = t * 64 + lowest(h)
    return (0, -1) if found < 0 else (1, found)


@njit(cache=True)
def _disjoint(a: np.ndarray, b: np.ndarray) -> bool:
    for t in range(a.shape[0]):  # noqa: SIM110 (a loop compiles; all() of a generator not)
        if a[t] & b[t]:
            return False
    return True


@njit(cache=True)
def _lines_exceed(p, row_of, col_of, row_mark, col_mark, state, kmin) -> bool:
    """Whether ``p`` meets more than ``kmin`` rows and more than ``kmin`` columns (each a class
    of pairwise crossing cells, so a clique in ``p`` has at most min(#rows, #cols) cells)."""
    state[STAMP] += 1
    stamp = state[STAMP]
    nr = 0
    nc = 0
    for w in range(p.shape[0]):
        x = p[w]
        while x:
            v = w * 64 + lowest(x)
            x &= x - ONE
            r = row_of[v]
            if row_mark[r] != stamp:
                row_mark[r] = stamp
                nr += 1
            c = col_of[v]
            if col_mark[c] != stamp:
                col_mark[c] = stamp
                nc += 1
            if nr > kmin and nc > kmin:
                return True
    return False


@njit(cache=True)
def colour(adj, p, kmin, verts, colours, classes, scratch, lines, reasoning) -> int:
    """Greedy colouring of ``p`` into classes of pairwise crossing cells; writes the vertices
    of colour > ``kmin`` (the only ones that can beat the incumbent here) with their colours,
    non-decreasing, and returns how many.

    Re-NUMBER (MCS): a vertex above ``kmin`` crossing all of a class i <= ``kmin`` but one cell
    w that fits in another class j <= ``kmin`` takes w's place. ``lines`` = (row_of, col_of,
    row_mark, col_mark, state): when ``p`` meets at most ``kmin`` rows or columns, nothing is
    left to branch on. ``scratch`` holds three words rows: uncoloured, members, queue.
    """
    row_of, col_of, row_mark, col_mark, state = lines
    if kmin > 0 and not _lines_exceed(p, row_of, col_of, row_mark, col_mark, state, kmin):
        return 0
    uncoloured, members, queue = scratch[0], scratch[1], scratch[2]
    n_words = p.shape[0]
    uncoloured[:] = p
    n_classes = 0
    n = 0
    start = 0
    while start < n_words:
        if uncoloured[start] == 0:
            start += 1
            continue
        members[:] = 0
        queue[start:] = uncoloured[start:]
        for w in range(start, n_words):
            while queue[w]:
                x = queue[w]
                low = x & (~x + ONE)
                v = w * 64 + lowest(x)
                members[w] |= low
                queue[w] = x & ~low & ~adj[v, w]
                for t in range(w + 1, n_words):
                    queue[t] &= ~adj[v, t]
        for t in range(start, n_words):
            uncoloured[t] &= ~members[t]
        if n_classes < kmin:
            classes[n_classes] = members
            n_classes += 1
            continue
        for w in range(start, n_words):
            x = members[w]
            while x:
                low = x & (~x + ONE)
                x ^= low
                v = w * 64 + lowest(low)
                for i in range(kmin):
                    hits, u = _crossing_count(adj[v], classes[i])
                    if hits == 0:  # an earlier move made room for v in class i
                        classes[i, w] |= low
                        members[w] ^= low
                        break
                    if hits == 1:
                        bit_u = ONE << np.uint64(u & 63)
                        for j in range(kmin):
                            if j != i and _disjoint(adj[u], classes[j]):
                                classes[i, u >> 6] ^= bit_u
                                classes[i, w] |= low
                                classes[j, u >> 6] |= bit_u
                                members[w] ^= low
                                break
                        if members[w] & low == 0:
                            break
        added = False
        for w in range(start, n_words):
            x = members[w]
            while x:
                verts[n] = w * 64 + lowest(x)
                colours[n] = n_classes + 1
                n += 1
                x &= x - ONE
                added = True
        if added:
            n_classes += 1
    return maxsat_prune(adj, kmin, verts, colours, n, classes, reasoning)


@njit(cache=True)
def _inconsistent(adj, v, kmin, classes, reasoning) -> bool:
    """Unit propagation from v over the free kept classes (MaxCLQ-style MaxSAT reasoning).

    True when some class keeps no vertex adjacent to v and to the vertices forced so far: no
    clique takes v and one vertex of each class the refutation used, and exactly those classes
    (followed back from the empty one through the units that emptied it) are marked consumed.
    Unit f (0 = v itself) is vertex ``unit_vertex[f]`` of class ``unit_class[f]``, forced by
    the units in the bit mask ``reason[f]``; ``removed_by[j]`` masks the units that removed
    vertices from class j.
    """
    reduced, flag, unit_vertex, unit_class, removed_by, reason = reasoning
    n_words = adj.shape[1]
    for j in range(kmin):
        if flag[j] == FREE:
            reduced[j] = classes[j]
            removed_by[j] = 0
    unit_vertex[0] = v
    n_units = 1
    head = 0
    conflict = -1
    while head < n_units and conflict < 0:
        u = unit_vertex[head]
        own = unit_class[head] if head > 0 else -1
        by = ONE << np.uint64(head)
        head += 1
        for j in range(kmin):
            if flag[j] == CONSUMED or j == own:
                continue
            only = -1
            count = 0
            for t in range(n_words):
                x = reduced[j, t]
                y = x & adj[u, t]
                if y != x:
                    removed_by[j] |= by
                    reduced[j, t] = y
                if y:
                    count += popcount(y)
                    only = t * 64 + lowest(y)
            if count == 0:
                conflict = j
                break
            if count == 1 and flag[j] == FREE and n_units < 64:
                flag[j] = UNIT
                unit_vertex[n_units] = only
                unit_class[n_units] = j
                reason[n_units] = removed_by[j]
                n_units += 1
    used = removed_by[conflict] if conflict >= 0 else np.uint64(0)
    for f in range(n_units - 1, 0, -1):
        if used >> np.uint64(f) & ONE:
            used |= reason[f]
    for f in range(1, n_units):
        flag[unit_class[f]] = CONSUMED if used >> np.uint64(f) & ONE else FREE
    if conflict >= 0:
        flag[conflict] = CONSUMED
    return conflict >= 0


@njit(cache=True)
def maxsat_prune(adj, kmin, verts, colours, n, classes, reasoning) -> int:
    """Drop from the branching list the vertices v for which {v} and some free kept classes are
    inconsistent (each set disjoint from the others'): the kept classes and the dropped
    vertices then still bound a clique by ``kmin``. The kept branching vertices get the bound
    ``kmin`` + the number of distinct colours kept up to them. Returns how many are kept."""
    if kmin == 0 or n == 0:
        return n
    flag = reasoning[1]
    flag[:kmin] = 0
    free = kmin
    kept = 0
    distinct = 0
    last = -1
    for i in range(n):
        v = verts[i]
        if free >= 1 and _inconsistent(adj, v, kmin, classes, reasoning):
            free = 0
            for j in range(kmin):
                free += flag[j] == 0
            continue
        if colours[i] != last:
            last = colours[i]
            distinct += 1
        verts[kept] = v
        colours[kept] = kmin + distinct
        kept += 1
    return kept


@njit(cache=True)
def search(adj, frames, best_clique, classes, scratch, lines, reasoning, node_limit) -> int:
    """Run the branch and bound until it is finished (returns FINISHED) or has expanded
    ``node_limit`` nodes in all (returns PAUSED; call again to resume).

    ``frames`` = (P, V, C, top, chosen); ``lines[4]`` is the ``state`` array: depth (frames
    open; 0 = not started), nodes, the incumbent's size (read and raised: ``best_clique``
    then holds its vertices), the colour of the root vertex in progress (every clique through
    a root vertex of higher colour has been examined), and a stamp for ``lines``' marks.
    """
    P, V, C, top, chosen = frames
    state = lines[4]
    if state[DEPTH] == 0:
        top[0] = colour(adj, P[0], state[BEST], V[0], C[0], classes, scratch, lines, reasoning) - 1
        state[ROOT_COLOUR] = C[0, top[0]] if top[0] >= 0 else state[BEST]
        state[DEPTH] = 1
    while state[DEPTH] > 0:
        d = state[DEPTH] - 1
        i = top[d]
        if i < 0 or C[d, i] + d <= state[BEST]:
            state[DEPTH] = d
            continue
        if state[NODES] >= node_limit:
            return PAUSED
        if d == 0:
            state[ROOT_COLOUR] = C[0, i]
        v = V[d, i]
        top[d] = i - 1
        P[d, v >> 6] &= ~(ONE << np.uint64(v & 63))
        chosen[d] = v
        empty = True
        for t in range(P.shape[1]):
            P[d + 1, t] = P[d, t] & adj[v, t]
            if P[d + 1, t]:
                empty = False
        if empty:
            if d + 1 > state[BEST]:
                state[BEST] = d + 1
                best_clique[: d + 1] = chosen[: d + 1]
            continue
        state[NODES] += 1
        kmin = max(state[BEST] - d - 1, 0)
        top[d + 1] = (
            colour(adj, P[d + 1], kmin, V[d + 1], C[d + 1], classes, scratch, lines, reasoning) - 1
        )
        state[DEPTH] = d + 2
    return FINISHED


@njit(cache=True)
def _has_edge(adj, u, v) -> bool:
    return (adj[u, v >> 6] >> np.uint64(v & 63)) & ONE != 0


@njit(cache=True)
def local_search(adj, start, steps, seed) -> np.ndarray:
    """A large clique by local search from the clique ``start``, for a warm start: add a
    vertex adjacent to the whole clique when one exists, else swap in a vertex non-adjacent to
    exactly one member (which becomes tabu for a few steps), else drop a random member. Plain
    xorshift random numbers from ``seed``, so a run is reproducible. Returns the best clique."""
    k = adj.shape[0]
    inside = np.zeros(k, dtype=np.bool_)
    missing = np.zeros(k, dtype=np.int32)  # members a vertex is not adjacent to
    tabu = np.zeros(k, dtype=np.int64)
    members = np.zeros(k, dtype=np.int32)
    size = 0
    best = start.copy()
    state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | ONE
    for step in range(-len(start), steps):
        state ^= state << np.uint64(13)
        state ^= state >> np.uint64(7)
        state ^= state << np.uint64(17)
        if step < 0:
            v = start[step + len(start)]
        else:
            v = -1
            seen = 0
            for need in range(2):
                for u in range(k):
                    if not inside[u] and missing[u] == need and tabu[u] <= step:
                        seen += 1
                        if (state >> np.uint64(11)) % np.uint64(seen) == 0:
                            v = u
                        state ^= state << np.uint64(13)
                        state ^= state >> np.uint64(7)
                        state ^= state << np.uint64(17)
                if v >= 0:
                    break
            if v < 0 or missing[v] == 1:
                # drop the one member v is not adjacent to, or a random member when stuck
                drop = -1
                if v >= 0:
                    for i in range(size):
                        if not _has_edge(adj, v, members[i]):
                            drop = i
                elif size > 0:
                    drop = np.int64((state >> np.uint64(11)) % np.uint64(size))
                if drop >= 0:
                    w = members[drop]
                    members[drop] = members[size - 1]
                    size -= 1
                    inside[w] = False
                    tabu[w] = step + 7 + np.int64((state >> np.uint64(20)) % np.uint64(8))
                    for u in range(k):
                        if u != w and not _has_edge(adj, w, u):
                            missing[u] -= 1
                if v < 0:
                    continue
        inside[v] = True
        members[size] = v
        size += 1
        for u in range(k):
            if u != v and not _has_edge(adj, v, u):
                missing[u] += 1
        if size > len(best):
            best = members[:size].copy()
    return best
