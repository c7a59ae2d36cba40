"""Variable assignment: the resolver on hand-written programs and on its refusals."""

from __future__ import annotations

import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.assignment import Vocabulary, render, resolve

V = Vocabulary(26)


def program(text: str) -> list[int]:
    """'a=1,b=a,b=' -> tokens (one-letter variables, one-digit values)."""
    out = []
    for ch in text:
        if ch.isalpha():
            out.append(ord(ch) - ord("a"))
        elif ch.isdigit():
            out.append(V.digit0 + int(ch))
        else:
            out.append({"=": V.equals, ",": V.comma}[ch])
    return out


@pytest.mark.parametrize(
    ("text", "answer", "depth"),
    [
        ("a=1,b=2,c=6,b=", 2, 0),  # the paper's depth-0 example
        ("a=1,b=2,c=a,d=b,d=", 2, 1),  # the paper's depth-1 example
        ("a=7,b=a,c=b,d=c,x=3,d=", 7, 3),
    ],
)
def test_known_programs(text, answer, depth):
    tokens = program(text)
    assert resolve(tokens, 26) == (answer, depth)
    assert render(tokens, 26).replace(" ", "") == text


@pytest.mark.parametrize("text", ["a=1,a=2,a=", "a=b,a=", "a=1,c=", "a=1,b=", "a=1"])
def test_refusals(text):
    with pytest.raises(InputError):
        resolve(program(text), 26)
