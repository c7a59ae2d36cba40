"""Commands on the registries: ``ccx bound`` (every statement of every paper) and ``ccx claims``."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from ccomplexity.errors import InputError
from ccx.app import JsonFlag, app, emit, print_json

# --------------------------------------------------------------------------------- bounds


def parse_params(args: list[str]) -> dict[str, object]:
    """``--name VALUE`` and ``--param NAME=VALUE`` pairs as {name: int | float | str}.

    Names take ``-`` or ``_``; values that read as integers become ints, as decimals floats,
    anything else stays a string (e.g. a group name). Each bound validates its own parameters.
    """
    out: dict[str, object] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) < 3:
            raise InputError(f"unexpected argument {arg!r}; parameters are --NAME VALUE")
        if arg == "--param":
            if i + 1 >= len(args) or "=" not in args[i + 1]:
                raise InputError("--param needs NAME=VALUE")
            name, _, text = args[i + 1].partition("=")
        elif "=" in arg:
            name, _, text = arg[2:].partition("=")
        else:
            if i + 1 >= len(args):
                raise InputError(f"{arg} needs a value")
            name, text = arg[2:], args[i + 1]
        i += 2 if "=" not in arg else 1
        name = name.replace("-", "_")
        if name in out:
            raise InputError(f"parameter --{name} given twice")
        out[name] = _number(text)
    return out


def _number(text: str) -> object:
    if len(text) > 80:
        raise InputError(f"parameter value {text[:20]}... is longer than 80 characters")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return text
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"parameter value {text!r} is not a finite number")
    return value


def _evaluated(b: Any, params: dict[str, object]) -> dict[str, Any]:
    """``b.describe(**params)``, refused in one line where a float overflows or leaves its
    domain, or where a computed number is not finite (an overflow that float arithmetic turned
    into inf or NaN): every statement's values are finite wherever the statement applies."""
    try:
        result = b.describe(**params)
    except InputError:
        raise
    except (OverflowError, ZeroDivisionError, ValueError) as err:
        why = err.args[-1] if err.args else type(err).__name__
        raise InputError(
            f"{b.id}: the parameters leave float range ({why}); use smaller values"
        ) from None
    for key, value in result.items():
        if key != "parameters" and not _finite(value):
            raise InputError(
                f"{b.id}: {key} is not a finite float at these parameters (an overflow); use "
                "smaller values"
            )
    return result


def _finite(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


@app.command(
    "bound",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def bound(
    ctx: typer.Context,
    theorem: Annotated[
        str | None, typer.Option("--theorem", help="Theorem id, e.g. separations.thm3.")
    ] = None,
    list_all: Annotated[
        bool, typer.Option("--list", help="List every theorem with its parameters.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Evaluate a theorem at its parameters, given as --NAME VALUE (or --param NAME=VALUE).

    E.g. --width 128 --precision 64 (largest length not ruled out), --length 400 --precision 16
    (smallest width), --length 1000 --gamma 0.25 (a code width), --states 8, --size 1024.
    `ccx bound --list` shows each theorem's parameters.
    """
    from ccomplexity import bounds

    params = parse_params(list(ctx.args))
    if list_all or theorem is None:
        if params:
            raise InputError("--list takes no parameters")
        rows = [
            {
                "id": b.id,
                "kind": b.kind,
                "params": list(b.params),
                "needs": b.needs(),
                "formula": b.formula,
            }
            for b in bounds.all_bounds()
        ]
        if as_json:
            print_json({"theorems": rows})
        else:
            for r in rows:
                print(f"{r['id']:<28} {r['kind']:<6} {r['needs']:<44} {r['formula']}")
        return
    b = bounds.get(theorem)
    result = _evaluated(b, params)
    if not result.pop("evaluated"):
        raise InputError(f"{b.id}: give {b.needs()}")
    result = {"theorem": result.pop("id"), **result}
    emit(result, as_json, b.id)


@app.command("claims")
def claims_cmd(
    task: Annotated[str | None, typer.Option("--task", help="Only the claims on this task.")] = (
        None
    ),
    family: Annotated[
        str | None, typer.Option("--family", help="Only this model family (recurrent, ...).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """The claims table: which bound constrains which task on which model family, and how its
    parameters are read from a model."""
    from ccomplexity import claims, plugins

    if task is not None and task not in claims.tasks() and plugins.task_definition(task):
        from ccomplexity.plugin_problems import claims_for

        found = claims_for(task)
        if family is not None:
            found["claims"] = [c for c in found["claims"] if c["family"] in (family, "any")]
        if as_json:
            print_json(found)
            return
        for c in found["claims"]:
            print(f"{c['family']:<10} {c['bound_id']:<18} {c['says']}")
            print(f"{'':<10} {'':<18} computed by: {c['computed_by']}")
        print(f"exact at: {found['exact_at']}")
        print("cannot conclude: " + "; ".join(found["cannot_conclude"]))
        return
    if task is not None and task not in claims.tasks():
        raise InputError(
            f"no claim on task {task!r}; tasks: {', '.join(claims.tasks())} (or a plugin task "
            "loaded with ccx --plugin FILE.py claims --task NAME)"
        )
    rows = [c.describe() for c in claims.claims(task=task, family=family)]
    if as_json:
        print_json({"claims": rows})
        return
    header = ("task", "family", "layers", "role", "bound", "m", "H", "construction")
    lines = [header] + [
        (
            r["task"],
            r["family"],
            str(r["layers"] or "any"),
            r["role"],
            r["bound_id"],
            r["reads"]["m"],
            r["reads"]["H"],
            r["construction"] or "-",
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip())
