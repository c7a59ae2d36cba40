"""What every ``ccx`` command module shares: the typer ``app`` the commands register on, the
option types, :func:`emit` and the checks made before any work (option limits, output paths).
The command modules import this module, and :mod:`ccx` imports them, so no module of the CLI
imports another that imports it back.
"""

from __future__ import annotations

import json
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

JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
Length = Annotated[int, typer.Option("--length", help="Input length N.")]
Certificate = Annotated[
    str | None, typer.Option("--certificate", help="Write a JSON certificate to this path.")
]

Width = Annotated[int, typer.Option("--width", help="Model width.")]
Precision = Annotated[int, typer.Option("--precision", help="Bits p per number.")]
Samples = Annotated[int, typer.Option("--samples", help="Random inputs to run.")]
Seed = Annotated[int, typer.Option("--seed", help="Seeds the model's weights and the inputs.")]
Layers = Annotated[int, typer.Option("--layers", help="Model layers.")]
Vocab = Annotated[int, typer.Option("--vocab-size", help="Input symbols.")]
Frac = Annotated[
    int | None, typer.Option("--frac", help="Fractional bits (default: precision // 2).")
]


Checkpoint = Annotated[
    str | None,
    typer.Option("--checkpoint", help="A model saved by `ccx train` (instead of --arch/--width)."),
]
OptWidth = Annotated[int | None, typer.Option("--width", help="Model width.")]


def emit(result: dict[str, Any], as_json: bool, title: str) -> None:
    from ccomplexity.integers import json_int

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


def check_options(**values: int | None) -> None:
    """Each given option (``width=...``, ``length=...``; None: not given) within its limit of
    :mod:`ccomplexity.limits`, refused as ``--NAME``: called first, before anything heavy is
    imported, allocated or written. The API checks the same limits again where it is used."""
    from ccomplexity import limits

    by_option = {
        "width": limits.WIDTH, "layers": limits.LAYERS, "heads": limits.HEADS,
        "vocab_size": limits.VOCAB, "length": limits.LENGTH, "samples": limits.SAMPLES,
        "seed": limits.SEED, "precision": limits.PRECISION, "batch": limits.BATCH,
        "steps": limits.STEPS, "workers": limits.WORKERS, "threads": limits.THREADS,
        "types": limits.TYPES, "experts": limits.EXPERTS, "ensemble": limits.ENSEMBLE,
        "vertices": limits.VERTICES, "examples": limits.EXAMPLES, "dim": limits.DIM,
        "trials": limits.TRIALS, "entities": limits.ENTITIES, "relations": limits.RELATIONS,
        "hops": limits.HOPS,
    }  # fmt: skip
    for name, value in values.items():
        if value is not None:
            by_option[name].check(value, f"--{name.replace('_', '-')}")


def check_certificate_path(path: str | None) -> None:
    """Refuse an unusable ``--certificate`` path before any work starts."""
    if path is not None:
        from ccomplexity.files import check_output_file

        check_output_file(path, "certificate")


def write_certificate_to(cert: dict[str, Any], path: str | None, result: dict[str, Any]) -> None:
    if path is None:
        return
    from ccomplexity.certificates import write_certificate

    result["certificate"] = str(write_certificate(cert, path))


def need_model(checkpoint: str | None, **given: object) -> None:
    """A model is named by --checkpoint, or by all of ``given`` (e.g. --arch and --width)."""
    missing = [f"--{k}" for k, v in given.items() if v is None]
    if checkpoint is None and missing:
        raise InputError(f"give {' and '.join(missing)}, or --checkpoint PATH")
