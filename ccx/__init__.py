"""The ``ccx`` command line.

Every command imports what it needs inside its body, so that the pure-mathematics commands start
fast and never load torch. ``--json`` prints exactly one strict JSON object on stdout. Bad input
prints one line on stderr and exits with status 2; ``ccx verify`` exits 1 for an invalid
certificate (and 2, "over the limit", for one beyond a limit, which is not checked). Every
numeric option declares its range with the option (:func:`ranged`) and every written path its
kind (:func:`written`): both are checked while the command line is parsed, before a command's
body runs, and the CLI fuzz table is generated from these declarations.

Run as a program (the ``ccx`` script or ``python -m ccx``), it answers Ctrl-C in one line from
its first statement on, and under ``python -m`` it takes the working folder off the import path
before it imports anything that is not already loaded (:func:`_drop_working_folder`).
"""

from __future__ import annotations

import sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    print("ccx: interrupted", file=sys.stderr)
    raise SystemExit(130)


def _drop_working_folder() -> None:
    """Under ``python -m ccx`` Python puts the working folder first on the import path: a
    module there named like one the toolkit imports later (``torch``, ``matplotlib``, a
    plugin's) would run. It is taken off the path, unless it is the checkout that holds this
    package (whose packages must import from it)."""
    import os

    here = os.path.realpath(os.getcwd())
    if os.path.dirname(os.path.dirname(os.path.realpath(__file__))) != here:
        sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.realpath(p) != here]


PROGRAM = sys.argv[:1] == ["-m"] or "".join(sys.argv[:1]).endswith(("/ccx", "\\ccx", "ccx.exe"))
"""Whether this process is the ``ccx`` program (the console script or ``python -m ccx``), not
a library user of :func:`main`."""
if PROGRAM:
    import signal

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # Ctrl-C while starting
        signal.signal(signal.SIGINT, _interrupted_while_starting)
    if sys.argv[:1] == ["-m"]:
        _drop_working_folder()

import contextlib  # noqa: E402
import functools  # noqa: E402
import os  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

import typer  # noqa: E402

from ccomplexity.errors import InputError, one_line  # noqa: E402
from ccx.app import app  # noqa: E402


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


@dataclass
class GlobalOptions:
    """The options given before the command: ``--plugin FILE`` (any number), ``--entry-points``
    (load the installed packages' plugins) and ``--debug`` (tracebacks instead of one line)."""

    plugins: list[str] = field(default_factory=list)
    entry_points: bool = False
    debug: bool = False


DEBUG_ENV = "CCX_DEBUG"
"""Set to 1 for the traceback of an error in a plugin's code or of an internal error (as
``ccx --debug``)."""


def global_options(argv: list[str]) -> tuple[GlobalOptions, list[str]]:
    """The global options (before the command) and the arguments left for the command."""
    options, rest = GlobalOptions(), list(argv)
    while rest and rest[0].split("=", 1)[0] in ("--plugin", "--entry-points", "--debug"):
        head = rest.pop(0)
        if head == "--entry-points":
            options.entry_points = True
        elif head == "--debug":
            options.debug = True
        elif head == "--plugin":
            if not rest:
                raise InputError("--plugin needs a FILE.py")
            options.plugins.append(rest.pop(0))
        elif head.startswith("--plugin="):
            options.plugins.append(head.split("=", 1)[1])
        else:
            raise InputError(f"{head.split('=', 1)[0]} takes no value")
    return options, rest


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


@contextlib.contextmanager
def _environment(**values: str | None) -> Iterator[None]:
    """``os.environ`` with ``values`` set (None: left as it is) for the block, as before after.
    A worker process a call starts inherits them."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update({k: v for k, v in values.items() if v is not None})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main(argv: list[str] | None = None) -> int:
    """Entry point: one-line errors and exit status 2 for bad input, no tracebacks (``--debug``
    or ``CCX_DEBUG=1`` shows them for errors in plugin code and internal errors). Plugins given
    by ``--plugin FILE`` before the command are loaded for this call only; so are the files it
    reads protected from its writes and its warnings printed once each."""
    import signal

    from ccomplexity import plugins
    from ccomplexity.errors import warnings_once
    from ccomplexity.files import command_inputs

    if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # now KeyboardInterrupt
    args = sys.argv[1:] if argv is None else list(argv)
    # PYTHONSAFEPATH: a worker process starts without the working folder on its path
    with plugins.scope(), command_inputs(), warnings_once(), _environment(PYTHONSAFEPATH="1"):
        try:
            options, args = global_options(args)
        except InputError as err:
            print(f"ccx: error: {one_line(err)}", file=sys.stderr)
            return 2
        debug = options.debug or os.environ.get(DEBUG_ENV, "") == "1"
        with _environment(**{plugins.ENTRY_POINTS_ENV: "1" if options.entry_points else None}):
            try:
                return _main(options, args)
            except KeyboardInterrupt:
                return _interrupted()
            except BaseException as err:  # a plugin's code may raise anything, SystemExit too
                if debug:
                    raise
                return _unexpected(err)


def _interrupted() -> int:
    """The one line after Ctrl-C. Everything was cleaned up on the way here (transactions rolled
    back, temporary files removed, leases released); the program's worker processes are ended
    at once, not waited for until they finish their runs."""
    print(
        "ccx: interrupted; what was stored is kept (run a sweep again to resume it)",
        file=sys.stderr,
    )
    processes = sys.modules.get("multiprocessing")
    if PROGRAM and processes is not None:
        for child in processes.active_children():
            child.kill()
    return INTERRUPTED


def _unexpected(err: BaseException) -> int:
    """One line for an exception no command turned into an InputError: raised by a plugin's
    code (exit 2, naming the plugin, its function and the exception), or an internal error
    (exit 1). ``--debug`` shows the traceback instead. A ``SystemExit`` not from a plugin
    exits as asked."""
    from ccomplexity import plugins

    found = plugins.culprit(err.__traceback__)
    if found is not None:
        plugin, function = found
        print(
            f"ccx: error: plugin {one_line(plugin)}: {one_line(function)} raised "
            f"{type(err).__name__}: {one_line(err)} (ccx --debug or {DEBUG_ENV}=1 shows the "
            "traceback)",
            file=sys.stderr,
        )
        return 2
    if not isinstance(err, Exception):  # SystemExit, GeneratorExit: not ours to turn into a line
        raise err
    print(
        f"ccx: internal error: {type(err).__name__}: {one_line(err)} (a bug; ccx --debug or "
        f"{DEBUG_ENV}=1 shows the traceback)",
        file=sys.stderr,
    )
    return 1


def _main(options: GlobalOptions, argv: list[str]) -> int:
    from typer.exceptions import TyperException

    _drop_script_dir()
    command = _command()
    try:
        if options.plugins or options.entry_points:
            from ccx.plugin_files import load_plugins

            load_plugins(options.plugins, options.entry_points)
        code = command.main(args=argv, prog_name="ccx", standalone_mode=False)
    except InputError as err:
        print(f"ccx: error: {one_line(err)}", file=sys.stderr)
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
        return _interrupted()
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
