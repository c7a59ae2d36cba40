"""Two-party problems: a function of Alice's and Bob's inputs, and their communication matrices.

A problem fixes Alice's input set ``[A]^a`` and Bob's ``[B]^b``; rows of the communication matrix
are Alice's inputs in lexicographic order (most significant symbol first), columns are Bob's.
String problems (Dyck, equality, disjointness) place Alice's symbols at the positions of a
:class:`Partition` and Bob's at the rest, then evaluate a language oracle on the whole word.
Positions in partition specs are 1-based as in the papers; arrays inside are 0-based.

Indices are exact for every size: while ``alphabet ** length`` fits int64 they are int64 arrays,
beyond that object arrays of Python integers (a word of 65 binary symbols has index up to
2^65 - 1, which int64 would wrap around). Sizes (length, types, alphabet) are checked against
:mod:`ccomplexity.limits` before anything is built.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ccomplexity import limits, plugins
from ccomplexity.errors import InputError, check_int, shown
from ccomplexity.groups import FiniteGroup
from ccomplexity.languages.dyck import is_dyck
from ccomplexity.languages.hops import hop_p
from ccomplexity.languages.kg import MatchingKG

DENSE_LIMIT = 1 << 26
"""Most matrix entries (64 Mi) that :meth:`TwoPartyProblem.matrix` materialises."""
MATRIX_ENTRY_LIMIT = 1 << 24
"""Most entries of a matrix problem (read from a file or drawn at random)."""
INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class Partition:
    """Which positions (0-based, sorted) Alice and Bob hold; ``spec`` is how the user named it."""

    alice: tuple[int, ...]
    bob: tuple[int, ...]
    spec: str

    @classmethod
    def parse(cls, spec: str, length: int) -> Partition:
        """``prefix:K`` (Alice holds 1..K), ``odd-even`` (Alice odd positions), ``alice:i,..``."""
        length = limits.LENGTH.check(length)
        if length < 2:
            raise InputError(f"a partition needs length >= 2, got {length}")
        if spec == "odd-even":
            if length % 2:
                raise InputError(f"partition odd-even needs an even length, got {length}")
            alice = tuple(range(0, length, 2))
        elif spec.startswith("prefix:"):
            k = _parse_int(spec[len("prefix:") :], "prefix:K")
            if not 1 <= k < length:
                raise InputError(f"prefix:K needs 1 <= K < length ({length}), got K={k}")
            alice = tuple(range(k))
        elif spec.startswith("alice:"):
            if len(spec) > 8 * length + 64:  # a list of at most N positions of <= 7 digits
                raise InputError(f"alice:i,j,... lists more positions than the length {length}")
            items = [_parse_int(s, "alice:i,j,...") for s in spec[len("alice:") :].split(",") if s]
            if (
                not items
                or any(not 1 <= i <= length for i in items)
                or len(set(items)) != len(items)
            ):
                raise InputError(f"alice:i,j,... needs distinct positions in 1..{length}")
            alice = tuple(sorted(i - 1 for i in items))
            if len(alice) == length:
                raise InputError("alice:... must leave Bob at least one position")
        else:
            raise InputError(f"unknown partition {spec!r}: use prefix:K, odd-even or alice:i,j,...")
        taken = set(alice)
        bob = tuple(i for i in range(length) if i not in taken)
        return cls(alice, bob, spec)


def _parse_int(text: str, what: str) -> int:
    if len(text) > 24:
        raise InputError(f"{what}: {text[:24]}... is longer than any position")
    try:
        return int(text)
    except ValueError:
        raise InputError(f"{what}: {text!r} is not an integer") from None


def digits(indices: np.ndarray, base: int, width: int) -> np.ndarray:
    """Inputs numbered ``indices`` as (batch, width) words over ``[base]``, big-endian (int64
    symbols); exact for indices of any size."""
    if limits.power_at_most(base, width, INT64_MAX):
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        powers = base ** np.arange(width - 1, -1, -1, dtype=np.int64)
        return (idx[:, None] // powers[None, :]) % base
    rest = np.array([int(i) for i in np.asarray(indices, dtype=object).reshape(-1)], dtype=object)
    out = np.empty((len(rest), width), dtype=np.int64)
    for c in range(width - 1, -1, -1):
        out[:, c] = (rest % base).astype(np.int64)
        rest = rest // base
    return out


def undigits(words: np.ndarray, base: int) -> np.ndarray:
    """Inverse of :func:`digits`: the index of each row of ``words``, int64 while every index
    fits, else Python integers (an object array)."""
    w = np.asarray(words, dtype=np.int64)
    if limits.power_at_most(base, w.shape[1], INT64_MAX):
        powers = base ** np.arange(w.shape[1] - 1, -1, -1, dtype=np.int64)
        return w @ powers
    out = np.zeros(len(w), dtype=object)
    for column in w.T:  # Horner's rule on exact integers
        out = out * base + column.astype(object)
    return out


@dataclass(frozen=True)
class TwoPartyProblem:
    """f(x, y) for x in [A]^a (Alice) and y in [B]^b (Bob), with vectorised evaluation."""

    name: str
    params: dict[str, object]
    alice_alphabet: int
    alice_length: int
    bob_alphabet: int
    bob_length: int
    evaluate: Callable[[np.ndarray, np.ndarray], np.ndarray] = field(repr=False)
    partition: Partition | None = None
    embedded: dict[str, object] = field(default_factory=dict, repr=False)
    """What a certificate must carry besides :meth:`describe` to rebuild f (a matrix's rows)."""

    @property
    def n_rows(self) -> int:
        return self.alice_alphabet**self.alice_length

    @property
    def n_cols(self) -> int:
        return self.bob_alphabet**self.bob_length

    def alice_inputs(self, rows: np.ndarray) -> np.ndarray:
        return digits(rows, self.alice_alphabet, self.alice_length)

    def bob_inputs(self, cols: np.ndarray) -> np.ndarray:
        return digits(cols, self.bob_alphabet, self.bob_length)

    def entries(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """f at the given (row, col) index pairs, as int8 values."""
        return self.on_words(self.alice_inputs(rows), self.bob_inputs(cols))

    def on_words(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """f at pairs of words, Alice's (batch, a) and Bob's (batch, b) int64 symbols, as int8
        values: no indices at all, so what is evaluated is exactly the words given."""
        return np.asarray(self.evaluate(x, y)).astype(np.int8)

    def matrix(self, limit: int = DENSE_LIMIT) -> np.ndarray:
        """The dense communication matrix (rows x cols, int8); refuses beyond ``limit`` entries."""
        n = self.n_rows * self.n_cols
        if n > limit:
            raise InputError(
                f"{self.name}: the communication matrix has {shown(self.n_rows)} x "
                f"{shown(self.n_cols)} entries; "
                f"the dense limit is {limit}; use a symbolic method instead"
            )
        r, c = np.meshgrid(np.arange(self.n_rows), np.arange(self.n_cols), indexing="ij")
        return self.entries(r.ravel(), c.ravel()).reshape(self.n_rows, self.n_cols)

    def describe(self) -> dict[str, object]:
        """JSON-ready description: name, parameters and partition."""
        out: dict[str, object] = {"problem": self.name, **self.params}
        if self.partition is not None:
            out["partition"] = self.partition.spec
        return out

    def spec(self) -> dict[str, object]:
        """:meth:`describe` plus what rebuilds f from the description alone (for certificates)."""
        return {**self.describe(), **self.embedded}


def _half(value: int) -> int:
    """H, each party's share of a word of length 2H."""
    return check_int(value, "--half", 1, limits.LENGTH.most // 2, limits.LENGTH.instead)


def string_problem(
    name: str,
    params: dict[str, object],
    language: Callable[[np.ndarray], np.ndarray],
    alphabet: int,
    length: int,
    partition: Partition,
) -> TwoPartyProblem:
    """A language over ``[alphabet]^length`` split between Alice and Bob by ``partition``."""
    alice: np.ndarray | slice = np.array(partition.alice, dtype=np.int64)
    bob: np.ndarray | slice = np.array(partition.bob, dtype=np.int64)
    if partition.alice == tuple(range(len(partition.alice))):  # a prefix: slices copy faster
        alice, bob = slice(0, len(partition.alice)), slice(len(partition.alice), length)

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        words = np.empty((x.shape[0], length), dtype=np.int64)
        words[:, alice] = x
        words[:, bob] = y
        return language(words)

    return TwoPartyProblem(
        name,
        params,
        alphabet,
        len(partition.alice),
        alphabet,
        len(partition.bob),
        evaluate,
        partition,
    )


def dyck(types: int, depth: int, length: int, partition: str = "odd-even") -> TwoPartyProblem:
    """Dyck-(n,k) membership of a length-N word split by ``partition`` (Lemma 1: odd-even)."""
    limits.TYPES.check(types, "--types")
    check_int(depth, "--depth", 0)
    limits.LENGTH.check(length, "--length")
    part = Partition.parse(partition, length)
    params = {"types": types, "depth": depth, "length": length}
    return string_problem(
        "dyck", params, lambda w: is_dyck(w, types, depth), 2 * types, length, part
    )


def equality(half: int, alphabet: int = 2, partition: str | None = None) -> TwoPartyProblem:
    """EQ: Alice holds x, Bob holds y, both in [A]^H; f = 1 iff x = y (Fact 2)."""
    _half(half)
    limits.ALPHABET.check(alphabet, "--alphabet")
    length = 2 * half
    part = Partition.parse(partition or f"prefix:{half}", length)
    if len(part.alice) != half:
        raise InputError(f"equality needs a balanced partition ({half} positions each)")
    a, b = np.array(part.alice), np.array(part.bob)
    params = {"half": half, "alphabet": alphabet}
    return string_problem(
        "equality", params, lambda w: (w[:, a] == w[:, b]).all(axis=1), alphabet, length, part
    )


def disjointness(half: int, partition: str | None = None) -> TwoPartyProblem:
    """DISJ: x, y in {0,1}^H; f = 1 iff the sets intersect (x_i = y_i = 1 for some i; Fact 1)."""
    _half(half)
    length = 2 * half
    part = Partition.parse(partition or f"prefix:{half}", length)
    if len(part.alice) != half:
        raise InputError(f"disjointness needs a balanced partition ({half} positions each)")
    a, b = np.array(part.alice), np.array(part.bob)
    params = {"half": half}
    return string_problem(
        "disjointness",
        params,
        lambda w: ((w[:, a] == 1) & (w[:, b] == 1)).any(axis=1),
        2,
        length,
        part,
    )


def index(length: int) -> TwoPartyProblem:
    """INDEX: Alice holds a in {0,1}^N, Bob holds b in [N] (0-based here); f = a_b (Fact 3)."""
    limits.LENGTH.check(length, "--length")

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x[np.arange(x.shape[0]), y[:, 0]]

    return TwoPartyProblem("index", {"length": length}, 2, length, length, 1, evaluate, None)


def kg_query(entities: int, relations: int, hops: int, cut: int, seed: int = 0) -> TwoPartyProblem:
    """A q-hop path query over the seeded matching graph, split after ``cut`` relations.

    Alice holds (e, r_1..r_K), one symbol e R^K + [r_1..r_K]_R; Bob holds (r_{K+1}..r_q, a),
    one symbol [r_{K+1}..r_q]_R E + a (words read base R, most significant first); f = 1 iff a
    is the query's answer. With 0 <= K <= q; the graph is named by its SHA-256 as well.
    """
    e = check_int(entities, "--entities", 2)
    r = check_int(relations, "--relations")
    q = check_int(hops, "--hops")
    k = check_int(cut, "--cut", 0)
    if k > q:
        raise InputError(f"--cut K needs 0 <= K <= hops ({q}), got {k}")
    if not limits.power_at_most(r, q, ((1 << 62) - 1) // e):  # never a huge power
        raise InputError(
            f"kg: E R^q inputs with E = {e}, R = {r}, q = {q} reach 2^62, the limit (64-bit "
            "numbering); use fewer entities, relations or hops"
        )
    graph = MatchingKG.generate(e, r, check_int(seed, "--seed", 0))
    powers = r ** np.arange(q - 1, -1, -1, dtype=np.int64)

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        alice, bob = x[:, 0], y[:, 0]
        word = (alice % r**k) * r ** (q - k) + bob // e  # r_1..r_q read base R
        reached = alice // r**k
        for power in powers:  # hop by hop (MatchingKG.answer's walk), never a (B, q) array
            reached = graph.permutations[(word // power) % r, reached]
        return reached == bob % e

    params = {"entities": e, "relations": r, "hops": q, "cut": k, "seed": graph.seed}
    params["graph_sha256"] = graph.sha256()
    return TwoPartyProblem("kg", params, e * r**k, 1, r ** (q - k) * e, 1, evaluate, None)


def _matrix_problem(name: str, params: dict[str, object], m: np.ndarray, **embedded: object):
    """M as a problem: Alice holds a row index (one symbol of [rows]), Bob a column index."""
    m.setflags(write=False)

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return m[x[:, 0], y[:, 0]]

    rows, cols = m.shape
    return TwoPartyProblem(name, params, rows, 1, cols, 1, evaluate, None, dict(embedded))


def _check_shape(rows: int, cols: int) -> None:
    for value, what in ((rows, "--rows"), (cols, "--cols")):
        check_int(value, what, 1, MATRIX_ENTRY_LIMIT)
    if rows * cols > MATRIX_ENTRY_LIMIT:
        raise InputError(
            f"a matrix problem is limited to {MATRIX_ENTRY_LIMIT} entries, got {rows} x {cols}"
        )


def matrix_rows_sha256(lines: list[str]) -> str:
    """SHA-256 of the rows as text: each row's 0/1 digits, then a newline."""
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode("ascii")).hexdigest()


def from_csv(path: str | os.PathLike[str]) -> TwoPartyProblem:
    """Any 0/1 matrix from a CSV file: one line per row (Alice's inputs), comma-separated 0 or 1
    per column (Bob's). The file is data: its size is checked before it is read, then every
    entry is validated (ragged rows, other values, empty files and non-UTF-8 text are refused).
    """
    p = Path(path)
    data = limits.read_bytes(p, limits.MATRIX_BYTES, "matrix file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"matrix file {p} is not UTF-8 text (byte {err.start})") from None
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise InputError(f"matrix file {p} is empty")
    rows: list[str] = []
    for number, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.split(",")]
        bad = next((c for c in cells if c not in ("0", "1")), None)
        if bad is not None:
            raise InputError(f"matrix file {p}, line {number}: entries must be 0 or 1, got {bad!r}")
        if rows and len(cells) != len(rows[0]):
            raise InputError(
                f"matrix file {p}, line {number}: {len(cells)} entries, but line 1 has "
                f"{len(rows[0])} (rows must have equal length)"
            )
        rows.append("".join(cells))
    _check_shape(len(rows), len(rows[0]))
    m = (np.frombuffer("".join(rows).encode("ascii"), dtype=np.uint8) - ord("0")).astype(np.int8)
    m = m.reshape(len(rows), len(rows[0]))
    params = {"rows": len(rows), "cols": len(rows[0]), "sha256": matrix_rows_sha256(rows)}
    return _matrix_problem("matrix", params, m, entries=rows)


def from_matrix(matrix: np.ndarray | list[list[int]]) -> TwoPartyProblem:
    """Any 0/1 matrix held in memory (rows: Alice's inputs, columns: Bob's) as the problem
    ``matrix``, exactly as if read from a CSV file by :func:`from_csv`: a certificate of it
    carries the rows and their SHA-256, so ``ccx verify`` evaluates f by itself. With
    ``problem.matrix()`` of any problem (a function and a partition of your own) it turns that
    problem into one whose certificates anyone can re-check."""
    m = np.asarray(matrix)
    if m.ndim != 2 or m.size == 0:
        raise InputError(f"a matrix problem needs a non-empty 2-D array, got shape {m.shape}")
    _check_shape(*m.shape)
    if not np.isin(m, (0, 1)).all():
        raise InputError("a matrix problem's entries must be 0 or 1")
    m = m.astype(np.int8)
    rows = ["".join("1" if v else "0" for v in row) for row in m.tolist()]
    params = {"rows": m.shape[0], "cols": m.shape[1], "sha256": matrix_rows_sha256(rows)}
    return _matrix_problem("matrix", params, m, entries=rows)


def random_matrix(rows: int, cols: int, seed: int, density: float = 0.5) -> TwoPartyProblem:
    """A seeded random 0/1 matrix: M = [U < density] with U uniform in [0, 1) from numpy's
    ``Generator(PCG64(seed)).random((rows, cols))``, row by row. The verifier redraws it."""
    _check_shape(rows, cols)
    if seed is None or not 0 <= seed < 1 << 64:
        raise InputError(f"--seed must be an integer in 0..2^64-1, got {seed}")
    density = float(density)
    if not 0.0 <= density <= 1.0:
        raise InputError(f"--density must lie in [0, 1], got {density}")
    u = np.random.Generator(np.random.PCG64(seed)).random((rows, cols))
    m = (u < density).astype(np.int8)
    params = {"rows": rows, "cols": cols, "seed": seed, "density": density, "generator": "PCG64"}
    return _matrix_problem("random", params, m)


def group_word(group: FiniteGroup, length: int, cut: int) -> TwoPartyProblem:
    """The word problem of ``group`` split at ``cut``: Alice holds g_1..g_K, Bob g_K+1..g_n,
    f = [g_1 ∘ ... ∘ g_n = e] (looped-reasoning Thm 2.1's task as a decision problem)."""
    n = limits.LENGTH.check(length, "--length")
    part = Partition.parse(f"prefix:{limits.LENGTH.check(cut, '--cut')}", n)
    params = {"group": group.name, "length": n}
    return string_problem(
        "group-word", params, lambda w: group.compose(w) == 0, group.order, n, part
    )


def p_hop(alphabet: int, length: int, hops: int, cut: int, strict: bool = False) -> TwoPartyProblem:
    """hop_p (looped-reasoning Def. A.1) split at ``cut``: Alice holds v_1..v_K, Bob the rest
    and the query position n; the value is the answer symbol, or -1 for ⊥."""
    a = limits.ALPHABET.check(alphabet, "--alphabet")
    n = limits.LENGTH.check(length, "--length")
    part = Partition.parse(f"prefix:{limits.LENGTH.check(cut, '--cut')}", n)
    params = {
        "alphabet": a,
        "length": n,
        "hops": limits.HOPS.check(hops, "--hops"),
        "strict": strict,
    }
    return string_problem("p-hop", params, lambda w: hop_p(w, hops, strict), a, n, part)


PROBLEMS = ("dyck", "equality", "disjointness", "index", "kg", "matrix", "random")
plugins.declare("task", PROBLEMS)


PROBLEM_OPTIONS: dict[str, tuple[str, ...]] = {
    "dyck": ("types", "depth", "length", "partition"),
    "equality": ("half", "alphabet", "partition"),
    "disjointness": ("half", "partition"),
    "index": ("length",),
    "kg": ("entities", "relations", "hops", "cut", "seed"),
    "matrix": ("file",),
    "random": ("rows", "cols", "seed", "density"),
}
"""The options each problem of :func:`make` takes; any other given option is an error, never
silently ignored."""


def make(name: str, **options: object) -> TwoPartyProblem:
    """Build a problem by CLI name; unknown names and missing options raise :class:`InputError`."""
    opts = {k: v for k, v in options.items() if v is not None}
    if opts.get("partition") == "":
        raise InputError("--partition is empty: use prefix:K, odd-even or alice:i,j,...")
    takes = PROBLEM_OPTIONS.get(name)
    if takes is not None and set(opts) - set(takes):
        extra = ", ".join(f"--{k}" for k in sorted(set(opts) - set(takes)))
        raise InputError(
            f"problem {name} takes no {extra}; it takes {', '.join('--' + k for k in takes)}"
        )
    try:
        if name == "dyck":
            return dyck(
                opts["types"], opts["depth"], opts["length"], opts.get("partition", "odd-even")
            )
        if name == "equality":
            return equality(opts["half"], opts.get("alphabet", 2), opts.get("partition"))
        if name == "disjointness":
            return disjointness(opts["half"], opts.get("partition"))
        if name == "index":
            return index(opts["length"])
        if name == "kg":
            return kg_query(
                opts["entities"], opts["relations"], opts["hops"], opts["cut"], opts.get("seed", 0)
            )
        if name == "matrix":
            return from_csv(opts["file"])
        if name == "random":
            return random_matrix(opts["rows"], opts["cols"], opts["seed"], opts.get("density", 0.5))
    except KeyError as missing:
        where = " (ccx kg split)" if name == "kg" else ""
        raise InputError(f"problem {name} needs --{missing.args[0]}{where}") from None
    raise InputError(f"unknown problem {name!r}; choose one of {', '.join(PROBLEMS)}")
