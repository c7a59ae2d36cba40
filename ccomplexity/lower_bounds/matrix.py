"""Shared helpers of the exact methods: matrices from problems, distinct rows, exact counts
of Dyck words and DFA languages (independent of the oracles), chunked evaluation."""

from __future__ import annotations

import numpy as np

from ccomplexity.automata import DFA, dyck_dfa
from ccomplexity.errors import InputError
from ccomplexity.problems import TwoPartyProblem

CHUNK = 1 << 20  # pairs evaluated per vectorised call: bounded memory, low overhead


def as_matrix(source: TwoPartyProblem | np.ndarray, what: str) -> np.ndarray:
    if isinstance(source, TwoPartyProblem):
        return source.matrix()
    m = np.asarray(source)
    if m.ndim != 2 or m.shape[0] == 0 or m.shape[1] == 0:
        raise InputError(f"{what} needs a non-empty 2-D matrix, got shape {m.shape}")
    if m.dtype == bool:
        m = m.astype(np.int8)
    if not np.issubdtype(m.dtype, np.integer):
        raise InputError(f"{what} needs an integer matrix, got dtype {m.dtype}")
    return m


def index_array(values: np.ndarray, bound: int, what: str) -> np.ndarray:
    a = np.asarray(values)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise InputError(f"{what} must be a 1-D array of integer indices")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= bound):
        raise InputError(f"{what} must lie in 0..{bound - 1}")
    return a


def first_duplicate(keys: np.ndarray) -> tuple[int, int] | None:
    """(i, j), i < j, with keys[i] == keys[j] and j as small as possible; None if all distinct.
    Rows of a 2-D array are compared as raw bytes (one field each: fast for wide rows)."""
    if keys.ndim == 2:
        rows = np.ascontiguousarray(keys)
        keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    owner = first[inverse.reshape(-1)]
    dup = np.flatnonzero(owner != np.arange(len(owner)))
    if dup.size == 0:
        return None
    j = int(dup[0])
    return int(owner[j]), j


def row_classes(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Representatives (first index of each distinct row, sorted) and each row's class number."""
    a = np.ascontiguousarray(m)
    if a.size and a.min() >= 0 and a.max() <= 1:
        a = np.ascontiguousarray(np.packbits(a.astype(bool), axis=1))  # 8x fewer bytes to hash
    keys = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)  # number classes by first occurrence, so reps come out sorted
    relabel = np.empty_like(order)
    relabel[order] = np.arange(len(order))
    return first[order], relabel[inverse.reshape(-1)]


