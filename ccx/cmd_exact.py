"""Commands of the exact core: lower bounds (fooling sets, communication complexity), codes,
certificates and the tour. (Languages and automata: :mod:`ccx.cmd_languages`.)"""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer

from ccomplexity import limits
from ccx.app import (
    Certificate,
    JsonFlag,
    app,
    check_certificate_path,
    emit,
    emit_certified,
    print_json,
    print_table,
    ranged,
    with_options,
    write_certificate_to,
)

cc_app = typer.Typer(no_args_is_help=True, help="Exact communication complexity of a problem.")
app.add_typer(cc_app, name="cc")

# Problem options shared by `fooling` and `cc`.
ProblemName = Annotated[
    str,
    typer.Option(
        "--problem",
        help="dyck, equality, disjointness, index, matrix (--file), random, or a plugin task.",
    ),
]
OptTypes = Annotated[int | None, ranged(limits.TYPES, "--types", help="dyck: bracket types n.")]
OptDepth = Annotated[int | None, ranged(limits.DEPTH, "--depth", help="dyck: maximum depth.")]
OptLength = Annotated[int | None, ranged(limits.LENGTH, "--length", help="dyck, index: length N.")]
OptHalf = Annotated[
    int | None,
    ranged(limits.HALF, "--half", help="equality, disjointness: each party's symbols."),
]
OptAlphabet = Annotated[
    int | None, ranged(limits.ALPHABET, "--alphabet", help="equality: alphabet size |Sigma|.")
]
OptPartition = Annotated[
    str | None,
    typer.Option("--partition", help="prefix:K, odd-even or alice:i,j,... (1-based positions)."),
]
OptFile = Annotated[
    str | None,
    typer.Option("--file", help="matrix: CSV of 0/1, rows = Alice's inputs, columns = Bob's."),
]
OptRows = Annotated[int | None, ranged(limits.MATRIX_SIDE, "--rows", help="random: rows.")]
OptCols = Annotated[int | None, ranged(limits.MATRIX_SIDE, "--cols", help="random: columns.")]
OptSeed = Annotated[
    int | None,
    ranged(
        limits.SEED, "--seed", help="random: PCG64 seed; a plugin task: the sampled greedy set's."
    ),
]
OptDensity = Annotated[
    float | None, ranged(limits.PROBABILITY, "--density", help="random: P(entry = 1), default 0.5.")
]


def problem_options(
    types: OptTypes = None,
    depth: OptDepth = None,
    length: OptLength = None,
    half: OptHalf = None,
    alphabet: OptAlphabet = None,
    partition: OptPartition = None,
    file: OptFile = None,
    rows: OptRows = None,
    cols: OptCols = None,
    seed: OptSeed = None,
    density: OptDensity = None,
) -> None:
    """The options that name a problem beside ``--problem`` (``ccomplexity.requests.
    ProblemRequest``), declared once for every command that takes one (``with_options``)."""


# --------------------------------------------------------------------------------- fooling


@app.command("fooling")
@with_options(problem_options)
def fooling(
    problem: ProblemName,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="Maximum fooling set of the matrix (clique search; a plugin task under "
            "prefix:K: from its automaton).",
        ),
    ] = False,
    seconds: Annotated[
        float | None,
        ranged(
            limits.SECONDS,
            "--seconds",
            help="--exact: time budget; then the best found, exact false.",
        ),
    ] = None,
    nodes: Annotated[
        int | None, ranged(limits.NODES, "--nodes", help="--exact: budget of search nodes.")
    ] = None,
    method: Annotated[
        str,
        typer.Option("--method", help="dyck: auto, exhaustive (N <= 20) or symbolic."),
    ] = "auto",
    certificate: Certificate = None,
    as_json: JsonFlag = False,
    **options: Any,
) -> None:
    """A verified fooling set and its lower bound log2|S| (Def 1, Fact 4). A plugin task: from
    its DFA under prefix:K (the maximum, any length), else its own construction (fooling= of
    @task), else a greedy set (seeded, on sampled words where the matrix is too large)."""
    from ccomplexity.requests import FoolingRequest, fooling_set, request_from

    check_certificate_path(certificate, options["file"])
    given = {**options, **locals(), "certificate": certificate is not None}
    emit_certified(
        fooling_set(request_from(FoolingRequest, given)), certificate, as_json, "Fooling set"
    )


# --------------------------------------------------------------------------------- cc


@cc_app.command("oneway")
@with_options(problem_options)
def cc_oneway(
    problem: ProblemName,
    cut: Annotated[
        int | None, ranged(limits.CUT, "--cut", help="Alice holds positions 1..K (prefix:K).")
    ] = None,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
    **options: Any,
) -> None:
    """Exact deterministic one-way complexity Alice -> Bob: ceil(log2 #distinct rows). A plugin
    task without --cut or --partition: at every cut ("per_cut", runs of cuts with equal counts),
    from its DFA at any length, else from its word function at N (priced first)."""
    from ccomplexity.requests import OneWayRequest, one_way, request_from

    check_certificate_path(certificate, options["file"])
    given = {**options, **locals(), "certificate": certificate is not None}
    result, cert = one_way(request_from(OneWayRequest, given))
    write_certificate_to(cert, certificate, result)
    if as_json or "per_cut" not in result:
        emit(result, as_json, "One-way complexity")
        return
    from rich.table import Table

    emit({k: v for k, v in result.items() if k != "per_cut"}, False, "One-way complexity")
    table = Table(title="At every cut (runs of cuts with equal counts)")
    for column in ("cuts K", "distinct rows", "bits"):
        table.add_column(column)
    for run in result["per_cut"]:
        first, last = run["cuts"]
        shown = str(first) if first == last else f"{first}..{last}"
        table.add_row(shown, str(run["distinct_rows"]), str(run["bits"]))
    print_table(table)


