"""The independent verifier of certificates (:mod:`ccomplexity.certificates`).

:func:`verify` re-checks a certificate by recomputing the problem's function on the witness with
the language oracles of :mod:`ccomplexity.languages` (through :mod:`ccomplexity.problems`) and with
arithmetic written here, never through :mod:`ccomplexity.lower_bounds`, which produced the
witness. Symbolic Dyck certificates are re-checked over stacks, built here from the definition of
Dyck-(n,k): the verifier recounts the members exactly (repeated squaring of the walk matrix on
stack heights, once it has checked that the heights lump the stacks) and checks that Alice's half
determines Bob's and vice versa (Boolean matrix powers of the product automaton): N = 10^6 takes
seconds.

Soundness rests on three rules:

- What is checked is exactly what the file says. Words are evaluated as words (no row or column
  indices, which would wrap around past 2^63 and check other words), for every alphabet and
  length.
- The file is data, read strictly: UTF-8 JSON (:func:`parse_json`) with no duplicate keys (a
  reader keeping the first would see another claim), no NaN or infinities, no unknown or wrongly
  typed fields anywhere (``format_version`` is the integer 1, not ``true`` or ``1.0``), nothing
  executed.
- Every size a certificate may ask for is bounded before any work starts (file size, word
  length, pairs x word length, rank, prime, and the symbolic Dyck limit its maker applies too,
  :func:`ccomplexity.limits.check_dyck_symbolic`); beyond a limit the certificate is not
  checked: the verdict says "over the limit" (:class:`OverLimit`) and names it, within seconds.
  Primes are tested by a deterministic Miller-Rabin test.

One module on purpose (about 680 lines): the verifier does not import the lower-bound methods
whose certificates it checks (only the problem definitions), so it re-derives every certificate
kind here.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ccomplexity import budget, limits, problems
from ccomplexity.certificates import FORMAT, FORMAT_VERSION, KINDS, MAX_PAIRWISE
from ccomplexity.errors import InputError
from ccomplexity.integers import ceil_log2

MAX_FILE_BYTES = limits.CERTIFICATE_BYTES
MAX_SYMBOLS = 1 << 31
"""Most symbols the pairwise checks evaluate (pairs checked x word length)."""
CHUNK_SYMBOLS = 1 << 22
"""Symbols evaluated per vectorised call (bounded memory)."""
MAX_RANK = 512
"""Largest rank witness for primes below 2^31 (int64 elimination); 128 for larger primes."""
MAX_RANK_BIG_PRIME = 128
MAX_PRIME = 1 << 62
_MILLER_RABIN_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
"""Deterministic for every n < 3.3 x 10^24 (Sorenson and Webster 2015), so for all n < 2^62."""
MATRIX_FIELDS: dict[str, dict[str, type]] = {
    "matrix": {"problem": str, "rows": int, "cols": int, "sha256": str, "entries": list},
    "random": {"problem": str, "rows": int, "cols": int, "seed": int, "density": float,
               "generator": str},
}  # fmt: skip
"""The fields of a matrix problem, embedded (``matrix``) or redrawn from its seed (``random``)."""


class InvalidCertificate(Exception):
    """The certificate does not prove what it claims; the message says why."""


class OverLimit(InvalidCertificate):
    """The certificate asks for more work than a limit allows; the message names the limit.
    Not a verdict on what it claims: it was not checked."""


@dataclass(frozen=True)
class Verdict:
    """``valid`` when the certificate proves its claim; else ``reason`` says why not, and
    ``over_limit`` tells a certificate beyond a limit (not checked) from an invalid one."""

    valid: bool
    kind: str | None
    claimed_bits: int | None
    reason: str | None
    over_limit: bool = False


# ------------------------------------------------------------------------------ reading


class _Malformed(ValueError):
    """Raised from inside the JSON decoder's hooks."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Malformed(f"duplicate key {key[:40]!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _Malformed(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Malformed(f"number {text[:40]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 40 and len(text.lstrip("-")) > 40:  # the cheap test first: millions of ints
        raise _Malformed(f"integer of {len(text)} digits (the limit is 40)")
    return int(text)


