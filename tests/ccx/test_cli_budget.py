"""Every command within the budget: in-range values complete or refuse in one line (exit 2),
within 30 s and a 4 GiB address space, never a traceback.

A few drawn cases run here (each a fresh ``python -m ccx`` process, so the suite stays fast);
``python benchmarks/hostile_inputs.py`` draws many over every family of
:mod:`tests.ccx.budget_cases` and records the counts, the slowest and the largest.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.ccx.budget_cases import cases, run_case

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc: Linux")


@pytest.mark.parametrize(
    "argv",
    [
        "dyck count --types 2 --depth 2 --length 1048576 --json",
        "cc exact --problem index --length 1048576",
        # 1,023 witness columns, each telling one row apart (was 39 s and 1.1 GiB)
        "kg split --json --entities 1024 --relations 1 --hops 64 --cut 1 --seed 19326",
        # 164 million tokens of text: refused at once (was 57 s and 3.7 GiB)
        "kg sample --json --entities 215 --relations 215 --hops 4096 --seed 2 --batch 10000",
    ],
)
def test_the_issue_cases_end_within_the_limits(argv):
    outcome = run_case(argv.split())
    assert outcome.problem() is None, outcome
    if argv.startswith("cc exact"):
        assert outcome.code == 2


@settings(
    max_examples=3,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases(torch=False))
def test_in_range_values_complete_or_refuse_in_one_line(argv):
    outcome = run_case(argv)
    assert outcome.problem() is None, outcome
