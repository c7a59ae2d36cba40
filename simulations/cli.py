"""The ``ccx`` command line.

Every command imports what it needs inside its body, so that the pure-mathematics commands start
fast and never load torch. ``--json`` prints exactly one JSON object on stdout. Bad input prints
one line on stderr and exits with status 2; ``ccx verify`` exits 1 for an invalid certificate.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Any

import typer

from ccomplexity.errors import InputError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="ccomplexity: exact communication-complexity bounds for sequence models.",
)
dyck_app = typer.Typer(no_args_is_help=True, help="Bounded Dyck languages Dyck-(n,k).")
dfa_app = typer.Typer(no_args_is_help=True, help="Minimal DFAs and their state counts.")
cc_app = typer.Typer(no_args_is_help=True, help="Exact communication complexity of a problem.")
app.add_typer(dyck_app, name="dyck")
app.add_typer(dfa_app, name="dfa")
app.add_typer(cc_app, name="cc")

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
Types = Annotated[int, typer.Option("--types", help="Number of bracket types n.")]
Depth = Annotated[int, typer.Option("--depth", help="Maximum depth k.")]
Length = Annotated[int, typer.Option("--length", help="Word length N.")]

# Problem options shared by `fooling` and `cc`.
ProblemName = Annotated[
    str, typer.Option("--problem", help="dyck, equality, disjointness or index.")
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
Certificate = Annotated[
    str | None, typer.Option("--certificate", help="Write a JSON certificate to this path.")
]


def _emit(result: dict[str, Any], as_json: bool, title: str) -> None:
    from ccomplexity.protocol import json_int

    result = {k: json_int(v) if type(v) is int else v for k, v in result.items()}
    if as_json:
        print(json.dumps(result))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_header=False)
    for key, value in result.items():
        text = str(value)
        table.add_row(key, text if len(text) <= 80 else text[:60] + f"... ({len(text)} chars)")
    Console().print(table)


def _problem(
    name: str,
    types: int | None,
    depth: int | None,
    length: int | None,
    half: int | None,
    alphabet: int | None,
    partition: str | None,
):
    from ccomplexity import problems

    return problems.make(
        name,
        types=types,
        depth=depth,
        length=length,
        half=half,
        alphabet=alphabet,
        partition=partition,
    )


def _write(cert: dict[str, Any], path: str | None, result: dict[str, Any]) -> None:
    if path is None:
        return
    from ccomplexity.protocol import write_certificate

    result["certificate"] = str(write_certificate(cert, path))


# --------------------------------------------------------------------------------- dyck


@dyck_app.command("count")
def dyck_count(types: Types, depth: Depth, length: Length, as_json: JsonFlag = False) -> None:
    """Exact number of Dyck-(n,k) words of length N (dynamic programming, any N)."""
    from ccomplexity.languages.dyck import count_dyck

    _check_dyck(types, depth, length)
    count = count_dyck(types, depth, length)
    result = {"types": types, "depth": depth, "length": length, "count": count}
    result["log2_count"] = count.bit_length() - 1 if count and count & (count - 1) == 0 else None
    _emit(result, as_json, f"Dyck-({types},{depth}) words of length {length}")


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
    if batch < 1:
        raise InputError(f"--batch must be a positive integer, got {batch}")
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
    if types < 1:
        raise InputError(f"--types must be a positive integer, got {types}")
    if depth < 0:
        raise InputError(f"--depth must be a non-negative integer, got {depth}")
    if length < 0:
        raise InputError(f"--length must be a non-negative integer, got {length}")


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
    _emit(result, as_json, f"Minimal DFA of Dyck-({types},{depth})")


@dfa_app.command("equality")
def dfa_equality(
    half: Annotated[int, typer.Option("--half", help="H: the language is {ww : |w| = H}.")],
    alphabet: Annotated[int, typer.Option("--alphabet", help="Alphabet size A.")] = 2,
    show: Show = False,
    as_json: JsonFlag = False,
) -> None:
    """Minimal complete DFA of the equality language {ww : |w| = H} over A symbols."""
    from ccomplexity.automata import equality_dfa

    if half < 1:
        raise InputError(f"--half must be a positive integer, got {half}")
    if alphabet < 1:
        raise InputError(f"--alphabet must be a positive integer, got {alphabet}")
    result = _dfa_result(equality_dfa(half, alphabet), f"{{ww : |w| = {half}}}", show)
    result.update(half=half, alphabet_size=alphabet)
    _emit(result, as_json, "Minimal DFA of the equality language")


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
    exact: Annotated[
        bool, typer.Option("--exact", help="Exact maximum fooling set by SAT (small matrices).")
    ] = False,
    method: Annotated[
        str,
        typer.Option("--method", help="dyck: auto, exhaustive (N <= 20) or symbolic."),
    ] = "auto",
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """A verified fooling set and its lower bound log2|S| (Def 1, Fact 4)."""
    from ccomplexity import lower_bounds, protocol

    start = time.perf_counter()
    if method not in ("auto", "exhaustive", "symbolic"):
        raise InputError(f"--method must be auto, exhaustive or symbolic, got {method!r}")
    if problem == "dyck" and partition is None:
        partition = "odd-even"
    prob = _problem(problem, types, depth, length, half, alphabet, partition)
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
            cert = protocol.symbolic_dyck_certificate(types, depth, length, sym["count"])
    else:
        if exact:
            found = lower_bounds.max_fooling_set(prob.matrix())
            result["method"] = "exact-sat"
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
        result["bits"] = protocol.ceil_log2(check.size)
        if not check.valid:
            result["reason"] = check.reason
        if certificate is not None and check.valid:
            cert = protocol.fooling_set_certificate(prob, found.rows, found.cols, found.value)
    if certificate is not None and cert is None:
        raise InputError("no certificate written: the fooling set did not verify")
    result["seconds"] = round(time.perf_counter() - start, 3)
    _write(cert, certificate, result)
    _emit(result, as_json, "Fooling set")


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
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Exact deterministic one-way complexity Alice -> Bob: ceil(log2 #distinct rows)."""
    from ccomplexity import lower_bounds, protocol

    start = time.perf_counter()
    if cut is not None:
        if partition is not None:
            raise InputError("give either --cut or --partition, not both")
        partition = f"prefix:{cut}"
    prob = _problem(problem, types, depth, length, half, alphabet, partition)
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
        cert = protocol.one_way_certificate(prob, res.rows, res.cols)
    result["seconds"] = round(time.perf_counter() - start, 3)
    if certificate is not None:
        _write(cert, certificate, result)
    _emit(result, as_json, "One-way complexity")