def parse_json(data: bytes) -> Any:
    """Strict JSON from bytes: UTF-8, no duplicate keys, no NaN or infinities, integers of at
    most 40 digits; anything else (or nesting deeper than the decoder allows) is an
    :class:`InvalidCertificate` naming the problem."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidCertificate(f"not UTF-8 text (byte {err.start})") from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except _Malformed as err:
        raise InvalidCertificate(f"not valid JSON: {err}") from None
    except json.JSONDecodeError as err:
        raise InvalidCertificate(f"not valid JSON: {err}") from None
    except RecursionError:
        raise InvalidCertificate("not valid JSON: nested deeper than the decoder allows") from None


def read_certificate(path: str | os.PathLike[str]) -> Any:
    """Parse a certificate file as strict JSON data (never executed).

    A missing or oversized file is an :class:`InputError` (checked before reading): over
    :data:`~ccomplexity.limits.CERTIFICATE_BYTES`, or over the cap of the kind it names in its
    first 4 KiB (:data:`~ccomplexity.limits.CERTIFICATE_KIND_BYTES`, checked again once parsed).
    Bytes that are not strict JSON are an :class:`InvalidCertificate`.
    """
    kind = _declared_kind(path)
    if kind in limits.CERTIFICATE_KIND_BYTES:
        _check_kind_size(path, kind)
    cert = parse_json(limits.read_bytes(path, MAX_FILE_BYTES, "certificate"))
    if isinstance(cert, dict) and cert.get("kind") in limits.CERTIFICATE_KIND_BYTES:
        _check_kind_size(path, cert["kind"])
    return cert


_HEAD_BYTES = 4096
_KIND_IN_HEAD = re.compile(rb'"kind"\s*:\s*"([a-z_]{1,40})"')


def _declared_kind(path: str | os.PathLike[str]) -> str | None:
    """The kind a certificate file names in its first bytes (where the writer puts it), if it
    does: its size is checked against that kind's cap before the file is parsed."""
    if not os.path.isfile(path):
        return None  # read_bytes says why, in one line
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError:
        return None
    found = _KIND_IN_HEAD.search(head)
    return found.group(1).decode() if found else None


def _check_kind_size(path: str | os.PathLike[str], kind: str) -> None:
    """Refuse a certificate file larger than the largest of its kind
    (:data:`ccomplexity.limits.CERTIFICATE_KIND_BYTES`): over a limit, not invalid."""
    size, most = os.stat(path).st_size, limits.CERTIFICATE_KIND_BYTES[kind]
    if size > most:
        raise InputError(
            f"certificate {path} of kind {kind} has {size} bytes; the limit for that kind is {most}"
        )


def verify_file(path: str | os.PathLike[str]) -> Verdict:
    """Read and verify a lower-bound certificate file; a missing file is an InputError."""
    try:
        cert = read_certificate(path)
    except InvalidCertificate as err:
        return Verdict(False, None, None, str(err))
    return verify(cert)


# ------------------------------------------------------------------------------ structure


def require(condition: bool, reason: str) -> None:
    """Raise :class:`InvalidCertificate` with ``reason`` unless ``condition`` holds."""
    if not condition:
        raise InvalidCertificate(reason)


def within(condition: bool, reason: str) -> None:
    """Raise :class:`OverLimit` with ``reason`` (naming the limit) unless ``condition`` holds."""
    if not condition:
        raise OverLimit(reason)


def _is(value: Any, typ: type) -> bool:
    """Exact JSON types: a bool is not an int, an int is not a float."""
    if typ is int:
        return type(value) is int
    if typ is float:
        return type(value) is float
    return isinstance(value, typ)


def field(obj: Mapping[str, Any], name: str, typ: type) -> Any:
    """``obj[name]`` if it has type ``typ`` (a bool is not an int); else InvalidCertificate."""
    value = obj.get(name)
    require(_is(value, typ), f"field {name!r} must be a {typ.__name__}")
    return value


