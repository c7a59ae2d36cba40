"""Variable assignment pinned: the vocabulary's token numbers and names at every boundary, the
resolver against an independent recursive evaluation on random programs, and each refusal's
message."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages.assignment import Vocabulary, render, resolve


def test_vocabulary_numbers_and_names_at_the_boundaries() -> None:
    v = Vocabulary(3)
    assert (v.digit0, v.equals, v.comma, v.size) == (3, 13, 14, 15)
    assert [v.name(t) for t in range(15)] == [*"abc", *"0123456789", "=", ","]
    big = Vocabulary(28)
    assert [big.name(t) for t in (0, 25, 26, 27, 28, 37, 38, 39)] == [
        "a",
        "z",
        "v26",
        "v27",
        "0",
        "9",
        "=",
        ",",
    ]
    for bad, message in ((15, "token 15 exceeds the limit of 14"), (-1, "got -1"), (1.0, "1.0")):
        with pytest.raises(InputError, match=message):
            v.name(bad)  # type: ignore[arg-type]


def program(stmts: list[tuple[int, int | str]], query: int, variables: int) -> list[int]:
    """Statements (x, y) with y an int variable or a one-digit string, then the query."""
    v = Vocabulary(variables)
    tokens: list[int] = []
    for x, y in stmts:
        rhs = v.digit0 + int(y) if isinstance(y, str) else y
        tokens += [x, v.equals, rhs, v.comma]
    return [*tokens, query, v.equals]


def test_resolver_against_a_recursive_evaluation() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        variables = int(rng.integers(1, 30))
        order = rng.permutation(variables)[: int(rng.integers(1, variables + 1))].tolist()
        stmts: list[tuple[int, int | str]] = []
        for k, x in enumerate(order):
            if k and rng.random() < 0.6:
                stmts.append((x, order[int(rng.integers(k))]))
            else:
                stmts.append((x, str(int(rng.integers(10)))))
        rhs = dict(stmts)

        def evaluate(x: int, rhs: dict[int, int | str] = rhs) -> tuple[int, int]:
            y = rhs[x]
            if isinstance(y, str):
                return int(y), 0
            value, depth = evaluate(y)
            return value, depth + 1

        query = order[int(rng.integers(len(order)))]
        assert resolve(program(stmts, query, variables), variables) == evaluate(query)


def test_known_depths_and_digits_at_both_ends() -> None:
    assert resolve(program([(0, "0")], 0, 1), 1) == (0, 0)
    assert resolve(program([(0, "9"), (1, 0), (2, 1), (3, 2)], 3, 4), 4) == (9, 3)
    assert resolve(program([(0, "9"), (1, 0), (2, 1), (3, 2)], 1, 4), 4) == (9, 1)
    assert render(program([(0, "1"), (1, 0)], 1, 26), 26) == "a=1, b=a, b="
    assert render(program([(26, "5")], 26, 27), 27) == "v26=5, v26="


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        ([], r"^a program is statements 'x = y ,' followed by the query 'q ='$"),
        ([0], r"^a program is statements"),
        ([0, 13, 4, 14, 0], r"^a program is statements"),  # the query has no '='
        ([0, 13, 4, 14, 0, 14], r"^a program is statements"),  # ',' where '=' belongs
        ([0, 13, 4, 0, 13], r"^a program is statements"),  # 5 tokens
        ([0, 13], r"^the query names a variable that is never assigned$"),
        ([0, 13, 4, 14, 1, 13], r"^the query names a variable that is never assigned$"),
        ([3, 13, 4, 14, 0, 13], r"^statement 1 is not 'x = y ,'$"),  # 3 is a digit, not a name
        ([-1, 13, 4, 14, 0, 13], r"^statement 1 is not 'x = y ,'$"),
        ([0, 14, 4, 14, 0, 13], r"^statement 1 is not 'x = y ,'$"),
        ([0, 13, 4, 13, 0, 13], r"^statement 1 is not 'x = y ,'$"),
        ([0, 13, 4, 14, 1, 14, 0, 14, 1, 13], r"^statement 2 is not 'x = y ,'$"),
        ([0, 13, 4, 14, 0, 13, 5, 14, 0, 13], r"^variable a is assigned twice$"),
        ([0, 13, 1, 14, 0, 13], r"^statement 1 reads an unassigned name or a bad token$"),
        ([0, 13, 13, 14, 0, 13], r"^statement 1 reads an unassigned name or a bad token$"),
        ([0, 13, -1, 14, 0, 13], r"^statement 1 reads an unassigned name or a bad token$"),
        ([0, 13, 0, 14, 0, 13], r"^statement 1 reads an unassigned name or a bad token$"),
        ([0, 13, 12, 14, 1, 13, 2, 14, 1, 13], r"^statement 2 reads an unassigned name"),
    ],
)
def test_refusals_name_the_statement(tokens: list[int], message: str) -> None:
    with pytest.raises(InputError, match=message):
        resolve(tokens, 3)  # names 0..2, digits 3..12, '=' 13, ',' 14


def test_digit_tokens_at_both_ends_and_the_variable_count() -> None:
    assert resolve([0, 13, 3, 14, 0, 13], 3) == (0, 0)
    assert resolve([0, 13, 12, 14, 0, 13], 3) == (9, 0)
    assert resolve([2, 13, 12, 14, 2, 13], 3) == (9, 0)  # the last name
    with pytest.raises(InputError, match=r"^variables must be an integer >= 1, got 0$"):
        resolve([0, 13], 0)
