"""The ``ccx`` command line.

Every command imports what it needs inside its body, so that the pure-mathematics commands start
fast and never load torch. ``--json`` prints exactly one JSON object on stdout. Bad input prints
one line on stderr and exits with status 2; ``ccx verify`` exits 1 for an invalid certificate
(and 2, "over the limit", for one beyond a limit, which is not checked).
"""

from __future__ import annotations

import json
import sys
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


# Each module registers its commands on ``app`` when imported (typer and the standard library only).
from ccx import (  # noqa: E402, F401
    cmd_bounds,
    cmd_exact,
    cmd_kg,
    cmd_languages,
    cmd_looped,
    cmd_models,
    cmd_training,
)

if __name__ == "__main__":
    sys.exit(main())