def exact_keys(obj: Any, where: str, keys: Mapping[str, type | tuple[type, ...]]) -> None:
    """``obj`` is an object with exactly ``keys``, each of its type (a tuple: one of them)."""
    require(isinstance(obj, dict), f"{where} must be a JSON object")
    unknown = sorted(set(obj) - set(keys))
    require(not unknown, f"{where} has unknown field(s) {', '.join(map(repr, unknown[:5]))}")
    missing = [k for k in keys if k not in obj]
    require(not missing, f"{where} lacks field(s) {', '.join(map(repr, missing))}")
    for key, typ in keys.items():
        types = typ if isinstance(typ, tuple) else (typ,)
        require(any(_is(obj[key], t) for t in types), f"{where}: field {key!r} has the wrong type")


def check_envelope(cert: Any, kinds: tuple[str, ...]) -> None:
    """A JSON object in this format and version (the integer 1), of one of ``kinds``; else
    InvalidCertificate. The other fields are the kind's to check."""
    require(isinstance(cert, dict), "a certificate is a JSON object")
    require(cert.get("format") == FORMAT, f"format must be {FORMAT!r}")
    version = cert.get("format_version")
    require(type(version) is int and version == FORMAT_VERSION, "unsupported format_version")
    require(cert.get("kind") in kinds, f"kind must be one of {', '.join(kinds)}")


_ENVELOPE = {
    "format": str,
    "format_version": int,
    "software": dict,
    "kind": str,
    "problem": dict,
    "claim": dict,
    "witness": dict,
}
_SOFTWARE = {"name": str, "version": str}
_CLAIMS: dict[str, dict[str, type]] = {
    "fooling_set": {"size": int, "value": int, "bits": int},
    "fooling_set_symbolic": {"size": str, "value": int, "bits": int},
    "one_way": {"distinct_rows": int, "bits": int},
    "rank": {"rank_at_least": int, "prime": int, "bits": int},
}
_WITNESSES: dict[str, dict[str, type]] = {
    "fooling_set": {"pairs": list},
    "fooling_set_symbolic": {"family": str, "x_determines_y": bool, "y_determines_x": bool},
    "one_way": {"alice_inputs": list, "bob_inputs": list},
    "rank": {"alice_inputs": list, "bob_inputs": list},
}


def verify(cert: Any) -> Verdict:
    """Re-check a parsed certificate; never raises for bad content, returns the reason instead.
    A certificate about a plugin task whose plugin is not loaded, or is loaded from other
    source bytes than the certified ones, is not checked: InputError."""
    kind = cert.get("kind") if isinstance(cert, dict) else None
    try:
        check_envelope(cert, KINDS)
        exact_keys(cert, "the certificate", _ENVELOPE)
        exact_keys(cert["software"], "software", _SOFTWARE)
        claim, witness, spec = cert["claim"], cert["witness"], cert["problem"]
        exact_keys(claim, "claim", _CLAIMS[kind])
        exact_keys(witness, "witness", _WITNESSES[kind])
        if kind == "fooling_set_symbolic":
            _verify_symbolic(spec, claim, witness)
        else:
            problem = _build_problem(spec)
            {"fooling_set": _verify_fooling, "one_way": _verify_one_way, "rank": _verify_rank}[
                kind
            ](problem, claim, witness)
    except InvalidCertificate as err:
        over = isinstance(err, OverLimit)
        return Verdict(False, kind if kind in KINDS else None, None, str(err), over)
    return Verdict(True, kind, claim["bits"], None)


