"""n-ary addition: encoding round trips and the carry automaton against column arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from ccomplexity.automata import state_counts
from ccomplexity.errors import InputError
from ccomplexity.languages.arithmetic import (
    END,
    EQUALS,
    TOKEN_NAMES,
    answer_width,
    carry_dfa,
    column_word,
    decode,
    encode,
)


def test_the_papers_example():
    (tokens,) = encode(np.array([[315, 120, 45, 824]]))
    assert "".join(TOKEN_NAMES[t] for t in tokens) == "315+120+045+824=1304$"
    assert decode(tokens) == ([315, 120, 45, 824], 1304)
    (rev,) = encode(np.array([[315, 120, 45, 824]]), reverse=True)
    assert "".join(TOKEN_NAMES[t] for t in rev).endswith("=4031$")
    assert decode(rev, reverse=True)[1] == 1304


def test_round_trip_and_widths():
    rng = np.random.default_rng(0)
    for n in (2, 8, 24, 32):
        ops = rng.integers(0, 1000, (20, n))
        for row, tokens in zip(ops, encode(ops), strict=True):
            operands, total = decode(tokens)
            assert operands == row.tolist() and total == sum(operands)
            assert len(tokens) <= 4 * n + answer_width(n) + 1
    assert answer_width(32) == 5 and answer_width(2) == 4


@pytest.mark.parametrize("digits", [1, 2, 5])
def test_fewer_or_more_digits_per_operand(digits):
    rng = np.random.default_rng(digits)
    ops = rng.integers(0, 10**digits, (20, 4))
    for row, tokens in zip(ops, encode(ops, reverse=True, digits=digits), strict=True):
        assert tokens[digits] == TOKEN_NAMES.index("+")  # each operand exactly `digits` wide
        assert decode(tokens, reverse=True, digits=digits) == (row.tolist(), int(row.sum()))
        assert len(tokens) <= (digits + 1) * 4 + answer_width(4, digits) + 1
    with pytest.raises(InputError, match="operands must lie in 0..99"):
        encode(np.array([[100, 1]]), digits=2)
    with pytest.raises(InputError, match="digits per operand"):
        encode(np.array([[1, 1]]), digits=10)


def test_decode_refuses_malformed_sequences():
    with pytest.raises(InputError):
        decode([1, 2, EQUALS, 3, END])  # a 2-digit operand
    with pytest.raises(InputError):
        decode([1, 2, 3, EQUALS, END])  # no answer


@pytest.mark.parametrize("n", [1, 2, 3, 10, 32])
def test_carry_automaton_has_n_live_states(n):
    assert state_counts(carry_dfa(n)) == {"states": n + 1, "live_states": n}


def test_carry_automaton_accepts_exactly_the_right_sums():
    rng = np.random.default_rng(1)
    for n in (2, 5, 16):
        dfa = carry_dfa(n)
        columns = answer_width(n) + 1
        for _ in range(30):
            ops = rng.integers(0, 1000, n)
            total = int(ops.sum())
            assert dfa.accepts(column_word(ops, total, columns)[None])[0]
            wrong = total + int(rng.integers(1, 50))
            assert not dfa.accepts(column_word(ops, wrong, columns)[None])[0]
