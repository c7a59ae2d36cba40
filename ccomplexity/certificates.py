"""Certificates: lower-bound results as JSON that anyone can re-check.

A certificate names a problem, its partition, a witness and the bits it claims; this module
builds and writes them. :mod:`ccomplexity.verifier` re-checks them independently.

Kinds and what they prove (Fact 4 and the log-rank and one-way counting arguments):

- ``fooling_set``: an explicit set S with value b (Def. 1) => D(f) >= ceil(log2 |S|).
- ``fooling_set_symbolic``: Dyck-(n,k) under odd-even with S = all members of length N.
- ``one_way``: R Alice inputs whose rows are pairwise distinct on given Bob inputs => the
  one-way complexity Alice -> Bob is at least ceil(log2 R).
- ``rank``: an r x r submatrix nonsingular over GF(q) => rank >= r => D(f) >= ceil(log2 r).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from ccomplexity import __version__, limits, problems
from ccomplexity.errors import InputError
from ccomplexity.files import atomic_open, check_output_file
from ccomplexity.integers import ceil_log2

FORMAT = "ccomplexity-certificate"
FORMAT_VERSION = 1
KINDS = ("fooling_set", "fooling_set_symbolic", "one_way", "rank")
PROTOCOL_KINDS = ("protocol_rnn", "protocol_attention")
"""Certificate kinds of runs of a protocol; :mod:`simulations.protocols.certificate` checks them."""
MAX_PAIRWISE = 1 << 26
"""Most ordered pairs the explicit fooling-set check evaluates (|S| <= 8192)."""


def _envelope(kind: str, problem: dict[str, Any], claim: dict[str, Any], witness: dict[str, Any]):
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "software": {"name": "ccomplexity", "version": __version__},
        "kind": kind,
        "problem": problem,
        "claim": claim,
        "witness": witness,
    }


def fooling_set_certificate(
    problem: problems.TwoPartyProblem, rows: np.ndarray, cols: np.ndarray, value: int
) -> dict[str, Any]:
    """An explicit fooling set: Alice's and Bob's words of every pair, and the value b."""
    return fooling_words_certificate(
        problem, problem.alice_inputs(rows), problem.bob_inputs(cols), value
    )


def fooling_words_certificate(
    problem: problems.TwoPartyProblem, x: np.ndarray, y: np.ndarray, value: int
) -> dict[str, Any]:
    """An explicit fooling set given by its words: Alice's (S, a) and Bob's (S, b) symbols."""
    xs, ys = np.asarray(x).tolist(), np.asarray(y).tolist()
    size = len(xs)
    if size * size > MAX_PAIRWISE:
        raise InputError(
            f"an explicit fooling-set certificate is limited to {math.isqrt(MAX_PAIRWISE)} pairs, "
            f"got {size}; use the symbolic certificate"
        )
    claim = {"size": size, "value": int(value), "bits": ceil_log2(size)}
    pairs = [[x, y] for x, y in zip(xs, ys, strict=True)]
    return _envelope("fooling_set", problem.spec(), claim, {"pairs": pairs})


def symbolic_dyck_certificate(types: int, depth: int, length: int, count: int) -> dict[str, Any]:
    """S = all Dyck-(n,k) words of length N under odd-even; the claim is log2 of their number."""
    problem = {"problem": "dyck", "types": types, "depth": depth, "length": length}
    problem["partition"] = "odd-even"
    claim = {"size": hex(count), "value": 1, "bits": ceil_log2(count)}
    witness = {"family": "all-members", "x_determines_y": True, "y_determines_x": True}
    return _envelope("fooling_set_symbolic", problem, claim, witness)


def one_way_certificate(
    problem: problems.TwoPartyProblem, rows: np.ndarray, cols: np.ndarray
) -> dict[str, Any]:
    """R Alice inputs pairwise distinguished by the given Bob inputs."""
    return one_way_words_certificate(problem, problem.alice_inputs(rows), problem.bob_inputs(cols))


def one_way_words_certificate(
    problem: problems.TwoPartyProblem, x: np.ndarray, y: np.ndarray
) -> dict[str, Any]:
    """R Alice inputs (R, a) pairwise distinguished by the Bob inputs ``y`` (C, b), as words."""
    claim = {"distinct_rows": len(x), "bits": ceil_log2(len(x))}
    witness = {"alice_inputs": np.asarray(x).tolist(), "bob_inputs": np.asarray(y).tolist()}
    return _envelope("one_way", problem.spec(), claim, witness)


def rank_certificate(
    problem: problems.TwoPartyProblem, rows: np.ndarray, cols: np.ndarray, prime: int
) -> dict[str, Any]:
    """A nonsingular r x r submatrix over GF(prime), r >= 1 (a zero matrix has nothing to
    certify: InputError)."""
    if len(rows) == 0:
        raise InputError(f"the matrix has rank 0 over GF({prime}): no rank certificate to write")
    claim = {"rank_at_least": len(rows), "prime": int(prime), "bits": ceil_log2(len(rows))}
    witness = {
        "alice_inputs": problem.alice_inputs(rows).tolist(),
        "bob_inputs": problem.bob_inputs(cols).tolist(),
    }
    return _envelope("rank", problem.spec(), claim, witness)


def write_certificate(cert: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write atomically: a temporary file in the same folder, then a rename (never half-written)."""
    target = check_output_file(path, "certificate")
    text = json.dumps(cert, separators=(",", ":"), allow_nan=False) + "\n"
    most = limits.CERTIFICATE_KIND_BYTES.get(cert.get("kind"), limits.CERTIFICATE_BYTES)
    if len(text) > most:
        raise InputError(
            f"the {cert.get('kind')} certificate would take {len(text)} bytes; the limit for its "
            f"kind is {most} (what `ccx verify` reads): use a smaller problem"
        )
    with atomic_open(target, what="certificate") as fh:
        fh.write(text)
    return target