@cc_app.command("rank")
def cc_rank(
    problem: ProblemName,
    types: OptTypes = None,
    depth: OptDepth = None,
    length: OptLength = None,
    half: OptHalf = None,
    alphabet: OptAlphabet = None,
    partition: OptPartition = None,
    prime: Annotated[int, typer.Option("--prime", help="Field GF(q).")] = 2_147_483_647,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Exact rank of the communication matrix over GF(q); D(f) >= ceil(log2 rank)."""
    from ccomplexity import lower_bounds, protocol

    start = time.perf_counter()
    prob = _problem(problem, types, depth, length, half, alphabet, partition)
    res = lower_bounds.rank_mod_p(prob.matrix(), prime)
    result: dict[str, Any] = prob.describe()
    result.update(rank=res.rank, prime=prime, bits=protocol.ceil_log2(max(res.rank, 1)))
    result["seconds"] = round(time.perf_counter() - start, 3)
    if certificate is not None:
        if res.rank == 0:
            raise InputError("rank 0: there is nothing to certify")
        _write(protocol.rank_certificate(prob, res.rows, res.cols, prime), certificate, result)
    _emit(result, as_json, "Log-rank bound")


@cc_app.command("exact")
def cc_exact(
    problem: ProblemName,
    types: OptTypes = None,
    depth: OptDepth = None,
    length: OptLength = None,
    half: OptHalf = None,
    alphabet: OptAlphabet = None,
    partition: OptPartition = None,
    tree: Annotated[
        bool, typer.Option("--tree", help="Include the optimal protocol tree.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Exact deterministic two-way complexity by search over protocol trees (tiny matrices)."""
    from ccomplexity import lower_bounds

    start = time.perf_counter()
    prob = _problem(problem, types, depth, length, half, alphabet, partition)
    res = lower_bounds.exact_bits(prob.matrix())
    result: dict[str, Any] = prob.describe()
    result["bits"] = res.bits
    if tree:
        result["tree"] = res.tree
    result["seconds"] = round(time.perf_counter() - start, 3)
    _emit(result, as_json, "Deterministic communication complexity")


# --------------------------------------------------------------------------------- bounds


@app.command("bound")
def bound(
    theorem: Annotated[
        str | None, typer.Option("--theorem", help="Theorem id, e.g. separations.thm3.")
    ] = None,
    width: Annotated[int | None, typer.Option("--width", help="Model width m.")] = None,
    precision: Annotated[int | None, typer.Option("--precision", help="Bits p.")] = None,
    heads: Annotated[int, typer.Option("--heads", help="Attention heads H.")] = 1,
    length: Annotated[int | None, typer.Option("--length", help="Input length N.")] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List every theorem.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Evaluate a theorem: the largest length not ruled out, or the smallest width required."""
    from ccomplexity import bounds

    if list_all or theorem is None:
        rows = [{"id": b.id, "kind": b.kind, "formula": b.formula} for b in bounds.all_bounds()]
        if as_json:
            print(json.dumps({"theorems": rows}))
        else:
            for r in rows:
                print(f"{r['id']:<24} {r['kind']:<6} {r['formula']}")
        return
    b = bounds.get(theorem)
    for name, value in (("--width", width), ("--precision", precision), ("--length", length)):
        if value is not None and value < 1:
            raise InputError(f"{name} must be a positive integer, got {value}")
    if heads < 1:
        raise InputError(f"--heads must be a positive integer, got {heads}")
    result: dict[str, Any] = {
        "theorem": b.id,
        "name": b.name,
        "statement": b.statement,
        "citation": b.citation,
        "formula": b.formula,
    }
    if width is not None and precision is not None:
        result["max_length"] = b.max_length(width, precision, heads)
    if length is not None and precision is not None:
        result["min_width"] = b.min_width(length, precision, heads)
    if "max_length" not in result and "min_width" not in result:
        raise InputError(
            "give --width and --precision (largest length) or --length and --precision "
            "(smallest width)"
        )
    result.update(width=width, precision=precision, heads=heads, length=length)
    _emit(result, as_json, b.id)


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

    if length < 2:
        raise InputError(f"--length must be at least 2, got {length}")
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
    _emit(result, as_json, "Nearly orthogonal codes")


# --------------------------------------------------------------------------------- models


@app.command("models")
def models_cmd(
    width: Annotated[int, typer.Option("--width", help="Width of each model built.")] = 16,
    layers: Annotated[int, typer.Option("--layers", help="Layers of each model built.")] = 1,
    vocab_size: Annotated[int, typer.Option("--vocab-size", help="Input symbols.")] = 8,
    precision: Annotated[int, typer.Option("--precision", help="Bits p per number.")] = 16,
    as_json: JsonFlag = False,
) -> None:
    """The model registry: each architecture's config, parameter count and state size."""
    import models

    if precision < 1:
        raise InputError(f"--precision must be a positive integer, got {precision}")
    rows = []
    for entry in models.describe_models():
        model = models.build(entry["name"], vocab_size=vocab_size, width=width, layers=layers)
        built = model.describe()
        entry.update(
            built_config=built["config"],
            parameters=built["parameters"],
            state_numel=built["state_numel"],
            state_bits=model.state_bits(precision),
        )
        rows.append(entry)
    if as_json:
        print(json.dumps({"precision": precision, "models": rows}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"Models at width {width}, {layers} layer(s); state bits at p = {precision}"
    )
    for column in ("name", "recurrent", "parameters", "state numbers", "state bits"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["name"], str(r["recurrent"]), str(r["parameters"]), str(r["state_numel"]),
            str(r["state_bits"]),
        )  # fmt: skip
    Console().print(table)


@app.command("construct")
def construct(
    task: Annotated[str, typer.Option("--task", help="index-lookup, dyck or equality.")],
    length: Annotated[int, typer.Option("--length", help="Input length N.")],
    samples: Annotated[int, typer.Option("--samples", help="Random inputs to check.")] = 10_000,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    types: Annotated[int, typer.Option("--types", help="dyck: bracket types n.")] = 2,
    depth: Annotated[int, typer.Option("--depth", help="dyck: maximum depth k.")] = 2,
    as_json: JsonFlag = False,
) -> None:
    """Build a hand-wired model realising an upper bound (Thm 1, Thm 6, DFA-RNN) and check it."""
    from models import constructions

    options: dict[str, Any] = {"length": length, "samples": samples, "seed": seed}
    if task == "dyck":
        options.update(types=types, depth=depth)
    result = constructions.run(task, **options)
    _emit(result, as_json, f"Construction for {task}")


# --------------------------------------------------------------------------------- protocol

protocol_app = typer.Typer(no_args_is_help=True, help="Alice/Bob protocols run on real models.")
app.add_typer(protocol_app, name="protocol")
Width = Annotated[int, typer.Option("--width", help="Model width.")]
Precision = Annotated[int, typer.Option("--precision", help="Bits p per number.")]
Samples = Annotated[int, typer.Option("--samples", help="Random inputs to run.")]
Seed = Annotated[int, typer.Option("--seed", help="Seeds the model's weights and the inputs.")]
Layers = Annotated[int, typer.Option("--layers", help="Model layers.")]
Vocab = Annotated[int, typer.Option("--vocab-size", help="Input symbols.")]
Frac = Annotated[
    int | None, typer.Option("--frac", help="Fractional bits (default: precision // 2).")
]


def _protocol_result(result: dict[str, Any], certificate: str | None, title: str, as_json: bool):
    cert = result.pop("certificate", None)
    _write(cert, certificate, result)
    _emit(result, as_json, title)


Checkpoint = Annotated[
    str | None,
    typer.Option("--checkpoint", help="A model saved by `ccx train` (instead of --arch/--width)."),
]
OptWidth = Annotated[int | None, typer.Option("--width", help="Model width.")]


def _need_model(checkpoint: str | None, **given: object) -> None:
    missing = [f"--{k}" for k, v in given.items() if v is None]
    if checkpoint is None and missing:
        raise InputError(f"give {' and '.join(missing)}, or --checkpoint PATH")


@protocol_app.command("rnn")
def protocol_rnn(
    length: Length,
    cut: Annotated[int, typer.Option("--cut", help="Alice holds positions 1..K.")],
    precision: Precision,
    arch: Annotated[
        str | None, typer.Option("--arch", help="A recurrent model of `ccx models`.")
    ] = None,
    width: OptWidth = None,
    samples: Samples = 100,
    seed: Seed = 0,
    layers: Layers = 1,
    vocab_size: Vocab = 8,
    frac: Frac = None,
    checkpoint: Checkpoint = None,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Thm 2: Alice sends the model's whole state after K tokens; Bob finishes the run."""
    from simulations.protocols.rnn import run_rnn_protocol

    _need_model(checkpoint, arch=arch, width=width)
    result = run_rnn_protocol(
        arch, width, length, cut, precision, samples, seed, layers=layers,
        vocab_size=vocab_size, frac=frac, certificate=certificate is not None,
        checkpoint=checkpoint,
    )  # fmt: skip
    _protocol_result(result, certificate, f"One-way protocol of {arch}", as_json)


@protocol_app.command("attention")
def protocol_attention(
    length: Length,
    partition: Annotated[
        str, typer.Option("--partition", help="prefix:K, odd-even, random or alice:i,j,...")
    ],
    precision: Precision,
    width: OptWidth = None,
    heads: Annotated[int | None, typer.Option("--heads", help="Attention heads H.")] = None,
    samples: Samples = 100,
    seed: Seed = 0,
    layers: Layers = 1,
    one_way: Annotated[
        bool, typer.Option("--one-way", help="Alice only sends; the query must be Bob's.")
    ] = False,
    layer_norm: Annotated[bool, typer.Option("--layer-norm/--no-layer-norm")] = True,
    vocab_size: Vocab = 8,
    frac: Frac = None,
    checkpoint: Checkpoint = None,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Thm 4: a one-layer transformer split over any partition, bits counted per step."""
    from simulations.protocols.attention import run_attention_protocol

    _need_model(checkpoint, width=width, heads=heads)
    result = run_attention_protocol(
        width, heads, length, partition, precision, samples, seed, layers=layers,
        one_way=one_way, vocab_size=vocab_size, frac=frac, layer_norm=layer_norm,
        certificate=certificate is not None, checkpoint=checkpoint,
    )  # fmt: skip
    _protocol_result(result, certificate, "Attention protocol", as_json)


@protocol_app.command("reduce")
def protocol_reduce(
    reduction: Annotated[
        str,
        typer.Option(
            "--reduction",
            help="index (Thm 3), equality (Thm 11), dyck (Thm 5), disjointness (Thm 8).",
        ),
    ],  # fmt: skip
    arch: Annotated[str, typer.Option("--arch", help="A model of `ccx models`, or dfa-rnn.")],
    width: Width,
    length: Length,
    precision: Precision,
    samples: Samples = 1000,
    seed: Seed = 0,
    as_json: JsonFlag = False,
) -> None:
    """Run the protocol behind a lower bound on a model; show where a small model fails."""
    from simulations.protocols.reductions import run_reduction

    result = run_reduction(reduction, arch, width, length, precision, seed, samples)
    _emit(result, as_json, f"Reduction from {reduction}")


@protocol_app.command("bits-used")
def protocol_bits_used(
    cut: Annotated[int, typer.Option("--cut", help="The state is read after K tokens.")],
    arch: Annotated[
        str | None, typer.Option("--arch", help="A recurrent model of `ccx models`.")
    ] = None,
    width: OptWidth = None,
    length: Annotated[
        int | None, typer.Option("--length", help="Input length N (a checkpoint's by default).")
    ] = None,
    task: Annotated[
        str | None,
        typer.Option("--task", help="dyck or index (a checkpoint's: dyck or index-lookup)."),
    ] = None,
    samples: Samples = 1000,
    seed: Seed = 0,
    checkpoint: Checkpoint = None,
    as_json: JsonFlag = False,
) -> None:
    """Bits a float model actually uses at a cut: smallest p with full agreement, states reached."""
    from simulations.protocols.bits_used import bits_used

    _need_model(checkpoint, arch=arch, width=width, length=length)
    result = bits_used(
        arch, width, length, cut, seed, task=task, samples=samples, checkpoint=checkpoint
    )
    _emit(result, as_json, f"Bits used by {result['arch']} at cut {cut}")


# --------------------------------------------------------------------------------- training


@app.command("train")
def train_cmd(
    task: Annotated[str, typer.Option("--task", help="index-lookup, dyck, eq-random, ...")],
    arch: Annotated[str, typer.Option("--arch", help="A model of `ccx models`.")],
    width: Width,
    length: Length,
    layers: Layers = 1,
    steps: Annotated[int, typer.Option("--steps", help="Most training steps.")] = 1000,
    lr: Annotated[float, typer.Option("--lr", help="Adam learning rate.")] = 1e-3,
    seed: Seed = 0,
    batch: Annotated[int, typer.Option("--batch", help="Fresh examples per step.")] = 64,
    heads: Annotated[int, typer.Option("--heads", help="Heads (attention models).")] = 4,
    target: Annotated[float, typer.Option("--target", help="Early-stop accuracy.")] = 0.99,
    checkpoint_dir: Annotated[
        str, typer.Option("--checkpoint-dir", help="Where the checkpoint is written.")
    ] = "results/checkpoints",
    device: Annotated[str, typer.Option("--device", help="auto, cpu or cuda.")] = "auto",
    as_json: JsonFlag = False,
) -> None:
    """Train one model on one task at length N; evaluate at exactly N; save a checkpoint."""
    from pathlib import Path

    from simulations.training import TrainConfig, train

    config = TrainConfig(
        task=task, arch=arch, width=width, layers=layers, length=length, steps=steps, lr=lr,
        seed=seed, batch=batch, heads=heads, target=target,
    )  # fmt: skip
    Path(checkpoint_dir).mkdir(parents=True, exist_ok=True)
    result = train(config, checkpoint_dir=checkpoint_dir, progress=not as_json, device=device)
    _emit(result, as_json, f"{arch} on {task}, N = {length}")


@app.command("sweep")
def sweep_cmd(
    spec: Annotated[str | None, typer.Argument(help="Sweep spec (TOML).")] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", help="A shipped profile: smoke, quick, paper.")
    ] = None,
    store: Annotated[str, typer.Option("--store", help="SQLite results store.")] = (
        "results/ccx.db"
    ),
    workers: Annotated[int | None, typer.Option("--workers", help="Processes.")] = None,
    backend: Annotated[str, typer.Option("--backend", help="local or ray.")] = "local",
    checkpoint_dir: Annotated[
        str | None,
        typer.Option(
            "--checkpoint-dir", help="Where the runs' models go (default: <store>_checkpoints/)."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run a grid of trainings into the store; a killed sweep resumes where it stopped."""
    from simulations.sweeps import run_sweep

    if (spec is None) == (profile is None):
        raise InputError("give a spec file or --profile NAME (one of them)")
    result = run_sweep(
        spec or profile, store, workers=workers, backend=backend, checkpoint_dir=checkpoint_dir
    )
    _emit(result, as_json, "Sweep")
    if result["failed"]:
        raise typer.Exit(1)


@app.command("threshold")
def threshold_cmd(
    store: Annotated[str, typer.Option("--store", help="SQLite results store.")] = (
        "results/ccx.db"
    ),
    target: Annotated[float, typer.Option("--target", help="Accuracy to reach.")] = 0.99,
    precision: Annotated[int, typer.Option("--precision", help="p for the bounds.")] = 32,
    as_json: JsonFlag = False,
) -> None:
    """Empirical length thresholds per (task, arch, size), next to the proved bound."""
    from pathlib import Path

    from simulations.thresholds import thresholds

    if not Path(store).is_file():
        raise InputError(f"store {store} does not exist; run `ccx sweep` first")
    rows = thresholds(store, target=target, precision=precision)
    if as_json:
        print(json.dumps({"thresholds": rows}))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Thresholds (target {target}, bounds at p = {precision})")
    for column in ("task", "arch", "width", "layers", "threshold N", "bound N", "bound"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["task"], r["arch"], str(r["width"]), str(r["layers"]), str(r["threshold_length"]),
            str(r["bound_length"]), str(r["bound_id"]),
        )  # fmt: skip
    Console().print(table)


# --------------------------------------------------------------------------------- figures

FigureOut = Annotated[str, typer.Option("--out", help="Output folder.")]
FigureStore = Annotated[
    str | None, typer.Option("--store", help="Plot this results store; runs nothing.")
]
FigureProfile = Annotated[
    str | None,
    typer.Option("--profile", help="Run or resume this profile into results/<profile>.db."),
]


@app.command("figure")
def figure_cmd(
    name: Annotated[str, typer.Argument(help="thresholds, bounds, fig2, fig3, fig4 or protocols.")],
    out: FigureOut = "results/figures",
    store: FigureStore = None,
    profile: FigureProfile = None,
    as_json: JsonFlag = False,
) -> None:
    """Draw one figure: PNG, PDF and the CSV of the numbers it plots."""
    from paper_figures import make_figure

    _emit(make_figure(name, out, store=store, profile=profile), as_json, f"Figure {name}")


@app.command("report")
def report_cmd(
    out: FigureOut = "results/report",
    store: FigureStore = None,
    profile: FigureProfile = None,
    as_json: JsonFlag = False,
) -> None:
    """Every figure and one HTML page (OUT/index.html) with their captions."""
    from simulations.report import write_report

    index = write_report(out, store=store, profile=profile)
    _emit({"report": str(index)}, as_json, "Report")


# --------------------------------------------------------------------------------- verify


@app.command("verify")
def verify(
    path: Annotated[str, typer.Argument(help="Certificate JSON file.")],
    as_json: JsonFlag = False,
) -> None:
    """Re-check a certificate by recomputing the function on its witness. Exit 0 valid, 1 not."""
    from ccomplexity import protocol

    try:
        cert = protocol.read_certificate(path)
    except protocol.InvalidCertificate as err:
        verdict = protocol.Verdict(False, None, None, str(err))
    else:
        if isinstance(cert, dict) and cert.get("kind") in protocol.PROTOCOL_KINDS:
            # Replaying a protocol needs the model, hence torch: imported only on this branch.
            from simulations.protocols.certificate import verify_protocol_certificate

            verdict = verify_protocol_certificate(cert)
        else:
            verdict = protocol.verify(cert)
    if as_json:
        print(json.dumps(protocol.describe_verdict(verdict)))
    elif verdict.valid and verdict.kind in protocol.PROTOCOL_KINDS:
        print(f"valid {verdict.kind} certificate: {verdict.claimed_bits} bits sent, replayed")
    elif verdict.valid:
        print(f"valid {verdict.kind} certificate: at least {verdict.claimed_bits} bits")
    else:
        print(f"invalid certificate: {verdict.reason}")
    if not verdict.valid:
        raise typer.Exit(1)


# --------------------------------------------------------------------------------- tour


@app.command("tour")
def tour() -> None:
    """A short tour of what the exact core computes (the demo)."""
    from simulations.tour import run_tour

    run_tour()


def _drop_script_dir() -> None:
    """Remove the console script's own folder from the import path.

    python-sat installs a script called ``models.py`` beside ``ccx``; with that folder first on
    ``sys.path`` it would shadow this project's ``models`` package.
    """
    from pathlib import Path

    here = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else None
    if here is not None and (here / "models.py").exists():
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors and exit status 2 for bad input, no tracebacks."""
    from typer.exceptions import TyperException

    _drop_script_dir()
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="ccx", standalone_mode=False)
    except InputError as err:
        print(f"ccx: error: {err}", file=sys.stderr)
        return 2
    except typer.Abort:
        print("ccx: aborted", file=sys.stderr)
        return 1
    except TyperException as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # a bare group: show its help
            print(err.format_message())
            return 0
        message = err.format_message() if hasattr(err, "format_message") else str(err)
        print(f"ccx: error: {' '.join(str(message).split())}", file=sys.stderr)
        return int(getattr(err, "exit_code", 2) or 2)
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
