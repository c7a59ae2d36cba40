"""Commands on models: the zoo, hand-wired constructions and protocols run on real models."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ccomplexity import limits
from simulations.cli import (
    Certificate,
    Checkpoint,
    Frac,
    JsonFlag,
    Layers,
    Length,
    OptWidth,
    Precision,
    Samples,
    Seed,
    Vocab,
    Width,
    app,
    check_certificate_path,
    check_options,
    emit,
    need_model,
    write_certificate_to,
)

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
    check_options(width=width, layers=layers, vocab_size=vocab_size)
    limits.BITS.check(precision, "--precision")
    import models

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
    check_options(length=length, samples=samples, seed=seed, types=types)
    from models import constructions

    options: dict[str, Any] = {"length": length, "samples": samples, "seed": seed}
    if task == "dyck":
        options.update(types=types, depth=depth)
    result = constructions.run(task, **options)
    emit(result, as_json, f"Construction for {task}")


# --------------------------------------------------------------------------------- protocol

protocol_app = typer.Typer(no_args_is_help=True, help="Alice/Bob protocols run on real models.")
app.add_typer(protocol_app, name="protocol")


def _protocol_result(result: dict[str, Any], certificate: str | None, title: str, as_json: bool):
    cert = result.pop("certificate", None)
    write_certificate_to(cert, certificate, result)
    emit(result, as_json, title)


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
    check_options(width=width, layers=layers, vocab_size=vocab_size, length=length,
                  samples=samples, seed=seed, precision=precision)  # fmt: skip
    check_certificate_path(certificate)
    from simulations.protocols.rnn import run_rnn_protocol

    need_model(checkpoint, arch=arch, width=width)
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
    check_options(width=width, heads=heads, layers=layers, vocab_size=vocab_size, length=length,
                  samples=samples, seed=seed, precision=precision)  # fmt: skip
    check_certificate_path(certificate)
    from simulations.protocols.attention import run_attention_protocol

    need_model(checkpoint, width=width, heads=heads)
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
    check_options(width=width, length=length, precision=precision, samples=samples, seed=seed)
    from simulations.protocols.reductions import run_reduction

    result = run_reduction(reduction, arch, width, length, precision, seed, samples)
    emit(result, as_json, f"Reduction from {reduction}")


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
    check_options(width=width, length=length, samples=samples, seed=seed)
    from simulations.protocols.bits_used import bits_used

    need_model(checkpoint, arch=arch, width=width, length=length)
    result = bits_used(
        arch, width, length, cut, seed, task=task, samples=samples, checkpoint=checkpoint
    )
    emit(result, as_json, f"Bits used by {result['arch']} at cut {cut}")