def chunked_entries(problem: TwoPartyProblem, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """problem.entries in chunks of ``CHUNK`` pairs (bounded memory)."""
    out = np.empty(len(rows), dtype=np.int8)
    for s in range(0, len(rows), CHUNK):
        out[s : s + CHUNK] = problem.entries(rows[s : s + CHUNK], cols[s : s + CHUNK])
    return out


# ------------------------------------------------------------------------ Dyck arithmetic


def matrix_power_row(matrix: list[list[int]], power: int, modulus: int | None = None) -> list[int]:
    """Row 0 of ``matrix`` ** ``power``, exactly with Python ints (or modulo ``modulus``), by
    repeated squaring: O(lg N) products instead of N steps."""
    size = len(matrix)

    def product(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
        cols = list(zip(*b, strict=True))
        out = [
            [sum(x * y for x, y in zip(row, col, strict=True) if x and y) for col in cols]
            for row in a
        ]
        return out if modulus is None else [[v % modulus for v in row] for row in out]

    vector = [[1] + [0] * (size - 1)]
    square = matrix
    while power:
        if power & 1:
            vector = product(vector, square)
        power >>= 1
        if power:
            square = product(square, square)
    return vector[0] if modulus is None else [v % modulus for v in vector[0]]


def dyck_count(types: int, depth: int, length: int) -> int:
    """Number of Dyck-(n,k) words of length N by DP over stack heights (App. E), Python ints.

    Independent of the DFA: from height h an opener has n choices (if h < k) and a closer has
    exactly one (it must match the top), so the count depends on heights only. Heights above
    N/2 are never reached; with h = min(k, N/2) + 1 heights the count is entry (0, 0) of the
    height matrix to the power N, by repeated squaring when h^2 lg N < N (N = 10^6 in a second).
    """
    depth = min(depth, length // 2)
    if (depth + 1) ** 2 * length.bit_length() < length:
        heights = [[0] * (depth + 1) for _ in range(depth + 1)]
        for h in range(depth + 1):
            if h < depth:
                heights[h][h + 1] = types
            if h > 0:
                heights[h][h - 1] = 1
        return matrix_power_row(heights, length)[0]
    c = [1] + [0] * depth
    for _ in range(length):
        new = [0] * (depth + 1)
        for h, v in enumerate(c):
            if v:
                if h < depth:
                    new[h + 1] += types * v
                if h > 0:
                    new[h - 1] += v
        c = new
    return c[0]


def live_dfa(dfa: DFA) -> tuple[np.ndarray, int, np.ndarray]:
    """Transitions restricted to live states (-1 = dead), the start (-1 if dead), accepting."""
    live = np.flatnonzero(dfa.live_states())
    index = np.full(dfa.n_states + 1, -1, dtype=np.int64)
    index[live] = np.arange(len(live))
    table = index[dfa.transitions[live]]
    return table, int(index[dfa.start]), dfa.accepting[live]


def dfa_count(dfa: DFA, length: int, modulus: int | None = None) -> int:
    """Accepted words of length N (or their number modulo ``modulus``): walks from the start to
    an accepting state among the live states, by DP with Python ints, or by repeated squaring of
    the transition-count matrix when that is cheaper (states^2 lg N < N)."""
    table, start, accepting = live_dfa(dfa)
    if start < 0:
        return 0
    succ = [[int(q) for q in row if q >= 0] for row in table]
    n = len(succ)
    if n * n * length.bit_length() < length:
        order = [start] + [q for q in range(n) if q != start]  # the start first: row 0
        where = {q: i for i, q in enumerate(order)}
        walks = [[0] * n for _ in range(n)]
        for q in range(n):
            for q2 in succ[q]:
                walks[where[q]][where[q2]] += 1
        vec = matrix_power_row(walks, length, modulus)
        total = sum(vec[where[q]] for q in range(n) if accepting[q])
    else:
        vec = [0] * n
        vec[start] = 1
        for _ in range(length):
            new = [0] * n
            for q, v in enumerate(vec):
                if v:
                    for q2 in succ[q]:
                        new[q2] += v
            vec = new if modulus is None else [v % modulus for v in new]
        total = sum(v for v, a in zip(vec, accepting, strict=True) if a)
    return total if modulus is None else total % modulus


def dyck_members(types: int, depth: int, length: int) -> np.ndarray:
    """All Dyck-(n,k) words of length N, lexicographically, as (count, N) int16.

    Layer by layer through the DFA, keeping only prefixes that can still be completed in the
    remaining steps, so no layer holds more prefixes than there are members.
    """
    dfa = dyck_dfa(types, depth)
    t = dfa.transitions
    fin = np.zeros((length + 1, dfa.n_states), dtype=bool)  # fin[r, q]: accept in exactly r
    fin[0] = dfa.accepting
    for r in range(1, length + 1):
        fin[r] = fin[r - 1][t].any(axis=1)
    words = np.zeros((1, 0), dtype=np.int16)
    states = np.array([dfa.start], dtype=np.int64)
    for pos in range(length):
        nxt = t[states]
        ok = fin[length - pos - 1][nxt]
        k, a = np.nonzero(ok)  # row-major order keeps the words sorted
        words = np.concatenate([words[k], a[:, None].astype(np.int16)], axis=1)
        states = nxt[k, a]
    return words


def value_cell_count(problem: TwoPartyProblem, value: int) -> int | None:
    """Exact number of cells with f = value for the problems of ccomplexity.problems, or None.

    Closed forms and a height DP, independent of ``problem.evaluate``: Dyck members of length N
    (whatever the partition, words and cells correspond one to one); EQ has A^H one-cells;
    DISJ has 3^H disjoint (value 0) cells; INDEX has N 2^(N-1) one-cells.
    """
    p = problem.params
    total = problem.n_rows * problem.n_cols
    ones: int | None = None
    if problem.name == "dyck":
        ones = dyck_count(int(p["types"]), int(p["depth"]), int(p["length"]))
    elif problem.name == "equality":
        ones = int(p["alphabet"]) ** int(p["half"])
    elif problem.name == "disjointness":
        ones = 4 ** int(p["half"]) - 3 ** int(p["half"])
    elif problem.name == "index":
        ones = int(p["length"]) * 2 ** (int(p["length"]) - 1)
    if ones is None or value not in (0, 1):
        return None
    return ones if value == 1 else total - ones
