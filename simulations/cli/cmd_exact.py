"""Commands of the exact core: languages, automata, lower bounds, bounds, codes, certificates."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Any

import typer

from ccomplexity import limits
from ccomplexity.errors import InputError, check_int
from simulations.cli import (
    Certificate,
    JsonFlag,
    Length,
    app,
    check_certificate_path,
    check_options,
    emit,
    write_certificate_to,
)

dyck_app = typer.Typer(no_args_is_help=True, help="Bounded Dyck languages Dyck-(n,k).")
dfa_app = typer.Typer(no_args_is_help=True, help="Minimal DFAs and their state counts.")
cc_app = typer.Typer(no_args_is_help=True, help="Exact communication complexity of a problem.")
app.add_typer(dyck_app, name="dyck")
app.add_typer(dfa_app, name="dfa")
app.add_typer(cc_app, name="cc")

Types = Annotated[int, typer.Option("--types", help="Number of bracket types n.")]
Depth = Annotated[int, typer.Option("--depth", help="Maximum depth k.")]

# Problem options shared by `fooling` and `cc`.
ProblemName = Annotated[
    str,
    typer.Option(
        "--problem", help="dyck, equality, disjointness, index, matrix (--file) or random."
    ),
]
OptTypes = Annotated[int | None, typer.Option("--types", help="dyck: bracket types n.")]
OptDepth = Annotated[int | None, typer.Option("--depth", help="dyck: maximum depth k.")]
OptLength = Annotated[int | None, typer.Option("--length", help="dyck, index: length N.")]
OptHalf = Annotated[int | None, typer.Option("--half", help="equality, disjointness: H.")]
OptAlphabet = Annotated[int | None, typer.Option("--alphabet", help="equality: alphabet A.")]
OptPartition = Annotated[
    str | None,
    typer.Option("--partition", help="prefix:K, odd-even or alice:i,j,... (1-based positions)."),
]
OptFile = Annotated[
    str | None,
    typer.Option("--file", help="matrix: CSV of 0/1, rows = Alice's inputs, columns = Bob's."),
]
OptRows = Annotated[int | None, typer.Option("--rows", help="random: rows R.")]
OptCols = Annotated[int | None, typer.Option("--cols", help="random: columns C.")]
OptSeed = Annotated[int | None, typer.Option("--seed", help="random: PCG64 seed.")]
OptDensity = Annotated[
    float | None, typer.Option("--density", help="random: P(entry = 1), default 0.5.")
]


PROBLEM_OPTIONS = (
    "types", "depth", "length", "half", "alphabet", "partition", "file", "rows", "cols", "seed",
    "density",
)  # fmt: skip


def _problem(name: str, options: dict[str, Any]):
    """The problem named by ``--problem`` from a command's options (its ``locals()``)."""
    from ccomplexity import problems

    return problems.make(name, **{k: options.get(k) for k in PROBLEM_OPTIONS})


# --------------------------------------------------------------------------------- dyck


@dyck_app.command("count")
def dyck_count(types: Types, depth: Depth, length: Length, as_json: JsonFlag = False) -> None:
    """Exact number of Dyck-(n,k) words of length N (dynamic programming, any N)."""
    from ccomplexity.languages.dyck import count_dyck

    _check_dyck(types, depth, length)
    count = count_dyck(types, depth, length)
    result = {"types": types, "depth": depth, "length": length, "count": count}
    result["log2_count"] = count.bit_length() - 1 if count and count & (count - 1) == 0 else None
    emit(result, as_json, f"Dyck-({types},{depth}) words of length {length}")


@dyck_app.command("enumerate")
def dyck_enumerate(types: Types, depth: Depth, length: Length, as_json: JsonFlag = False) -> None:
    """Every Dyck-(n,k) word of length N, in lexicographic order (small N only)."""
    from ccomplexity.languages.dyck import dyck_alphabet, enumerate_dyck

    _check_dyck(types, depth, length)
    names = dyck_alphabet(types)
    words = ["".join(names[s] for s in w) for w in enumerate_dyck(types, depth, length).tolist()]
    if as_json:
        print(json.dumps({"types": types, "depth": depth, "length": length, "words": words}))
    else:
        print("\n".join(words))