@cc_app.command("rank")
@with_options(problem_options)
def cc_rank(
    problem: ProblemName,
    prime: Annotated[int, ranged(limits.PRIME, "--prime", help="Field GF(q).")] = 2_147_483_647,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
    **options: Any,
) -> None:
    """Exact rank of the communication matrix over GF(q); D(f) >= ceil(log2 rank)."""
    from ccomplexity.requests import RankRequest, rank, request_from

    check_certificate_path(certificate, options["file"])
    given = {**options, **locals(), "certificate": certificate is not None}
    emit_certified(rank(request_from(RankRequest, given)), certificate, as_json, "Log-rank bound")


@cc_app.command("exact")
@with_options(problem_options)
def cc_exact(
    problem: ProblemName,
    tree: Annotated[
        bool, typer.Option("--tree", help="Include the optimal protocol tree.")
    ] = False,
    as_json: JsonFlag = False,
    **options: Any,
) -> None:
    """Exact deterministic two-way complexity by search over protocol trees (tiny matrices)."""
    from ccomplexity.requests import ExactRequest, exact, request_from

    result = exact(request_from(ExactRequest, {**options, **locals()}))
    emit(result, as_json, "Deterministic communication complexity")


# --------------------------------------------------------------------------------- codes


@app.command("codes")
def codes(
    length: Annotated[int, ranged(limits.CODE_VECTORS, "--length", help="Number of vectors N.")],
    gamma: Annotated[
        float, ranged(limits.MARGIN, "--gamma", help="Margin: |<T_i,T_j>| <= gamma.")
    ] = 0.25,
    seed: Annotated[int, ranged(limits.SEED, "--seed")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Smallest width of seeded nearly orthogonal ±1/sqrt(width) codes, versus Lemma 2's (its
    k)."""
    from ccomplexity import codes as codes_mod

    start = time.perf_counter()
    found = codes_mod.smallest_k(length, gamma, seed)
    result = {
        "length": length,
        "gamma": gamma,
        "k": found.k,
        "paper_k": found.paper_k,
        "one_hot_width": length,
        "seed": found.seed,
        "families_tried": found.families_tried,
        "max_off_diagonal": found.check.max_off_diagonal,
        "valid": found.check.valid,
    }
    result["seconds"] = round(time.perf_counter() - start, 3)
    emit(result, as_json, "Nearly orthogonal codes")


# --------------------------------------------------------------------------------- verify


@app.command("verify")
def verify(
    path: Annotated[str, typer.Argument(help="Certificate JSON file.")],
    plugin: Annotated[
        list[str] | None,
        typer.Option("--plugin", help="A plugin file the certificate's task comes from."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Re-check a certificate by recomputing the function on its witness. Exit 0 valid, 1 not
    (the reason on stderr), 2 when the file is missing or it is over a limit (not checked), or
    when it is about a plugin task whose plugin is not loaded or has other source bytes."""
    from ccomplexity import verifier
    from ccomplexity.certificates import PROTOCOL_KINDS
    from ccx.plugin_files import load_plugins

    if plugin:
        load_plugins(plugin)
    try:
        cert = verifier.read_certificate(path)
    except verifier.InvalidCertificate as err:
        verdict = verifier.Verdict(False, None, None, str(err))
    else:
        if isinstance(cert, dict) and cert.get("kind") in PROTOCOL_KINDS:
            verdict = _verify_protocol(cert)
        else:
            verdict = verifier.verify(cert)
    if as_json:
        print_json(verifier.describe_verdict(verdict))
    elif verdict.valid and verdict.kind in PROTOCOL_KINDS:
        print(f"valid {verdict.kind} certificate: {verdict.claimed_bits} bits sent, replayed")
    elif verdict.valid:
        print(f"valid {verdict.kind} certificate: at least {verdict.claimed_bits} bits")
    if not verdict.valid:
        reason = " ".join(str(verdict.reason).split())
        if verdict.over_limit:
            print(f"ccx: certificate over the limit: {reason}", file=sys.stderr)
            raise typer.Exit(2)
        print(f"ccx: invalid certificate: {reason}", file=sys.stderr)
        raise typer.Exit(1)


def _verify_protocol(cert: dict[str, Any]) -> Any:
    """A protocol certificate: every check that needs no model first (a tampered file is refused
    before torch is imported), then the replay, which needs the model and hence torch."""
    from ccomplexity import verifier
    from ccomplexity.protocol import check_protocol_certificate

    try:
        check_protocol_certificate(cert)
    except verifier.InvalidCertificate as err:
        return verifier.Verdict(False, cert.get("kind"), None, str(err))
    from simulations.protocols.certificate import verify_protocol_certificate

    return verify_protocol_certificate(cert)


# --------------------------------------------------------------------------------- tour


@app.command("tour")
def tour() -> None:
    """A short tour of what the exact core computes (the demo)."""
    from simulations.tour import run_tour

    table, recheck = run_tour()
    print_table(table)
    print(recheck)
