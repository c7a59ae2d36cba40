"""Length-2 path and set disjointness (mixture-of-parrots paper, Sec. 3.1 and App. A.1), exact.

* **Length-2 path**: a graph G = (V, E), a source s and a destination d; the answer is 1 iff
  s and d share a neighbour (a path s - i - d).
* **Set disjointness** DISJ_r (Def. A.1): a, b in {0,1}^r, the answer is max_i a_i b_i, i.e.
  1 iff the sets *intersect* (the paper's convention, the repository's
  :func:`ccomplexity.problems.disjointness`).
* **Lemma A.2** makes them one problem: (=>) items are vertices, two extra vertices s ("Alice")
  and d ("Bob") get an edge to each item of a and of b respectively; (<=) a = N(s), b = N(d).
* **Variants** (spec Sec. 2.3, named only in the paper): on instances whose only edges are
  s - i and d - i, connectivity(s, d), "shortest path s -> d has length 2" and "a cycle appears
  once the edge s - d is added" each equal length-2 path; so each inherits Thm 3.1's bound.

The **token layout** of Thm 3.2 / A.5 (:class:`Layout`), with the vertices other than s and d
numbered 1..r: positions 1..r hold (s, i) if s ~ i else (s, 0); then M middle edges (u, v),
1 <= u < v <= r (never at s or d: the construction would double-count them, spec Sec. 2.1);
then r tokens (d, i) / (d, 0); then the query token. Alice holds the first r positions (a
function of the edges at s only), Bob the r positions at d, and everything else, the middle
edges and the query included, is fixed and public (the partition of Thm 3.1 / Lemma A.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from ccomplexity.errors import InputError, check_int

SOURCE, DEST = "s", "d"
"""Names of the two special vertices in the graphs built here (items are 1..r)."""


def disjointness(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """DISJ_r(a, b) = max_i a_i b_i for each row of a, b (..., r) in {0,1}: 1 iff they meet."""
    return (np.asarray(a, dtype=bool) & np.asarray(b, dtype=bool)).any(-1)


def length2_path(graph: nx.Graph, s: object, d: object) -> bool:
    """Whether s and d (distinct) have a common neighbour in ``graph``."""
    return any(graph.has_edge(i, d) for i in graph.neighbors(s) if i not in (s, d))


def graph_of(a: np.ndarray, b: np.ndarray, middle: np.ndarray | None = None) -> nx.Graph:
    """Lemma A.2 (=>): items 1..r, s ~ i for a_i = 1, d ~ i for b_i = 1, plus middle edges."""
    r = len(a)
    g = nx.Graph()
    g.add_nodes_from([SOURCE, DEST, *range(1, r + 1)])
    g.add_edges_from((SOURCE, i + 1) for i in np.flatnonzero(a))
    g.add_edges_from((DEST, i + 1) for i in np.flatnonzero(b))
    if middle is not None:
        g.add_edges_from((int(u), int(v)) for u, v in middle)
    return g


def sets_of(graph: nx.Graph, s: object, d: object) -> tuple[np.ndarray, np.ndarray]:
    """Lemma A.2 (<=): a = N(s), b = N(d) over the other vertices, in sorted order (r = |V| - 2)."""
    # items 1..r in numeric order (as strings, '10' would come before '2'), any others after
    rest = [v for v in graph.nodes if v not in (s, d)]
    others = sorted(rest, key=lambda v: (0, v, "") if isinstance(v, int) else (1, 0, str(v)))
    a = np.array([graph.has_edge(s, v) for v in others], dtype=bool)
    b = np.array([graph.has_edge(d, v) for v in others], dtype=bool)
    return a, b


def connectivity(graph: nx.Graph, s: object, d: object) -> bool:
    """Whether s and d are connected (networkx)."""
    return nx.has_path(graph, s, d)


def shortest_path_is_two(graph: nx.Graph, s: object, d: object) -> bool:
    """Whether the shortest s -> d path has exactly 2 edges (networkx)."""
    return nx.has_path(graph, s, d) and nx.shortest_path_length(graph, s, d) == 2


def cycle_with_sd(graph: nx.Graph, s: object, d: object) -> bool:
    """Whether ``graph`` plus the edge s - d has a cycle (networkx's cycle basis)."""
    g = graph.copy()
    g.add_edge(s, d)
    return bool(nx.cycle_basis(g))


def sample_disjointness(
    r: int, count: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` DISJ_r instances (a, b, answer), half of them intersecting, the hard way.

    Each item is in a only, b only or neither with probability 1/3 each (so the sets are
    disjoint); then with probability 1/2 one uniform item is put into both. Positives meet in
    exactly one item, so their sizes barely differ from the negatives': a model must find it.
    """
    r, count = check_int(r, "r", 1), check_int(count, "count", 1)
    where = rng.integers(0, 3, size=(count, r))
    a, b = where == 1, where == 2
    meet = rng.random(count) < 0.5
    item = rng.integers(0, r, size=count)
    rows = np.flatnonzero(meet)
    a[rows, item[rows]] = b[rows, item[rows]] = True
    return a, b, disjointness(a, b)


DEFAULT_MIDDLE = 4
"""Middle edges (u, v) the toolkit's length-2-path tasks and construction put between Alice's
and Bob's tokens unless told otherwise: N = 2|V| + 4 + 1 tokens."""


@dataclass(frozen=True)
class Layout:
    """The Thm 3.2 / A.5 token layout for up to ``vertices`` = r items and ``middle`` = M edges.

    Token ids: (s, i) is i (i = 0..r), (d, i) is r + 1 + i, the query is 2r + 2, and the middle
    edge (u, v), u < v, is 2r + 3 + its rank among the pairs. An instance on r' <= r items uses
    the ids of items 1..r' and has length N = 2r' + M + 1.
    """

    vertices: int
    middle: int = 0

    def __post_init__(self) -> None:
        check_int(self.vertices, "vertices |V|", 1)
        check_int(self.middle, "middle edges", 0)
        if self.middle and self.vertices < 2:
            raise InputError("middle edges (u, v) with u < v need at least 2 vertices")

    @property
    def query(self) -> int:
        return 2 * self.vertices + 2

    @property
    def vocab_size(self) -> int:
        r = self.vertices
        return 2 * r + 3 + r * (r - 1) // 2

    def length(self, r: int | None = None) -> int:
        """Tokens of an instance on r items (default: all): 2r + M + 1."""
        return 2 * (self.vertices if r is None else r) + self.middle + 1

    def positions(self, r: int | None = None) -> tuple[tuple[int, ...], ...]:
        """0-based positions of Alice (edges at s), Bob (edges at d) and the fixed rest."""
        r = self.vertices if r is None else r
        alice = tuple(range(r))
        bob = tuple(range(r + self.middle, 2 * r + self.middle))
        fixed = (*range(r, r + self.middle), 2 * r + self.middle)
        return alice, bob, fixed

    def edge_id(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Ids of middle edges (u, v), 1 <= u < v <= r (vectorised)."""
        r = self.vertices
        u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
        if ((u < 1) | (u >= v) | (v > r)).any():
            raise InputError(f"middle edges need 1 <= u < v <= {r}")
        rank = (u - 1) * (2 * r - u) // 2 + (v - u - 1)  # pairs (u', v') with u' < u come first
        return 2 * r + 3 + rank

    def encode(self, a: np.ndarray, b: np.ndarray, middle: np.ndarray) -> np.ndarray:
        """Token rows (B, 2r' + M + 1) from a, b (B, r') bool and middle edges (B, M, 2)."""
        a, b = np.atleast_2d(a).astype(bool), np.atleast_2d(b).astype(bool)
        middle = np.asarray(middle, dtype=np.int64).reshape(len(a), self.middle, 2)
        r = a.shape[1]
        if b.shape != a.shape or r > self.vertices:
            raise InputError(f"a and b must both be (B, r') with r' <= {self.vertices}")
        items = np.arange(1, r + 1)
        source = np.where(a, items, 0)
        dest = self.vertices + 1 + np.where(b, items, 0)
        edges = self.edge_id(middle[..., 0], middle[..., 1])
        query = np.full((len(a), 1), self.query)
        return np.concatenate([source, edges, dest, query], axis=1)

    def decode(self, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(a, b) of token rows in this layout; InputError if a row is not one."""
        tokens = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        r = (tokens.shape[1] - self.middle - 1) // 2
        if tokens.shape[1] != self.length(r) or not 1 <= r <= self.vertices:
            raise InputError(f"rows of length {tokens.shape[1]} are not in this layout")
        source, dest = tokens[:, :r], tokens[:, r + self.middle : 2 * r + self.middle]
        items = np.arange(1, r + 1)
        ok = ((source == 0) | (source == items)).all() and (
            (dest == self.vertices + 1) | (dest == self.vertices + 1 + items)
        ).all()
        if not ok or not (tokens[:, -1] == self.query).all():
            raise InputError("a row does not hold (s, i)/(s, 0), ..., (d, i)/(d, 0), query")
        return source > 0, dest > self.vertices + 1
