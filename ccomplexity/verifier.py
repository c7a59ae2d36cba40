"""The independent verifier of certificates (:mod:`ccomplexity.certificates`).

:func:`verify` re-checks a certificate by recomputing the problem's function on the witness with
the language oracles of :mod:`ccomplexity.languages` (through :mod:`ccomplexity.problems`) and with
arithmetic written here, never through :mod:`ccomplexity.lower_bounds`, which produced the
witness. Symbolic Dyck certificates are re-checked by dynamic programming over stacks, built here
from the definition of Dyck-(n,k): the verifier recounts the members and checks that Alice's half
determines Bob's and vice versa.

The file is data: it is parsed as JSON, every field is validated, nothing is executed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ccomplexity import problems
from ccomplexity.certificates import FORMAT, FORMAT_VERSION, KINDS, MAX_PAIRWISE
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2

MAX_FILE_BYTES = 64 << 20
MAX_SYMBOLIC_LENGTH = 100_000
MAX_MATRIX_ENTRIES = 1 << 24
MATRIX_FIELDS = {
    "matrix": {"problem", "rows", "cols", "sha256", "entries"},
    "random": {"problem", "rows", "cols", "seed", "density", "generator"},
}


class InvalidCertificate(Exception):
    """The certificate does not prove what it claims; the message says why."""


@dataclass(frozen=True)
class Verdict:
    valid: bool
    kind: str | None
    claimed_bits: int | None
    reason: str | None


def read_certificate(path: str | os.PathLike[str]) -> Any:
    """Parse a certificate file as JSON data (never executed).

    A missing or oversized file is an :class:`InputError`; text that is not JSON is an
    :class:`InvalidCertificate`.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"certificate {p} does not exist or is not a file")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise InputError(f"certificate {p} exceeds the size limit of {MAX_FILE_BYTES} bytes")
    try:
        return json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InvalidCertificate(f"not valid JSON: {err}") from None


def verify_file(path: str | os.PathLike[str]) -> Verdict:
    """Read and verify a lower-bound certificate file; a missing file is an InputError."""
    try:
        cert = read_certificate(path)
    except InvalidCertificate as err:
        return Verdict(False, None, None, str(err))
    return verify(cert)


def verify(cert: Any) -> Verdict:
    """Re-check a parsed certificate; never raises for bad content, returns the reason instead."""
    kind = cert.get("kind") if isinstance(cert, dict) else None
    try:
        check_envelope(cert, KINDS)
        claim = field(cert, "claim", dict)
        witness = field(cert, "witness", dict)
        spec = field(cert, "problem", dict)
        bits = field(claim, "bits", int)
        if kind == "fooling_set_symbolic":
            _verify_symbolic(spec, claim, witness)
        else:
            problem = _build_problem(spec)
            {"fooling_set": _verify_fooling, "one_way": _verify_one_way, "rank": _verify_rank}[
                kind
            ](problem, claim, witness)
    except InvalidCertificate as err:
        return Verdict(False, kind if kind in KINDS else None, None, str(err))
    return Verdict(True, kind, bits, None)


def check_envelope(cert: Any, kinds: tuple[str, ...]) -> None:
    """A JSON object in this format and version, of one of ``kinds``; else InvalidCertificate."""
    require(isinstance(cert, dict), "a certificate is a JSON object")
    require(cert.get("format") == FORMAT, f"format must be {FORMAT!r}")
    require(cert.get("format_version") == FORMAT_VERSION, "unsupported format_version")
    require(cert.get("kind") in kinds, f"kind must be one of {', '.join(kinds)}")


def require(condition: bool, reason: str) -> None:
    """Raise :class:`InvalidCertificate` with ``reason`` unless ``condition`` holds."""
    if not condition:
        raise InvalidCertificate(reason)


def field(obj: dict[str, Any], name: str, typ: type) -> Any:
    """``obj[name]`` if it has type ``typ`` (a bool is not an int); else InvalidCertificate."""
    value = obj.get(name)
    ok = isinstance(value, typ) and not (typ is int and isinstance(value, bool))
    require(ok, f"field {name!r} must be a {typ.__name__}")
    return value


