"""i-GSM pinned: the modulus check on every integer of its range, the vocabulary's token numbers
and names at each boundary, the operations mod P against Python, the solver on hand-made DAGs
(operand order, shared operations, depth of constant-only operations), the sampler's limits
at, below and above them, and every refusal's message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import igsm
from ccomplexity.languages.igsm import Problem, Statement, Vocabulary
from tests.ccomplexity.languages.generators import ConstantUniform


def test_modulus_is_a_prime_in_2_to_97() -> None:
    for p in range(2, 98):
        prime = all(p % k for k in range(2, p))
        if prime:
            assert igsm.check_modulus(p) == p
        else:
            with pytest.raises(InputError, match=rf"^modulus must be a prime, got {p}$"):
                igsm.check_modulus(p)
    with pytest.raises(InputError, match=r"^modulus must be an integer in 2\.\.97, got 1$"):
        igsm.check_modulus(1)
    with pytest.raises(InputError, match=r"^modulus 101 exceeds the limit of 97; use a prime"):
        igsm.check_modulus(101)


def test_vocabulary_numbers_symbols_and_names() -> None:
    v = Vocabulary(3, 5)
    assert v.size == 3 + 5 + 6 and igsm.SYMBOLS == ("=", "+", "-", "*", ";", "?")
    assert [v.number(k) for k in (0, 4)] == [3, 7]
    assert [v.symbol(s) for s in igsm.SYMBOLS] == list(range(8, 14))
    names = [v.name(t) for t in range(v.size)]
    assert names == ["x0", "x1", "x2", "0", "1", "2", "3", "4", "=", "+", "-", "*", ";", "?"]
    for bad in (-1, 14):
        with pytest.raises(InputError, match=rf"^i-GSM token {bad} is outside 0\.\.13$"):
            v.name(bad)


def test_operations_mod_p() -> None:
    for p in (2, 7):
        for x in range(p):
            for y in range(p):
                assert igsm._apply("+", x, y, p) == (x + y) % p
                assert igsm._apply("-", x, y, p) == (x - y) % p
                assert igsm._apply("*", x, y, p) == (x * y) % p


def tok(text: str, variables: int = 4, modulus: int = 7) -> list[int]:
    """'x0 = 3 ; x1 = x0 - 5 ; x1 ?' as tokens."""
    v = Vocabulary(variables, modulus)
    out = []
    for word in text.split():
        if word.startswith("x"):
            out.append(int(word[1:]))
        elif word.isdigit():
            out.append(v.number(int(word)))
        else:
            out.append(v.symbol(word))
    return out


@pytest.mark.parametrize(
    ("text", "answer", "depth", "operations"),
    [
        ("x0 = 3 ; x0 ?", 3, 0, 0),
        ("x0 = 1 ; x1 = x0 - 3 ; x1 ?", 5, 1, 1),
        ("x0 = 1 ; x1 = 3 - x0 ; x1 ?", 2, 1, 1),
        ("x1 = 3 * 4 ; x1 ?", 5, 1, 1),  # only constants: still one operation deep
        ("x2 = x1 * x1 ; x1 = x0 + x0 ; x0 = 3 ; x2 ?", 1, 2, 2),  # any order
        ("x0 = 2 ; x1 = x0 + 1 ; x2 = x0 * 2 ; x3 = x1 - x2 ; x3 ?", 6, 2, 3),
        ("x0 = 2 ; x1 = x0 + 1 ; x2 = x1 * 2 ; x3 = x1 - 6 ; x3 ?", 4, 2, 2),
        ("x0 = 2 ; x1 = x0 + 1 ; x2 = x1 * 2 ; x3 = x2 - x1 ; x3 ?", 3, 3, 3),
        ("x0 = 6 ; x1 = x0 + 1 ; x0 ?", 6, 0, 0),
    ],
)
def test_solver_on_hand_made_problems(text: str, answer: int, depth: int, operations: int) -> None:
    got = igsm.solve(tok(text), 4, 7)
    assert got == {"answer": answer, "depth": depth, "operations": operations}


def test_parse_operands_at_their_ends() -> None:
    v = Vocabulary(3, 7)
    eq, semi, ask, plus = v.symbol("="), v.symbol(";"), v.symbol("?"), v.symbol("+")
    stmts, query = igsm.parse([2, eq, 3, plus, 9, semi, 2, ask], 3, 7)
    assert query == 2
    assert stmts == [Statement(2, "+", ("const", 0), ("const", 6))]
    stmts, _ = igsm.parse([0, eq, 2, semi, 0, ask], 3, 7)
    assert stmts == [Statement(0, None, ("var", 2))]
    with pytest.raises(InputError, match=r"^i-GSM: token 10 is not an operand$"):
        igsm.parse([0, eq, 10, semi, 0, ask], 3, 7)  # 10 is '='
    with pytest.raises(InputError, match=r"^i-GSM: token -1 is not an operand$"):
        igsm.parse([0, eq, -1, semi, 0, ask], 3, 7)
    end = r"^an i-GSM problem ends with a query 'x \?'$"
    for bad in ([ask], [3, ask], [-1, ask], [0, semi], []):
        with pytest.raises(InputError, match=end):
            igsm.parse(bad, 3, 7)
    assert igsm.parse([2, ask], 3, 7) == ([], 2)
    malformed = r"^i-GSM: malformed statement at token 4$"
    for part in (
        [3, eq, 4],
        [0, plus, 4],
        [0, eq, 4, plus],
        [0, eq, 4, eq, 5],
        [3, eq, 4, plus, 5],
    ):
        with pytest.raises(InputError, match=malformed):
            igsm.parse([0, eq, 4, semi, *part, semi, 0, ask], 3, 7)
    with pytest.raises(InputError, match=r"^i-GSM statement at token 4 has no ';'$"):
        igsm.parse([0, eq, 4, semi, 1, eq, 4, 0, ask], 3, 7)


def test_solve_refusals() -> None:
    with pytest.raises(InputError, match=r"^i-GSM: variable x0 is defined twice$"):
        igsm.solve(tok("x0 = 1 ; x0 = 2 ; x0 ?"), 4, 7)
    with pytest.raises(InputError, match=r"^i-GSM: variable x3 is used but never defined$"):
        igsm.solve(tok("x0 = x3 + 1 ; x0 ?"), 4, 7)
    with pytest.raises(InputError, match=r"^i-GSM: variable x2 is used but never defined$"):
        igsm.solve(tok("x0 = 1 ; x2 ?"), 4, 7)
    with pytest.raises(InputError, match=r"^i-GSM: the definitions are cyclic$"):
        igsm.solve(tok("x0 = x1 + 1 ; x1 = x0 * 2 ; x0 ?"), 4, 7)
    with pytest.raises(InputError, match=r"^modulus must be a prime, got 6$"):
        igsm.solve(tok("x0 = 1 ; x0 ?"), 4, 6)


def test_encode_and_render_exactly() -> None:
    problem = Problem(
        (Statement(1, None, ("const", 4)), Statement(0, "*", ("var", 1), ("const", 2))),
        query=0,
        answer=1,
        depth=1,
        modulus=7,
    )
    tokens = igsm.encode(problem, 2)
    assert tokens == [1, 9, 6, 13, 0, 9, 1, 12, 4, 13, 0, 14]
    assert igsm.render(tokens, 2, 7) == "x1 = 4 ; x0 = x1 * 2 ; x0 ?"
    assert igsm.solve(tokens, 2, 7) == {"answer": 1, "depth": 1, "operations": 1}


def test_sampler_limits_at_and_beyond() -> None:
    rng = np.random.default_rng(0)
    assert len(igsm.sample_problem(rng, 4, 3, 4).statements) == 4  # n = d + 1 = variables
    assert igsm.sample_problem(rng, 1, 0, 1).depth == 0
    assert igsm.sample_problem(rng, 65, 64, 65, modulus=2).depth == 64
    with pytest.raises(
        InputError,
        match=r"^i-GSM: statements must lie in depth \+ 1 = 4\.\.8 \(the variables\), got 3$",
    ):
        igsm.sample_problem(rng, 3, 3, 8)
    with pytest.raises(InputError, match=r"depth \+ 1 = 3\.\.8 \(the variables\), got 9$"):
        igsm.sample_problem(rng, 9, 2, 8)
    with pytest.raises(InputError, match=r"^depth 65 exceeds the limit of 64"):
        igsm.sample_problem(rng, 70, 65, 70)
    with pytest.raises(InputError, match=r"^depth must be an integer in 0\.\.64, got -1$"):
        igsm.sample_problem(rng, 3, -1, 8)
    with pytest.raises(InputError, match=r"^statements 513 exceeds the limit of 512"):
        igsm.sample_problem(rng, 513, 2, 600)
    with pytest.raises(InputError, match=r"^statements must be an integer in 1\.\.512, got 0$"):
        igsm.sample_problem(rng, 0, 0, 8)
    with pytest.raises(InputError, match=r"^modulus must be a prime, got 9$"):
        igsm.sample_problem(rng, 3, 1, 8, modulus=9)


def test_sampler_law() -> None:
    rng = np.random.default_rng(1)
    ops: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    names: Counter[int] = Counter()
    first: Counter[int] = Counter()
    const_operands = query_one_const = query_const_first = 0
    for _ in range(600):
        problem = igsm.sample_problem(rng, 6, 2, 9)
        targets = [s.target for s in problem.statements]
        assert len(set(targets)) == 6 and problem.query in targets
        names.update(targets)
        first[0 if problem.statements[0].op is None else 1] += 1
        for s in problem.statements:
            kinds["const" if s.op is None else "op"] += 1
            if s.op is not None:
                ops[s.op] += 1
                assert s.b is not None
                for kind, value in (s.a, s.b):
                    assert 0 <= value < (9 if kind == "var" else 7)
                    const_operands += kind == "const"
                if s.target == problem.query and (s.a[0] == "const") != (s.b[0] == "const"):
                    query_one_const += 1
                    query_const_first += s.a[0] == "const"
            else:
                assert s.a[0] == "const" and 0 <= s.a[1] < 7
    assert set(ops) == {"+", "-", "*"} and min(ops.values()) > 0.28 * sum(ops.values())
    assert min(names.values()) > 0.7 * 600 * 6 / 9  # names uniform over the 9
    assert first[0] > 100 and first[1] > 100  # shuffled: the first shown is not always a constant
    # q_0 is a constant; a statement off the chain is one when it comes first (no variable yet)
    # or else with probability 1/3: n = 6, d = 2 expects 1 + 3/6 + (3 * 5/6)/3 = 7/3 per problem
    assert abs(kinds["const"] / 600 - 7 / 3) < 0.12
    assert const_operands > 200  # operations read constants as well as variables
    assert 0.4 < query_const_first / query_one_const < 0.6  # operand order uniform


def test_sampler_constant_rate_over_many_problems() -> None:
    rng = np.random.default_rng(2)
    consts = sum(
        s.op is None for _ in range(1500) for s in igsm.sample_problem(rng, 6, 2, 6).statements
    )
    assert abs(consts / 1500 - 7 / 3) < 0.06  # 2/3 would give 19/6, 1/4 would give 17/8


def kinds(problem: Problem) -> list[tuple[str | None, str, str | None]]:
    return [(s.op and "op", s.a[0], s.b and s.b[0]) for s in problem.statements]


@pytest.mark.parametrize("seed", range(4))
def test_sampler_coin_boundaries_one_half_and_one_third(seed: int) -> None:
    # u < 1/2: an operand is a variable (when one is known), and the chain's variable comes
    # first; u < 1/3: a distractor is a constant. Each coin is strict at its bound.
    below_half = float(np.nextafter(0.5, 0.0))
    below_third = float(np.nextafter(1 / 3, 0.0))
    d = 2
    at_third = igsm.sample_problem(ConstantUniform(1 / 3, seed), 8, d, 8)
    ops = [k for k in kinds(at_third) if k[0] == "op"]
    assert len(ops) >= 6 and all(k == ("op", "var", "var") for k in ops)  # no constant distractor
    under_third = igsm.sample_problem(ConstantUniform(below_third, seed), 8, d, 8)
    assert sorted(kinds(under_third), key=str) == [("op", "var", "var")] * d + [
        (None, "const", None)
    ] * (8 - d)  # only the chain's steps are operations, on variables
    at_half = igsm.sample_problem(ConstantUniform(0.5, seed), 8, d, 8)
    chain_steps = [s for s in at_half.statements if s.op and s.b and s.b[0] == "var"]
    assert len(chain_steps) == d  # the constant operand first, the chain's variable second
    assert all(s.a[0] == "const" for s in at_half.statements)
    under_half = igsm.sample_problem(ConstantUniform(below_half, seed), 8, d, 8)
    ops = [k for k in kinds(under_half) if k[0] == "op"]
    assert len(ops) >= 6 and all(k == ("op", "var", "var") for k in ops)