@dyck_app.command("sample")
def dyck_sample(
    types: Types,
    depth: Depth,
    length: Length,
    batch: Annotated[int, typer.Option("--batch", help="Number of words.")] = 5,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    generator: Annotated[
        str,
        typer.Option(
            "--generator",
            help="uniform (over members), h1-positive, h1-negative (App. H.1, Dyck-(2,2)).",
        ),
    ] = "uniform",
    reading: Annotated[
        str, typer.Option("--reading", help="App. H.1 step rule: three-way or half.")
    ] = "three-way",
    as_json: JsonFlag = False,
) -> None:
    """Sample words: uniform over members of length N, or the paper's App. H.1 generators."""
    import numpy as np

    from ccomplexity.languages import dyck

    _check_dyck(types, depth, length)
    check_options(batch=batch, seed=seed)
    limits.check_numbers(batch * length, f"{batch} words of length {length}")
    if reading not in ("three-way", "half"):
        raise InputError(f"--reading must be three-way or half, got {reading!r}")
    rng = np.random.default_rng(seed)
    if generator == "uniform":
        words = dyck.sample_dyck(types, depth, length, batch, rng)
    elif generator in ("h1-positive", "h1-negative"):
        if (types, depth) != (2, 2):
            raise InputError("the App. H.1 generators are defined for Dyck-(2,2) only")
        make = dyck.positive_h1 if generator == "h1-positive" else dyck.negative_h1
        words = make(length, batch, rng, reading=reading)
    else:
        raise InputError(f"unknown --generator {generator!r}: uniform, h1-positive, h1-negative")
    names = dyck.dyck_alphabet(types)
    text = ["".join(names[s] for s in w) for w in np.asarray(words).tolist()]
    members = dyck.is_dyck(np.asarray(words), types, depth).tolist()
    if as_json:
        print(json.dumps({"generator": generator, "seed": seed, "words": text, "member": members}))
    else:
        print(
            "\n".join(
                f"{w}  {'member' if m else 'non-member'}"
                for w, m in zip(text, members, strict=True)
            )
        )


def _check_dyck(types: int, depth: int, length: int) -> None:
    check_options(types=types)
    check_int(depth, "--depth", 0)
    check_int(length, "--length", 0)


# --------------------------------------------------------------------------------- dfa


def _dfa_result(dfa, language: str, show: bool) -> dict[str, Any]:
    from ccomplexity.automata import minimize, state_counts

    minimal = minimize(dfa)
    result: dict[str, Any] = {"language": language, **state_counts(minimal)}
    result["alphabet"] = list(minimal.alphabet)
    if show:
        result["start"] = minimal.start
        result["accepting"] = [int(q) for q in minimal.accepting.nonzero()[0]]
        result["transitions"] = minimal.transitions.tolist()
    return result


Show = Annotated[bool, typer.Option("--show", help="Include the transition table.")]


@dfa_app.command("dyck")
def dfa_dyck(types: Types, depth: Depth, show: Show = False, as_json: JsonFlag = False) -> None:
    """Minimal complete DFA of Dyck-(n,k): states with the sink, and live states."""
    from ccomplexity.automata import dyck_dfa

    _check_dyck(types, depth, 0)
    result = _dfa_result(dyck_dfa(types, depth), f"Dyck-({types},{depth})", show)
    emit(result, as_json, f"Minimal DFA of Dyck-({types},{depth})")


@dfa_app.command("equality")
def dfa_equality(
    half: Annotated[int, typer.Option("--half", help="H: the language is {ww : |w| = H}.")],
    alphabet: Annotated[int, typer.Option("--alphabet", help="Alphabet size A.")] = 2,
    show: Show = False,
    as_json: JsonFlag = False,
) -> None:
    """Minimal complete DFA of the equality language {ww : |w| = H} over A symbols."""
    from ccomplexity.automata import equality_dfa

    check_int(half, "--half", 1)
    check_int(alphabet, "--alphabet", 1)
    result = _dfa_result(equality_dfa(half, alphabet), f"{{ww : |w| = {half}}}", show)
    result.update(half=half, alphabet_size=alphabet)
    emit(result, as_json, "Minimal DFA of the equality language")


# --------------------------------------------------------------------------------- fooling


