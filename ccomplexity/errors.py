"""The one exception type that user-facing code turns into a one-line message and exit status 2,
and the one way text from files reaches a terminal (:func:`one_line`, :func:`warn_once`)."""

import operator
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager


class InputError(ValueError):
    """Invalid input: the message names the problem and, where there is one, the limit."""


class DiskFull(InputError):
    """A write that found no space left on its device (disk or quota): one line naming the
    path; a sweep stops at the first one instead of failing run after run."""


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def one_line(text: object) -> str:
    """``text`` with every control character written as a Python escape (a newline as
    backslash-n, ESC as backslash-x1b): newlines, tabs, terminal escape sequences, C1 controls,
    Unicode line separators and bidirectional overrides. What a message or a string read from a
    file (a store, a plugin's error) prints as, so that it stays one line and cannot drive the
    terminal."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))


_WARNED: set[object] = set()
"""Warnings printed in the running command (outside one: in this process)."""


@contextmanager
def warnings_once() -> Iterator[None]:
    """Inside the block (one ``ccx`` call) each :func:`warn_once` key prints once."""
    global _WARNED
    saved, _WARNED = _WARNED, set()
    try:
        yield
    finally:
        _WARNED = saved


def warn_once(key: object, message: str) -> None:
    """Print ``ccx: warning: <message>`` on stderr (control characters escaped), once per
    ``key`` in the running command (outside one, once in this process)."""
    if key in _WARNED:
        return
    _WARNED.add(key)
    print(f"ccx: warning: {one_line(message)}", file=sys.stderr)


def check_int(
    value: object, what: str, least: int = 1, most: int | None = None, instead: str = ""
) -> int:
    """``value`` as an int if it is an integer (not a bool) in ``least..most``.

    Anything else raises :class:`InputError` naming ``what``, the limit and, past ``most``,
    ``instead`` (what to use instead).
    """
    wanted = f"an integer >= {least}" if most is None else f"an integer in {least}..{most}"
    if isinstance(value, bool):
        raise InputError(f"{what} must be {wanted}, got {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        raise InputError(f"{what} must be {wanted}, got {shown(value)}") from None
    if out < least:
        raise InputError(f"{what} must be {wanted}, got {shown(out)}")
    if most is not None and out > most:
        tail = f"; {instead}" if instead else ""
        raise InputError(f"{what} {shown(out)} exceeds the limit of {most}{tail}")
    return out


def shown(value: object) -> str:
    """Huge integers by their size, long reprs cut: a message stays one short line."""
    if isinstance(value, int) and abs(value) >= 10**24:
        return f"a {abs(value).bit_length()}-bit {'negative ' if value < 0 else ''}number"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
