"""What every ``ccx`` command module shares: the typer ``app`` the commands register on, the
option types with their declared ranges (:func:`ranged`) and written paths (:func:`written`),
:func:`emit` and the strict JSON printer.
The command modules import this module, and :mod:`ccx` imports them, so no module of the CLI
imports another that imports it back.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import typing
from collections.abc import Callable
from typing import Annotated, Any

import typer

from ccomplexity import limits
from ccomplexity.errors import InputError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help=(
        "ccomplexity: exact communication-complexity bounds for sequence models. Before the "
        "command, --plugin FILE.py (repeatable) loads your own task or model for that call."
    ),
)


def ranged(limit: limits.Limit | limits.Interval, *decls: str, **options: Any) -> Any:
    """``typer.Option(*decls, **options)`` whose value is checked against ``limit`` (of
    :mod:`ccomplexity.limits`) while the command line is parsed, before the command's body runs:
    a value outside is refused in one line naming the option and the limit. Every numeric option
    of every command is declared this way; the fuzz table reads the limit back
    (``param.callback.limit``) and tries each option below and above it."""

    def check(value):
        if value is not None:
            limit.check(value, decls[0])
        return value

    check.limit = limit  # type: ignore[attr-defined]
    return typer.Option(*decls, callback=check, **options)


def opt_int(limit: limits.Limit, decl: str, text: str) -> Any:
    """The type of an optional integer option (None when not given), checked against
    ``limit`` while the command line is parsed (:func:`ranged`): one line in a signature."""
    return Annotated[int | None, ranged(limit, decl, help=text)]


def field_option(field: str, *decls: str, **options: Any) -> Any:
    """``typer.Option(*decls, **options)`` setting the spec field ``field`` (a training run's,
    a model's, a protocol's: :data:`ccomplexity.limits.FIELDS`). Its limit is declared here
    (``param.callback.limit``, read by the fuzz table), and checked once, by the spec the command
    makes from it before any work: the refusal names the field."""

    def declared(value):
        return value

    declared.limit = limits.FIELDS[field]  # type: ignore[attr-defined]
    declared.field = field  # type: ignore[attr-defined]
    return typer.Option(*decls, callback=declared, **options)


def with_options(block: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the options declared once by ``block`` (a function whose parameters are
    those options, e.g. :func:`problem_options`): the command's signature, as typer reads it,
    is its own parameters with the block's after the first; the command receives them in its
    ``**options`` parameter. How a block of options is shared instead of repeated."""
    shared = _resolved_parameters(block)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        own = [p for p in _resolved_parameters(command) if p.kind is not p.VAR_KEYWORD]
        parameters = [*own[:1], *shared, *own[1:]]

        @functools.wraps(command)
        def run(**given: Any) -> Any:
            return command(**given)

        run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        return run

    return decorate


def _resolved_parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """``fn``'s parameters with their annotations evaluated (Annotated metadata kept)."""
    hints = typing.get_type_hints(fn, include_extras=True)
    return [
        p.replace(annotation=hints.get(p.name, p.annotation), kind=inspect.Parameter.KEYWORD_ONLY)
        if p.kind is not p.VAR_KEYWORD
        else p
        for p in inspect.signature(fn).parameters.values()
    ]


def written(kind: str, *decls: str, create_folder: bool = False, **options: Any) -> Any:
    """``typer.Option(*decls, **options)`` naming a path the command writes, ``kind`` "file"
    or "folder" (``create_folder``: a file whose missing folder is created when written). The
    value is checked by the rule of :mod:`ccomplexity.files` while the command line is parsed (a
    folder for a file, a path under a file, an unwritable place: one line, nothing created); the
    command checks it again against its own inputs before it starts. The fuzz table reads
    ``param.callback.writes`` and tries each such option on unwritable paths."""
    if kind not in ("file", "folder"):
        raise ValueError(f"kind must be file or folder, got {kind!r}")

    def check(value):
        if value is not None:
            from ccomplexity.files import check_output_file, check_output_folder

            what = decls[0]
            if kind == "folder":
                check_output_folder(value, what)
            else:
                check_output_file(value, what, create_folder=create_folder)
        return value

    check.writes = kind  # type: ignore[attr-defined]
    return typer.Option(*decls, callback=check, **options)


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
Length = Annotated[int, ranged(limits.LENGTH, "--length", help="Input length N.")]
Certificate = Annotated[
    str | None, written("file", "--certificate", help="Write a JSON certificate to this path.")
]

Width = Annotated[int, ranged(limits.WIDTH, "--width", help="Model width.")]
Precision = Annotated[int, ranged(limits.PRECISION, "--precision", help="Bits p per number.")]
Samples = Annotated[int, ranged(limits.SAMPLES, "--samples", help="Random inputs to run.")]
Seed = Annotated[
    int, ranged(limits.SEED, "--seed", help="Seeds the model's weights and the inputs.")
]
Layers = Annotated[int, ranged(limits.LAYERS, "--layers", help="Model layers.")]
Vocab = Annotated[int, ranged(limits.VOCAB, "--vocab-size", help="Input symbols.")]
Frac = Annotated[
    int | None, ranged(limits.FRAC, "--frac", help="Fractional bits (default: precision // 2).")
]


