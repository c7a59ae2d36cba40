"""i-GSM: answers and depths against an independent evaluation (fixpoint iteration for the
values, networkx longest paths for the depth), seeding, and refusals."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from ccomplexity.errors import InputError
from ccomplexity.languages import igsm


def independent(problem: igsm.Problem) -> tuple[int, int, int]:
    """(answer, depth, operations) without the module's evaluator: values by repeated sweeps
    until every statement is known; depth as the heaviest path into the query in the
    dependency graph, an operation weighing 1 (a source node feeds every operation)."""
    p = problem.modulus
    ops = {
        "+": lambda x, y: (x + y) % p,
        "-": lambda x, y: (x - y) % p,
        "*": lambda x, y: x * y % p,
    }
    value: dict[int, int] = {}
    for _ in problem.statements:
        for s in problem.statements:
            operands = [s.a] if s.b is None else [s.a, s.b]
            if all(kind == "const" or v in value for kind, v in operands):
                got = [value[v] if kind == "var" else v for kind, v in operands]
                value[s.target] = got[0] if s.op is None else ops[s.op](*got)
    graph = nx.DiGraph()
    graph.add_node("source")
    for s in problem.statements:
        graph.add_edge("source", s.target, weight=int(s.op is not None))
        for kind, v in [s.a] if s.b is None else [s.a, s.b]:
            if kind == "var":
                graph.add_edge(v, s.target, weight=1)
    needed = nx.ancestors(graph, problem.query) | {problem.query}
    depth = nx.dag_longest_path_length(graph.subgraph(needed))
    is_op = {s.target: s.op is not None for s in problem.statements}
    return value[problem.query], depth, sum(is_op[v] for v in needed - {"source"})


@pytest.mark.parametrize(
    ("statements", "depth", "modulus"),
    [
        (1, 0, 7),
        (4, 1, 7),
        (6, 2, 7),
        (8, 4, 7),
        (9, 8, 23),
        (20, 5, 23),
        (12, 3, 2),
    ],
)
def test_answers_and_depth_by_independent_evaluation(statements, depth, modulus):
    rng = np.random.default_rng(statements * 100 + depth)
    for _ in range(60):
        problem = igsm.sample_problem(rng, statements, depth, statements + 3, modulus)
        assert len(problem.statements) == statements and problem.depth == depth
        answer, found_depth, operations = independent(problem)
        assert (answer, found_depth) == (problem.answer, depth)
        tokens = igsm.encode(problem, statements + 3)
        assert igsm.solve(tokens, statements + 3, modulus) == {
            "answer": answer,
            "depth": depth,
            "operations": operations,
        }
        assert depth <= operations <= statements


def test_seeded_and_varied():
    def draw(seed):
        rng = np.random.default_rng(seed)
        return [igsm.encode(igsm.sample_problem(rng, 8, 3, 8), 8) for _ in range(5)]

    assert draw(1) == draw(1) and draw(1) != draw(2)
    rng = np.random.default_rng(0)
    answers = [igsm.sample_problem(rng, 8, 2, 8).answer for _ in range(700)]
    assert set(answers) == set(range(7))  # every residue occurs


def test_render_and_syntax():
    rng = np.random.default_rng(5)
    problem = igsm.sample_problem(rng, 3, 1, 3)
    text = igsm.render(igsm.encode(problem, 3), 3, 7)
    assert text.endswith(f"x{problem.query} ?") and text.count(";") == 3
    voc = igsm.Vocabulary(3, 7)
    x0, x1, eq, plus, semi, ask = (
        0,
        1,
        voc.symbol("="),
        voc.symbol("+"),
        voc.symbol(";"),
        voc.symbol("?"),
    )
    four = voc.number(4)
    assert igsm.solve([x0, eq, four, semi, x1, eq, x0, plus, x0, semi, x1, ask], 3, 7) == {
        "answer": 1,
        "depth": 1,
        "operations": 1,
    }


@pytest.mark.parametrize(
    ("tokens", "match"),
    [
        ([0, 10, 7, 14, 0, 10, 8, 14, 0, 15], "defined twice"),
        ([0, 10, 1, 11, 7, 14, 0, 15], "never defined"),
        ([0, 10, 1, 11, 7, 14, 1, 10, 0, 11, 7, 14, 0, 15], "cyclic"),
        ([0, 10, 7, 0, 15], "no ';'"),
        ([0, 10, 7, 7, 14, 0, 15], "malformed"),
        ([0, 10, 7, 14, 0], "query"),
        ([0, 10, 10, 14, 0, 15], "not an operand"),
    ],
)
def test_solve_refuses_bad_problems(tokens, match):
    with pytest.raises(InputError, match=match):
        igsm.solve(tokens, 3, 7)  # tokens: x0..x2, numbers 3..9, = 10, + 11, - 12, * 13, ; 14, ? 15


def test_refusals():
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match="depth \\+ 1"):
        igsm.sample_problem(rng, 3, 3, 8)
    with pytest.raises(InputError, match="depth \\+ 1"):
        igsm.sample_problem(rng, 9, 2, 8)  # more statements than variable names
    with pytest.raises(InputError, match="depth"):
        igsm.sample_problem(rng, 8, 65, 8)
    with pytest.raises(InputError, match="prime"):
        igsm.sample_problem(rng, 8, 2, 8, modulus=9)
    with pytest.raises(InputError, match="modulus"):
        igsm.check_modulus(101)
