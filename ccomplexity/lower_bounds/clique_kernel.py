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
def colour(adj, p, kmin, verts, colours, classes, scratch, lines) -> int:
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
    return n


@njit(cache=True)
def search(adj, frames, best_clique, classes, scratch, lines, node_limit) -> int:
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
        top[0] = colour(adj, P[0], state[BEST], V[0], C[0], classes, scratch, lines) - 1
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
        top[d + 1] = colour(adj, P[d + 1], kmin, V[d + 1], C[d + 1], classes, scratch, lines) - 1
        state[DEPTH] = d + 2
    return FINISHED