def _build_problem(spec: dict[str, Any]) -> problems.TwoPartyProblem:
    if spec.get("problem") in MATRIX_FIELDS:
        return _matrix_problem(spec)
    allowed = {"problem", "types", "depth", "length", "half", "alphabet", "partition"}
    allowed |= {"entities", "relations", "hops", "cut", "seed", "graph_sha256"}  # kg
    extra = set(spec) - allowed
    require(not extra, f"unknown problem fields: {sorted(extra)}")
    name = spec.get("problem")
    require(isinstance(name, str), "problem name must be a string")
    options = {k: v for k, v in spec.items() if k not in ("problem", "graph_sha256")}
    for key, val in options.items():
        if key == "partition":
            require(isinstance(val, str), "partition must be a string")
        else:
            require(isinstance(val, int) and not isinstance(val, bool), f"{key} must be an int")
    try:
        problem = problems.make(name, **options)
    except InputError as err:
        raise InvalidCertificate(f"bad problem: {err}") from None
    if name == "kg":  # the graph is rebuilt from its seed; its hash must be the certified one
        digest = problem.params["graph_sha256"]
        require(
            spec.get("graph_sha256") == digest, "the graph from this seed is not the one certified"
        )
    require(problem.describe() == spec, "problem description is not canonical")
    return problem


def _matrix_problem(spec: dict[str, Any]) -> problems.TwoPartyProblem:
    """A matrix problem rebuilt here: the embedded rows (checked against their SHA-256), or the
    seeded draw M = [U < density], U = numpy Generator(PCG64(seed)).random((rows, cols))."""
    name = spec["problem"]
    require(set(spec) == MATRIX_FIELDS[name], f"a {name} problem has the fields "
            f"{sorted(MATRIX_FIELDS[name])}")  # fmt: skip
    rows, cols = field(spec, "rows", int), field(spec, "cols", int)
    require(rows >= 1 and cols >= 1 and rows * cols <= MAX_MATRIX_ENTRIES, "bad matrix shape")
    if name == "matrix":
        lines = field(spec, "entries", list)
        ok = len(lines) == rows and all(
            isinstance(t, str) and len(t) == cols and not t.strip("01") for t in lines
        )
        require(ok, f"entries must be {rows} strings of {cols} digits 0 or 1")
        text = "".join(f"{t}\n" for t in lines).encode("ascii")
        require(hashlib.sha256(text).hexdigest() == spec["sha256"], "sha256 differs from entries")
        m = np.frombuffer(text, dtype=np.uint8).reshape(rows, cols + 1)[:, :cols] == ord("1")
    else:
        seed, density = field(spec, "seed", int), field(spec, "density", float)
        require(0 <= seed < 1 << 64 and 0.0 <= density <= 1.0, "seed or density out of range")
        require(spec["generator"] == "PCG64", "the generator must be PCG64")
        m = np.random.Generator(np.random.PCG64(seed)).random((rows, cols)) < density
    m = m.astype(np.int8)

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return m[x[:, 0], y[:, 0]]

    params = {k: v for k, v in spec.items() if k not in ("problem", "entries")}
    return problems.TwoPartyProblem(name, params, rows, 1, cols, 1, evaluate)


def _words(rows: Any, alphabet: int, length: int, what: str) -> np.ndarray:
    require(isinstance(rows, list), f"{what} must be a list")
    for r in rows:
        ok = isinstance(r, list) and len(r) == length
        require(ok and all(type(s) is int and 0 <= s < alphabet for s in r), f"bad {what} entry")
    return np.array(rows, dtype=np.int64).reshape(len(rows), length)


def _index_of(words: np.ndarray, alphabet: int) -> np.ndarray:
    return problems.undigits(words, alphabet) if words.shape[1] else np.zeros(len(words), np.int64)


