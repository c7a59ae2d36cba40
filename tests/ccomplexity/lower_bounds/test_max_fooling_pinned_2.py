"""The exact maximum fooling set's hand-off to the compiled kernel pinned: the work arrays'
shapes and dtypes (numba indexes them without bounds checks and compiles one specialisation
per dtype), the warm start's reproducible local search (seed 1), and the anytime upper bound
of a search paused at the root, read off the kernel's own state."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity import lower_bounds as lb
from ccomplexity.lower_bounds import clique_kernel as ck
from ccomplexity.lower_bounds import max_fooling
from ccomplexity.lower_bounds.matrix import row_classes


def merged(m: np.ndarray) -> np.ndarray:
    rep_r, _ = row_classes(m)
    rep_c, _ = row_classes(m.T)
    return m[np.ix_(rep_r, rep_c)]


@pytest.mark.parametrize("shape, value", [((5, 7), 1), ((9, 4), 0), ((12, 12), 1)])
def test_the_kernel_work_arrays_have_the_sizes_and_dtypes_it_indexes(
    shape: tuple[int, int], value: int
) -> None:
    rng = np.random.default_rng(sum(shape))
    sub = merged(rng.integers(0, 2, size=shape))
    s = max_fooling._CliqueSearch(sub, value)
    s._start()
    k, words, depth = s.k, s.n_words, s.side_bound + 1
    assert words == max(1, -(-k // 64))

    def spec(a: np.ndarray) -> tuple[tuple[int, ...], np.dtype]:
        return a.shape, a.dtype

    u64, i64, i32, i8 = (np.dtype(t) for t in (np.uint64, np.int64, np.int32, np.int8))
    assert [spec(a) for a in s.frames] == [
        ((depth, words), u64),
        ((depth, k), i32),
        ((depth, k), i32),
        ((depth,), i64),
        ((depth,), i32),
    ]
    # the root frame holds every vertex, and no bit past the k-th
    bits = np.unpackbits(s.frames[0][0].view(np.uint8), bitorder="little")
    assert bits[:k].all() and not bits[k:].any()
    assert not s.frames[0][1:].any()
    assert spec(s.best_clique) == ((depth,), i32)
    assert spec(s.classes) == ((depth, words), u64)
    assert spec(s.scratch) == ((3, words), u64)
    assert [spec(a) for a in s.reasoning] == [
        ((depth, words), u64),
        ((depth,), i8),
        ((64,), i32),
        ((64,), i32),
        ((depth,), u64),
        ((64,), u64),
    ]
    assert spec(s.state) == ((5,), i64) and not s.state.any()
    rows, cols, row_mark, col_mark, state = s.lines
    assert rows.dtype == cols.dtype == i32
    assert rows.tolist() == s.cells[:, 0].tolist() and cols.tolist() == s.cells[:, 1].tolist()
    assert spec(row_mark) == ((int(s.cells[:, 0].max()) + 1,), i64)
    assert spec(col_mark) == ((int(s.cells[:, 1].max()) + 1,), i64)
    assert state is s.state


def test_the_warm_start_is_the_local_search_seeded_with_1() -> None:
    """Where the greedy start falls short of min(#rows, #columns), the warm start is the
    kernel's local search from it with seed 1 (a reproducible run); seeds 1 and 2 give
    different cliques on these matrices, so the seed is pinned."""
    found = 0
    for seed in range(3):
        sub = merged(np.random.default_rng(seed).integers(0, 2, size=(14, 14)))
        s = max_fooling._CliqueSearch(sub, 1)
        greedy: list[int] = []
        cand = np.ones(s.k, dtype=bool)
        while cand.any():
            v = int(np.argmax(cand))
            greedy.append(v)
            cand &= s.compatible[v]
        if len(greedy) >= s.side_bound:
            continue
        warm = s.warm_start()
        start = np.array(greedy, dtype=np.int32)
        runs = {
            r: ck.local_search(s.adj, start, max_fooling.WARM_START_STEPS, r).tolist()
            for r in (1, 2)
        }
        assert warm == runs[1]
        # a clique of the compatibility graph: pairwise non-crossing cells
        assert all(s.compatible[a, b] for a in warm for b in warm if a != b)
        found += runs[1] != runs[2]
    assert found > 0


def test_a_search_paused_at_the_root_bounds_by_the_next_root_colour() -> None:
    """A node budget that runs out between two root vertices (the kernel paused with one frame
    open) still tightens the upper bound: every clique through a root vertex of higher colour
    has been examined, so upper = max(size, min(side bound, that colour))."""
    checked = 0
    for seed in range(12):
        if checked >= 2:
            break
        m = np.random.default_rng(seed).integers(0, 2, size=(11, 11))
        full = lb.max_fooling_set(m, value=1)
        for nodes in range(1, full.nodes):
            sub = merged(m)
            s = max_fooling._CliqueSearch(sub, 1)
            best = max_fooling._Incumbent()
            best.offer(1, s._cells(s.warm_start()))
            if s.side_bound <= best.size:
                break
            s.search(best, max_fooling._Budget(None, nodes))
            if s.state[ck.DEPTH] != 1:
                continue
            expected = max(best.size, min(s.side_bound, int(s.state[ck.ROOT_COLOUR])))
            cut = lb.max_fooling_set(m, value=1, nodes=nodes)
            assert cut.upper_bound == expected == s.upper
            assert cut.size <= full.size <= cut.upper_bound
            checked += expected < s.side_bound
    assert checked > 0
