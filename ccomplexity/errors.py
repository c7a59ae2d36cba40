"""The one exception type that user-facing code turns into a one-line message and exit status 2."""

import operator


class InputError(ValueError):
    """Invalid input: the message names the problem and, where there is one, the limit."""


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