def _build_problem(spec: dict[str, Any]) -> problems.TwoPartyProblem:
    if "plugin" in spec:  # a plugin's word function, from the loaded plugin of the same hash
        from ccomplexity.plugin_problems import problem_from_spec

        try:
            return problem_from_spec(spec)
        except InputError:  # not checked: the plugin is not loaded, or other code
            raise
        except ValueError as err:
            raise InvalidCertificate(str(err)) from None
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
            require(type(val) is int, f"{key} must be an int")
    try:
        problem = problems.make(name, **options)
    except InputError as err:  # a size beyond a limit is not checked; anything else is bad
        text = str(err)
        if "exceeds the limit" in text or "the limit is" in text or "limited to" in text:
            raise OverLimit(f"problem: {text}") from None
        raise InvalidCertificate(f"bad problem: {text}") from None
    if name == "kg":  # the graph is rebuilt from its seed; its hash must be the certified one
        digest = problem.params["graph_sha256"]
        require(
            spec.get("graph_sha256") == digest, "the graph from this seed is not the one certified"
        )
    require(problem.describe() == spec, "problem description is not canonical")
    return problem


def _matrix_problem(spec: dict[str, Any]) -> problems.TwoPartyProblem:
    """A matrix problem rebuilt here: the embedded rows (checked against their SHA-256), or the
    seeded draw M = [U < density], U = numpy Generator(PCG64(seed)).random((rows, cols)). Its
    size is bounded (``problems.MATRIX_ENTRY_LIMIT``) before anything is built."""
    name = spec["problem"]
    fields = MATRIX_FIELDS[name]
    require(set(spec) == set(fields), f"a {name} problem has the fields {sorted(fields)}")
    exact_keys(spec, "problem", fields)
    rows, cols = spec["rows"], spec["cols"]
    most = problems.MATRIX_ENTRY_LIMIT
    require(rows >= 1 and cols >= 1, "bad matrix shape: rows and cols must be at least 1")
    within(rows * cols <= most, f"matrix problems are limited to {most} entries (rows x cols)")
    if name == "matrix":
        lines = spec["entries"]
        ok = len(lines) == rows and all(
            isinstance(t, str) and len(t) == cols and not t.strip("01") for t in lines
        )
        require(ok, f"entries must be {rows} strings of {cols} digits 0 or 1")
        text = "".join(f"{t}\n" for t in lines).encode("ascii")
        require(hashlib.sha256(text).hexdigest() == spec["sha256"], "sha256 differs from entries")
        m = np.frombuffer(text, dtype=np.uint8).reshape(rows, cols + 1)[:, :cols] == ord("1")
    else:
        seed, density = spec["seed"], spec["density"]
        require(0 <= seed < 1 << 64 and 0.0 <= density <= 1.0, "seed or density out of range")
        require(spec["generator"] == "PCG64", "the generator must be PCG64")
        m = np.random.Generator(np.random.PCG64(seed)).random((rows, cols)) < density
    m = m.astype(np.int8)

    def evaluate(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return m[x[:, 0], y[:, 0]]

    params = {k: v for k, v in spec.items() if k not in ("problem", "entries")}
    return problems.TwoPartyProblem(name, params, rows, 1, cols, 1, evaluate)


# ------------------------------------------------------------------------------ explicit kinds


def _words(rows: list[Any], alphabet: int, length: int, what: str) -> np.ndarray:
    """The words of ``rows`` as a (len, length) int64 array: each a list of ``length`` integers
    (not bools) in 0..alphabet-1, exactly as written."""
    for r in rows:
        ok = isinstance(r, list) and len(r) == length and set(map(type, r)) <= {int}
        require(ok, f"bad {what} entry: each must be a list of {length} integers")
    out = np.zeros((len(rows), length), dtype=np.int64)
    outside = f"bad {what} entry: a symbol outside 0..{alphabet - 1}"
    if rows and length:
        try:
            out[:] = rows
        except OverflowError:
            raise InvalidCertificate(outside) from None
        require(bool((out >= 0).all() and (out < alphabet).all()), outside)
    return out


def _work(pairs: int, problem: problems.TwoPartyProblem, what: str) -> None:
    length = problem.alice_length + problem.bob_length
    within(
        pairs * length <= MAX_SYMBOLS,
        f"{what}: {pairs} pairs of words of length {length} exceed the limit of {MAX_SYMBOLS} "
        "symbols evaluated",
    )
    steps, most = budget.evaluated(pairs, length), budget.work_budget()
    within(
        steps <= most,
        f"{what}: {pairs} pairs of words of length {length} take {budget.count_text(steps)} "
        f"steps to evaluate; the work budget is {budget.count_text(most)} "
        f"(raise it with {budget.WORK_ENV})",
    )


def _cross(problem: problems.TwoPartyProblem, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """f(x_i, y_j) for every i, j, as a (len(x), len(y)) int8 matrix, in chunks of pairs of at
    most :data:`CHUNK_SYMBOLS` symbols (bounded memory)."""
    pairs = len(x) * len(y)
    step = max(1, CHUNK_SYMBOLS // max(1, problem.alice_length + problem.bob_length))
    out = np.empty(pairs, dtype=np.int8)
    for start in range(0, pairs, step):
        flat = np.arange(start, min(pairs, start + step))
        out[flat] = problem.on_words(x[flat // len(y)], y[flat % len(y)])
    return out.reshape(len(x), len(y))


def _verify_fooling(problem: problems.TwoPartyProblem, claim: dict, witness: dict) -> None:
    pairs = witness["pairs"]
    value = claim["value"]
    require(all(isinstance(p, list) and len(p) == 2 for p in pairs), "pairs must be [x, y]")
    size = len(pairs)
    require(size >= 1, "a fooling set must not be empty")
    within(size * size <= MAX_PAIRWISE, f"at most {math.isqrt(MAX_PAIRWISE)} pairs are checked")
    _work(size * size, problem, "fooling set")
    x = _words([p[0] for p in pairs], problem.alice_alphabet, problem.alice_length, "x")
    y = _words([p[1] for p in pairs], problem.bob_alphabet, problem.bob_length, "y")
    require(claim["size"] == size, f"claimed size differs from {size} pairs")
    require(claim["bits"] == ceil_log2(size), "claimed bits differ from ceil(log2 size)")
    words = np.ascontiguousarray(np.concatenate([x, y], axis=1))  # rows compared as bytes
    distinct = len(np.unique(words.view(np.dtype((np.void, words.strides[0]))).ravel()))
    require(distinct == size, "pairs are not distinct")
    cross = _cross(problem, x, y) == value
    bad = np.flatnonzero(~np.diagonal(cross))
    require(bad.size == 0, f"pair {bad[:1].tolist()} does not have value {value}")
    # Def. 1: for i != j, f(x_i, y_j) != b or f(x_j, y_i) != b.
    clash = cross & cross.T
    np.fill_diagonal(clash, False)
    hit = np.argwhere(clash)
    require(hit.size == 0, f"pairs {hit[:1].tolist()} violate the fooling property")


def _inputs(problem: problems.TwoPartyProblem, witness: dict) -> tuple[np.ndarray, np.ndarray]:
    rows, cols = witness["alice_inputs"], witness["bob_inputs"]
    require(len(rows) >= 1 and len(cols) >= 1, "witness needs at least one input on each side")
    within(
        len(rows) * len(cols) <= MAX_PAIRWISE,
        f"witness submatrices are limited to {MAX_PAIRWISE} entries",
    )
    _work(len(rows) * len(cols), problem, "witness submatrix")
    x = _words(rows, problem.alice_alphabet, problem.alice_length, "alice_inputs")
    y = _words(cols, problem.bob_alphabet, problem.bob_length, "bob_inputs")
    return x, y


def _verify_one_way(problem: problems.TwoPartyProblem, claim: dict, witness: dict) -> None:
    x, y = _inputs(problem, witness)
    sub = _cross(problem, x, y)
    distinct = len(np.unique(sub, axis=0))
    require(distinct == len(x), f"only {distinct} of {len(x)} rows are distinct")
    require(claim["distinct_rows"] == len(x), "claimed distinct_rows differs")
    require(claim["bits"] == ceil_log2(len(x)), "claimed bits differ from ceil(log2 rows)")


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3 x 10^24 (exact for every n this module accepts)."""
    if n < 2:
        return False
    for p in _MILLER_RABIN_BASES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _MILLER_RABIN_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _det_nonzero_mod(matrix: np.ndarray, prime: int) -> bool:
    """Gaussian elimination over GF(prime): int64 below 2^31 (products stay below 2^62), exact
    Python integers (an object array) above."""
    a = np.array(matrix, dtype=np.int64 if prime < 1 << 31 else object) % prime
    n = len(a)
    for c in range(n):
        nonzero = np.flatnonzero(a[c:, c] != 0)
        if nonzero.size == 0:
            return False
        pivot = c + int(nonzero[0])
        a[[c, pivot]] = a[[pivot, c]]
        inv = pow(int(a[c, c]), prime - 2, prime)
        factors = a[c + 1 :, c] * inv % prime
        a[c + 1 :] = (a[c + 1 :] - factors[:, None] * a[c][None, :] % prime) % prime
    return True


def _verify_rank(problem: problems.TwoPartyProblem, claim: dict, witness: dict) -> None:
    prime = claim["prime"]
    require(prime >= 2, "claimed prime must be at least 2")
    within(prime < MAX_PRIME, "claimed primes are limited to 2..2^62 - 1")
    require(is_prime(prime), "claimed prime is not a prime")
    r = len(witness["alice_inputs"])
    most = MAX_RANK if prime < 1 << 31 else MAX_RANK_BIG_PRIME
    require(r >= 1 and len(witness["bob_inputs"]) == r, "rank witness must be square, non-empty")
    within(r <= most, f"rank witnesses over GF({prime}) are limited to {most} x {most}")
    x, y = _inputs(problem, witness)
    require(_det_nonzero_mod(_cross(problem, x, y), prime), "witness submatrix is singular")
    require(claim["rank_at_least"] == r, "claimed rank differs from the witness")
    require(claim["bits"] == ceil_log2(r), "claimed bits differ from ceil(log2 rank)")


# ------------------------------------------------------------------------------ symbolic Dyck


def _verify_symbolic(spec: dict, claim: dict, witness: dict) -> None:
    exact_keys(
        spec,
        "problem",
        {"problem": str, "types": int, "depth": int, "length": int, "partition": str},
    )
    require(
        spec["problem"] == "dyck" and spec["partition"] == "odd-even",
        "symbolic certificates cover Dyck-(n,k) under the odd-even partition only",
    )
    n, k, length = spec["types"], spec["depth"], spec["length"]
    require(n >= 1 and k >= 0, "Dyck-(n,k) needs n >= 1 types and depth k >= 0")
    require(length >= 2 and length % 2 == 0, "odd-even needs an even length N >= 2")
    try:  # the limit the maker applies too: a certificate it wrote is never over it
        limits.check_dyck_symbolic(n, k, length)
    except InputError as err:
        raise OverLimit(str(err)) from None
    require(witness["family"] == "all-members", "family must be all-members")
    size = claim["size"]
    hex_digits = "0123456789abcdef"
    ok = size.startswith("0x") and len(size) > 2
    require(ok and all(c in hex_digits for c in size[2:]), "claimed size must be a hex string")
    require(claim["value"] == 1, "the family of members has value 1")
    claimed = int(size, 16)
    require(claimed >= 1, "a fooling set must not be empty")
    # A member of length N never holds more than N/2 open brackets: depth min(k, N/2) is exact.
    stacks = _stacks(n, min(k, length // 2))
    step = _stack_steps(stacks, n)
    count = _count_members(step, np.array([len(t) for t in stacks]), length)
    require(count == claimed, f"claimed size differs from the {hex(count)[:40]} members")
    require(claim["bits"] == ceil_log2(claimed), "claimed bits differ from ceil(log2 size)")
    for alice_fixed in (True, False):
        unique = _half_determines_other(step, length, alice_fixed)
        name = "x_determines_y" if alice_fixed else "y_determines_x"
        require(unique and witness[name] is True, f"{name} does not hold")


def _stacks(n: int, k: int) -> list[tuple[int, ...]]:
    """Every stack of at most k brackets of n types, the empty one first."""
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


def _stack_steps(stacks: list[tuple[int, ...]], n: int) -> np.ndarray:
    """(stacks, 2n) int64: the index of the stack after each symbol, -1 when it is rejected.
    Stack 0 is the empty one: a word is a member iff it leads from stack 0 to stack 0."""
    k = max(len(s) for s in stacks)
    index = {s: i for i, s in enumerate(stacks)}
    table = [[index.get(_step(s, sym, k), -1) for sym in range(2 * n)] for s in stacks]
    return np.array(table, dtype=np.int64)


def _mat_product(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    """Exact product of matrices of Python ints (zero terms skipped: powers of a walk matrix
    are half zeros by parity)."""
    cols = list(zip(*b, strict=True))
    return [
        [sum(x * y for x, y in zip(row, col, strict=True) if x and y) for col in cols] for row in a
    ]


def _count_members(step: np.ndarray, heights: np.ndarray, length: int) -> int:
    """The members of length N: walks from stack 0 back to stack 0 in N steps, exactly.

    The stacks of each height form an equitable partition of the walk graph, which is checked
    here (every stack of height h has the same number of successors of each height): then the
    walks from the empty stack, alone at height 0, back to it are the (0, 0) entry of B^N, where
    B[h, h'] counts the successors of height h' of a stack of height h. B^N by repeated squaring.
    """
    c = int(heights.max()) + 1
    rows = np.zeros((len(step), c), dtype=np.int64)
    source, sym = np.nonzero(step >= 0)
    np.add.at(rows, (source, heights[step[source, sym]]), 1)
    quotient = np.zeros((c, c), dtype=np.int64)
    quotient[heights] = rows
    require(np.array_equal(quotient[heights], rows), "stacks of one height step alike")
    power = quotient.tolist()
    walks = [[1] + [0] * (c - 1)]
    e = length
    while e:
        if e & 1:
            walks = _mat_product(walks, power)
        e >>= 1
        if e:
            power = _mat_product(power, power)
    return walks[0][0]


def _bool_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Boolean product of 0/1 float32 matrices (sums of at most 2^24 ones are exact)."""
    return (a @ b > 0).astype(np.float32)


def _half_determines_other(step: np.ndarray, length: int, alice_fixed: bool) -> bool:
    """No two distinct members agree on Alice's (odd) positions, or on Bob's (even) ones.

    Runs both words together over pairs of stacks, with a flag for "they differed"; on the
    fixed party's positions both read the same symbol, on the other's any two symbols. The
    positions alternate, so the states reachable after N steps are those of the two-step
    relation to the power N/2 (repeated squaring of 0/1 matrices); the halves determine each
    other iff (empty, empty, differed) is not among them.
    """
    s, symbols = step.shape
    states = 2 * s * s

    def relation(fixed: bool) -> np.ndarray:
        out = np.zeros((states, states), dtype=np.float32)
        a, b = np.divmod(np.arange(s * s), s)
        for x in range(symbols):
            for y in [x] if fixed else range(symbols):
                ta, tb = step[a, x], step[b, y]
                ok = (ta >= 0) & (tb >= 0)
                source = 2 * (a[ok] * s + b[ok])
                target = 2 * (ta[ok] * s + tb[ok])
                out[source + 1, target + 1] = 1  # already differed
                out[source, target + int(x != y)] = 1
        return out

    # 0-based even positions are the paper's odd ones: Alice's.
    power = _bool_matmul(relation(alice_fixed), relation(not alice_fixed))
    reach = np.zeros((1, states), dtype=np.float32)
    reach[0, 0] = 1  # (empty, empty, not differed)
    e = length // 2
    while e:
        if e & 1:
            reach = _bool_matmul(reach, power)
        e >>= 1
        if e:
            power = _bool_matmul(power, power)
    return not reach[0, 1]


def describe_verdict(v: Verdict) -> dict[str, Any]:
    return {
        "valid": v.valid,
        "kind": v.kind,
        "claimed_bits": v.claimed_bits,
        "reason": v.reason,
        "over_limit": v.over_limit,
    }
