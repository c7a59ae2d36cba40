"""i-GSM: symbolic grade-school math (looped-reasoning Sec. 2.1, App. A.1; after Ye et al. 2024,
"Physics of language models: Part 2.1").

A problem is N statements over distinct variables, each either a constant ``x = c`` or one
operation ``x = a o b`` (o in +, -, *; a, b a variable defined by another statement or a
constant), all modulo a prime P, listed in random order, then a query ``q ?`` whose answer is
the value of q mod P. The dependencies form a DAG. The *depth* of a variable is 0 for a
constant and 1 + the largest depth of its variable operands otherwise: the number of
operations on the longest path of the dependency graph that ends at the variable, i.e. how many
operations must run one after the other to compute it. The query has exactly the depth asked;
``operations`` counts every operation the query needs (Ye et al.'s "op"), on or off that path.

Tokens for V variable names and modulus P: variables 0..V-1, numbers V..V+P-1, then ``=``,
``+``, ``-``, ``*``, ``;`` and ``?``. A constant statement is ``x = c ;`` (4 tokens), an
operation ``x = a o b ;`` (6).

The paper gives the generator in outline only (a depth-4 entity hierarchy, a structure graph
whose edges are the instance parameters, a dependency DAG over them, a query, mod 7) and defers
the rest to Ye et al.; its example problem and the token syntax are lost from the text. Decided
here, and why:

* modulus P = 7 by default, the paper's (chance 1/7 = 14%); Ye et al.'s 23 is an option. A small
  P keeps the operation tables (P^2 entries per operation) learnable by small models.
* no entity hierarchy or structure graph: in a symbolic problem without English they only name
  the parameters, so a variable is one token with a name drawn at random per problem;
  the dependency DAG, which carries all the arithmetic, is kept (no abstract parameters, as the
  paper).
* one binary operation per statement (+, -, * uniformly), where Ye et al. let a parameter be a
  sum or product of several: depth then counts operations exactly.
* depth is the asked coordinate (the paper's "depth" of the graph), with the distractors (the
  statements off the query's path, some of them deeper than the query) defined from constants
  and earlier variables; the statements are shuffled, as Ye et al. shuffle the sentences, so the
  order gives no hint of the dependency order.

Answers are not uniform: a product with a factor 0 is 0 whatever the other factor, so at P = 7
with N = 6 statements about a quarter of the answers are 0 (24.6% at depth 1, 27.8% at depth 4),
the floor a model reaches by always answering 0, above the paper's chance level 1/7. At P = 23
the answer 0 falls to 13-15%.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter

import numpy as np

from ccomplexity import limits
from ccomplexity.errors import InputError

OPERATIONS = ("+", "-", "*")
SYMBOLS = ("=", *OPERATIONS, ";", "?")


def check_modulus(modulus: object) -> int:
    """``modulus`` as an int if it is a prime within :data:`~ccomplexity.limits.MODULUS`."""
    p = limits.MODULUS.check(modulus, "modulus")
    if any(p % k == 0 for k in range(2, math.isqrt(p) + 1)):
        raise InputError(f"modulus must be a prime, got {p}")
    return p


@dataclass(frozen=True)
class Vocabulary:
    """Token numbers of problems over ``variables`` names modulo ``modulus``."""

    variables: int
    modulus: int

    def number(self, value: int) -> int:
        return self.variables + value

    def symbol(self, name: str) -> int:
        return self.variables + self.modulus + SYMBOLS.index(name)

    @property
    def size(self) -> int:
        return self.variables + self.modulus + len(SYMBOLS)

    def name(self, token: int) -> str:
        if not 0 <= token < self.size:
            raise InputError(f"i-GSM token {token} is outside 0..{self.size - 1}")
        if token < self.variables:
            return f"x{token}"
        if token < self.variables + self.modulus:
            return str(token - self.variables)
        return SYMBOLS[token - self.variables - self.modulus]


Operand = tuple[str, int]
"""("var", name) or ("const", value)."""


@dataclass(frozen=True)
class Statement:
    target: int
    op: str | None  # None: the constant a[1]
    a: Operand
    b: Operand | None = None


@dataclass(frozen=True)
class Problem:
    """Statements in display order, the query variable, its value and depth."""

    statements: tuple[Statement, ...]
    query: int
    answer: int
    depth: int
    modulus: int


def _apply(op: str, x: int, y: int, modulus: int) -> int:
    if op == "+":
        return (x + y) % modulus
    if op == "-":
        return (x - y) % modulus
    return (x * y) % modulus


def sample_problem(
    rng: np.random.Generator, statements: int, depth: int, variables: int, modulus: int = 7
) -> Problem:
    """A random problem of ``statements`` statements whose query has exactly ``depth``.

    The query's chain q_0 (a constant), q_k = q_{k-1} o y_k (y_k a constant or a variable of
    depth < k, operands in random order) is placed among distractors in a random topological
    order, then the statements are shuffled."""
    n = limits.STATEMENTS.check(statements, "statements")
    d = limits.IGSM_DEPTH.check(depth, "depth")
    p = check_modulus(modulus)
    if not d + 1 <= n <= variables:
        raise InputError(
            f"i-GSM: statements must lie in depth + 1 = {d + 1}..{variables} (the variables), "
            f"got {n}"
        )
    names = [int(v) for v in rng.permutation(variables)[:n]]
    chain_at = set(rng.choice(n, d + 1, replace=False).tolist())
    chain: list[int] = []  # q_0 .. q_d as they are defined
    made: list[Statement] = []
    depth_of: dict[int, int] = {}
    value_of: dict[int, int] = {}

    def const() -> Operand:
        return ("const", int(rng.integers(p)))

    def variable_or_const(pool: list[int]) -> Operand:
        return ("var", int(rng.choice(pool))) if pool and rng.random() < 0.5 else const()

    def op() -> str:
        return OPERATIONS[int(rng.integers(len(OPERATIONS)))]

    for k, x in enumerate(names):
        if k in chain_at and chain:  # q_k = q_{k-1} o y_k, y_k of depth < k
            shallow = [v for v in value_of if depth_of[v] < len(chain)]
            a, b = ("var", chain[-1]), variable_or_const(shallow)
            made.append(Statement(x, op(), *((a, b) if rng.random() < 0.5 else (b, a))))
        elif k in chain_at or not value_of or rng.random() < 1 / 3:
            made.append(Statement(x, None, const()))
        else:  # a distractor: any operation on earlier variables and constants
            known = list(value_of)
            made.append(Statement(x, op(), variable_or_const(known), variable_or_const(known)))
        if k in chain_at:
            chain.append(x)
        s = made[-1]
        operands = [s.a] if s.b is None else [s.a, s.b]
        vals = [value_of[v] if kind == "var" else v for kind, v in operands]
        value_of[x] = vals[0] if s.op is None else _apply(s.op, vals[0], vals[1], p)
        below = [depth_of[v] for kind, v in operands if kind == "var"]
        depth_of[x] = 0 if s.op is None else 1 + max(below, default=0)
    query = chain[-1]
    if depth_of[query] != d:
        raise RuntimeError("i-GSM generator: the query's depth differs from the plan")
    shown = tuple(made[i] for i in rng.permutation(n))
    return Problem(shown, query, value_of[query], d, p)


def encode(problem: Problem, variables: int) -> list[int]:
    """The problem as tokens (statements, then ``q ?``)."""
    voc = Vocabulary(variables, problem.modulus)

    def operand(o: Operand) -> int:
        return o[1] if o[0] == "var" else voc.number(o[1])

    tokens: list[int] = []
    for s in problem.statements:
        tokens += [s.target, voc.symbol("=")]
        if s.op is None:
            tokens.append(operand(s.a))
        else:
            assert s.b is not None
            tokens += [operand(s.a), voc.symbol(s.op), operand(s.b)]
        tokens.append(voc.symbol(";"))
    return [*tokens, problem.query, voc.symbol("?")]


def parse(tokens: list[int], variables: int, modulus: int) -> tuple[list[Statement], int]:
    """(statements, query) of a token problem; InputError names the first syntax problem."""
    voc = Vocabulary(variables, modulus)
    semi, eq, ask = voc.symbol(";"), voc.symbol("="), voc.symbol("?")
    ops = {voc.symbol(o): o for o in OPERATIONS}
    if len(tokens) < 2 or tokens[-1] != ask or not 0 <= tokens[-2] < variables:
        raise InputError("an i-GSM problem ends with a query 'x ?'")
    out: list[Statement] = []
    start = 0
    body = tokens[:-2]
    while start < len(body):
        try:
            end = body.index(semi, start)
        except ValueError:
            raise InputError(f"i-GSM statement at token {start} has no ';'") from None
        part = body[start:end]

        def operand(t: int) -> Operand:
            if 0 <= t < variables:
                return ("var", t)
            if variables <= t < variables + modulus:
                return ("const", t - variables)
            raise InputError(f"i-GSM: token {t} is not an operand")

        if len(part) == 3 and part[1] == eq and 0 <= part[0] < variables:
            out.append(Statement(part[0], None, operand(part[2])))
        elif len(part) == 5 and part[1] == eq and part[3] in ops and 0 <= part[0] < variables:
            out.append(Statement(part[0], ops[part[3]], operand(part[2]), operand(part[4])))
        else:
            raise InputError(f"i-GSM: malformed statement at token {start}")
        start = end + 1
    return out, tokens[-2]


def solve(tokens: list[int], variables: int, modulus: int) -> dict[str, int]:
    """The query's value, depth and number of needed operations, by evaluating the parsed
    statements in a topological order of their dependency graph. InputError for a variable
    defined twice, used but never defined, or a cycle."""
    p = check_modulus(modulus)
    statements, query = parse(tokens, variables, p)
    by_target: dict[int, Statement] = {}
    for s in statements:
        if s.target in by_target:
            raise InputError(f"i-GSM: variable x{s.target} is defined twice")
        by_target[s.target] = s

    def uses(s: Statement) -> list[int]:
        ops = [s.a] if s.b is None else [s.a, s.b]
        return [v for kind, v in ops if kind == "var"]

    for s in statements:
        for v in [*uses(s), query]:
            if v not in by_target:
                raise InputError(f"i-GSM: variable x{v} is used but never defined")
    try:
        order = list(TopologicalSorter({x: uses(s) for x, s in by_target.items()}).static_order())
    except CycleError:
        raise InputError("i-GSM: the definitions are cyclic") from None
    value: dict[int, int] = {}
    depth: dict[int, int] = {}
    needed: dict[int, frozenset[int]] = {}  # the operation statements each variable needs
    for x in order:
        s = by_target[x]
        vals = [
            value[v] if kind == "var" else v for kind, v in ([s.a] if s.b is None else [s.a, s.b])
        ]
        if s.op is None:
            value[x], depth[x], needed[x] = vals[0], 0, frozenset()
        else:
            value[x] = _apply(s.op, vals[0], vals[1], p)
            depth[x] = 1 + max((depth[v] for v in uses(s)), default=0)
            needed[x] = frozenset({x}).union(*(needed[v] for v in uses(s)))
    return {"answer": value[query], "depth": depth[query], "operations": len(needed[query])}


def render(tokens: list[int], variables: int, modulus: int) -> str:
    """Tokens as text: ``x3 = 4 ; x0 = x3 * 2 ; x0 ?``."""
    voc = Vocabulary(variables, modulus)
    return " ".join(voc.name(t) for t in tokens)


__all__ = [
    "OPERATIONS",
    "Problem",
    "Statement",
    "Vocabulary",
    "check_modulus",
    "encode",
    "parse",
    "render",
    "sample_problem",
    "solve",
]
