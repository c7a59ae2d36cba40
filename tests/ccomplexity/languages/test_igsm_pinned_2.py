"""i-GSM sampler pinned, second file: an operation on two constants has depth exactly 1, so such
a distractor is a valid second operand y_2 of the query's chain step q_2 = q_1 o y_2 (y_k may be
any variable of depth < k); the sampler's depths agree with the solver's."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ccomplexity.languages.igsm import Statement, encode, sample_problem, solve


def _const_const(problem_statements: dict[int, Statement], var: int) -> bool:
    s = problem_statements[var]
    return s.op is not None and s.a[0] == "const" and s.b is not None and s.b[0] == "const"


def test_depth_one_operation_on_constants_can_feed_the_depth_two_query() -> None:
    seen = 0
    for seed in range(40):
        problem = sample_problem(np.random.default_rng(seed), 6, 2, 8)
        by_target = {s.target: s for s in problem.statements}
        q = by_target[problem.query]
        assert q.op is not None and q.b is not None
        assert solve(encode(problem, 8), 8, 7)["depth"] == 2
        for kind, v in (q.a, q.b):
            if kind == "var" and _const_const(by_target, v):
                # q_1 always uses the constant variable q_0, so this operand is y_2: depth 1 < 2
                assert solve(encode(replace(problem, query=v), 8), 8, 7)["depth"] == 1
                seen += 1
    assert seen >= 2  # seeds 0, 11, 25 and 35 below 40 draw such a y_2
