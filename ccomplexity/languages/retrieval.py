"""Retrieval oracles: Index, Index Lookup, Nearest Neighbour and associative recall.

Index is Fact 3, Index Lookup is Sec. 3 / App. C, Nearest Neighbour is Sec. 5.2 / App. G, and
multi-query associative recall (MQAR) with hypercube codes is App. G.1 / App. C.1. All
functions are vectorised over a leading batch axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ccomplexity.errors import InputError, check_int
from ccomplexity.integers import ceil_log2

UNIT_TOLERANCE = 1e-6
"""Largest allowed | ||x||_2 - 1 | for the unit vectors that Nearest Neighbour requires."""

MARGIN_TOLERANCE = 1e-9
"""Slack when comparing a computed gap with gamma, so that exact gaps (e.g. 2/d) pass."""


def _rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _rows(positions: np.ndarray, batch: int, what: str) -> np.ndarray:
    p = np.asarray(positions)
    if p.ndim == 0:
        p = p[None]
    if p.shape != (batch,) or (p.size and not np.issubdtype(p.dtype, np.integer)):
        raise InputError(f"{what} must be {batch} integers (one per row), got shape {p.shape}")
    return p.astype(np.int64)


def index_value(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Index(a, b) = a_b (Fact 3) for a in {0,1}^N and a 0-BASED position b in 0..N-1."""
    bits = np.atleast_2d(np.asarray(a))
    if bits.ndim != 2:
        raise InputError(f"a must be a (batch, N) 0/1 array, got shape {bits.shape}")
    if bits.size and (bits.min() < 0 or bits.max() > 1):
        raise InputError("index: a must be a 0/1 vector")
    pos = _rows(b, bits.shape[0], "b")
    if pos.size and (pos.min() < 0 or pos.max() >= bits.shape[1]):
        raise InputError(f"index: b must lie in 0..{bits.shape[1] - 1} (0-based)")
    return bits[np.arange(bits.shape[0]), pos]


