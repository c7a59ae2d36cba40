"""Variable assignment, the reasoning primitive of looped-reasoning Sec. 3.1 (Saunshi et al.).

Depth 0 is direct lookup, ``a=1, b=2, c=6, b=?`` -> 2; depth 1 one level of indirection,
``a=1, b=2, c=a, d=b, d=?`` -> 2; depth k resolves a chain of k references. Only the symbolic
form is built here (the paper's math and code renderings are text templates around it).

Tokens: variables 0..V-1, digits V..V+9, then ``=`` (V + 10) and ``,`` (V + 11). A program is
statements ``x = y ,`` (y a digit, or a variable assigned earlier) followed by the query
``x =``, whose answer is the digit x holds. Statements run in order; each variable is assigned
at most once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ccomplexity.errors import InputError, check_int


@dataclass(frozen=True)
class Vocabulary:
    """Token numbers of a program over ``variables`` variables."""

    variables: int

    @property
    def digit0(self) -> int:
        return self.variables

    @property
    def equals(self) -> int:
        return self.variables + 10

    @property
    def comma(self) -> int:
        return self.variables + 11

    @property
    def size(self) -> int:
        return self.variables + 12

    def name(self, token: int) -> str:
        """The printed form of ``token``: a variable name, a digit, ``=`` or ``,``."""
        token = check_int(token, "token", 0, self.size - 1)
        if token < self.variables:
            return _variable_name(token)
        if token < self.equals:
            return str(token - self.digit0)
        return {self.equals: "=", self.comma: ","}[token]


def _variable_name(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < 26 else f"v{i}"


def resolve(tokens: list[int], variables: int) -> tuple[int, int]:
    """(answer digit, depth) of a program ``x = y , ... q =`` written with ``variables`` names.

    Parses and runs the statements in order; the depth is the number of references followed
    from the query to a digit. InputError names the first syntax or semantic problem.
    """
    vocab = Vocabulary(check_int(variables, "variables"))
    toks = list(tokens)
    if len(toks) < 2 or (len(toks) - 2) % 4 or toks[-1] != vocab.equals:
        raise InputError("a program is statements 'x = y ,' followed by the query 'q ='")
    value: dict[int, int] = {}
    depth: dict[int, int] = {}
    for k in range(0, len(toks) - 2, 4):
        x, eq, y, comma = toks[k : k + 4]
        if not 0 <= x < vocab.variables or eq != vocab.equals or comma != vocab.comma:
            raise InputError(f"statement {k // 4 + 1} is not 'x = y ,'")
        if x in value:
            raise InputError(f"variable {_variable_name(x)} is assigned twice")
        if vocab.digit0 <= y < vocab.equals:
            value[x], depth[x] = y - vocab.digit0, 0
        elif 0 <= y < vocab.variables and y in value:
            value[x], depth[x] = value[y], depth[y] + 1
        else:
            raise InputError(f"statement {k // 4 + 1} reads an unassigned name or a bad token")
    query = toks[-2]
    if query not in value:
        raise InputError("the query names a variable that is never assigned")
    return value[query], depth[query]


def render(tokens: list[int], variables: int) -> str:
    """The program as text, e.g. ``a=1, b=a, b=``."""
    vocab = Vocabulary(variables)
    text = "".join(vocab.name(t) + (" " if t == vocab.comma else "") for t in tokens)
    return text.strip()


__all__ = ["Vocabulary", "render", "resolve"]