@app.command("fooling")
def fooling(
    problem: ProblemName,
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
    exact: Annotated[
        bool, typer.Option("--exact", help="Maximum fooling set of the matrix (clique search).")
    ] = False,
    seconds: Annotated[
        float | None,
        typer.Option("--seconds", help="--exact: time budget; then the best found, exact false."),
    ] = None,
    nodes: Annotated[
        int | None, typer.Option("--nodes", help="--exact: budget of search nodes.")
    ] = None,
    method: Annotated[
        str,
        typer.Option("--method", help="dyck: auto, exhaustive (N <= 20) or symbolic."),
    ] = "auto",
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """A verified fooling set and its lower bound log2|S| (Def 1, Fact 4)."""
    from ccomplexity import certificates, lower_bounds
    from ccomplexity.integers import ceil_log2

    start = time.perf_counter()
    check_certificate_path(certificate)
    if method not in ("auto", "exhaustive", "symbolic"):
        raise InputError(f"--method must be auto, exhaustive or symbolic, got {method!r}")
    if problem == "dyck" and partition is None:
        partition = "odd-even"
    if not exact and (seconds is not None or nodes is not None):
        raise InputError("--seconds and --nodes budget the --exact search only")
    prob = _problem(problem, locals())
    result: dict[str, Any] = prob.describe()
    cert = None
    symbolic = (
        problem == "dyck"
        and not exact
        and (method == "symbolic" or (method == "auto" and length > lower_bounds.EXHAUSTIVE_LIMIT))
    )
    if method != "auto" and (problem != "dyck" or exact):
        raise InputError("--method applies to the constructive Dyck fooling set only")
    if symbolic:
        if prob.partition.spec != "odd-even":
            raise InputError("the symbolic certificate covers the odd-even partition only")
        sym = lower_bounds.dyck_fooling_symbolic(types, depth, length)
        result.update(method="symbolic", **sym)
        if certificate is not None and sym["verified"]:
            cert = certificates.symbolic_dyck_certificate(types, depth, length, sym["count"])
    else:
        if exact:
            found = lower_bounds.max_fooling_set(prob, seconds=seconds, nodes=nodes)
            result.update(method="exact-clique", exact=found.exact)
            result.update(upper_bound=found.upper_bound, nodes=found.nodes)
        elif problem == "dyck":
            if prob.partition.spec != "odd-even":
                raise InputError(
                    "the constructive Dyck fooling set is for odd-even; use --exact for others"
                )
            found = lower_bounds.dyck_fooling_set(prob)
            result["method"] = "exhaustive"
        elif problem == "equality":
            found = lower_bounds.equality_fooling_set(prob)
            result["method"] = "diagonal"
        elif problem == "disjointness":
            found = lower_bounds.disjointness_fooling_set(prob)
            result["method"] = "complementary-pairs"
        else:
            raise InputError(f"no constructive fooling set for {problem}; use --exact")
        check = lower_bounds.verify_fooling_set(prob, found.rows, found.cols, found.value)
        result.update(size=check.size, value=int(found.value), verified=check.valid)
        result["bits"] = ceil_log2(check.size)
        if not check.valid:
            result["reason"] = check.reason
        if certificate is not None and check.valid:
            cert = certificates.fooling_set_certificate(prob, found.rows, found.cols, found.value)
    if certificate is not None and cert is None:
        raise InputError("no certificate written: the fooling set did not verify")
    result["seconds"] = round(time.perf_counter() - start, 3)
    write_certificate_to(cert, certificate, result)
    emit(result, as_json, "Fooling set")


# --------------------------------------------------------------------------------- cc


@cc_app.command("oneway")
def cc_oneway(
    problem: ProblemName,
    types: OptTypes = None,
    depth: OptDepth = None,
    length: OptLength = None,
    half: OptHalf = None,
    alphabet: OptAlphabet = None,
    cut: Annotated[
        int | None, typer.Option("--cut", help="Alice holds positions 1..K (prefix:K).")
    ] = None,
    partition: OptPartition = None,
    file: OptFile = None,
    rows: OptRows = None,
    cols: OptCols = None,
    seed: OptSeed = None,
    density: OptDensity = None,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Exact deterministic one-way complexity Alice -> Bob: ceil(log2 #distinct rows)."""
    from ccomplexity import certificates, lower_bounds

    start = time.perf_counter()
    check_certificate_path(certificate)
    if cut is not None:
        if partition is not None:
            raise InputError("give either --cut or --partition, not both")
        partition = f"prefix:{cut}"
    prob = _problem(problem, locals())
    result: dict[str, Any] = prob.describe()
    symbolic = problem == "dyck" and prob.partition.spec.startswith("prefix:")
    if symbolic:
        k = len(prob.partition.alice)
        res = lower_bounds.one_way_bits_dyck(types, depth, length, k)
        result["method"] = "symbolic-dfa"
    else:
        res = lower_bounds.one_way_bits(prob)
        result["method"] = "dense"
    result.update(distinct_rows=res.distinct_rows, bits=res.bits)
    if certificate is not None:
        if res.rows is None:
            raise InputError("the symbolic method has no explicit witness; use a prefix length")
        cert = certificates.one_way_certificate(prob, res.rows, res.cols)
    result["seconds"] = round(time.perf_counter() - start, 3)
    if certificate is not None:
        write_certificate_to(cert, certificate, result)
    emit(result, as_json, "One-way complexity")


@cc_app.command("rank")
def cc_rank(
    problem: ProblemName,
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
    prime: Annotated[int, typer.Option("--prime", help="Field GF(q).")] = 2_147_483_647,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Exact rank of the communication matrix over GF(q); D(f) >= ceil(log2 rank)."""
    from ccomplexity import certificates, lower_bounds
    from ccomplexity.integers import ceil_log2

    start = time.perf_counter()
    check_certificate_path(certificate)
    prob = _problem(problem, locals())
    res = lower_bounds.rank_mod_p(prob, prime)
    result: dict[str, Any] = prob.describe()
    result.update(rank=res.rank, prime=prime, bits=ceil_log2(max(res.rank, 1)))
    result["seconds"] = round(time.perf_counter() - start, 3)
    if certificate is not None:
        if res.rank == 0:
            raise InputError("rank 0: there is nothing to certify")
        write_certificate_to(
            certificates.rank_certificate(prob, res.rows, res.cols, prime), certificate, result
        )
    emit(result, as_json, "Log-rank bound")


@cc_app.command("exact")
def cc_exact(
    problem: ProblemName,
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
    tree: Annotated[
        bool, typer.Option("--tree", help="Include the optimal protocol tree.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Exact deterministic two-way complexity by search over protocol trees (tiny matrices)."""
    from ccomplexity import lower_bounds

    start = time.perf_counter()
    prob = _problem(problem, locals())
    res = lower_bounds.exact_bits(prob)
    result: dict[str, Any] = prob.describe()
    result["bits"] = res.bits
    if tree:
        result["tree"] = res.tree
    result["seconds"] = round(time.perf_counter() - start, 3)
    emit(result, as_json, "Deterministic communication complexity")


# --------------------------------------------------------------------------------- codes


@app.command("codes")
def codes(
    length: Annotated[int, typer.Option("--length", help="Number of vectors N.")],
    gamma: Annotated[float, typer.Option("--gamma", help="Margin: |<T_i,T_j>| <= gamma.")] = 0.25,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Smallest width k of seeded nearly orthogonal ±1/sqrt(k) codes, versus Lemma 2's k."""
    from ccomplexity import codes as codes_mod

    check_int(length, "--length", 2, codes_mod.SEARCH_LIMIT, "use fewer vectors")
    if not 0 < gamma < 1:
        raise InputError(f"--gamma must lie in (0, 1), got {gamma}")
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
    as_json: JsonFlag = False,
) -> None:
    """Re-check a certificate by recomputing the function on its witness. Exit 0 valid, 1 not
    (the reason on stderr), 2 when the file is missing or over the size limit."""
    from ccomplexity import verifier
    from ccomplexity.certificates import PROTOCOL_KINDS

    try:
        cert = verifier.read_certificate(path)
    except verifier.InvalidCertificate as err:
        verdict = verifier.Verdict(False, None, None, str(err))
    else:
        if isinstance(cert, dict) and cert.get("kind") in PROTOCOL_KINDS:
            # Replaying a protocol needs the model, hence torch: imported only on this branch.
            from simulations.protocols.certificate import verify_protocol_certificate

            verdict = verify_protocol_certificate(cert)
        else:
            verdict = verifier.verify(cert)
    if as_json:
        print(json.dumps(verifier.describe_verdict(verdict)))
    elif verdict.valid and verdict.kind in PROTOCOL_KINDS:
        print(f"valid {verdict.kind} certificate: {verdict.claimed_bits} bits sent, replayed")
    elif verdict.valid:
        print(f"valid {verdict.kind} certificate: at least {verdict.claimed_bits} bits")
    if not verdict.valid:
        reason = " ".join(str(verdict.reason).split())
        print(f"ccx: invalid certificate: {reason}", file=sys.stderr)
        raise typer.Exit(1)


# --------------------------------------------------------------------------------- tour


@app.command("tour")
def tour() -> None:
    """A short tour of what the exact core computes (the demo)."""
    from simulations.tour import run_tour

    run_tour()
