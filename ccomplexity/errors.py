"""The one exception type that user-facing code turns into a one-line message and exit status 2."""


class InputError(ValueError):
    """Invalid input: the message names the problem and, where there is one, the limit."""