def index_lookup(symbols: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """IdxL(x_1..x_N, p) = x_p (Sec. 3, App. C) with p 1-BASED in 1..N, as in the paper."""
    x = np.atleast_2d(np.asarray(symbols))
    if x.ndim != 2:
        raise InputError(f"symbols must be a (batch, N) array, got shape {x.shape}")
    pos = _rows(positions, x.shape[0], "positions")
    if pos.size and (pos.min() < 1 or pos.max() > x.shape[1]):
        raise InputError(f"index lookup: positions must lie in 1..{x.shape[1]} (1-based)")
    return x[np.arange(x.shape[0]), pos - 1]


def _unit(vectors: np.ndarray, what: str) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim < 1 or v.shape[-1] == 0:
        raise InputError(f"{what} must have a non-empty last (dimension) axis")
    norms = np.linalg.norm(v, axis=-1)
    if norms.size and np.abs(norms - 1).max() > UNIT_TOLERANCE:
        raise InputError(
            f"{what} must be unit vectors (App. G); the largest | ||x|| - 1 | is "
            f"{np.abs(norms - 1).max():.3g}, the tolerance is {UNIT_TOLERANCE}"
        )
    return v


def _gap(scores: np.ndarray) -> np.ndarray:
    """Best minus second-best along the last axis; +inf with a single candidate."""
    if scores.shape[-1] < 2:
        return np.full(scores.shape[:-1], np.inf)
    two = np.partition(scores, -2, axis=-1)[..., -2:]
    return two[..., 1] - two[..., 0]


def margin(keys: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The NstNb margin x_q^T x_{j*} - max_{i != j*} x_q^T x_i (App. G assumption).

    ``keys`` is (..., K, d) and ``query`` (..., d); leading axes broadcast, so
    ``margin(keys[:, None], queries)`` gives (batch, Q) for queries (batch, Q, d).
    With a single key the margin is +inf.
    """
    k = _unit(keys, "keys")
    q = _unit(query, "query")
    if k.ndim < 2:
        raise InputError(f"keys must be (..., K, d), got shape {k.shape}")
    return _gap((k @ q[..., None])[..., 0])


def check_margin(keys: np.ndarray, queries: np.ndarray, gamma: float) -> None:
    """Raise InputError unless every query has margin >= gamma over ``keys`` (App. G).

    ``keys`` (batch, K, d), ``queries`` (batch, Q, d). Gaps are compared with a slack of
    :data:`MARGIN_TOLERANCE` so that exact gaps such as the hypercube's 2/d pass.
    """
    gaps = margin(np.asarray(keys)[..., None, :, :], queries)
    worst = float(gaps.min()) if gaps.size else math.inf
    if worst < gamma - MARGIN_TOLERANCE:
        raise InputError(
            f"margin assumption fails: the smallest gap is {worst:.3g}, below gamma={gamma:g}"
        )


def nearest_neighbour_labels(
    keys: np.ndarray, labels: np.ndarray, queries: np.ndarray, gamma: float | None = None
) -> np.ndarray:
    """Label of the key with the largest inner product, for each query (App. G, NstNb).

    ``keys`` (batch, K, d) unit vectors, ``labels`` (batch, K), ``queries`` (batch, Q, d) unit
    vectors; returns (batch, Q). For unit vectors argmax x_q^T x_i = argmin ||x_q - x_i||.
    With ``gamma`` the margin assumption is checked first (InputError if it fails); without it
    ties go to the lowest key index. This is the static (prompt, queries) form; for the
    paper's causal sequence, where earlier queries are candidates too, use
    :func:`nearest_neighbour_sequence`.
    """
    k = _unit(keys, "keys")
    q = _unit(queries, "queries")
    y = np.asarray(labels)
    if k.ndim != 3 or q.ndim != 3 or k.shape[0] != q.shape[0] or k.shape[2] != q.shape[2]:
        raise InputError(
            f"keys (batch, K, d) and queries (batch, Q, d) disagree: {k.shape} vs {q.shape}"
        )
    if y.shape != k.shape[:2]:
        raise InputError(f"labels must be (batch, K) = {k.shape[:2]}, got {y.shape}")
    if gamma is not None:
        check_margin(k, q, gamma)
    best = np.argmax(q @ k.transpose(0, 2, 1), axis=2)  # (batch, Q)
    return np.take_along_axis(y, best, axis=1)


def nearest_neighbour_sequence(
    xs: np.ndarray, prompt_labels: np.ndarray, gamma: float | None = None
) -> np.ndarray:
    """All N labels of the causal NstNb sequence (Sec. 5.2, App. G), shape (batch, N).

    ``xs`` (batch, N, d) unit vectors with N even; ``prompt_labels`` (batch, N/2) label the
    first N/2. For k = N/2+1..N (1-based) y_k = y_j with j = argmax_{i < k} x_k^T x_i, where
    earlier queries, carrying their own computed labels, are candidates too. With ``gamma`` every
    query must have margin >= gamma over its candidates, else InputError.
    """
    x = _unit(xs, "xs")
    if x.ndim != 3 or x.shape[1] % 2 or x.shape[1] < 2:
        raise InputError(f"xs must be (batch, N, d) with N even and >= 2, got {x.shape}")
    batch, big_n, _ = x.shape
    half = big_n // 2
    prompt = np.asarray(prompt_labels)
    if prompt.shape != (batch, half):
        raise InputError(
            f"prompt_labels must be (batch, N/2) = {(batch, half)}, got {prompt.shape}"
        )
    ys = np.empty((batch, big_n), dtype=prompt.dtype)
    ys[:, :half] = prompt
    rows = np.arange(batch)
    for k in range(half, big_n):  # queries see earlier queries' labels: sequential in k
        scores = (x[:, :k] @ x[:, k, :, None])[..., 0]
        if gamma is not None:
            worst = float(_gap(scores).min()) if batch else math.inf
            if worst < gamma - MARGIN_TOLERANCE:
                raise InputError(
                    f"margin assumption fails at query {k + 1}: the smallest gap is "
                    f"{worst:.3g}, below gamma={gamma:g}"
                )
        ys[:, k] = ys[rows, np.argmax(scores, axis=1)]
    return ys


def _sphere(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    g = rng.standard_normal(shape)
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def sample_nearest_neighbour(
    length: int,
    dim: int,
    gamma: float,
    batch: int,
    rng: np.random.Generator,
    max_rounds: int = 1000,
) -> tuple[np.ndarray, np.ndarray]:
    """Seeded NstNb instances meeting the margin assumption (App. G), by rejection sampling.

    Returns ``(xs, ys)``: xs (batch, N, d) unit vectors uniform on the sphere, ys (batch, N) with
    the N/2 prompt labels uniform in {0,1} and each query's label its nearest neighbour's
    (:func:`nearest_neighbour_sequence`). Query k is redrawn until its gap over all earlier
    vectors is >= gamma, so the law is uniform conditioned on the margin. InputError if some
    query still fails after ``max_rounds`` redraws (gamma too large for this d and N).
    """
    big_n = check_int(length, "length", 2)
    if big_n % 2:
        raise InputError(f"nearest neighbour needs an even length, got {big_n}")
    d = check_int(dim, "dim", 1)
    size = check_int(batch, "batch", 0)
    rounds = check_int(max_rounds, "max_rounds", 1)
    if not 0 <= gamma <= 2:
        raise InputError(f"gamma must lie in [0, 2] for unit vectors, got {gamma}")
    _rng(rng)
    half = big_n // 2
    xs = np.empty((size, big_n, d))
    xs[:, :half] = _sphere(rng, (size, half, d))
    for k in range(half, big_n):
        todo = np.arange(size)
        for _ in range(rounds):
            cand = _sphere(rng, (todo.size, d))
            gaps = _gap((xs[todo, :k] @ cand[:, :, None])[..., 0])
            good = gaps >= gamma
            xs[todo[good], k] = cand[good]
            todo = todo[~good]
            if todo.size == 0:
                break
        else:
            raise InputError(
                f"no query with margin gamma={gamma:g} found in {rounds} rejection rounds "
                f"(d={d}, N={big_n}); lower gamma, raise dim or raise max_rounds"
            )
    prompt = rng.integers(0, 2, size=(size, half))
    return xs, nearest_neighbour_sequence(xs, prompt)


def hypercube_dim(n_symbols: int) -> int:
    """d = ceil(log2 |Sigma|), at least 1: the hypercube code width of App. G.1 / C.1."""
    return max(1, ceil_log2(check_int(n_symbols, "n_symbols", 1)))


def hypercube_codes(n_symbols: int) -> np.ndarray:
    """Distinct codes in {+-1/sqrt(d)}^d for symbols 0..|Sigma|-1 (App. G.1), (|Sigma|, d).

    Symbol s gets the binary digits of s, most significant first, mapped 0 -> +1/sqrt(d) and
    1 -> -1/sqrt(d). Distinct codes differ in >= 1 coordinate, so the inner product of a query
    with a non-matching key is <= 1 - 2/d: margin gamma = 2/d (the paper's bound 1 - 1/log N is
    weaker).
    """
    n = check_int(n_symbols, "n_symbols", 1)
    d = hypercube_dim(n)
    bits = (np.arange(n)[:, None] >> np.arange(d - 1, -1, -1)[None, :]) & 1
    return (1 - 2 * bits) / math.sqrt(d)


@dataclass(frozen=True)
class MQARBatch:
    """Multi-query associative recall instances (App. G.1): symbols, labels and their codes.

    ``key_symbols`` (batch, K) are distinct per row, ``labels`` (batch, K) their values,
    ``query_symbols`` (batch, K) a uniformly random permutation of the keys and ``targets``
    (batch, K) the labels the queries must recall. ``codes`` are the hypercube embeddings.
    """

    key_symbols: np.ndarray
    labels: np.ndarray
    query_symbols: np.ndarray
    targets: np.ndarray
    codes: np.ndarray

    def __post_init__(self) -> None:
        for name in ("key_symbols", "labels", "query_symbols", "targets", "codes"):
            arr = np.array(getattr(self, name))  # private read-only copy: the batch is immutable
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        shape = self.key_symbols.shape
        if any(a.shape != shape for a in (self.labels, self.query_symbols, self.targets)):
            raise InputError("MQAR fields must all be (batch, K)")

    @property
    def gamma(self) -> float:
        """The NstNb margin that the hypercube codes guarantee: 2/d."""
        return 2 / self.codes.shape[1]

    def sequence(self) -> tuple[np.ndarray, np.ndarray]:
        """NstNb form (Thm 8): xs (batch, 2K, d) = keys then queries; ys (batch, 2K)."""
        xs = np.concatenate([self.codes[self.key_symbols], self.codes[self.query_symbols]], 1)
        return xs, np.concatenate([self.labels, self.targets], axis=1)


def sample_mqar(
    n_pairs: int, n_symbols: int, batch: int, rng: np.random.Generator, n_labels: int = 2
) -> MQARBatch:
    """MQAR instances: K distinct keys from |Sigma| symbols, labels uniform in 0..n_labels-1,
    queries a uniform permutation of the keys (App. G.1; Thm 8 uses binary labels).
    """
    k = check_int(n_pairs, "n_pairs", 1)
    n = check_int(n_symbols, "n_symbols", 1)
    size = check_int(batch, "batch", 0)
    m = check_int(n_labels, "n_labels", 1)
    if k > n:
        raise InputError(f"MQAR needs distinct keys: n_pairs={k} exceeds n_symbols={n}")
    _rng(rng)
    keys = rng.random((size, n)).argsort(axis=1)[:, :k]  # k distinct symbols per row
    labels = rng.integers(0, m, size=(size, k))
    perm = rng.random((size, k)).argsort(axis=1)
    queries = np.take_along_axis(keys, perm, axis=1)
    targets = np.take_along_axis(labels, perm, axis=1)
    return MQARBatch(keys, labels, queries, targets, hypercube_codes(n))