Checkpoint = Annotated[
    str | None,
    typer.Option("--checkpoint", help="A model saved by `ccx train` (instead of --arch/--width)."),
]
OptWidth = Annotated[int | None, ranged(limits.WIDTH, "--width", help="Model width.")]


def strict(value: Any) -> Any:
    """``value`` with every float that JSON cannot carry replaced: +inf and -inf by the strings
    ``"inf"`` and ``"-inf"``, NaN (undefined) by null. Lists, tuples and dicts are walked."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict(v) for v in value]
    return value


def print_json(value: Any) -> None:
    """Print ``value`` as one line of strict JSON (RFC 8259: no NaN, no Infinity; see
    :func:`strict`). Every ``--json`` output goes through here."""
    print(json.dumps(strict(value), allow_nan=False))


def emit(result: dict[str, Any], as_json: bool, title: str) -> None:
    from ccomplexity.integers import json_int

    result = {k: json_int(v) if type(v) is int else v for k, v in result.items()}
    if as_json:
        print_json(result)
        return
    from rich.table import Table

    table = Table(title=title, show_header=False)
    for key, value in result.items():
        table.add_row(cell(key), cell(value))
    print_table(table)


def cell(value: object) -> Any:
    """A table cell that prints ``value`` as it is: no rich markup read in it, control
    characters escaped (:func:`ccomplexity.errors.one_line`): strings from stores and plugins
    can neither drive the terminal nor break a row."""
    from rich.text import Text

    from ccomplexity.errors import one_line

    return Text(one_line(value))


def print_table(table: Any) -> None:
    """Print a rich table whole: drawn and wrapped to the terminal's width in a terminal; to a
    pipe or a file as plain rows, its title then one line per row (the header first), cells
    separated by a tab, never padded, cut or wrapped."""
    from rich.console import Console

    console = Console()
    if console.is_terminal:
        console.print(table)
        return
    from rich.text import Text

    def plain(cell: Any) -> str:
        text = Text.from_markup(cell) if isinstance(cell, str) else cell
        return text.plain if isinstance(text, Text) else str(text)

    if table.title:
        print(plain(table.title))
    columns = [list(column.cells) for column in table.columns]
    if table.show_header:
        print("\t".join(plain(column.header) for column in table.columns))
    for row in zip(*columns, strict=True):
        print("\t".join(plain(cell).replace("\n", " ") for cell in row))


def check_certificate_path(path: str | None, *inputs: str | None) -> None:
    """Refuse an unusable ``--certificate`` path before any work starts: one of the command's
    ``inputs`` (its --file, its --checkpoint), a folder, an unwritable place."""
    if path is not None:
        from ccomplexity.files import check_output_file

        check_output_file(path, "certificate", inputs=inputs)


def write_certificate_to(cert: dict[str, Any], path: str | None, result: dict[str, Any]) -> None:
    if path is None:
        return
    from ccomplexity.certificates import write_certificate

    result["certificate"] = str(write_certificate(cert, path))


def emit_certified(
    found: tuple[dict[str, Any], dict[str, Any] | None],
    certificate: str | None,
    as_json: bool,
    title: str,
) -> None:
    """A lower-bound command's end: its (result, certificate) from ``ccomplexity.requests``,
    the certificate written where asked (its path then in the result), the result printed."""
    result, cert = found
    write_certificate_to(cert, certificate, result)
    emit(result, as_json, title)


def refuse_given(ctx: typer.Context, names: tuple[str, ...], why: str) -> None:
    """Refuse, in one line, any of the options ``names`` (parameter names) given on the command
    line: they do not apply (``why``: to what). An option left at its default is not given."""
    sources = {name: ctx.get_parameter_source(name) for name in names}
    given = [
        "--" + name.replace("_", "-")
        for name, source in sources.items()
        if source is not None and source.name != "DEFAULT"
    ]
    if given:
        raise InputError(f"{', '.join(given)} does not apply {why}")


def need_model(checkpoint: str | None, **given: object) -> None:
    """A model is named by --checkpoint, or by all of ``given`` (e.g. --arch and --width). A
    checkpoint that is no zip archive (or too large) is refused here, before torch is imported."""
    missing = [f"--{k}" for k, v in given.items() if v is None]
    if checkpoint is None and missing:
        raise InputError(f"give {' and '.join(missing)}, or --checkpoint PATH")
    if checkpoint is not None:
        limits.check_zip_file(checkpoint, limits.CHECKPOINT_BYTES, "checkpoint")
