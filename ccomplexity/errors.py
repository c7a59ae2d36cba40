"""The one exception type that user-facing code turns into a one-line message and exit status 2."""

import operator


class InputError(ValueError):
    """Invalid input: the message names the problem and, where there is one, the limit."""


def check_int(value: object, what: str, least: int = 1) -> int:
    """``value`` as an int if it is an integer (not a bool) of at least ``least``.

    Anything else raises :class:`InputError` naming ``what`` and the limit.
    """
    if isinstance(value, bool):
        raise InputError(f"{what} must be an integer >= {least}, got {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        raise InputError(f"{what} must be an integer >= {least}, got {value!r}") from None
    if out < least:
        raise InputError(f"{what} must be an integer >= {least}, got {out}")
    return out
