"""The ``ccx`` command line.

Every command imports what it needs inside its body, so that the pure-mathematics commands start
fast and never load torch. ``--json`` prints exactly one strict JSON object on stdout. Bad input
prints one line on stderr and exits with status 2; ``ccx verify`` exits 1 for an invalid
certificate (and 2, "over the limit", for one beyond a limit, which is not checked). Every
numeric option declares its range with the option (:func:`ranged`) and every written path its
kind (:func:`written`): both are checked while the command line is parsed, before a command's
body runs, and the CLI fuzz table is generated from these declarations.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import typer

from ccomplexity.errors import InputError
from ccx.app import app


def _drop_script_dir() -> None:
    """Remove the console script's own folder from the import path.

    python-sat installs a script called ``models.py`` beside ``ccx``; with that folder first on
    ``sys.path`` it would shadow this project's ``models`` package.
    """
    from pathlib import Path

    here = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else None
    if here is not None and (here / "models.py").exists():
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]


@functools.cache
def _command() -> Any:
    """The click command tree of ``app``, built once per process (building it is the costliest
    part of refusing a bad option)."""
    return typer.main.get_command(app)


def plugin_files(argv: list[str]) -> tuple[list[str], list[str]]:
    """The global ``--plugin FILE`` options (before the command, any number of them) and the
    arguments left for the command."""
    files, rest = [], list(argv)
    while rest and (rest[0] == "--plugin" or rest[0].startswith("--plugin=")):
        head = rest.pop(0)
        if head == "--plugin":
            if not rest:
                raise InputError("--plugin needs a FILE.py")
            files.append(rest.pop(0))
        else:
            files.append(head.split("=", 1)[1])
    return files, rest


def allocation_failed(err: BaseException) -> bool:
    """Whether ``err`` is an allocator's refusal (torch's CPU and CUDA allocators)."""
    text = str(err)
    return "can't allocate memory" in text or "out of memory" in text.lower()


def out_of_memory() -> str:
    """The one line for an allocation the memory budget did not foresee."""
    from ccomplexity import budget

    return (
        f"out of memory (the memory budget is {budget.size_text(budget.memory_budget())}, "
        f"{budget.MEMORY_ENV}); use smaller sizes or run with more memory"
    )


INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as typer returns it."""


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors and exit status 2 for bad input, no tracebacks. Plugins
    given by ``--plugin FILE`` before the command are loaded for this call only."""
    from ccomplexity import plugins

    with plugins.scope():
        return _main(sys.argv[1:] if argv is None else list(argv))


def _main(argv: list[str]) -> int:
    from typer.exceptions import TyperException

    _drop_script_dir()
    command = _command()
    try:
        files, argv = plugin_files(argv)
        for file in files:
            from ccomplexity import plugins

            plugins.load_file(file)
        code = command.main(args=argv, prog_name="ccx", standalone_mode=False)
    except InputError as err:
        print(f"ccx: error: {err}", file=sys.stderr)
        return 2
    except typer.Abort:
        print("ccx: aborted", file=sys.stderr)
        return 1
    except MemoryError:
        print(f"ccx: error: {out_of_memory()}", file=sys.stderr)
        return 2
    except ValueError as err:  # a message naming an integer of more than 4300 digits
        if "integer string conversion" not in str(err):
            raise
        print("ccx: error: a size of more than 4300 digits is beyond every limit", file=sys.stderr)
        return 2
    except RuntimeError as err:  # torch's allocators raise RuntimeError, not MemoryError
        if not allocation_failed(err):
            raise
        print(f"ccx: error: {out_of_memory()}", file=sys.stderr)
        return 2
    except TyperException as err:
        if type(err).__name__ == "NoArgsIsHelpError":  # a bare group: show its help
            print(err.format_message())
            return 0
        message = err.format_message() if hasattr(err, "format_message") else str(err)
        print(f"ccx: error: {' '.join(str(message).split())}", file=sys.stderr)
        return int(getattr(err, "exit_code", 2) or 2)
    if code == INTERRUPTED:  # typer's exit code for Ctrl-C (KeyboardInterrupt)
        print(
            "ccx: interrupted; what was stored is kept (run a sweep again to resume it)",
            file=sys.stderr,
        )
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
