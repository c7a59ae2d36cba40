"""n-ary addition pinned: exact token sequences, the decoder's refusals one by one, the digit
and operand limits at and beyond their ends, and the carry automaton against a carry simulation
on every column word of tiny lengths, with its limit and its budget at their edges."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ccomplexity import budget
from ccomplexity.errors import InputError
from ccomplexity.languages.arithmetic import (
    CARRY_OPERANDS_LIMIT,
    DIGITS,
    DIGITS_MOST,
    END,
    EQUALS,
    PLUS,
    TOKEN_NAMES,
    answer_width,
    carry_dfa,
    column_word,
    decode,
    encode,
    nary_sum,
)


def text(tokens: list[int]) -> str:
    return "".join(TOKEN_NAMES[t] for t in tokens)


def test_constants() -> None:
    assert (DIGITS, DIGITS_MOST, PLUS, EQUALS, END, CARRY_OPERANDS_LIMIT) == (
        3,
        9,
        10,
        11,
        12,
        1000,
    )
    assert TOKEN_NAMES == ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+", "=", "$")


def test_answer_width_at_the_powers_of_ten() -> None:
    assert [answer_width(n) for n in (1, 10, 11, 100, 101)] == [3, 4, 5, 5, 6]
    assert answer_width(2, 1) == 2 and answer_width(1, 1) == 1 and answer_width(12, 1) == 3
    with pytest.raises(InputError, match=r"^operands n must be an integer >= 1, got 0$"):
        answer_width(0)
    with pytest.raises(InputError, match=r"^digits must be an integer >= 1, got 0$"):
        answer_width(3, 0)


def test_encode_exact_sequences() -> None:
    assert text(encode(np.array([45]))[0]) == "045=45$"  # one operand, one row
    assert text(encode(np.array([[0, 0]]))[0]) == "000+000=0$"
    assert text(encode(np.array([[999, 999]]))[0]) == "999+999=1998$"
    assert text(encode(np.array([[999, 999]]), reverse=True)[0]) == "999+999=8991$"
    assert text(encode(np.array([[9, 1]]), digits=1)[0]) == "9+1=10$"
    assert (
        text(encode(np.array([[999999999, 1]]), digits=9)[0]) == "999999999+000000001=1000000000$"
    )
    rows = encode(np.array([[1, 2], [30, 40]]))
    assert [text(r) for r in rows] == ["001+002=3$", "030+040=70$"]
    assert encode(np.zeros((0, 2), dtype=np.int64)) == []


def test_encode_limits_at_and_beyond() -> None:
    with pytest.raises(InputError, match=r"^operands must lie in 0\.\.999$"):
        encode(np.array([[1000, 1]]))
    with pytest.raises(InputError, match=r"^operands must lie in 0\.\.999$"):
        encode(np.array([[-1, 1]]))
    with pytest.raises(InputError, match=r"^operands must lie in 0\.\.9$"):
        encode(np.array([[10]]), digits=1)
    with pytest.raises(
        InputError, match=r"^digits per operand must be an integer in 1\.\.9, got 0$"
    ):
        encode(np.array([[1]]), digits=0)
    with pytest.raises(InputError, match=r"^digits per operand 10 exceeds the limit of 9$"):
        encode(np.array([[1]]), digits=10)
    shape = r"^operands must be a \(batch, n\) integer array, got shape "
    with pytest.raises(InputError, match=shape + r"\(1, 0\)$"):
        encode(np.zeros((1, 0), dtype=np.int64))
    with pytest.raises(InputError, match=shape + r"\(1, 1, 2\)$"):
        encode(np.zeros((1, 1, 2), dtype=np.int64))
    with pytest.raises(InputError, match=shape + r"\(1, 2\)$"):
        encode(np.array([[1.0, 2.0]]))


def test_decode_exact_and_round_trips() -> None:
    rng = np.random.default_rng(0)
    for digits in (1, 3, 4):
        ops = rng.integers(0, 10**digits, (30, 3))
        for reverse in (False, True):
            for row, toks in zip(ops, encode(ops, reverse, digits), strict=True):
                assert decode(toks, reverse, digits) == (row.tolist(), int(row.sum()))
    assert decode([0, 0, 9, PLUS, 9, 0, 0, EQUALS, 9, 0, 9, END]) == ([9, 900], 909)
    assert decode([0, 0, 9, PLUS, 9, 0, 0, EQUALS, 1, 2, END], reverse=True) == ([9, 900], 21)
    assert decode([0, EQUALS, 0, END], digits=1) == ([0], 0)  # the claimed sum is not checked
    assert decode([5, EQUALS, 7, END], digits=1) == ([5], 7)


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        ([], r"^an addition sequence is 'a \+ b \+ \.\.\. = s \$'$"),
        ([1, 2, 3, 4, END], r"^an addition sequence is"),
        ([1, 2, 3, EQUALS, 4], r"^an addition sequence is"),
        ([1, 2, 3, EQUALS, 4, END, END], r"^the answer must be one or more digits$"),
        ([1, END, 3, EQUALS, 4, END], r"^unexpected token 12 before '='$"),
        ([1, -1, 3, EQUALS, 4, END], r"^unexpected token -1 before '='$"),
        ([1, 2, EQUALS, 4, END], r"^every operand must have exactly 3 digits$"),
        ([1, 2, 3, PLUS, EQUALS, 4, END], r"^every operand must have exactly 3 digits$"),
        ([1, 2, 3, 4, EQUALS, 4, END], r"^every operand must have exactly 3 digits$"),
        ([1, 2, 3, EQUALS, END], r"^the answer must be one or more digits$"),
        ([1, 2, 3, EQUALS, 4, PLUS, END], r"^the answer must be one or more digits$"),
        ([1, 2, 3, EQUALS, -1, END], r"^the answer must be one or more digits$"),
    ],
)
def test_decode_refusals(tokens: list[int], message: str) -> None:
    with pytest.raises(InputError, match=message):
        decode(tokens)


def test_decode_digit_tokens_at_both_ends() -> None:
    assert decode([9, 0, 9, EQUALS, 9, 0, 9, END]) == ([909], 909)
    assert decode([0, 9, EQUALS, 0, 9, END], digits=2) == ([9], 9)
    with pytest.raises(InputError, match=r"^digits per operand 10 exceeds"):
        decode([0, EQUALS, 0, END], digits=10)


def test_nary_sum_is_exact() -> None:
    assert nary_sum(np.array([[315, 120, 45, 824], [1, 2, 3, 4]])).tolist() == [1304, 10]
    assert nary_sum(np.array([999999999] * 1000)).tolist() == [999999999000]
    assert nary_sum(np.array([[7]])).dtype == np.int64
    small = nary_sum(np.array([200, 100], dtype=np.uint8))  # widened before summing
    assert small.tolist() == [300] and small.dtype == np.int64


def carries_accept(word: tuple[int, ...]) -> bool:
    """Column addition: carry c, each symbol 10 s + d needs (s + c) % 10 = d; end with c = 0."""
    c = 0
    for sym in word:
        s, d = divmod(sym, 10)
        if (s + c) % 10 != d:
            return False
        c = (s + c) // 10
    return c == 0


@pytest.mark.parametrize(("n", "longest"), [(1, 2), (2, 2), (3, 2)])
def test_carry_automaton_on_every_short_column_word(n: int, longest: int) -> None:
    dfa = carry_dfa(n)
    symbols = 10 * (9 * n + 1)
    assert dfa.transitions.shape == (n + 1, symbols) and dfa.start == 0
    assert dfa.alphabet[:3] == ("0/0", "0/1", "0/2") and dfa.alphabet[-1] == f"{9 * n}/9"
    assert dfa.accepting.tolist() == [True] + [False] * n
    for length in range(longest + 1):
        words = list(itertools.product(range(symbols), repeat=length))
        arr = np.array(words, dtype=np.int64).reshape(len(words), length)
        assert dfa.accepts(arr).tolist() == [carries_accept(w) for w in words], (n, length)


def test_carry_automaton_on_random_long_words() -> None:
    rng = np.random.default_rng(2)
    for n in (4, 7):
        dfa = carry_dfa(n)
        ops = rng.integers(0, 1000, (200, n))
        for row in ops:
            total = int(row.sum())
            good = column_word(row, total, 5)
            assert dfa.accepts(good[None])[0] and carries_accept(tuple(good.tolist()))
            for wrong in (total + 1, total - 1, total + 10, total + 1000):
                word = column_word(row, wrong, 5)
                assert not dfa.accepts(word[None])[0]
                assert not carries_accept(tuple(word.tolist()))


def test_column_word_exact() -> None:
    assert column_word(np.array([315, 120, 45, 824]), 1304, 5).tolist() == [144, 90, 123, 1, 0]
    assert column_word(np.array([9]), 9, 1).tolist() == [99]
    assert column_word(np.array([[5, 5]]), 10, 2).tolist() == [100, 1]
    with pytest.raises(InputError, match=r"^columns must be an integer >= 1, got 0$"):
        column_word(np.array([1]), 1, 0)
    with pytest.raises(InputError, match=r"^claimed sum must be an integer >= 0, got -1$"):
        column_word(np.array([1]), -1, 2)
    assert column_word(np.array([0]), 0, 2).tolist() == [0, 0]
    as_int = column_word(np.array([9.0, 1.0]), 10, 2)  # operands are read as int64
    assert as_int.dtype == np.int64 and as_int.tolist() == [100, 1]


def test_carry_operand_limit_and_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match=r"^operands n must be an integer >= 1, got 0$"):
        carry_dfa(0)
    with pytest.raises(InputError, match=r"^carry_dfa builds at most 1000 operands, got 1001$"):
        carry_dfa(1001)
    with pytest.raises(  # 1000 passes the limit and meets the work budget next
        InputError,
        match=r"^the carry automaton of 1000-ary addition \(1001 states x 90010 symbols, "
        r"minimised in up to 1001 rounds\) takes .* steps; .*: use fewer operands$",
    ):
        carry_dfa(1000)
    memory, work = budget.automaton(6, 10 * 46, 6)
    monkeypatch.setenv(budget.MEMORY_ENV, str(memory))
    monkeypatch.setenv(budget.WORK_ENV, str(work))
    assert carry_dfa(5).transitions.shape == (6, 460)
    monkeypatch.setenv(budget.WORK_ENV, str(work - 1))
    with pytest.raises(InputError, match=r"^the carry automaton of 5-ary addition"):
        carry_dfa(5)
    monkeypatch.setenv(budget.WORK_ENV, str(work))
    monkeypatch.setenv(budget.MEMORY_ENV, str(memory - 1))
    with pytest.raises(InputError, match=r"^the carry automaton of 5-ary addition .* memory"):
        carry_dfa(5)
