"""Commands on models: the zoo, hand-wired constructions and protocols run on real models."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ccomplexity import limits
from ccomplexity.errors import InputError
from ccx.app import (
    Certificate,
    Checkpoint,
    JsonFlag,
    OptWidth,
    Precision,
    Samples,
    Seed,
    app,
    check_certificate_path,
    emit,
    field_option,
    need_model,
    opt_int,
    print_json,
    print_table,
    ranged,
    refuse_given,
    write_certificate_to,
)

# --------------------------------------------------------------------------------- models


REGISTERED_MODELS = 9
"""Architectures ``ccx models`` builds (the registry's, without plugins): its budget counts
these before torch is loaded, and then every registered one (plugins included)."""


@app.command("models")
def models_cmd(
    width: Annotated[int, ranged(limits.WIDTH, "--width", help="Width of each model built.")] = 16,
    layers: Annotated[
        int, ranged(limits.LAYERS, "--layers", help="Layers of each model built.")
    ] = 1,
    vocab_size: Annotated[int, ranged(limits.VOCAB, "--vocab-size", help="Input symbols.")] = 8,
    precision: Annotated[int, ranged(limits.BITS, "--precision", help="Bits p per number.")] = 16,
    experts: Annotated[
        int, ranged(limits.EXPERTS, "--experts", help="Experts K of the models that have them.")
    ] = 1,
    as_json: JsonFlag = False,
) -> None:
    """The model registry: each architecture's config, parameters (active and total) and state
    size."""
    from ccomplexity import budget

    what = f"building every model with {layers} layers and {experts} experts"
    work = budget.model_registry(REGISTERED_MODELS, layers, experts)
    budget.check(what, work=work, instead="use fewer layers or experts")
    import torch

    import models

    rows = []
    entries = models.describe_models()
    work = budget.model_registry(len(entries), layers, experts)
    budget.check(what, work=work, instead="use fewer layers or experts")
    for entry in entries:
        options: dict[str, Any] = {"vocab_size": vocab_size, "width": width, "layers": layers}
        if "experts" in entry["config"]:
            options["experts"] = experts
        if entry["name"] == "concat-transformer":
            options["layers"] = 1  # the mixture-of-parrots class has exactly one layer
        with torch.device("meta"):  # counted from the shapes: no weight is allocated or drawn
            model = models.build(entry["name"], **options)
        built = model.describe()
        entry.update(
            built_config=built["config"],
            parameters=built["parameters"],
            active_parameters=built["active_parameters"],
            total_parameters=built["total_parameters"],
            state_numel=built["state_numel"],
            state_bits=model.state_bits(precision),
        )
        rows.append(entry)
    if as_json:
        print_json(
            {
                "precision": precision,
                "experts": experts,
                "models": rows,
                "note": "config: each architecture's defaults; built_config: the model "
                "built with this command's options (width, layers, vocab size, experts), "
                "whose parameters and state are counted",
            }
        )
        return
    from rich.table import Table

    table = Table(
        title=f"Models at width {width}, {layers} layer(s); state bits at p = {precision}"
    )
    columns = "name", "recurrent", "active params", "total params", "state numbers", "state bits"
    for column in columns:
        table.add_column(column)
    for r in rows:
        table.add_row(
            r["name"],
            str(r["recurrent"]),
            str(r["active_parameters"]),
            str(r["total_parameters"]),
            str(r["state_numel"]),
            str(r["state_bits"]),
        )
    print_table(table)


@app.command("construct")
def construct(
    task: Annotated[
        str,
        typer.Option(
            "--task",
            help="index-lookup, dyck, equality, length2-path, memorize, kg-path or "
            "group-composition.",
        ),
    ],
    length: opt_int(limits.LENGTH, "--length", "Input length N (memorize: tokens).") = None,
    samples: opt_int(limits.SAMPLES, "--samples", "Random inputs to check.") = None,
    seed: Annotated[int, ranged(limits.SEED, "--seed")] = 0,
    types: opt_int(limits.TYPES, "--types", "dyck: bracket types n.") = None,
    depth: opt_int(limits.DEPTH, "--depth", "dyck: maximum depth.") = None,
    vertices: opt_int(limits.VERTICES, "--vertices", "length2-path: vertices |V|.") = None,
    examples: opt_int(limits.EXAMPLES, "--examples", "memorize: examples n.") = None,
    dim: opt_int(limits.DIM, "--dim", "memorize: dimension of the examples.") = None,
    trials: opt_int(limits.TRIALS, "--trials", "memorize: data sets.") = None,
    entities: opt_int(limits.ENTITIES, "--entities", "kg-path: entities E.") = None,
    relations: opt_int(limits.RELATIONS, "--relations", "kg-path: relations R.") = None,
    hops: opt_int(limits.HOPS, "--hops", "kg-path: hops q.") = None,
    experts: opt_int(
        limits.EXPERTS,
        "--experts",
        "memorize: experts K (Thm A.12); kg-path: experts (round(sqrt T)).",
    ) = None,
    group: Annotated[
        str | None, typer.Option("--group", help="group-composition: G (default S5).")
    ] = None,
    loops: opt_int(
        limits.LOOPS, "--loops", "group-composition: loops (default ceil(lg n))."
    ) = None,
    as_json: JsonFlag = False,
) -> None:
    """Build a hand-wired model realising an upper bound (Thm 1, Thm 6, DFA-RNN; mixture of
    parrots Thm 3.2, A.11, A.12; the KG paths of Thm 5.1 / Prop B.13 / Thm 5.3; looped Thm 2.1)
    and check it.
    Options a task does not take are an error."""
    if task == "memorize":  # the largest construction: its budget is checked before torch
        from ccomplexity import budget

        e, d, t, k = examples or 1000, dim or 128, trials or 20, experts or 1
        what = f"the memoriser of {e} examples in dimension {d} ({k} experts, {t} trials)"
        budget.check(what, *budget.memorizer(e, length or 8, d, k, t), "use smaller sizes")
    from models import constructions

    given = {
        "length": length, "samples": samples, "seed": seed, "types": types, "depth": depth,
        "vertices": vertices, "examples": examples, "dim": dim, "trials": trials,
        "entities": entities, "relations": relations, "hops": hops, "experts": experts,
        "group": group, "loops": loops,
    }  # fmt: skip
    result = constructions.run(task, **{k: v for k, v in given.items() if v is not None})
    emit(result, as_json, f"Construction for {task}")


# --------------------------------------------------------------------------------- protocol

OptLength = Annotated[
    int | None,
    ranged(limits.LENGTH, "--length", help="Input length N (a checkpoint's by default)."),
]

protocol_app = typer.Typer(no_args_is_help=True, help="Alice/Bob protocols run on real models.")
app.add_typer(protocol_app, name="protocol")


def _protocol_result(result: dict[str, Any], certificate: str | None, title: str, as_json: bool):
    cert = result.pop("certificate", None)
    write_certificate_to(cert, certificate, result)
    emit(result, as_json, title)


def _field(field: str, decl: str, text: str) -> Any:
    """A protocol option setting field ``field`` of its request (checked by the request)."""
    return field_option(field, decl, help=text)


ReqPrecision = Annotated[int, _field("precision", "--precision", "Bits p per number.")]
ReqFrac = Annotated[
    int | None, _field("frac", "--frac", "Fractional bits (default: precision // 2).")
]
ReqSamples = Annotated[int, _field("samples", "--samples", "Random inputs to run.")]
ReqSeed = Annotated[int, _field("seed", "--seed", "Seeds the model's weights and inputs.")]
ReqLength = Annotated[
    int | None, _field("length", "--length", "Input length N (a checkpoint's by default).")
]
ReqWidth = Annotated[int | None, _field("width", "--width", "Model width m.")]
ReqLayers = Annotated[int, _field("layers", "--layers", "Model layers.")]
ReqVocab = Annotated[int, _field("vocab_size", "--vocab-size", "Input symbols.")]


@protocol_app.command("rnn")
def protocol_rnn(
    cut: Annotated[int, _field("cut", "--cut", "Alice holds positions 1..cut.")],
    precision: ReqPrecision,
    length: ReqLength = None,
    arch: Annotated[
        str | None, typer.Option("--arch", help="A recurrent model of `ccx models`.")
    ] = None,
    width: ReqWidth = None,
    samples: ReqSamples = 100,
    seed: ReqSeed = 0,
    layers: ReqLayers = 1,
    vocab_size: ReqVocab = 8,
    frac: ReqFrac = None,
    checkpoint: Checkpoint = None,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Thm 2: Alice sends the model's whole state after K tokens; Bob finishes the run. A
    model trained at p bits runs on the grid it trained on (its checkpoint's p and frac)."""
    check_certificate_path(certificate, checkpoint)
    need_model(checkpoint, arch=arch, width=width)
    from ccomplexity.requests import request_from
    from simulations.protocols.requests import RnnProtocolRequest
    from simulations.protocols.run import run_protocol

    wanted = {**locals(), "certificate": certificate is not None}
    result = run_protocol(request_from(RnnProtocolRequest, wanted))
    _protocol_result(result, certificate, f"One-way protocol of {result['arch']}", as_json)


ReqVertices = Annotated[
    int | None,
    _field("vertices", "--vertices", "length2-path: vertices |V| (Alice's items)."),
]
ReqExperts = Annotated[int, _field("experts", "--experts", "length2-path: experts K of psi.")]
Vertices = Annotated[
    int | None,
    ranged(limits.VERTICES, "--vertices", help="length2-path: vertices |V| (Alice's items)."),
]
Experts = Annotated[
    int, ranged(limits.EXPERTS, "--experts", help="length2-path: experts K of psi.")
]


@protocol_app.command("attention")
def protocol_attention(
    ctx: typer.Context,
    precision: ReqPrecision,
    length: ReqLength = None,
    partition: Annotated[
        str | None,
        typer.Option("--partition", help="prefix:K, odd-even, random or alice:i,j,..."),
    ] = None,
    task: Annotated[
        str | None,
        typer.Option("--task", help="length2-path: the mixture-of-parrots protocol (one-way)."),
    ] = None,
    vertices: ReqVertices = None,
    arch: Annotated[
        str, typer.Option("--arch", help="length2-path: moe, dense or construction.")
    ] = "moe",
    experts: ReqExperts = 1,
    width: ReqWidth = None,
    heads: Annotated[int | None, _field("heads", "--heads", "Attention heads H.")] = None,
    samples: ReqSamples = 100,
    seed: ReqSeed = 0,
    layers: ReqLayers = 1,
    one_way: Annotated[
        bool,
        typer.Option("--one-way", help="Alice only sends; the query is Bob's and public."),
    ] = False,
    single_output: Annotated[
        bool,
        typer.Option(
            "--single-output", help="Only the holder of N outputs (the count Thm 5 rests on)."
        ),
    ] = False,
    query_token: Annotated[
        int, _field("query_token", "--query-token", "--one-way: the public token at N.")
    ] = 0,
    layer_norm: Annotated[bool, typer.Option("--layer-norm/--no-layer-norm")] = True,
    vocab_size: ReqVocab = 8,
    frac: ReqFrac = None,
    checkpoint: Checkpoint = None,
    certificate: Certificate = None,
    as_json: JsonFlag = False,
) -> None:
    """Thm 4: a one-layer transformer split over any partition, bits counted per step (a model
    trained at p bits on the grid it trained on); with --task length2-path, Lemma A.3 / Thm A.4
    on the mixture-of-parrots class, bit for bit."""
    check_certificate_path(certificate, checkpoint)
    if task is not None:
        refuse_given(
            ctx,
            (
                "length",
                "partition",
                "layers",
                "single_output",
                "query_token",
                "layer_norm",
                "vocab_size",
            ),
            "to --task length2-path",
        )
    else:
        refuse_given(ctx, ("vertices", "arch", "experts"), "without --task length2-path")
        if not one_way:
            refuse_given(ctx, ("query_token",), "without --one-way")
    from ccomplexity.requests import request_from
    from simulations.protocols.requests import AttentionProtocolRequest, ParrotsProtocolRequest
    from simulations.protocols.run import run_protocol

    wanted = {**locals(), "certificate": certificate is not None}
    if task is not None:
        need_model(checkpoint)
        if task != "length2-path":
            raise InputError(f"--task must be length2-path, got {task!r}")
        if not one_way:
            raise InputError("the length2-path protocol is one-way (Lemma A.3): add --one-way")
        result = run_protocol(request_from(ParrotsProtocolRequest, {**wanted, "heads": heads or 1}))
        emit(result, as_json, "One-way protocol on length-2 path")
        return
    if partition is None:
        raise InputError("give --partition (or --task length2-path)")
    need_model(checkpoint, width=width, heads=heads)
    if one_way and single_output:
        raise InputError("--one-way and --single-output are different protocols: give one")
    variant = "one-way" if one_way else "single-output" if single_output else "two-way"
    result = run_protocol(request_from(AttentionProtocolRequest, {**wanted, "variant": variant}))
    _protocol_result(result, certificate, "Attention protocol", as_json)


@protocol_app.command("reduce")
def protocol_reduce(
    reduction: Annotated[
        str,
        typer.Option(
            "--reduction",
            help="index (Thm 3), equality (Thm 11), dyck (Thm 5), disjointness (Thm 8), "
            "length2-path (mixture of parrots Thm 3.1).",
        ),
    ],
    precision: Precision,
    arch: Annotated[
        str | None,
        typer.Option(
            "--arch",
            help="A model of `ccx models`, or dfa-rnn (length2-path: moe, dense or construction).",
        ),
    ] = None,
    width: OptWidth = None,
    length: OptLength = None,
    samples: Samples = 1000,
    seed: Seed = 0,
    vertices: Vertices = None,
    heads: Annotated[int, ranged(limits.HEADS, "--heads", help="length2-path: heads H.")] = 1,
    experts: Experts = 1,
    checkpoint: Checkpoint = None,
    as_json: JsonFlag = False,
) -> None:
    """Run the protocol behind a lower bound on a model; show where a small model fails."""
    need_model(checkpoint)
    from simulations.protocols.reductions import OTHER_PAPERS, run_reduction

    if reduction not in OTHER_PAPERS:
        need_model(checkpoint, arch=arch, width=width, length=length)
    extra = {"vertices": vertices, "heads": heads, "experts": experts}
    result = run_reduction(
        reduction, arch, width, length, precision, seed, samples, checkpoint=checkpoint, **extra
    )
    emit(result, as_json, f"Reduction from {reduction}")


@protocol_app.command("bits-used")
def protocol_bits_used(
    cut: Annotated[int, ranged(limits.CUT, "--cut", help="The state is read after K tokens.")],
    arch: Annotated[
        str | None, typer.Option("--arch", help="A recurrent model of `ccx models`.")
    ] = None,
    width: OptWidth = None,
    length: OptLength = None,
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
    need_model(checkpoint, arch=arch, width=width, length=length)
    from simulations.protocols.bits_used import bits_used

    result = bits_used(
        arch, width, length, cut, seed, task=task, samples=samples, checkpoint=checkpoint
    )
    emit(result, as_json, f"Bits used by {result['arch']} at cut {cut}")
