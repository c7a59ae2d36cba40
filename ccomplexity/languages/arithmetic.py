"""n-ary addition (looped-reasoning Sec. 2.1, App. A.1) and its carry automaton.

The task adds n operands of 3 digits (``digits``; fewer make a smaller task), each written
zero-padded ("045"), and answers with the
sum without chain of thought: ``315 + 120 + 045 + 824 =`` -> ``1304``. Tokens here are the
characters without the spaces (they carry nothing): digits 0..9 are tokens 0..9, then ``+``,
``=`` and an end-of-answer token; the answer is written most significant digit first, as in the
paper, unless ``reverse`` (least significant first, the easier order for a causal model).

The carry automaton is the toolkit's own link (not in the paper): adding n numbers column by
column, least significant first, needs the carry into the next column, which is below n
(floor((9n + n - 1) / 10) = n - 1), so a finite automaton checking a claimed sum column by
column has exactly n live states; it reads symbols (s, d), s in 0..9n the column's digit sum
and d the claimed digit, and is minimal with n + 1 states (the carries and a dead sink).
"""

from __future__ import annotations

import numpy as np

from ccomplexity import budget, limits
from ccomplexity.automata import DFA, minimize
from ccomplexity.errors import InputError, check_int

DIGITS = 3
"""Digits per operand (the paper's 3)."""
DIGITS_MOST = limits.DIGITS.most
"""Most digits per operand :func:`encode` writes (sums stay exact in int64)."""
PLUS, EQUALS, END = 10, 11, 12
"""Tokens after the ten digits."""
TOKEN_NAMES = (*"0123456789", "+", "=", "$")
CARRY_OPERANDS_LIMIT = 1000
"""Most operands :func:`carry_dfa` builds (its alphabet has (9n + 1) x 10 symbols)."""


def answer_width(operands: int, digits: int = DIGITS) -> int:
    """Most digits of a sum of n numbers below 10^digits: len(str(n (10^digits - 1)))."""
    n = check_int(operands, "operands n")
    return len(str(n * (10 ** check_int(digits, "digits") - 1)))


def _digits(digits: int) -> int:
    return check_int(digits, "digits per operand", 1, DIGITS_MOST)


def encode(operands: np.ndarray, reverse: bool = False, digits: int = DIGITS) -> list[list[int]]:
    """Token sequences ``a_1 + a_2 + ... + a_n = s_1 .. s_k $`` of each row of ``operands``.

    Operands are written with ``digits`` digits (default :data:`DIGITS`), zero-padded; the sum
    without padding (most significant digit first, or least significant first with
    ``reverse``), then ``$``.
    """
    width = _digits(digits)
    rows = np.atleast_2d(np.asarray(operands))
    if rows.ndim != 2 or rows.shape[1] < 1 or not np.issubdtype(rows.dtype, np.integer):
        raise InputError(f"operands must be a (batch, n) integer array, got shape {rows.shape}")
    if rows.size and (rows.min() < 0 or rows.max() >= 10**width):
        raise InputError(f"operands must lie in 0..{10**width - 1}")
    out = []
    for row in rows.tolist():
        tokens: list[int] = []
        for k, a in enumerate(row):
            if k:
                tokens.append(PLUS)
            tokens.extend(int(c) for c in f"{a:0{width}d}")
        answer = [int(c) for c in str(sum(row))]
        out.append([*tokens, EQUALS, *(answer[::-1] if reverse else answer), END])
    return out


def decode(tokens: list[int], reverse: bool = False, digits: int = DIGITS) -> tuple[list[int], int]:
    """(operands, claimed sum) of one token sequence written by :func:`encode`.

    Parses the syntax independently of :func:`encode`; InputError names the first problem.
    """
    toks = list(tokens)
    if EQUALS not in toks or not toks or toks[-1] != END:
        raise InputError("an addition sequence is 'a + b + ... = s $'")
    cut = toks.index(EQUALS)
    left, right = toks[:cut], toks[cut + 1 : -1]
    groups: list[list[int]] = [[]]
    for t in left:
        if t == PLUS:
            groups.append([])
        elif 0 <= t <= 9:
            groups[-1].append(t)
        else:
            raise InputError(f"unexpected token {t} before '='")
    width = _digits(digits)
    if any(len(g) != width for g in groups):
        raise InputError(f"every operand must have exactly {width} digits")
    if not right or any(not 0 <= t <= 9 for t in right):
        raise InputError("the answer must be one or more digits")
    digits = right[::-1] if reverse else right
    operands = [int("".join(map(str, g))) for g in groups]
    return operands, int("".join(map(str, digits)))


def nary_sum(operands: np.ndarray) -> np.ndarray:
    """The sum of each row (exact, Python integers never overflow here: n < 2^40)."""
    rows = np.atleast_2d(np.asarray(operands, dtype=np.int64))
    return rows.sum(axis=1)


def carry_dfa(operands: int) -> DFA:
    """The minimal carry automaton of n-ary addition, column by column (least significant first).

    Symbols are (s, d) encoded as 10 s + d, with s in 0..9n a column's digit sum and d the
    claimed digit; state c (the carry, 0..n-1) goes to (s + c) // 10 when (s + c) % 10 = d, else
    to a dead sink; the start and only accepting state is carry 0 (columns with s = 0 at the
    end write out the last carry). Accepts exactly the column words whose claimed digits are
    the sum. Returned minimised: n + 1 states.
    """
    n = check_int(operands, "operands n")
    if n > CARRY_OPERANDS_LIMIT:
        raise InputError(f"carry_dfa builds at most {CARRY_OPERANDS_LIMIT} operands, got {n}")
    budget.check(
        f"the carry automaton of {n}-ary addition ({n + 1} states x {10 * (9 * n + 1)} symbols, "
        f"minimised in up to {n + 1} rounds)",
        *budget.automaton(n + 1, 10 * (9 * n + 1), n + 1),
        "use fewer operands",
    )
    sums = np.arange(9 * n + 1)
    carries = np.arange(n)
    total = carries[:, None] + sums[None, :]  # (carry, s)
    dead = n
    table = np.full((n + 1, 9 * n + 1, 10), dead, dtype=np.int64)
    c, s = np.meshgrid(carries, sums, indexing="ij")
    table[c, s, total % 10] = total // 10
    accepting = np.zeros(n + 1, dtype=bool)
    accepting[0] = True
    names = tuple(f"{a}/{d}" for a in sums for d in range(10))
    return minimize(DFA(table.reshape(n + 1, -1), 0, accepting, names))


def column_word(operands: np.ndarray, claimed: int, columns: int) -> np.ndarray:
    """The carry automaton's input for one sum: ``columns`` symbols 10 s + d, least significant
    column first, s the column's digit sum and d the claimed sum's digit (0 beyond its length)."""
    a = np.asarray(operands, dtype=np.int64).reshape(-1)
    k = check_int(columns, "columns")
    place = 10 ** np.arange(k, dtype=np.int64)
    s = ((a[:, None] // place[None, :]) % 10).sum(axis=0)
    d = (check_int(claimed, "claimed sum", 0) // place) % 10
    return 10 * s + d


__all__ = [
    "DIGITS",
    "DIGITS_MOST",
    "END",
    "EQUALS",
    "PLUS",
    "TOKEN_NAMES",
    "answer_width",
    "carry_dfa",
    "column_word",
    "decode",
    "encode",
    "nary_sum",
]