def _verify_fooling(problem: problems.TwoPartyProblem, claim: dict, witness: dict) -> None:
    pairs = field(witness, "pairs", list)
    value = field(claim, "value", int)
    require(all(isinstance(p, list) and len(p) == 2 for p in pairs), "pairs must be [x, y]")
    size = len(pairs)
    require(size >= 1, "a fooling set must not be empty")
    require(size * size <= MAX_PAIRWISE, f"at most {math.isqrt(MAX_PAIRWISE)} pairs are checked")
    x = _words([p[0] for p in pairs], problem.alice_alphabet, problem.alice_length, "x")
    y = _words([p[1] for p in pairs], problem.bob_alphabet, problem.bob_length, "y")
    require(field(claim, "size", int) == size, f"claimed size differs from {size} pairs")
    require(claim["bits"] == ceil_log2(size), "claimed bits differ from ceil(log2 size)")
    rows = _index_of(x, problem.alice_alphabet)
    cols = _index_of(y, problem.bob_alphabet)
    keys = rows * problem.n_cols + cols
    require(len(np.unique(keys)) == size, "pairs are not distinct")
    on_set = problem.entries(rows, cols)
    bad = np.flatnonzero(on_set != value)
    require(bad.size == 0, f"pair {bad[:1].tolist()} does not have value {value}")
    # Def. 1: for i != j, f(x_i, y_j) != b or f(x_j, y_i) != b. Check every ordered pair in chunks.
    chunk = max(1, (1 << 22) // size)
    cross = np.zeros((size, size), dtype=bool)
    for start in range(0, size, chunk):
        i = np.arange(start, min(size, start + chunk))
        ii = np.repeat(i, size)
        jj = np.tile(np.arange(size), len(i))
        cross[i] = (problem.entries(rows[ii], cols[jj]) == value).reshape(len(i), size)
    clash = cross & cross.T
    np.fill_diagonal(clash, False)
    hit = np.argwhere(clash)
    require(hit.size == 0, f"pairs {hit[:1].tolist()} violate the fooling property")


def _verify_one_way(problem: problems.TwoPartyProblem, claim: dict, witness: dict) -> None:
    x = _words(field(witness, "alice_inputs", list), problem.alice_alphabet,
               problem.alice_length, "alice_inputs")  # fmt: skip
    y = _words(field(witness, "bob_inputs", list), problem.bob_alphabet,
               problem.bob_length, "bob_inputs")  # fmt: skip
    require(len(x) >= 1 and len(y) >= 1, "witness needs at least one input on each side")
    require(len(x) * len(y) <= MAX_PAIRWISE, "witness submatrix too large to check")
    rows, cols = _index_of(x, problem.alice_alphabet), _index_of(y, problem.bob_alphabet)
    sub = problem.entries(np.repeat(rows, len(cols)), np.tile(cols, len(rows)))
    sub = sub.reshape(len(rows), len(cols))
    distinct = len(np.unique(sub, axis=0))
    require(distinct == len(rows), f"only {distinct} of {len(rows)} rows are distinct")
    require(field(claim, "distinct_rows", int) == len(rows), "claimed distinct_rows differs")
    require(claim["bits"] == ceil_log2(len(rows)), "claimed bits differ from ceil(log2 rows)")


def _det_nonzero_mod(matrix: list[list[int]], prime: int) -> bool:
    """Gaussian elimination over GF(prime) with Python integers."""
    a = [[v % prime for v in row] for row in matrix]
    n = len(a)
    for c in range(n):
        pivot = next((r for r in range(c, n) if a[r][c]), None)
        if pivot is None:
            return False
        a[c], a[pivot] = a[pivot], a[c]
        inv = pow(a[c][c], prime - 2, prime)
        for r in range(c + 1, n):
            f = a[r][c] * inv % prime
            if f:
                a[r] = [(u - f * v) % prime for u, v in zip(a[r], a[c], strict=True)]
    return True


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    return all(n % d for d in range(2, math.isqrt(n) + 1))


def _verify_rank(problem: problems.TwoPartyProblem, claim: dict, witness: dict) -> None:
    prime = field(claim, "prime", int)
    require(2 <= prime < 1 << 62 and _is_prime(prime), "claimed prime is not a prime below 2^62")
    x = _words(field(witness, "alice_inputs", list), problem.alice_alphabet,
               problem.alice_length, "alice_inputs")  # fmt: skip
    y = _words(field(witness, "bob_inputs", list), problem.bob_alphabet,
               problem.bob_length, "bob_inputs")  # fmt: skip
    r = len(x)
    require(r >= 1 and len(y) == r, "rank witness must be a square, non-empty submatrix")
    require(r <= 512, "rank witnesses are limited to 512 x 512")
    rows, cols = _index_of(x, problem.alice_alphabet), _index_of(y, problem.bob_alphabet)
    sub = problem.entries(np.repeat(rows, r), np.tile(cols, r)).reshape(r, r)
    require(_det_nonzero_mod(sub.tolist(), prime), "witness submatrix is singular")
    require(field(claim, "rank_at_least", int) == r, "claimed rank differs from the witness")
    require(claim["bits"] == ceil_log2(r), "claimed bits differ from ceil(log2 rank)")


def _verify_symbolic(spec: dict, claim: dict, witness: dict) -> None:
    require(
        set(spec) == {"problem", "types", "depth", "length", "partition"}
        and spec["problem"] == "dyck"
        and spec["partition"] == "odd-even",
        "symbolic certificates cover Dyck-(n,k) under the odd-even partition only",
    )
    n, k, length = (field(spec, f, int) for f in ("types", "depth", "length"))
    require(n >= 1 and k >= 0 and 2 <= length <= MAX_SYMBOLIC_LENGTH, "parameters out of range")
    require(length % 2 == 0, "odd-even needs an even length")
    require(n ** min(k, 64) <= 4096, "at most 4096 stacks are explored")
    require(witness.get("family") == "all-members", "family must be all-members")
    size = claim.get("size")
    hex_digits = "0123456789abcdef"
    ok = isinstance(size, str) and size.startswith("0x") and len(size) > 2
    require(ok and all(c in hex_digits for c in size[2:]), "claimed size must be a hex string")
    require(field(claim, "value", int) == 1, "the family of members has value 1")
    stacks = _stacks(n, k)
    count = _count_members(stacks, n, length)
    require(int(size, 16) == count, f"claimed size differs from the {hex(count)} members")
    require(count >= 1, "there are no members of this length")
    require(claim["bits"] == ceil_log2(count), "claimed bits differ from ceil(log2 size)")
    for alice_fixed in (True, False):
        unique = _half_determines_other(stacks, n, length, alice_fixed)
        name = "x_determines_y" if alice_fixed else "y_determines_x"
        require(unique and witness.get(name) is True, f"{name} does not hold")


def _stacks(n: int, k: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for stack in out:
        if len(stack) < k:
            out.extend((*stack, t) for t in range(n))
    return out


def _step(stack: tuple[int, ...], sym: int, depth_limit: int) -> tuple[int, ...] | None:
    """Read one symbol (2t opens type t, 2t+1 closes it) on a stack; None when it is rejected."""
    t, closing = divmod(sym, 2)
    if not closing:
        return (*stack, t) if len(stack) < depth_limit else None
    return stack[:-1] if stack and stack[-1] == t else None


def _count_members(stacks: list[tuple[int, ...]], n: int, length: int) -> int:
    k = max(len(s) for s in stacks)
    ways: dict[tuple[int, ...], int] = {(): 1}
    for _ in range(length):
        nxt: dict[tuple[int, ...], int] = {}
        for stack, w in ways.items():
            for sym in range(2 * n):
                s = _step(stack, sym, k)
                if s is not None:
                    nxt[s] = nxt.get(s, 0) + w
        ways = nxt
    return ways.get((), 0)


def _half_determines_other(
    stacks: list[tuple[int, ...]], n: int, length: int, alice_fixed: bool
) -> bool:
    """No two distinct members agree on Alice's (odd) positions, or on Bob's (even) ones.

    Runs both words together over pairs of stacks; on the fixed party's positions both read
    the same symbol, on the other's any two symbols, remembering whether they ever differed.
    """
    k = max(len(s) for s in stacks)
    states: set[tuple[tuple[int, ...], tuple[int, ...], bool]] = {((), (), False)}
    for pos in range(length):
        fixed = (pos % 2 == 0) == alice_fixed  # 0-based even = paper's odd positions = Alice
        nxt: set[tuple[tuple[int, ...], tuple[int, ...], bool]] = set()
        for s1, s2, differed in states:
            for a in range(2 * n):
                t1 = _step(s1, a, k)
                if t1 is None:
                    continue
                for b in [a] if fixed else range(2 * n):
                    t2 = _step(s2, b, k)
                    if t2 is not None:
                        nxt.add((t1, t2, differed or a != b))
        states = nxt
    return ((), (), True) not in states


def describe_verdict(v: Verdict) -> dict[str, Any]:
    return {"valid": v.valid, "kind": v.kind, "claimed_bits": v.claimed_bits, "reason": v.reason}
